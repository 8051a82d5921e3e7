{%- match engine %}
{%- when Some with (e) %}
// The design's top: the register file, {{ sessions }} session(s) of {{ data_width }}-bit data and
// the open TCP offload engine ({{ e.module }}), whose network port is the MAC's.
//
//   AXI4-Lite (s_axil_*, s_axil_aclk) --> {{ regs_module }} --> s<n>_* nets --> {{ session_module }} x{{ sessions }} --> toe<n>_* nets
//                                          \--> toe_*, net_* nets                                                 |
//   mac_rx_* (frames from the MAC) --> {{ e.module }} <------------------------------------------------------------------+
//                                     {{ e.module }} --> mac_tx_* (frames to the MAC)
{%- when None %}
// The user-logic top: the register file and {{ sessions }} session(s) of {{ data_width }}-bit data.
//
//   AXI4-Lite (s_axil_*, s_axil_aclk) --> {{ regs_module }} --> s<n>_* nets --> {{ session_module }} x{{ sessions }} --> toe<n>_* (TOE session interface)
//                                          \--> toe_* (TOE parameters, init)
{%- endmatch %}
//
// Nets named unused_* carry register-file outputs this design does not consume
// (Verilator's lint skips names matching *unused*).
module {{ name }} (
{%- include "port_groups.v" %}
);
{% for w in wires %}
    wire {{ w.range }}{{ w.name }};
{%- endfor %}

    {{ regs_module }} u_regs (
{%- for c in regs_conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );
{% for inst in units %}
    {{ session_module }} u_session{{ inst.index }} (
{%- for c in inst.conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );
{% endfor %}
{%- if let Some(e) = engine %}
    {{ e.module }} u_toe (
{%- for c in e.conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );
{% endif %}
endmodule
