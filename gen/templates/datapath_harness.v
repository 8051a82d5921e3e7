// Test harness, not part of the product: {{ sessions }} session datapath(s) of
// {{ data_width }}-bit data with plain ports, so the testbench can drive the
// generator, verifier and rate limiters without a TOE or registers.
// Session n's ports are s<n>_<port of {{ session_module }}>.
module {{ name }} (
{%- include "port_groups.v" %}
);
{%- if !registered.is_empty() %}

    // Inputs the product drives from flip-flops (the register file's TX
    // prefix bank, the latency modes' settings), registered here as the
    // product does.
{%- for r in registered %}
    reg {{ r.reg.range }}{{ r.reg.name }};
{%- endfor %}

    always @(posedge user_clk) begin
{%- for r in registered %}
        {{ r.reg.name }} <= {{ r.input }};
{%- endfor %}
    end
{%- endif %}
{% for inst in units %}
    {{ session_module }} session{{ inst.index }} (
{%- for c in inst.conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );
{% endfor %}
endmodule
