# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of the user logic for out-of-context synthesis.

set_time_format -unit ns -decimal_places 3
{% for c in clocks %}
create_clock -name {{ c.name }} -period {{ c.period }} [get_ports {{ c.name }}]{% endfor %}

derive_clock_uncertainty
{% if let Some(x) = cdc %}
# Register-file crossing (docs/register_file.md, "Implementation constraints").
# The two clocks are not put in asynchronous groups: a clock group would override
# the max delays below. Held values, stable while the other domain samples them:
# setup within one destination period, no hold check (Quartus has no -datapath_only).{% for c in x.crossings %}
# {{ c.what }}{% for r in c.quartus_regs %}
set_max_delay -from [get_registers {{ r }}] -to [get_clocks {{ c.clock }}] {{ c.period }}
set_false_path -hold -from [get_registers {{ r }}] -to [get_clocks {{ c.clock }}]{% endfor %}{% endfor %}
{% endif %}{% if cdc.is_none() && clocks.len() > 1 %}
# The clocks are independent: every crossing goes through a synchroniser in
# the RTL, so no path between them is timed.
set_clock_groups -asynchronous{% for c in clocks %} -group [get_clocks {{ c.name }}]{% endfor %}
{% endif %}
