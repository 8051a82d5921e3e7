// Test harness, not part of the product: {{ sessions.len() }} session datapath(s) of
// {{ data_width }}-bit data with plain ports, so the testbench can drive the
// generator, verifier and rate limiters without a TOE or registers.
// Session n's ports are s<n>_<port of {{ session_module }}>.
module {{ name }} (
    // User clock domain
    input  wire user_clk,
    input  wire user_rst{% for s in sessions %}{% for p in ports %},{% if loop.first %}
    // Session {{ s }}{% endif %}
    {{ p.direction }} wire {{ p.range }}s{{ s }}_{{ p.name }}{% endfor %}{% endfor %}
);
{% for s in sessions %}
    {{ session_module }} session{{ s }} (
        .clock(user_clk),
        .reset(user_rst){% for p in ports %},
        .{{ p.name }}(s{{ s }}_{{ p.name }}){% endfor %}
    );
{% endfor %}
endmodule
