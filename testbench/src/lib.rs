//! Verilated models of the generated Verilog, the plain-Rust reference
//! models the tests check them against, the two-board demo and the soak.
//!
//! `build.rs` generates the Verilog of each model with the `gen` library,
//! verilates it and renders the port tables included below as `models`.
//! The simulated board itself (the verilated top's binding, the clocks, the
//! AXI4-Lite master, the board and TOE glue) is the `board_sim` crate, which
//! the virtual board uses too; its modules are re-exported here.

pub use board_sim::{axil, clocks, verilated};

pub mod boards;
pub mod demo;
pub mod dut;
pub mod latency_demo;
pub mod register_bench;
pub mod register_model;
pub mod scripted_toe;
pub mod seed;
pub mod soak;
pub mod stream;
pub mod token_bucket;

#[allow(dead_code, clippy::all)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

/// The models built for the tests. The width matrix comes from one list in
/// `build.rs`: for every width of `config::DATA_WIDTHS` a datapath harness
/// `dp<W>` ([`models::DATAPATH_MODELS`]) and a product top `top<W>`
/// ([`models::TOP_MODELS`]); tests loop over the tables instead of naming
/// models.
pub mod models {
    use crate::verilated::Top;

    pub use crate::generated::regfile;
    pub use crate::generated::regfile_alt;
    // `pub use` of every matrix model, `DATAPATH_MODELS` and `TOP_MODELS`.
    include!(concat!(env!("OUT_DIR"), "/matrix.rs"));

    /// One model of the width matrix, as `build.rs` built it.
    #[derive(Clone, Copy, Debug)]
    pub struct ModelInfo {
        /// The model's name (`dp128`, `top64`): its module here.
        pub name: &'static str,
        pub sessions: usize,
        /// Stream data width in bits.
        pub data_width: usize,
        /// The model with its port plan (`<name>::top`).
        pub top: fn() -> Top,
    }

    impl ModelInfo {
        /// Bytes of a stream beat.
        pub fn beat_bytes(&self) -> usize {
            self.data_width / 8
        }
    }

    /// Runs `test` once on every model of `table`, in order. Before each
    /// model it prints `<what>: on <model>` (shown with a failure) and at the
    /// end `<what>: ran on <model>, <model>, ...` (shown with `--nocapture`).
    pub fn each(table: &[ModelInfo], what: &str, mut test: impl FnMut(&ModelInfo)) {
        let mut ran = Vec::new();
        for info in table {
            eprintln!("{what}: on {}", info.name);
            test(info);
            ran.push(info.name);
        }
        eprintln!("{what}: ran on {}", ran.join(", "));
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use config::ports::Group;

        /// The width matrix is whole: the harnesses and the tops each cover
        /// `config::DATA_WIDTHS` exactly, narrowest first, and every
        /// descriptor says what its model is (name, sessions and width read
        /// from the model's own port plan).
        #[test]
        fn every_data_width_has_a_harness_and_a_top_model() {
            for (table, what, group) in
                [(DATAPATH_MODELS, "harness", Group::Datapath(0)), (TOP_MODELS, "top", Group::ToeSession(0))]
            {
                let widths: Vec<usize> = table.iter().map(|m| m.data_width).collect();
                assert_eq!(widths, config::DATA_WIDTHS, "{what} models by data width");
                for m in table {
                    let top = (m.top)();
                    assert_eq!(top.fns.name, m.name, "descriptor {m:?}");
                    assert_eq!(top.sessions(), m.sessions, "{}: sessions", m.name);
                    assert!(m.sessions >= 1, "{}: no session", m.name);
                    assert_eq!(top.planned(group, "tx_tdata").width, m.data_width, "{}: data width", m.name);
                }
                let names: Vec<&str> = table.iter().map(|m| m.name).collect();
                eprintln!("{what} models: {}", names.join(", "));
            }
        }
    }
}
