//! One TCP session's datapath: the transmit path (traffic generator behind
//! a rate limiter) and the receive path (rate limiter in front of the data
//! verifier). The session ([`Session`](crate::session::Session),
//! `session.rs`) wraps it and drives its start/abort/end pulses.
//!
//! ```text
//!   tx_start/abort, sizes, pattern --> TrafficGenerator --+
//!   msg_start/go, latency params ----> RoundTrips --------+-(messages)-> RateLimiter(tx_percent) --> tx_t* (to the TOE)
//!   rx_t* (from the TOE) --> RateLimiter(rx_percent) --> DataVerifier <-- rx_start/end/clear, verify
//!                                                    +-> RoundTrips (take, keep; its rx_ready gates the verifier's side)
//! ```
//!
//! With `messages` high (the latency modes, issue 29) the transmit stream
//! is [`RoundTrips`]' messages instead of the generator's, and each beat
//! the verifier takes is also counted into RoundTrips' message ends, whose
//! `rx_ready` then holds the receive side back.
//!
//! The TX limiter gates `tx_tvalid`, the RX limiter gates `rx_tready`, so a
//! limited receiver pushes back on the TOE. In the product the session
//! instantiates it as `datapath` (Verilog `<name>_datapath`, instance `u_datapath`); the testbench also builds it alone as a
//! harness (`gen::rtl::datapath_harness`) with ports `s<n>_<port>`.

use rust_hdl::prelude::*;

use crate::data_verifier::DataVerifier;
use crate::rate_limiter::RateLimiter;
use crate::round_trips::RoundTrips;
use crate::traffic_generator::TrafficGenerator;

/// Inputs the product drives from flip-flops and the datapath reads
/// combinationally: the register file's shared TX prefix bank, and the
/// latency modes' settings (the session's mode flip-flop and the register
/// file's words). A harness that drives the datapath alone registers them
/// as the product does, so a harness test sets them a cycle before they
/// count. Driven straight from a top-level port, they would make logic
/// depend on an input: `messages` chooses the TX stream and holds `rx_tready`
/// back, so every output of both streams would, and Verilator evaluates such
/// logic on every `eval()` (issue 27). The bulk-transfer settings are not
/// here: the harness's tests set them in the cycle of the start pulse.
pub const REGISTERED_INPUTS: [&str; 8] = [
    "tx_prefix",
    "messages",
    "msg_initiator",
    "msg_request_size",
    "msg_response_size",
    "msg_request_count",
    "msg_outstanding",
    "hist_index",
];

