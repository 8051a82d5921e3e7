# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of {{ board_desc }} ({{ board_file }}) and the clock-domain
# crossings of the user logic, for the board top `{{ board_top_plain }}`.

set_time_format -unit ns -decimal_places 3

create_clock -name {{ free.name }} -period {{ free.period }} [get_ports {{ free.port_p }}]
create_clock -name {{ refclk.name }} -period {{ refclk.period }} [get_ports {{ refclk.port_p }}]
{% if jtag %}
# JTAG (the register path's JTAG-to-Avalon bridge), 24 MHz as the board's SDC gives it
create_clock -name {altera_reserved_tck} -period 41.667 [get_ports {altera_reserved_tck}]
{% endif %}
derive_clock_uncertainty

# Board clocks are unrelated (separate sources or unrelated frequencies): logic that
# crosses between their domains synchronises, so no path between them is timed.
set_clock_groups -asynchronous{% for c in board_clocks %} -group [get_clocks {{ c }}]{% endfor %}

# Clock-domain crossings inside the user logic: its clocks are independent and
# every crossing goes through a synchroniser in the RTL. The board top's PLL
# outputs that drive these ports carry the ports' names (see README.md).
set_clock_groups -asynchronous{% for c in user_clocks %} -group [get_clocks {{ c }}]{% endfor %}
