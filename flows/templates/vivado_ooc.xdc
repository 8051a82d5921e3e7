# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of the user logic for out-of-context synthesis.
{% for c in clocks %}
create_clock -period {{ c.period }} -name {{ c.name }} [get_ports {{ c.name }}]{% endfor %}
{% if clocks.len() > 1 %}
# The clocks are independent: every crossing goes through a synchroniser in
# the RTL, so no path between them is timed.
set_clock_groups -asynchronous{% for c in clocks %} -group [get_clocks {{ c.name }}]{% endfor %}
{% endif %}
