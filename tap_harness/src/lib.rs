//! (docs being written)

mod error;
pub mod namespace;
pub mod pcap;
pub mod pump;
mod sys;
pub mod tap;

pub use error::HarnessError;
pub use namespace::{in_private_namespace, ip, run_bounded, CommandOutput};
pub use pcap::PcapWriter;
pub use pump::{Direction, FrameNode, LoggedFrame, Pump, PumpOptions, PumpStats, Stopped};
pub use tap::{Tap, TapConfig};
