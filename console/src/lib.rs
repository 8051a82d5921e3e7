//! `toe-console`: the reference demo's console for the TOE user logic, as a
//! library (the backends, the menu and its input checks, over the `driver`
//! crate's register operations) and a binary (the menu and the scriptable
//! subcommands).
//!
//! - [`ops`], [`regs`], [`design`]: the register operations and the typed
//!   accessors, from the `driver` crate (re-exported here);
//! - [`backend`]: Etherbone, a PCIe BAR through sysfs, the XDMA user device;
//! - [`identity`]: the `info` block, checked before anything else;
//! - [`params`], [`run`], [`input`]: menu 0/1, menu 2/3, and input validation;
//! - [`claim`]: one console at a time per session (`session.claim`);
//! - [`iperf3`]: an iperf3 client whose data streams are FPGA sessions;
//! - [`latency_test`]: the latency test (round trips measured in hardware).
//!
//! Every address comes from the typed accessors of the default design
//! (`driver::regs`).

pub mod backend;
pub mod claim;
pub mod identity;
pub mod input;
pub mod iperf3;
pub mod latency_test;
pub mod menu;
pub mod params;
pub mod plot;
pub mod run;

pub use driver::{design, ops, regs, Mode, OpError, SessionResult, SessionTest};
