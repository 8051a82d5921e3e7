# {{ banner[0] }}
# {{ banner[1] }}
#
# Clocks of the user logic for out-of-context synthesis.
{% for c in clocks %}
create_clock -period {{ c.period }} -name {{ c.name }} [get_ports {{ c.name }}]{% endfor %}
{% if let Some(x) = cdc %}
# Register-file crossing (docs/register_file.md, "Implementation constraints").
# The two clocks are not put in asynchronous groups: a clock group would override
# the max delays below, and any other path between them should show up in timing.
# Synchroniser flip-flops (registers u_core/u_req_sync/ff1_reg ... of the register file):{% for c in x.vivado_sync %}
set_property ASYNC_REG TRUE [get_cells -hierarchical -filter {{ c }}]{% endfor %}
# Held values, stable while the other domain samples them: at most one destination period.{% for c in x.crossings %}
# {{ c.what }}
set_max_delay -datapath_only -from [get_cells -hierarchical -filter {{ c.vivado_cells }}] -to [get_clocks {{ c.clock }}] {{ c.period }}{% endfor %}
{% endif %}{% if cdc.is_none() && clocks.len() > 1 %}
# The clocks are independent: every crossing goes through a synchroniser in
# the RTL, so no path between them is timed.
set_clock_groups -asynchronous{% for c in clocks %} -group [get_clocks {{ c.name }}]{% endfor %}
{% endif %}
