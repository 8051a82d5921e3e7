//! A simulated board: what the two-board simulation of the testbench and
//! the virtual board (`vboard`) both run.
//!
//! - [`verilated`]: a verilated top ([`verilated::Top`]: the model's entry
//!   points and `gen`'s port plan; [`verilated::Model`] with FST tracing);
//! - [`clocks`]: the user clock and the register-bus clock, unrelated, as
//!   one event sequence;
//! - [`axil`]: an AXI4-Lite master on the register bus, with its timing and
//!   a protocol checker;
//! - [`boards`]: one board ([`boards::Board`]: a top, its clocks and its bus
//!   master), the TOE side that serves it ([`boards::ToeSide`]: the
//!   two-board link model, or the host's TCP stack in `vboard`), and the
//!   rig that runs boards and TOE cycle by cycle ([`boards::Rig`]).
//!
//! The models themselves come from the caller: the testbench links its
//! models at build time, the virtual board verilates its configuration on
//! first use (`verilate::load_cached`). Registers are reached through the
//! `driver` crate's operations, as the console reaches a real board.

pub mod axil;
pub mod boards;
pub mod clocks;
pub mod verilated;
