# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of the user logic for out-of-context synthesis.

set_time_format -unit ns -decimal_places 3
{% for c in clocks %}
create_clock -name {{ c.name }} -period {{ c.period }} [get_ports {{ c.name }}]{% endfor %}

derive_clock_uncertainty
{% if clocks.len() > 1 %}
# The clocks are independent: every crossing goes through a synchroniser in
# the RTL, so no path between them is timed.
set_clock_groups -asynchronous{% for c in clocks %} -group [get_clocks {{ c.name }}]{% endfor %}
{% endif %}
