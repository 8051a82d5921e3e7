//! `toe-console`: the reference demo's console for the TOE user logic, as a
//! library (the register operations every tool and test uses) and a binary
//! (the menu and the scriptable subcommands).
//!
//! - [`ops`]: the register operations in the demo's terms, over any
//!   [`etherbone::RegisterBus`];
//! - [`backend`]: Etherbone, a PCIe BAR through sysfs, the XDMA user device;
//! - [`identity`]: the `info` block, checked before anything else;
//! - [`params`], [`run`], [`input`]: menu 0/1, menu 2/3, and input validation.
//!
//! Every address comes from the typed accessors of the default design,
//! rendered by `build.rs` with `regmap::rust_accessors` (no verilation).

pub mod backend;
pub mod identity;
pub mod input;
pub mod menu;
pub mod ops;
pub mod params;
pub mod run;

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
