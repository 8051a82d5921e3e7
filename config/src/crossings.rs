//! The clock-domain crossings of the generated design, as data.
//!
//! The register file's crossing block (`hdl`) knows the names of its
//! synchroniser flip-flops and held registers; the vendor flows (`flows`)
//! must constrain exactly those. The block exports a [`Crossings`] and the
//! assembly hands it to the flows, so no name is typed twice.

/// Names of the registers a design's crossings consist of, as Verilog paths
/// relative to the module that holds them, `/`-separated
/// (`u_crossing/u_req_sync/ff1_reg`: the register `ff1_reg` of instance `u_req_sync` inside `u_crossing`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Crossings {
    /// Synchroniser flip-flops (two per synchronised level): false paths into
    /// the first, and a tight delay between the two.
    pub sync_flops: Vec<String>,
    /// Held registers launched in the bus clock domain and read in the user
    /// domain once a synchronised toggle says they are stable.
    pub to_user: Vec<String>,
    /// Held registers launched in the user clock domain and read in the bus
    /// domain.
    pub to_bus: Vec<String>,
}
