//! The TX prefix laid over one beat: the bytes of the beat that belong to
//! the prefix come from the shared bank, the others pass.
//!
//! ```text
//!   bank[8*offset +: W] --+
//!                         +--> byte b < count ? bank byte : data byte --> out
//!   data -----------------+
//! ```
//!
//! `offset` is the beat's byte offset in the bank and `count` the prefix
//! bytes it holds from lane 0 (a count past the beat or past the bank's 64
//! bytes covers all of them). Only the bank's 512 bits carry a choice: at
//! 1024 bits the upper half of the beat is wiring, and from 512 bits up the
//! generator holds `offset` at 0, so the bank's share is wiring too. A leaf
//! because rust-hdl's kernel language has no indexed part-select or
//! replication; `update` is its simulation model.

use rust_hdl::prelude::*;

/// Bits of the prefix bank.
pub const BANK_BITS: usize = 512;

#[derive(LogicBlock)]
pub struct PrefixOverlay<const W: usize> {
    // ---- Beat and bank.
    /// The beat without its prefix (pattern or zeros).
    pub data: Signal<In, Bits<W>>,
    /// The prefix bank, byte k in bits 8k+7:8k.
    pub bank: Signal<In, Bits<512>>,
    /// Byte offset of the beat in the bank, 0..=63; where W/8 < 64, the
    /// beat's share ends inside the bank (offset + W/8 <= 64).
    pub offset: Signal<In, Bits<6>>,
    /// Prefix bytes of the beat, from lane 0.
    pub count: Signal<In, Bits<8>>,
    // ---- Beat out.
    /// The beat with its prefix bytes.
    pub out: Signal<Out, Bits<W>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize> PrefixOverlay<W> {
    pub fn new() -> Self {
        assert!(W >= 64 && W.is_power_of_two() && W <= 1024, "PrefixOverlay: W = {W}");
        Self {
            verilog_name: Default::default(),
            data: Default::default(),
            bank: Default::default(),
            offset: Default::default(),
            count: Default::default(),
            out: Default::default(),
        }
    }
}

impl<const W: usize> Default for PrefixOverlay<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for PrefixOverlay<W> {
    fn update(&mut self) {
        let (bank, offset, count) = (self.bank.val(), self.offset.val().index(), self.count.val().index());
        let mut out = self.data.val();
        for b in 0..(W / 8).min(count) {
            let k = offset + b;
            if k < BANK_BITS / 8 {
                out.set_bits::<8>(8 * b, bank.get_bits::<8>(8 * k));
            }
        }
        self.out.next = out;
    }

    fn connect(&mut self) {
        self.out.connect();
    }

    fn hdl(&self) -> Verilog {
        let p = W.min(BANK_BITS);
        // The bank's share of the beat and the mask of its prefix bytes.
        let share = if W < BANK_BITS {
            format!("bank[{{offset, 3'b000}} +: {W}]")
        } else {
            "bank >> {offset, 3'b000}".to_string()
        };
        // The prefix bytes' mask: the low `count` bytes.
        let mask = format!("~({{{p}{{1'b1}}}} << {{count, 3'b000}})");
        // The beat: `data`, with `share` where `mask` is set.
        let overlay = |share: &str, mask: &str| {
            if W > BANK_BITS {
                format!("{{data[{top}:{p}], (data[{pm}:0] & ~{mask}) | ({share} & {mask})}}", top = W - 1, pm = p - 1)
            } else {
                format!("(data & ~{mask}) | ({share} & {mask})")
            }
        };
        // The simulation form takes a short branch for a beat without
        // prefix bytes, every beat after the stream's first, so the bank's
        // wide shifts are not evaluated for it. The mask is a variable set
        // in both branches: written as one expression per branch, the
        // `if` becomes a choice between two values, and Verilator computes
        // the shifts before it, every time. `hdl/tests/equivalence.rs`
        // proves the two forms equal.
        Verilog::Custom(format!(
            "`ifdef VERILATOR\n\
             // Simulation form, the same function (see hdl/src/prefix_overlay.rs).\n\
             reg [{pm}:0] take;\n\
             always @(*) begin\n    \
             if (count == 8'd0) begin\n        \
             take = {{{p}{{1'b0}}}};\n        \
             out = data;\n    \
             end else begin\n        \
             take = {mask};\n        \
             out = {sim};\n    \
             end\n\
             end\n\
             `else\n\
             wire [{pm}:0] share;\nwire [{pm}:0] mask;\nassign share = {share};\nassign mask = {mask};\n\
             always @(*) out = {syn};\n\
             `endif",
            pm = p - 1,
            sim = overlay(&format!("({share})"), "take"),
            syn = overlay("share", "mask"),
        ))
    }
}
