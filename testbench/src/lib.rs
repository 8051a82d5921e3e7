//! Verilated models of the generated Verilog and the plain-Rust reference
//! models the tests check them against.
//!
//! `build.rs` generates the Verilog of each model with the `gen` library,
//! verilates it and renders the port tables included below as `models`.

pub mod axil;
pub mod boards;
pub mod clocks;
pub mod demo;
pub mod dut;
pub mod register_bench;
pub mod register_model;
pub mod scripted_toe;
pub mod seed;
pub mod stream;
pub mod token_bucket;
pub mod verilated;

#[allow(dead_code, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

pub use generated::TRACE_BUILT;

/// The typed register accessors `gen` writes for the default design
/// (`build/sw/regmap_accessors.rs`, generated again by `build.rs` for model
/// `top1024`): every address a test uses comes from here or from `regmap`.
pub mod top1024_regs {
    include!(concat!(env!("OUT_DIR"), "/top1024/build/sw/regmap_accessors.rs"));
}

/// The models built for the tests.
pub mod models {
    pub use crate::generated::dp1024;
    pub use crate::generated::dp64;
    pub use crate::generated::regfile;
    pub use crate::generated::regfile_alt;
    pub use crate::generated::top1024;
    pub use crate::generated::top64;
}
