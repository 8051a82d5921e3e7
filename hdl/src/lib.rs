//! rust-hdl blocks of the TOE user logic, one block per file, and the
//! assembly of their Verilog.
//!
//! Blocks are generic over the data width `W` (one of [`config::DATA_WIDTHS`])
//! and its byte count `K = W / 8` (rust-hdl cannot compute one const generic
//! from another);
//! [`verilog::session_verilog`] dispatches a configured width to the matching
//! instantiation.
//!
//! A block's Rust type, its file and its Verilog module carry one name:
//! [`session::Session`] is the per-session module `<name>_session`,
//! [`datapath::Datapath`] its `datapath` (generator, verifier, rate limiters),
//! [`watchdog::Watchdog`], [`elapsed_timer::ElapsedTimer`] and
//! [`peer_latch::PeerLatch`] its `watchdog`, `timer` and `peer`.

pub mod beat_check;
pub mod bucket_index;
pub mod bucket_ram;
pub mod cdc;
pub mod data_verifier;
pub mod datapath;
pub mod elapsed_timer;
pub mod emit;
pub mod keep_count;
pub mod lane_select;
pub mod leading_one;
pub mod message_ends;
pub mod message_source;
pub mod net;
pub mod open_toe;
pub mod pattern_at;
pub mod pattern_lanes;
pub mod peer_latch;
pub mod prefix_overlay;
pub mod rate_limiter;
pub mod register_file;
pub mod round_trips;
pub mod rtt_histogram;
pub mod rtt_meter;
pub mod session;
pub mod sim;
pub mod stamp_ram;
pub mod traffic_generator;
pub mod verilog;
pub mod watchdog;

pub use data_verifier::DataVerifier;
pub use datapath::Datapath;
pub use pattern_lanes::PatternLanes;
pub use rate_limiter::RateLimiter;
pub use session::Session;
pub use traffic_generator::TrafficGenerator;
