//! The histogram bucket of a round trip (crate `latency`'s scheme): one
//! bucket per value below 32, then 16 per power of two; from the value and
//! its leading one's position ([`LeadingOne`](crate::leading_one::LeadingOne),
//! a pipeline stage earlier).
//!
//! ```text
//!   lead = 0 (value < 32):  bucket = value
//!   otherwise:              bucket = 16 * (lead - 3) + value[lead-1 : lead-4]   (32 .. 463)
//! ```
//!
//! A 27:1 choice of four bits and a 5-bit subtraction (4 LUT levels),
//! registered by the meter. A leaf because rust-hdl's kernel language has
//! no part-select at a computed position; `update` is its simulation model
//! (`latency::bucket_of`), and the verilated tests check the Verilog
//! against that function.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BucketIndex {
    // ---- Input.
    /// A round trip in cycles.
    pub value: Signal<In, Bits<32>>,
    /// Its leading one's position from bit 5 up, 0 below 32.
    pub lead: Signal<In, Bits<5>>,
    // ---- Output.
    /// Its bucket, 0 .. 463.
    pub bucket: Signal<Out, Bits<9>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Logic for BucketIndex {
    fn update(&mut self) {
        self.bucket.next = bits(latency::bucket_of(self.value.val().index() as u64) as u64);
    }

    fn connect(&mut self) {
        self.bucket.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// The four bits below the leading one.\n\
             reg [3:0] sub;\n\
             integer i;\n\
             always @(*) begin\n    \
                 sub = 4'd0;\n    \
                 for (i = 5; i < 32; i = i + 1) begin\n        \
                     if (lead == i[4:0]) sub = value[i - 1 -: 4];\n    \
                 end\n    \
                 if (lead == 5'd0) bucket = {4'd0, value[4:0]};\n    \
                 else bucket = {lead - 5'd3, sub};\n\
             end"
            .into(),
        )
    }
}
