//! Board descriptions and the generated vendor build flows of the TOE user
//! logic.
//!
//! ```text
//! constraints/<board>.toml --load_board--> Board ─┐
//! config::Design ──────────────────────────────────┼─render─> [(path, text)]
//! FlowInputs (top, RTL files, clocks, port plan, ──┘   vivado/*.tcl, *.xdc
//!   crossings)                                         quartus/*.tcl, *.sdc, *.qsf
//!                                                      README.md
//! ```
//!
//! The board's vendor gets the full board build; both vendors get the
//! out-of-context synthesis of the user logic (the other vendor's on the first
//! board of that vendor), so one configuration gives resource and timing
//! figures on AMD and Altera parts alike.
//!
//! ```
//! let design = config::parse(config::DEFAULT_TOML).unwrap();
//! let board = flows::load_board(&design.board).unwrap();
//! use config::ports::{Direction::{Input, Output}, Group, Port, PortPlan};
//! let ports = PortPlan::new(vec![
//!     Port::new(Group::Clock, "user_clk", Input, 1),
//!     Port::new(Group::Clock, "user_rst", Input, 1),
//!     Port::new(Group::Bus, "aclk", Input, 1),
//!     Port::new(Group::Bus, "aresetn", Input, 1),
//!     Port::new(Group::ToeGlobal, "init", Output, 1),
//! ]);
//! let crossings = config::crossings::Crossings {
//!     sync_flops: vec!["u_req_sync/ff1_reg".into(), "u_req_sync/ff2_reg".into()],
//!     to_user: vec!["req_data_reg".into()],
//!     to_bus: vec!["resp_data_reg".into()],
//! };
//! let inputs = flows::FlowInputs::standard(&design, vec!["rtl/toe_user_logic.v".into()])
//!     .with_ports(ports)
//!     .with_crossings(crossings);
//! let files = flows::render(&design, &board, &inputs).unwrap();
//! assert!(files.iter().any(|(path, _)| path == "vivado/ooc_synth.tcl"));
//! ```

mod board;
mod board_top;
mod inputs;
mod names;
mod render;
mod text;

pub use board::{
    board_names, load_board, parse_board, Board, BoardClock, FlowError, Lane, Pcie, Qsfp, RegisterKind, RegisterPath,
    Vendor,
};
pub use board_top::MASTER_ADDRESS_BITS;
pub use inputs::{ClockPort, FlowInputs, REG_CLOCK_PORT, USER_CLOCK_PORT};
pub use names::{BoardFiles, MAC_INST, PLATFORM_INST, TOE_INST, USER_INST};
pub use render::{netlist_types, render};
pub use text::tcl_word;
