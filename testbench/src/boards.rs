//! The simulated boards of `board_sim::boards`, plus the default two-board
//! rig of the tests and the demo: two product tops `top1024` (the default
//! design: 4 sessions of 1024 bits) joined by the TOE and link model.

pub use board_sim::boards::*;

use toe_model::{LinkConfig, ToeConfig};

use crate::models::top1024;

/// Two default tops (`top1024`) joined by `link`, with the TOEs of `toe`.
pub fn default_pair(seed: u64, link: LinkConfig, toe: ToeConfig) -> TwoBoardSim {
    TwoBoardSim::with_model(&top1024::top(), seed, link, toe)
}
