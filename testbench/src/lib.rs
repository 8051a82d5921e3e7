//! Verilated models of the generated Verilog and the plain-Rust reference
//! models the tests check them against.
//!
//! `build.rs` generates the Verilog of each model with the `gen` library,
//! verilates it and renders the port tables included below as `models`.

pub mod dut;
pub mod axil;
pub mod clocks;
pub mod seed;
pub mod token_bucket;
pub mod stream;
pub mod verilated;

#[allow(dead_code, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

pub use generated::TRACE_BUILT;

/// The models built for the tests.
pub mod models {
    pub use crate::generated::top1024;
    pub use crate::generated::top64;
    pub use crate::generated::regfile;
    pub use crate::generated::regfile_alt;
}
