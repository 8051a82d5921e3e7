//! The position of a round trip's leading one, from bit 5 up: the first
//! half of its histogram bucket ([`BucketIndex`](crate::bucket_index::BucketIndex)
//! is the second, a pipeline stage later).
//!
//! ```text
//!   value --> lead = position of the highest set bit (5 .. 31), 0 below 32
//! ```
//!
//! A 27-input priority encoder as a tree over nibbles (4 LUT levels; a
//! flat priority chain maps at 5, and in a flattened top abc then lets
//! every path grow to 5 and those through carry chains to 6), registered
//! by the meter. A
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
            "// Nibbles 1 .. 7 of the value (bit 4 left out: below 32 the\n\
             // position is 0). Per nibble, one LUT level: whether a bit is set,\n\
             // and the two bits of its highest set bit's place. The highest\n\
             // nibble with a bit set is lead[4:2]; its place in the nibble,\n\
             // lead[1:0], is chosen by a tree of two-way choices (pairs, then\n\
             // halves): four LUT levels in all.\n\
             reg [7:1] any;\n\
             reg [7:1] at1;\n\
             reg [7:1] at0;\n\
             reg [3:0] nib;\n\
             reg [1:0] p76, p54, p32, q74, q31;\n\
             integer k;\n\
             always @(*) begin\n    \
                 for (k = 1; k < 8; k = k + 1) begin\n        \
                     nib = value[4 * k +: 4];\n        \
                     if (k == 1) nib[0] = 1'b0;\n        \
                     any[k] = |nib;\n        \
                     at1[k] = nib[3] | nib[2];\n        \
                     at0[k] = nib[3] | (~nib[2] & nib[1]);\n    \
                 end\n    \
                 p76 = any[7] ? {at1[7], at0[7]} : {at1[6], at0[6]};\n    \
                 p54 = any[5] ? {at1[5], at0[5]} : {at1[4], at0[4]};\n    \
                 p32 = any[3] ? {at1[3], at0[3]} : {at1[2], at0[2]};\n    \
                 q74 = (any[7] | any[6]) ? p76 : p54;\n    \
                 q31 = (any[3] | any[2]) ? p32 : {at1[1], at0[1]};\n    \
                 lead[4] = |any[7:4];\n    \
                 lead[3] = any[7] | any[6] | (~any[5] & ~any[4] & (any[3] | any[2]));\n    \
                 lead[2] = any[7] | (~any[6] & (any[5] | (~any[4] & (any[3] | (~any[2] & any[1])))));\n    \
                 lead[1:0] = lead[4] ? q74 : q31;\n\
             end"
            .into(),
        )
    }
}
