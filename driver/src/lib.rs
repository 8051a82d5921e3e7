//! Drives the TOE user logic through its register map: the one place the
//! register operations live (program a session's test, start, abort, read
//! its result, initialise the TOE, check the board's identity), over any
//! [`etherbone::RegisterBus`]. The console, the virtual board's PC tests
//! and the simulated boards all use it.
//!
//! - [`ops`]: the operations in the demo's terms;
//! - [`regs`]: the typed register accessors of the default design, rendered
//!   by `build.rs` with `regmap::rust_accessors` (the same text `gen` writes
//!   to `build/sw/regmap_accessors.rs`; no verilation, so a lab PC without
//!   Verilator builds it);
//! - [`design`]: the design those accessors were generated for;
//! - [`net`]: the open engine's network node (`toe.core = "open"`): its ARP
//!   state and counters.

pub mod net;
pub mod ops;

#[allow(dead_code, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/regmap_accessors.rs"));
}

/// The typed register accessors (`regs::session(s)`, `regs::info::ID`, ...).
pub use generated::regs;

/// The design the accessors were generated for (the default configuration).
pub mod design {
    include!(concat!(env!("OUT_DIR"), "/design.rs"));
}

pub use ops::{Mode, OpError, SessionResult, SessionTest};
