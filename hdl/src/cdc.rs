//! Clock-domain crossing: a two-flip-flop synchroniser of one level into the
//! receiving clock.
//!
//! ```text
//!   d (other domain) --> [ff1] --> [ff2] --> q      (clock = receiving domain)
//! ```
//!
//! [`SyncBit`] is the two-flip-flop synchroniser of one level signal into the
//! receiving clock: `q` follows `d` two to three receiving-clock edges later,
//! and a metastable `ff1` has a whole cycle to resolve before `ff2` samples it.
//! It carries the toggles of the register file's request/acknowledge handshake
//! (`register_file/crossing.rs`); a multi-bit value never goes through it, it stays
//! still in its source domain while the toggle crosses. The flip-flops have no
//! reset: a toggle handshake must not see an edge because one domain was reset
//! and the other was not.
//!
//! Implementation constraints: place `ff1` and `ff2` close together
//! (Vivado `ASYNC_REG`), and cut or bound the path into `ff1`
//! (`set_max_delay -datapath_only` of one destination period).

use rust_hdl::prelude::*;

/// Two-flip-flop synchroniser of a level into the `clock` domain.
#[derive(LogicBlock, Default)]
pub struct SyncBit {
    /// Clock of the receiving domain.
    pub clock: Signal<In, Clock>,
    /// Level from the other domain; must come straight from a flip-flop there.
    pub d: Signal<In, Bit>,
    /// `d`, two to three `clock` edges later.
    pub q: Signal<Out, Bit>,
    ff1: DFF<Bit>,
    ff2: DFF<Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

/// The attributes on each flip-flop of a [`SyncBit`] in the Verilog: Vivado
/// keeps the pair together and out of retiming (`ASYNC_REG`), Quartus
/// identifies it as a synchroniser for its metastability analysis. The
/// constraints (`flows`) set the same properties by name as well.
pub const SYNCHRONISER_ATTRIBUTES: &str =
    "(* ASYNC_REG = \"TRUE\", altera_attribute = \"-name SYNCHRONIZER_IDENTIFICATION FORCED\" *)";

impl SyncBit {
    /// The instance names of the two flip-flops, first to last: the paths
    /// (`<sync>/ff1`) the implementation constraints name.
    pub const FLOPS: [&'static str; 2] = ["ff1", "ff2"];
}

impl Logic for SyncBit {
    #[hdl_gen]
    fn update(&mut self) {
        self.ff1.clock.next = self.clock.val();
        self.ff2.clock.next = self.clock.val();
        self.ff1.d.next = self.d.val();
        self.ff2.d.next = self.ff1.q.val();
        self.q.next = self.ff2.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    #[test]
    fn a_level_arrives_after_two_receiving_edges() {
        let mut s = SyncBit::default();
        s.connect_all();
        settle(&mut s);
        s.d.next = true;
        settle(&mut s);
        let clock = |s: &mut SyncBit, level: bool| s.clock.next = Clock::from(level);
        cycle(&mut s, clock);
        assert!(!s.q.val(), "after one edge the level is still in the first flip-flop");
        cycle(&mut s, clock);
        assert!(s.q.val(), "after two edges the level is out");
    }

    #[test]
    fn verilog_has_two_flip_flops() {
        let text = crate::verilog::block_verilog(&mut SyncBit::default(), "sync_bit").unwrap();
        assert!(text.contains("module sync_bit$ff1") && text.contains("module sync_bit$ff2"), "{text}");
    }

    #[test]
    fn the_exported_flip_flop_names_are_its_flip_flops_in_order() {
        let text = crate::verilog::block_verilog(&mut SyncBit::default(), "sync_bit").unwrap();
        let [first, last] = SyncBit::FLOPS;
        for f in SyncBit::FLOPS {
            assert!(text.contains(&format!("sync_bit${f} {f}(")), "no instance `{f}` in\n{text}");
            assert!(text.contains(&format!("{f}$clock = clock;")), "`{f}` is not clocked by `clock`:\n{text}");
        }
        assert!(text.contains(&format!("{first}$d = d;")), "`{first}` does not sample `d`:\n{text}");
        assert!(text.contains(&format!("{last}$d = {first}$q;")), "`{last}` does not follow `{first}`:\n{text}");
        assert!(text.contains(&format!("q = {last}$q;")), "`{last}` does not drive `q`:\n{text}");
    }
}
