//! Round trips: the part of a session that runs issue 29's latency modes
//! (docs/latency.md), the message source, the message ends, the round-trip
//! meter and its histogram wired together with the initiator's and the
//! echo's counts. The session holds one beside its datapath and chooses
//! between them by test mode.
//!
//! ```text
//!   initiator: go, fewer than `outstanding` unanswered, requests left
//!                 --> send_q --> MessageSource(request_size) --> m_t* (to the TX limiter)
//!   echo:      every end ------> MessageSource(response_size)
//!   rx_take, rx_keep --> KeepCount --> (registered) --> MessageEnds(response_size | request_size)
//!                                         --> ended, lag; rx_ready (gates the session's rx_tready)
//!   initiator: first --> RttMeter.request, ended/lag --> RttMeter.response
//!                        RttMeter samples --> RttHistogram <-- hist_index --> hist_count
//! ```
//!
//! - **Initiator** (`initiator` high at `start`): while `go` is high, it
//!   asks the source for a request whenever fewer than `outstanding`
//!   requests are unanswered (asked for, their response not yet ended) and
//!   fewer than `request_count` were asked for; `done` rises when
//!   `request_count` responses have ended. A round trip runs from the
//!   cycle the request's first beat is taken (`m_tvalid & m_tready`) to
//!   the cycle its response's last byte is taken (`rx_take`).
//! - **Echo** (`initiator` low): every request that ends (`request_size`
//!   bytes received) is a response owed; the source sends them as the TX
//!   stream allows. The meter measures nothing; `done` stays low (the
//!   session ends an echo when the peer closes and `tx_busy` is low).
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `start`: a new test: samples `initiator`, the sizes, `request_count`
//!   and `outstanding` (1 ..= 16, 0 taken as 1); restarts the source and the message
//!   ends, empties the meter and sweeps the histogram (`clearing` high for
//!   its 464 cycles; open the connection after it);
//! - `abort_req`: drops the messages owed and the beat presented;
//! - `go` (level): the test runs (the connection is up): the initiator may
//!   ask for requests and the echo answers; an end while `go` is low is
//!   not answered;
//! - `rx_take`, `rx_keep`: a received beat was taken, its keep contiguous
//!   from bit 0 (the TOE's `tkeep`); `rx_ready` (level) low means no beat
//!   may be taken this cycle (a take then is not counted). The beat's byte count is registered before
//!   the ends' logic sees it (the count would otherwise sit in front of
//!   that logic's compares), so `rx_ready` cannot yet know whether the beat
//!   just taken holds several ends: with messages shorter than a beat it is low
//!   in the cycle after every take, and in the cycles a beat's further ends
//!   take. With messages of a beat or more a beat holds at most one end and
//!   beats are taken one a cycle;
//! - `fault` (level, sticky until `start`): the meter got a response with
//!   no request or a request past its 16 stamps, or the histogram a sample
//!   during its sweep. Never with a well-behaved peer: a response before its
//!   request is the only way, and the verifier sees that data too.
//! - `reset` (level, synchronous): as `start` with nothing sampled, and an
//!   abort.

use rust_hdl::prelude::*;

use crate::keep_count::KeepCount;
use crate::message_ends::MessageEnds;
use crate::message_source::MessageSource;
use crate::rtt_histogram::RttHistogram;
use crate::rtt_meter::RttMeter;

