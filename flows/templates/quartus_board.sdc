# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of {{ pins.board_desc }} ({{ pins.board_file }}) and the clock-domain
# crossings of the user logic, for the board top `{{ pins.board_top_plain }}`.

set_time_format -unit ns -decimal_places 3

create_clock -name {{ pins.free.name }} -period {{ pins.free.period }} [get_ports {{ pins.free.port_p }}]
create_clock -name {{ pins.refclk.name }} -period {{ pins.refclk.period }} [get_ports {{ pins.refclk.port_p }}]
{% if jtag %}
# JTAG (the register path's JTAG-to-Avalon bridge), 24 MHz as the board's SDC gives it
create_clock -name {altera_reserved_tck} -period 41.667 [get_ports {altera_reserved_tck}]
{% endif %}
derive_clock_uncertainty

# Board clocks are unrelated (separate sources or unrelated frequencies): logic that
# crosses between their domains synchronises, so no path between them is timed.
set_clock_groups -asynchronous{% for c in board_clocks %} -group [get_clocks {{ c }}]{% endfor %}

# The platform's PLL outputs that drive the user-logic clock ports carry the ports'
# names (create_generated_clock -name <port>, see README.md).{% if let Some(x) = cdc %}
# Register-file crossing inside the user logic (docs/register_file.md, "Implementation constraints").
# The two clocks are not put in asynchronous groups: a clock group would override
# the max delays below. Held values, stable while the other domain samples them:
# setup within one destination period, no hold check (Quartus has no -datapath_only).{% for c in x.crossings %}
# {{ c.what }}{% for r in c.quartus_regs %}
set_max_delay -from [get_registers {{ r }}] -to [get_clocks {{ c.clock }}] {{ c.period }}
set_false_path -hold -from [get_registers {{ r }}] -to [get_clocks {{ c.clock }}]{% endfor %}{% endfor %}
{% else %}
# Clock-domain crossings inside the user logic: its clocks are independent and
# every crossing goes through a synchroniser in the RTL.
set_clock_groups -asynchronous{% for c in user_clocks %} -group [get_clocks {{ c }}]{% endfor %}
{% endif %}
