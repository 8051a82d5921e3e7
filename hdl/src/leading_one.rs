//! The position of a round trip's leading one, from bit 5 up: the first
//! half of its histogram bucket ([`BucketIndex`](crate::bucket_index::BucketIndex)
//! is the second, a pipeline stage later).
//!
//! ```text
//!   value --> lead = position of the highest set bit (5 .. 31), 0 below 32
//! ```
//!
//! A 27-input priority encoder (5 LUT levels), registered by the meter. A
//! leaf because rust-hdl's kernel language has no loop over bits; `update`
//! is its simulation model, and the verilated tests check the Verilog.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct LeadingOne {
    // ---- Input.
    /// A round trip in cycles.
    pub value: Signal<In, Bits<32>>,
    // ---- Output.
    /// The position of its highest set bit if 5 or more, else 0.
    pub lead: Signal<Out, Bits<5>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

/// The model: the leading one's position from bit 5 up, 0 below 32.
pub fn lead_of(value: u32) -> u32 {
    if value < 32 {
        0
    } else {
        31 - value.leading_zeros()
    }
}

impl Logic for LeadingOne {
    fn update(&mut self) {
        self.lead.next = bits(u64::from(lead_of(self.value.val().index() as u32)));
    }

    fn connect(&mut self) {
        self.lead.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "integer i;\n\
             always @(*) begin\n    \
                 lead = 5'd0;\n    \
                 for (i = 5; i < 32; i = i + 1) begin\n        \
                     if (value[i]) lead = i[4:0];\n    \
                 end\n\
             end"
            .into(),
        )
    }
}