#[derive(LogicBlock)]
pub struct RoundTrips<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    // ---- Control (from the session).
    /// A new test (one-cycle pulse): samples the parameters below.
    pub start: Signal<In, Bit>,
    /// Drop the messages owed and the beat presented (one-cycle pulse).
    pub abort_req: Signal<In, Bit>,
    /// Level: the initiator may ask for requests.
    pub go: Signal<In, Bit>,
    // ---- Test parameters, sampled at `start`.
    /// 1: initiator (sends requests, measures), 0: echo (answers).
    pub initiator: Signal<In, Bit>,
    /// Request size in bytes, 1 ..= 65,535.
    pub request_size: Signal<In, Bits<16>>,
    /// Response size in bytes, 1 ..= 65,535.
    pub response_size: Signal<In, Bits<16>>,
    /// Requests the initiator sends (0: none, `done` at once).
    pub request_count: Signal<In, Bits<32>>,
    /// Requests unanswered at most, 1 ..= 16 (0 is taken as 1).
    pub outstanding: Signal<In, Bits<5>>,
    // ---- Transmit stream (AXI4-Stream, towards the TX rate limiter).
    /// High when the next beat may be presented (from the rate limiter).
    pub enable: Signal<In, Bit>,
    /// Stream data, byte 0 in bits 7:0.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte qualifiers, contiguous from bit 0.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a message.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_tready: Signal<In, Bit>,
    // ---- Receive side (the beats the session takes from the TOE).
    /// A received beat was taken (one-cycle pulse).
    pub rx_take: Signal<In, Bit>,
    /// Its byte enables, contiguous from bit 0.
    pub rx_keep: Signal<In, Bits<K>>,
    /// Level: a received beat may be taken this cycle.
    pub rx_ready: Signal<Out, Bit>,
    // ---- Status.
    /// The histogram is being swept empty (after `start`).
    pub clearing: Signal<Out, Bit>,
    /// A message is owed, under way or presented on TX.
    pub tx_busy: Signal<Out, Bit>,
    /// Bytes taken on TX since `start`.
    pub tx_bytes: Signal<Out, Bits<64>>,
    /// Messages sent since `start` (requests, or the echo's responses).
    pub sent: Signal<Out, Bits<32>>,
    /// Messages received since `start` (responses, or the echo's requests).
    pub received: Signal<Out, Bits<32>>,
    /// Messages the source owes and has not begun (the echo's backlog).
    pub owed: Signal<Out, Bits<32>>,
    /// Requests sent whose response has not ended (initiator; the meter's
    /// stamps held), 0 ..= 16.
    pub in_flight: Signal<Out, Bits<5>>,
    /// Level: nothing received is on its way to a send (no beat being
    /// counted, no end pending or shown, no message owed or under way).
    pub quiet: Signal<Out, Bit>,
    /// Level: a received message has begun and not ended.
    pub rx_partial: Signal<Out, Bit>,
    /// Initiator: `request_count` responses have ended.
    pub done: Signal<Out, Bit>,
    /// A sample was lost or a response had no request (sticky until `start`).
    pub fault: Signal<Out, Bit>,
    // ---- The measurement (initiator), in user-clock cycles.
    /// Round trips measured.
    pub rtt_count: Signal<Out, Bits<32>>,
    /// Shortest round trip (0 while none).
    pub rtt_min: Signal<Out, Bits<32>>,
    /// Longest round trip.
    pub rtt_max: Signal<Out, Bits<32>>,
    /// Sum of the round trips.
    pub rtt_sum: Signal<Out, Bits<64>>,
    /// Sum of their squares.
    pub rtt_sum_sq: Signal<Out, Bits<96>>,
    /// Sum of |rtt(i) - rtt(i-1)|.
    pub rtt_jitter_sum: Signal<Out, Bits<64>>,
    /// The latest round trip (valid from the first; a live reading).
    pub rtt_last: Signal<Out, Bits<32>>,
    /// Histogram bucket to read (0 .. 463).
    pub hist_index: Signal<In, Bits<9>>,
    /// Its count, the cycle after `hist_index`.
    pub hist_count: Signal<Out, Bits<32>>,
    // ---- State.
    /// The role sampled at `start`.
    initiator_q: DFF<Bit>,
    outstanding_q: DFF<Bits<5>>,
    /// Requests still to ask for, and whether any.
    to_ask: DFF<Bits<32>>,
    more: DFF<Bit>,
    /// Responses still to end, and whether any.
    to_end: DFF<Bits<32>>,
    done_q: DFF<Bit>,
    /// Requests asked for and not yet answered, 0 ..= 16.
    unanswered: DFF<Bits<5>>,
    /// The request asked for in the cycle before, to the source.
    send_q: DFF<Bit>,
    received_q: DFF<Bits<32>>,
    /// The taken beat and its byte count, for the ends a cycle later.
    take_q: DFF<Bit>,
    bytes_q: DFF<Bits<8>>,
    /// The received messages are shorter than a beat (sampled at `start`).
    short_q: DFF<Bit>,
    /// The meter's `request` two cycles late, `response` and
    /// `response_lag` one (the ends come a cycle after the take).
    request_q: DFF<Bit>,
    request_q2: DFF<Bit>,
    response_q: DFF<Bit>,
    lag_q: DFF<Bits<8>>,
    last_q: DFF<Bits<32>>,
    fault_q: DFF<Bit>,
    // Combinational.
    ask: Signal<Local, Bit>,
    /// A response ended (initiator, not yet done), and whether it answers
    /// a request.
    response_end: Signal<Local, Bit>,
    answered: Signal<Local, Bit>,
    rx_size: Signal<Local, Bits<16>>,
    /// `rx_ready`, from registers only; a take while it is low is not counted.
    ready_q: Signal<Local, Bit>,
    rx_count: KeepCount<K>,
    source: MessageSource<W, K>,
    ends: MessageEnds,
    meter: RttMeter,
    histogram: RttHistogram,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_zero5: Constant<Bits<5>>,
    c_one5: Constant<Bits<5>>,
    c_beat_bytes: Constant<Bits<16>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> RoundTrips<W, K> {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            abort_req: Default::default(),
            go: Default::default(),
            initiator: Default::default(),
            request_size: Default::default(),
            response_size: Default::default(),
            request_count: Default::default(),
            outstanding: Default::default(),
            enable: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            rx_take: Default::default(),
            rx_keep: Default::default(),
            rx_ready: Default::default(),
            clearing: Default::default(),
            tx_busy: Default::default(),
            tx_bytes: Default::default(),
            sent: Default::default(),
            received: Default::default(),
            owed: Default::default(),
            quiet: Default::default(),
            rx_partial: Default::default(),
            in_flight: Default::default(),
            done: Default::default(),
            fault: Default::default(),
            rtt_count: Default::default(),
            rtt_min: Default::default(),
            rtt_max: Default::default(),
            rtt_sum: Default::default(),
            rtt_sum_sq: Default::default(),
            rtt_jitter_sum: Default::default(),
            rtt_last: Default::default(),
            hist_index: Default::default(),
            hist_count: Default::default(),
            initiator_q: Default::default(),
            outstanding_q: Default::default(),
            to_ask: Default::default(),
            more: Default::default(),
            to_end: Default::default(),
            done_q: Default::default(),
            unanswered: Default::default(),
            send_q: Default::default(),
            received_q: Default::default(),
            take_q: Default::default(),
            bytes_q: Default::default(),
            short_q: Default::default(),
            request_q: Default::default(),
            request_q2: Default::default(),
            response_q: Default::default(),
            lag_q: Default::default(),
            last_q: Default::default(),
            fault_q: Default::default(),
            ask: Default::default(),
            response_end: Default::default(),
            answered: Default::default(),
            rx_size: Default::default(),
            ready_q: Default::default(),
            rx_count: Default::default(),
            source: MessageSource::new(),
            ends: MessageEnds::default(),
            meter: RttMeter::default(),
            histogram: RttHistogram::default(),
            c_zero32: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            c_zero5: Constant::new(bits(0)),
            c_one5: Constant::new(bits(1)),
            c_beat_bytes: Constant::new(bits(K as u64)),
            verilog_name: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Default for RoundTrips<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for RoundTrips<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            initiator_q,
            outstanding_q,
            to_ask,
            more,
            to_end,
            done_q,
            unanswered,
            send_q,
            received_q,
            take_q,
            bytes_q,
            short_q,
            request_q,
            request_q2,
            response_q,
            lag_q,
            last_q,
            fault_q
        );
        // The initiator asks for a request from registers only; the source
        // gets it a cycle later (`send_q`), and `unanswered` counts it at
        // once, so no more than `outstanding` are ever unanswered.
        self.ask.next = self.go.val()
            & self.initiator_q.q.val()
            & self.more.q.val()
            & (self.unanswered.q.val() < self.outstanding_q.q.val());
        // An end with no request unanswered (a peer that sends unasked) is
        // not an answer: the counts stay, the meter flags it (`fault`).
        self.response_end.next = self.initiator_q.q.val() & self.ends.ended.val() & !self.done_q.q.val();
        self.answered.next = self.response_end.val() & (self.unanswered.q.val() != self.c_zero5.val());
        // The source's `send`, registered: the initiator's ask, or the
        // echo's end (answered while the test runs).
        self.send_q.d.next = self.ask.val() | (!self.initiator_q.q.val() & self.go.val() & self.ends.ended.val());
        if self.ask.val() {
            self.to_ask.d.next = self.to_ask.q.val() - self.c_one32.val();
            self.more.d.next = self.to_ask.q.val() != self.c_one32.val();
        }
        if self.ask.val() & !self.answered.val() {
            self.unanswered.d.next = self.unanswered.q.val() + self.c_one5.val();
        }
        if self.answered.val() & !self.ask.val() {
            self.unanswered.d.next = self.unanswered.q.val() - self.c_one5.val();
        }
        if self.answered.val() {
            self.to_end.d.next = self.to_end.q.val() - self.c_one32.val();
            self.done_q.d.next = self.to_end.q.val() == self.c_one32.val();
        }
        if self.ends.ended.val() {
            self.received_q.d.next = self.received_q.q.val() + self.c_one32.val();
        }
        if self.meter.sample_valid.val() {
            self.last_q.d.next = self.meter.sample.val();
        }
        self.fault_q.d.next =
            self.fault_q.q.val() | self.meter.overflow.val() | self.meter.orphan.val() | self.histogram.missed.val();

        // The source: requests (initiator) or responses (echo).
        self.source.clock.next = self.clock.val();
        self.source.reset.next = self.reset.val();
        self.source.start.next = self.start.val();
        self.source.abort_req.next = self.abort_req.val();
        if self.initiator.val() {
            self.source.size.next = self.request_size.val();
            self.rx_size.next = self.response_size.val();
        } else {
            self.source.size.next = self.response_size.val();
            self.rx_size.next = self.request_size.val();
        }
        self.ends.size.next = self.rx_size.val();
        self.source.send.next = self.send_q.q.val();
        self.source.enable.next = self.enable.val();
        self.m_tdata.next = self.source.m_tdata.val();
        self.m_tkeep.next = self.source.m_tkeep.val();
        self.m_tlast.next = self.source.m_tlast.val();
        self.m_tvalid.next = self.source.m_tvalid.val();
        self.source.m_tready.next = self.m_tready.val();

        // The ends of the received messages.
        self.ends.clock.next = self.clock.val();
        self.ends.reset.next = self.reset.val();
        self.ends.start.next = self.start.val();

        self.rx_count.keep.next = self.rx_keep.val();
        self.bytes_q.d.next = self.rx_count.count.val();
        self.ends.take.next = self.take_q.q.val();
        self.ends.bytes.next = self.bytes_q.q.val();
        self.ready_q.next = self.ends.ready.val() & !(self.short_q.q.val() & self.take_q.q.val());
        // Written out rather than read from `ready_q`, which the
        // input-dependent `take_q` below also reads: one local read by both
        // makes Verilator schedule this flip-flop-only output with the
        // input-combinational logic, recomputed at every evaluation, and the
        // session's `rx_tready` would follow it (issue 27, as in the rate
        // limiter). The logic is the same.
        self.rx_ready.next = self.ends.ready.val() & !(self.short_q.q.val() & self.take_q.q.val());
        self.take_q.d.next = self.rx_take.val() & self.ready_q.val();

        // The measurement: the initiator's round trips.
        self.meter.clock.next = self.clock.val();
        self.meter.reset.next = self.reset.val();
        self.meter.clear.next = self.start.val();
        // Its events a cycle late, registered, both ends alike: the round
        // trips are the same and the meter's input cones stay shallow.
        self.request_q.d.next = self.initiator_q.q.val() & self.source.first.val();
        self.request_q2.d.next = self.request_q.q.val();
        self.response_q.d.next = self.response_end.val();
        self.lag_q.d.next = self.ends.lag.val();
        self.meter.request.next = self.request_q2.q.val();
        self.meter.response.next = self.response_q.q.val();
        self.meter.response_lag.next = self.lag_q.q.val();
        self.histogram.clock.next = self.clock.val();
        self.histogram.reset.next = self.reset.val();
        self.histogram.clear.next = self.start.val();
        self.histogram.sample_valid.next = self.meter.sample_valid.val();
        self.histogram.sample_bucket.next = self.meter.sample_bucket.val();
        self.histogram.read_index.next = self.hist_index.val();

        self.clearing.next = self.histogram.clearing.val();
        self.tx_busy.next = self.source.busy.val();
        self.tx_bytes.next = self.source.bytes_sent.val();
        self.sent.next = self.source.messages.val();
        self.received.next = self.received_q.q.val();
        self.owed.next = self.source.owed.val();
        self.quiet.next = !self.take_q.q.val()
            & self.ends.ready.val()
            & !self.ends.ended.val()
            & !self.send_q.q.val()
            & !self.source.busy.val();
        self.rx_partial.next = self.ends.mid.val();
        self.in_flight.next = self.meter.in_flight.val();
        self.rtt_last.next = self.last_q.q.val();
        self.done.next = self.done_q.q.val();
        self.fault.next = self.fault_q.q.val();
        self.rtt_count.next = self.meter.count.val();
        self.rtt_min.next = self.meter.min.val();
        self.rtt_max.next = self.meter.max.val();
        self.rtt_sum.next = self.meter.sum.val();
        self.rtt_sum_sq.next = self.meter.sum_sq.val();
        self.rtt_jitter_sum.next = self.meter.jitter_sum.val();
        self.hist_count.next = self.histogram.read_count.val();

        if self.start.val() {
            self.initiator_q.d.next = self.initiator.val();
            // 0 is one at a time, as 1: software of register map 1.4
            // writes `test_config` with these bits 0.
            if self.outstanding.val() == self.c_zero5.val() {
                self.outstanding_q.d.next = self.c_one5.val();
            } else {
                self.outstanding_q.d.next = self.outstanding.val();
            }
            self.to_ask.d.next = self.request_count.val();
            self.more.d.next = self.request_count.val() != self.c_zero32.val();
            self.to_end.d.next = self.request_count.val();
            self.done_q.d.next = self.initiator.val() & (self.request_count.val() == self.c_zero32.val());
            self.short_q.d.next = self.rx_size.val() < self.c_beat_bytes.val();
        }
        if self.start.val() | self.reset.val() {
            self.unanswered.d.next = self.c_zero5.val();
            self.received_q.d.next = self.c_zero32.val();
            self.last_q.d.next = self.c_zero32.val();
            self.fault_q.d.next = false;
        }
        if self.abort_req.val() | self.reset.val() {
            self.more.d.next = false;
        }
        if self.start.val() | self.abort_req.val() | self.reset.val() {
            self.send_q.d.next = false;
        }
        if self.start.val() | self.reset.val() {
            self.take_q.d.next = false;
            self.request_q.d.next = false;
            self.request_q2.d.next = false;
            self.response_q.d.next = false;
        }
        if self.reset.val() {
            self.initiator_q.d.next = false;
            self.done_q.d.next = false;
        }
    }
}
