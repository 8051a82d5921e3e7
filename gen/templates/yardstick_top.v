// Yardstick loopback wrapper: a testbench artefact, not part of the product.
// One {{ data_width }}-bit session datapath ({{ datapath }}) with its TX stream
// looped into its RX stream through one register stage, behind the port list
// of the yardstick's `top` (../shared/yardstick/README.md).
//
// - A rising edge of `en` starts one endless transfer: {{ transfer_bytes }} bytes
//   in {{ packet_bytes }}-byte packets, incremental pattern, verified; TX at `pct` %,
//   RX at 100 %. `rst` and `pct` reach the datapath through a register each,
//   as in the product: there its reset comes from the platform's reset
//   synchroniser and its percent from the session's latched test parameters.
// - `seed` is not used: the pattern starts at word 0.
// - While `inject` is high, data bit {{ inject_bit }} is flipped on its way into the
//   loop register.
// - `err` is the verifier's sticky error flag; `err_cnt` is its error count
//   XOR every other status output of the datapath, 32 bits at a time, so none
//   of them is pruned{% if !record_live %} (except the first-error record, left unconnected
//   so that its logic is pruned){% endif %}.
// - `tx_beats` / `rx_beats` are the datapath's byte counters over the
//   {{ beat_bytes }} bytes of a beat (every beat of the transfer is full).
module {{ name }} (
{%- for p in ports %}
    {{ p }}{% if !loop.last %},{% endif %}
{%- endfor %}
);

    // The datapath's reset and TX percent, registered.
    reg rst_reg;
    reg [6:0] pct_reg;
    always @(posedge clk) begin
        rst_reg <= rst;
        pct_reg <= pct;
    end

    // The start pulse: one cycle, on the rising edge of `en`.
    reg en_reg;
    reg start_reg;
    always @(posedge clk) begin
        if (rst) begin
            en_reg <= 1'b0;
            start_reg <= 1'b0;
        end else begin
            en_reg <= en;
            start_reg <= en && !en_reg;
        end
    end

    // The datapath's outputs.
{%- for w in outputs %}
    wire {{ w.range }}{{ w.name }};
{%- endfor %}

    // The loop register: TX to RX, loaded when empty or taken by RX.
    reg link_valid_reg;
    reg {{ data_range }}link_data_reg;
    reg {{ keep_range }}link_keep_reg;
    reg link_last_reg;
    wire link_ready = !link_valid_reg || dp_rx_tready;
    always @(posedge clk) begin
        if (rst) begin
            link_valid_reg <= 1'b0;
        end else if (link_ready) begin
            link_valid_reg <= dp_tx_tvalid;
        end
        if (link_ready) begin
            link_data_reg <= {{ injected }};
            link_keep_reg <= dp_tx_tkeep;
            link_last_reg <= dp_tx_tlast;
        end
    end

    {{ datapath }} datapath (
{%- for c in conns %}
        .{{ c.port }}({{ c.net }}){% if !loop.last %},{% endif %}
{%- endfor %}
    );

    assign err = dp_rx_error;
    assign err_cnt = {{ err_count }}
{%- for f in folds %}
        // {{ f.output }}
{%- for t in f.terms %}
        ^ {{ t }}
{%- endfor %}
{%- endfor %};
    assign tx_beats = {{ tx_beats }};
    assign rx_beats = {{ rx_beats }};

    wire unused_seed = ^seed;

endmodule
