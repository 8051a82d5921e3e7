//! A hand-written clock loop for rust-hdl's own simulator: small unit checks
//! and the simulator side of `make bench` (its `Simulation` framework is far
//! slower, see ARCHITECTURE section 6).

use rust_hdl::prelude::*;

/// Settles combinational logic; panics if it does not converge (a logic loop).
pub fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, 100), "rust-hdl simulation did not settle");
}

/// One clock cycle: `clock(uut, true)` then settle, `clock(uut, false)` then settle.
pub fn cycle<B: Block>(uut: &mut B, clock: impl Fn(&mut B, bool)) {
    clock(uut, true);
    settle(uut);
    clock(uut, false);
    settle(uut);
}