/// No constants, so `Default` builds it (`Datapath::default()`).
#[derive(LogicBlock, Default)]
pub struct Datapath<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    // ---- Control (from the session).
    /// Start sending (one-cycle pulse).
    pub tx_start: Signal<In, Bit>,
    /// Abort sending (one-cycle pulse).
    pub tx_abort: Signal<In, Bit>,
    /// A new test begins: zero the transmit byte count (one-cycle pulse).
    pub tx_clear: Signal<In, Bit>,
    /// Start receiving: new transfer for the verifier (one-cycle pulse).
    pub rx_start: Signal<In, Bit>,
    /// The peer has closed: check for a short transfer (one-cycle pulse).
    pub rx_end: Signal<In, Bit>,
    /// Clear the verifier's error record and count (one-cycle pulse).
    pub rx_clear: Signal<In, Bit>,
    // ---- Test parameters, latched by the session at start.
    /// Transfer size in bytes, 1 .. 2^48-1.
    pub transfer_size: Signal<In, Bits<48>>,
    /// Packet size in bytes (whole beats; 0 = none).
    pub packet_size: Signal<In, Bits<48>>,
    /// 1: incremental pattern, 0: dummy data.
    pub pattern: Signal<In, Bit>,
    /// Check received data against the pattern.
    pub verify: Signal<In, Bit>,
    /// 1: the generator sends until `tx_stop`, whatever `transfer_size`
    /// says (an open-ended receive is `transfer_size` 2^48-1, set by the session).
    pub open_ended: Signal<In, Bit>,
    /// Level: end the transmit stream with its next beat (marked tlast).
    pub tx_stop: Signal<In, Bit>,
    /// Bytes of `tx_prefix` the transmit stream begins with, 0..=64.
    pub prefix_length: Signal<In, Bits<7>>,
    /// 1: the transmit stream is the prefix alone.
    pub prefix_only: Signal<In, Bit>,
    /// The TX prefix bank (the register file's, shared), byte k in bits 8k+7:8k.
    pub tx_prefix: Signal<In, Bits<512>>,
    /// TX max speed, % of the bus peak (1..=100).
    pub tx_percent: Signal<In, Bits<7>>,
    /// RX max speed, % of the bus peak (1..=100).
    pub rx_percent: Signal<In, Bits<7>>,
    // ---- The latency modes (issue 29; `RoundTrips`).
    /// Level: the streams are the latency modes' messages.
    pub messages: Signal<In, Bit>,
    /// A latency test begins: sample the parameters below, sweep the
    /// histogram (one-cycle pulse).
    pub msg_start: Signal<In, Bit>,
    /// Level: the latency test runs (requests may leave, ends are answered).
    pub msg_go: Signal<In, Bit>,
    /// 1: initiator, 0: echo.
    pub msg_initiator: Signal<In, Bit>,
    /// Request size in bytes, 1 ..= 65,535.
    pub msg_request_size: Signal<In, Bits<16>>,
    /// Response size in bytes, 1 ..= 65,535.
    pub msg_response_size: Signal<In, Bits<16>>,
    /// Requests the initiator sends.
    pub msg_request_count: Signal<In, Bits<32>>,
    /// Requests unanswered at most, 1 ..= 16.
    pub msg_outstanding: Signal<In, Bits<5>>,
    /// The histogram's sweep runs.
    pub msg_clearing: Signal<Out, Bit>,
    /// A message is owed, under way or presented.
    pub msg_tx_busy: Signal<Out, Bit>,
    /// Messages sent since `msg_start`.
    pub msg_sent: Signal<Out, Bits<32>>,
    /// Messages received since `msg_start`.
    pub msg_received: Signal<Out, Bits<32>>,
    /// Responses owed by the echo.
    pub msg_owed: Signal<Out, Bits<32>>,
    /// Requests of the initiator in flight (timed, not yet answered).
    pub msg_in_flight: Signal<Out, Bits<5>>,
    /// Initiator: every response ended.
    pub msg_done: Signal<Out, Bit>,
    /// Nothing received is on its way to a send; a received message is
    /// partly in.
    pub msg_quiet: Signal<Out, Bit>,
    /// A received message has begun and not ended.
    pub msg_partial: Signal<Out, Bit>,
    /// A round trip could not be measured (sticky until `msg_start`).
    pub msg_fault: Signal<Out, Bit>,
    /// Round trips measured (the moments below are in user-clock cycles).
    pub rtt_count: Signal<Out, Bits<32>>,
    /// The shortest round trip.
    pub rtt_min: Signal<Out, Bits<32>>,
    /// The longest round trip.
    pub rtt_max: Signal<Out, Bits<32>>,
    /// The last round trip.
    pub rtt_last: Signal<Out, Bits<32>>,
    /// The sum of the round trips.
    pub rtt_sum: Signal<Out, Bits<64>>,
    /// The sum of their squares.
    pub rtt_sum_sq: Signal<Out, Bits<96>>,
    /// The sum of |RTT(i) - RTT(i-1)| (the jitter's numerator).
    pub rtt_jitter_sum: Signal<Out, Bits<64>>,
    /// Histogram bucket to read.
    pub hist_index: Signal<In, Bits<9>>,
    /// The count of bucket `hist_index`, the cycle after.
    pub hist_count: Signal<Out, Bits<32>>,
    // ---- Transmit status.
    /// Transmit in progress.
    pub tx_busy: Signal<Out, Bit>,
    /// Last transmit completed.
    pub tx_done: Signal<Out, Bit>,
    /// Bytes accepted by the TOE since start.
    pub tx_bytes: Signal<Out, Bits<64>>,
    // ---- Transmit stream to the TOE (AXI4-Stream).
    /// Transmit stream to the TOE.
    pub tx_tdata: Signal<Out, Bits<W>>,
    /// Byte enables.
    pub tx_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a packet.
    pub tx_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub tx_tvalid: Signal<Out, Bit>,
    /// The TOE takes the beat.
    pub tx_tready: Signal<In, Bit>,
    // ---- Receive stream from the TOE (AXI4-Stream).
    /// Receive stream from the TOE.
    pub rx_tdata: Signal<In, Bits<W>>,
    /// Byte enables.
    pub rx_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a packet.
    pub rx_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub rx_tvalid: Signal<In, Bit>,
    /// Ready for a beat (gated by the RX limiter).
    pub rx_tready: Signal<Out, Bit>,
    // ---- Receive status and first-error record.
    /// Bytes received since rx_start.
    pub rx_bytes: Signal<Out, Bits<64>>,
    /// Packets (beats with tlast) received since rx_start.
    pub rx_packets: Signal<Out, Bits<32>>,
    /// rx_bytes equals the transfer size.
    pub rx_complete: Signal<Out, Bit>,
    /// Sticky receive error.
    pub rx_error: Signal<Out, Bit>,
    /// Data past the transfer size arrived (sticky until `rx_start`).
    pub rx_beyond: Signal<Out, Bit>,
    /// No received beat is still in the verifier's pipeline.
    pub rx_settled: Signal<Out, Bit>,
    /// Beats with a wrong or late byte, plus a short end (saturating).
    pub rx_err_count: Signal<Out, Bits<32>>,
    /// The first-error record is complete.
    pub rx_err_valid: Signal<Out, Bit>,
    /// The verifier's internal cause (`data_verifier::CAUSE_*`: 1 mismatch,
    /// 2 data beyond the size, 3 short transfer), not the register map's
    /// `error_cause`.
    pub rx_err_cause: Signal<Out, Bits<2>>,
    /// Stream offset of the first error.
    pub rx_err_offset: Signal<Out, Bits<48>>,
    /// Expected word at the first error.
    pub rx_err_expected: Signal<Out, Bits<32>>,
    /// Received word at the first error.
    pub rx_err_received: Signal<Out, Bits<32>>,
    generator: TrafficGenerator<W, K>,
    tx_limiter: RateLimiter<W, K>,
    rx_limiter: RateLimiter<W, K>,
    verifier: DataVerifier<W, K>,
    round_trips: RoundTrips<W, K>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> Logic for Datapath<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        // Transmit: generator -> limiter -> TOE.
        self.generator.clock.next = self.clock.val();
        self.generator.reset.next = self.reset.val();
        self.generator.start.next = self.tx_start.val();
        self.generator.abort_req.next = self.tx_abort.val();
        self.generator.clear.next = self.tx_clear.val();
        self.generator.transfer_size.next = self.transfer_size.val();
        self.generator.packet_size.next = self.packet_size.val();
        self.generator.pattern.next = self.pattern.val();
        self.generator.open_ended.next = self.open_ended.val();
        self.generator.stop.next = self.tx_stop.val();
        self.generator.prefix_length.next = self.prefix_length.val();
        self.generator.prefix_only.next = self.prefix_only.val();
        self.generator.prefix.next = self.tx_prefix.val();
        self.generator.enable.next = true;
        self.tx_limiter.clock.next = self.clock.val();
        self.tx_limiter.reset.next = self.reset.val();
        self.tx_limiter.percent.next = self.tx_percent.val();
        // The modes' messages or the generator's stream, into the limiter.
        self.round_trips.clock.next = self.clock.val();
        self.round_trips.reset.next = self.reset.val();
        self.round_trips.start.next = self.msg_start.val();
        self.round_trips.abort_req.next = self.tx_abort.val();
        self.round_trips.go.next = self.msg_go.val();
        self.round_trips.initiator.next = self.msg_initiator.val();
        self.round_trips.request_size.next = self.msg_request_size.val();
        self.round_trips.response_size.next = self.msg_response_size.val();
        self.round_trips.request_count.next = self.msg_request_count.val();
        self.round_trips.outstanding.next = self.msg_outstanding.val();
        self.round_trips.enable.next = true;
        self.round_trips.hist_index.next = self.hist_index.val();
        if self.messages.val() {
            self.tx_limiter.s_tdata.next = self.round_trips.m_tdata.val();
            self.tx_limiter.s_tkeep.next = self.round_trips.m_tkeep.val();
            self.tx_limiter.s_tlast.next = self.round_trips.m_tlast.val();
            self.tx_limiter.s_tvalid.next = self.round_trips.m_tvalid.val();
            self.tx_bytes.next = self.round_trips.tx_bytes.val();
        } else {
            self.tx_limiter.s_tdata.next = self.generator.m_tdata.val();
            self.tx_limiter.s_tkeep.next = self.generator.m_tkeep.val();
            self.tx_limiter.s_tlast.next = self.generator.m_tlast.val();
            self.tx_limiter.s_tvalid.next = self.generator.m_tvalid.val();
            self.tx_bytes.next = self.generator.bytes_sent.val();
        }
        // Both sources see the limiter's ready: the one not chosen is idle
        // (a test of the other kind never starts it, and `start` is
        // refused while either is busy), so it presents no beat and takes
        // none. Gating the ready by `messages` put a LUT level on the path
        // from the limiter's credit to each source's output registers.
        self.generator.m_tready.next = self.tx_limiter.s_tready.val();
        self.round_trips.m_tready.next = self.tx_limiter.s_tready.val();
        self.tx_tdata.next = self.tx_limiter.m_tdata.val();
        self.tx_tkeep.next = self.tx_limiter.m_tkeep.val();
        self.tx_tlast.next = self.tx_limiter.m_tlast.val();
        self.tx_tvalid.next = self.tx_limiter.m_tvalid.val();
        self.tx_limiter.m_tready.next = self.tx_tready.val();
        self.tx_busy.next = self.generator.busy.val();
        self.tx_done.next = self.generator.done.val();

        // Receive: TOE -> limiter -> verifier.
        self.rx_limiter.clock.next = self.clock.val();
        self.rx_limiter.reset.next = self.reset.val();
        self.rx_limiter.percent.next = self.rx_percent.val();
        self.rx_limiter.s_tdata.next = self.rx_tdata.val();
        self.rx_limiter.s_tkeep.next = self.rx_tkeep.val();
        self.rx_limiter.s_tlast.next = self.rx_tlast.val();
        self.rx_limiter.s_tvalid.next = self.rx_tvalid.val();
        self.rx_tready.next = self.rx_limiter.s_tready.val();
        self.verifier.clock.next = self.clock.val();
        self.verifier.reset.next = self.reset.val();
        self.verifier.start.next = self.rx_start.val();
        self.verifier.finish.next = self.rx_end.val();
        self.verifier.clear.next = self.rx_clear.val();
        self.verifier.transfer_size.next = self.transfer_size.val();
        self.verifier.verify.next = self.verify.val();
        self.verifier.s_tdata.next = self.rx_limiter.m_tdata.val();
        self.verifier.s_tkeep.next = self.rx_limiter.m_tkeep.val();
        self.verifier.s_tlast.next = self.rx_limiter.m_tlast.val();
        // The verifier takes every beat it is shown valid, so a beat
        // RoundTrips holds back is not shown.
        // RoundTrips holds the receive side back in the latency modes
        // (`messages & !rx_ready`). The hold is written out in both uses
        // rather than kept in a local signal: one local read by the
        // flip-flop-only `rx_tready` and by the input-dependent verifier
        // `s_tvalid` makes Verilator schedule both as one block, recomputed
        // with the input-combinational logic at every evaluation, so
        // `rx_tready` would look input-dependent to the simulation (issue
        // 27, as in the rate limiter). The logic is the same.
        self.verifier.s_tvalid.next =
            self.rx_limiter.m_tvalid.val() & !(self.messages.val() & !self.round_trips.rx_ready.val());
        self.rx_limiter.m_tready.next =
            self.verifier.s_tready.val() & !(self.messages.val() & !self.round_trips.rx_ready.val());
        // RoundTrips counts a beat only while its `rx_ready` is high.
        self.round_trips.rx_take.next =
            self.messages.val() & self.rx_limiter.m_tvalid.val() & self.verifier.s_tready.val();
        self.round_trips.rx_keep.next = self.rx_limiter.m_tkeep.val();
        self.msg_clearing.next = self.round_trips.clearing.val();
        self.msg_tx_busy.next = self.round_trips.tx_busy.val();
        self.msg_sent.next = self.round_trips.sent.val();
        self.msg_received.next = self.round_trips.received.val();
        self.msg_owed.next = self.round_trips.owed.val();
        self.msg_in_flight.next = self.round_trips.in_flight.val();
        self.msg_done.next = self.round_trips.done.val();
        self.msg_quiet.next = self.round_trips.quiet.val();
        self.msg_partial.next = self.round_trips.rx_partial.val();
        self.msg_fault.next = self.round_trips.fault.val();
        self.rtt_count.next = self.round_trips.rtt_count.val();
        self.rtt_min.next = self.round_trips.rtt_min.val();
        self.rtt_max.next = self.round_trips.rtt_max.val();
        self.rtt_last.next = self.round_trips.rtt_last.val();
        self.rtt_sum.next = self.round_trips.rtt_sum.val();
        self.rtt_sum_sq.next = self.round_trips.rtt_sum_sq.val();
        self.rtt_jitter_sum.next = self.round_trips.rtt_jitter_sum.val();
        self.hist_count.next = self.round_trips.hist_count.val();
        self.rx_bytes.next = self.verifier.bytes.val();
        self.rx_packets.next = self.verifier.packets.val();
        self.rx_complete.next = self.verifier.complete.val();
        self.rx_error.next = self.verifier.error.val();
        self.rx_beyond.next = self.verifier.beyond.val();
        self.rx_settled.next = self.verifier.settled.val();
        self.rx_err_count.next = self.verifier.err_count.val();
        self.rx_err_valid.next = self.verifier.err_valid.val();
        self.rx_err_cause.next = self.verifier.err_cause.val();
        self.rx_err_offset.next = self.verifier.err_offset.val();
        self.rx_err_expected.next = self.verifier.err_expected.val();
        self.rx_err_received.next = self.verifier.err_received.val();
    }
}
