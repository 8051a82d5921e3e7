//! The byte count of a beat from its contiguous `tkeep`: the index of its
//! last kept byte, plus one (0 for no byte kept).
//!
//! ```text
//!   keep (K) --> last_kept = keep & ~(keep >> 1) (one-hot) --> count bit j = OR of
//!                the positions i whose i + 1 has bit j set          --> count (8)
//! ```
//!
//! A flat OR per count bit, no priority chain (2 LUT levels at 128 bytes).
//! The verifier advances its stream offset by it as a beat is taken, so a
//! beat may end anywhere (a push) and the next one still checks against
//! the pattern at its own offset. [`BeatCheck`](crate::beat_check::BeatCheck)
//! counts the same way ([`count_terms`]). A leaf because rust-hdl's kernel
//! language has no loop over bits; `update` is its simulation model.
//!
//! Two forms of the same function, as the byte check has:
//! - synthesis (and lint with `-UVERILATOR`) reads the flat ORs above;
//! - Verilator (`ifdef VERILATOR`) answers a beat with every byte kept (K)
//!   and one with none (0, what `tkeep` holds between beats) without them,
//!   and runs them for the rest. The verifier and the round-trip receiver
//!   each count the received `tkeep`, an input of the top, so Verilator
//!   ran the eight 128-bit ORs of each twice a cycle per session, idle or
//!   not (issue 27).
//!
//! Simulation tests only run the second form: `hdl/tests/equivalence.rs`
//! proves the two equal with a yosys SAT miter at every width.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct KeepCount<const K: usize> {
    // ---- Input.
    /// Byte enables of a beat, contiguous from bit 0.
    pub keep: Signal<In, Bits<K>>,
    // ---- Output.
    /// Bytes kept, 0 .. K.
    pub count: Signal<Out, Bits<8>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

/// The model: the index of the last kept byte, plus one; 0 for none.
pub fn count_of<const K: usize>(keep: Bits<K>) -> u64 {
    (0..K).rev().find(|&i| keep.get_bit(i)).map_or(0, |i| i as u64 + 1)
}

/// The eight bits of the count, highest first, as Verilog terms over the
/// one-hot vector `last_kept` of K bits: bit j is the OR of the positions
/// `i` whose `i + 1` has bit j set. Constant masks only: loop variables and
/// indexed part-selects make yosys build shift multiplexers.
pub fn count_terms<const K: usize>() -> String {
    let mut terms = Vec::new();
    for j in (0..8).rev() {
        let mut mask = Bits::<K>::default();
        for i in 0..K {
            if (i + 1) >> j & 1 == 1 {
                mask = mask.replace_bit(i, true);
            }
        }
        let mask: VerilogLiteral = mask.into();
        terms.push(format!("|(last_kept & {mask})"));
    }
    terms.join(", ")
}

impl<const K: usize> Logic for KeepCount<K> {
    fn update(&mut self) {
        self.count.next = bits(count_of(self.keep.val()));
    }

    fn connect(&mut self) {
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "`ifdef VERILATOR\n\
             // Simulation form, the same function (see hdl/src/keep_count.rs).\n\
             reg [{m}:0] last_kept;\n\
             always @(*) begin\n    \
             last_kept = {k}'d0;\n    \
             if (&keep) begin\n        \
             count = 8'd{k};\n    \
             end else if (keep == {k}'d0) begin\n        \
             count = 8'd0;\n    \
             end else begin\n        \
             last_kept = keep & ~(keep >> 1);\n        \
             count = {{{terms}}};\n    \
             end\n\
             end\n\
             `else\n\
             wire [{m}:0] last_kept = keep & ~(keep >> 1);\n\
             always @(*) count = {{{terms}}};\n\
             `endif",
            m = K - 1,
            k = K,
            terms = count_terms::<K>(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_counts_contiguous_keeps() {
        assert_eq!(count_of::<16>(bits(0)), 0);
        assert_eq!(count_of::<16>(bits(1)), 1);
        assert_eq!(count_of::<16>(bits(0x7f)), 7);
        assert_eq!(count_of::<16>(bits(0xffff)), 16);
    }
}
