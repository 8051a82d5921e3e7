// The open engine (toe.core = "open", docs/open_engine.md), part 1: the network
// node for {{ data_width }}-bit frames (MTU {{ mtu }}), a counter for each of its events,
// and {{ sessions }} session(s) that refuse every open: there is no TCP yet.
//
//   mac_rx_* --> u_node --> mac_tx_*
//   toe_* (parameters, init), net_arp_* --> u_node --> toe_init_done, net_target_known, net_arp_failed, net_resolved_mac
//   u_node event_* --> u_count_* --> net_* (the register file's net block)
//   toe<n>_conn_req_* --> u_refuse<n> --> toe<n>_conn_req_ready, toe<n>_conn_error
module {{ name }} (
{%- include "port_groups.v" %}
);
{% for w in wires %}
    wire {{ w.range }}{{ w.name }};
{%- endfor %}
{% for inst in instances %}
    // {{ inst.comment }}
    {{ inst.module }} {{ inst.name }} (
{%- for c in inst.conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );
{% endfor %}
    // No TCP yet: no connection, no data either way.
{%- for t in ties %}
    assign {{ t.name }} = {{ t.width }}'d0;
{%- endfor %}

    // What only TCP (part 2) will use: the TCP parameters, the other fields
    // of a connection request, the data the sessions offer, their RX ready.
    wire [{{ unused_width - 1 }}:0] unused_tcp_inputs;
    assign unused_tcp_inputs = {
{%- for u in unused %}
        {{ u }}{% if !loop.last %},{% endif %}
{%- endfor %}
    };
endmodule
