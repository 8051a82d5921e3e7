//! Data verifier: one session's receive stream against the incremental
//! pattern, one beat per cycle at any width.
//!
//! ```text
//!  s_t* --> A: register beat, expected word, offset, bytes left in the transfer
//!           M: bytes of the beat inside the transfer (ByteMask), registered
//!           B: BeatCheck -> byte_err[K], count      (byte compares, shallow)
//!           C: any_err = |byte_err, beyond = count > room, bytes += count;
//!              the beat and byte_err sit in the capture registers
//!           D: first error? hold the capture, error count, sticky flag
//!           scan: shift the captured beat down a lane a cycle to the first wrong byte
//!        --> bytes, packets, complete, error, err_count, err_valid, err_offset/expected/received, err_cause
//! ```
//!
//! The pattern offset counts from `start` (a new transfer) and is not reset
//! by `tlast`. Bytes with `tkeep` low are not checked. Only a transfer's final
//! beat may be partial (ARCHITECTURE section 3), so beat n starts at byte
//! `n * W/8` and its lanes hold words `n * W/32 + i`.
//!
//! Errors (all latch the first-error record if it is still empty; the record
//! describes the error with the lowest stream offset):
//! - mismatch: a kept byte inside the transfer differs from the pattern
//!   (only when `verify` was high at `start`);
//! - beyond: data past `transfer_size`: offset = `transfer_size`;
//! - short: `finish` arrives before `transfer_size` bytes: offset = bytes received.
//!
//! `err_count` counts beats with a mismatch or beyond data, plus a short end,
//! saturating at 2^32-1. `clear` empties the record and the count; `start`
//! does too and also zeroes the byte counter. The record is complete
//! (`err_valid`) at most W/32 + 2 cycles after the error is captured, which
//! is five cycles after the beat was accepted.

use rust_hdl::prelude::*;

use crate::beat_check::{BeatCheck, ByteMask};
use crate::pattern_lanes::PatternLanes;

/// `err_cause` values: the verifier's own encoding, internal to the
/// datapath. They are not the register map's `error_cause` codes
/// (`config::codes::ErrorCause`): the session (`session.rs`) translates them
/// (mismatch -> `verify`, beyond -> `beyond_size`, short -> `peer_closed`).
pub const CAUSE_NONE: u64 = 0;
pub const CAUSE_MISMATCH: u64 = 1;
pub const CAUSE_BEYOND: u64 = 2;
pub const CAUSE_SHORT: u64 = 3;

#[derive(LogicBlock)]
pub struct DataVerifier<const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// One-cycle pulse: a new transfer; samples `transfer_size` and `verify`.
    pub start: Signal<In, Bit>,
    /// One-cycle pulse: the transfer has ended (peer closed); checks for a short transfer.
    pub finish: Signal<In, Bit>,
    /// One-cycle pulse: clear the error record, count and flag.
    pub clear: Signal<In, Bit>,
    /// Expected bytes, sampled on `start`.
    pub transfer_size: Signal<In, Bits<48>>,
    /// Check data against the pattern; sampled on `start`.
    pub verify: Signal<In, Bit>,
    pub s_tdata: Signal<In, Bits<W>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    /// Always high: the verifier takes a beat every cycle (the RX rate limiter gates it).
    pub s_tready: Signal<Out, Bit>,
    /// Bytes received since `start`.
    pub bytes: Signal<Out, Bits<64>>,
    /// Beats with `tlast` since `start` (packets as the TOE delivered them).
    pub packets: Signal<Out, Bits<32>>,
    /// `bytes` equals the transfer size.
    pub complete: Signal<Out, Bit>,
    /// Sticky: an error was seen.
    pub error: Signal<Out, Bit>,
    /// Sticky until `start`: data past `transfer_size` arrived, whatever the
    /// first-error record shows (a mismatch may come first).
    pub beyond: Signal<Out, Bit>,
    /// No beat and no `finish` is in the pipeline: every counter, flag and
    /// record shows everything taken so far (the scan may still run; see
    /// `err_valid`).
    pub settled: Signal<Out, Bit>,
    pub err_count: Signal<Out, Bits<32>>,
    /// The first-error record below is complete.
    pub err_valid: Signal<Out, Bit>,
    /// `CAUSE_*` above (internal to the verifier, not `error_cause`).
    pub err_cause: Signal<Out, Bits<2>>,
    pub err_offset: Signal<Out, Bits<48>>,
    pub err_expected: Signal<Out, Bits<32>>,
    pub err_received: Signal<Out, Bits<32>>,
    // Sampled at start.
    size_q: DFF<Bits<48>>,
    verify_q: DFF<Bit>,
    // Stream position of the next beat.
    next_word: DFF<Bits<32>>,
    next_offset: DFF<Bits<48>>,
    // Stage A.
    a_valid: DFF<Bit>,
    a_end: DFF<Bit>,
    a_data: DFF<Bits<W>>,
    a_keep: DFF<Bits<K>>,
    a_word: DFF<Bits<32>>,
    a_offset: DFF<Bits<48>>,
    a_room: DFF<Bits<8>>,
    a_past: DFF<Bit>,
    // Stage M.
    m_valid: DFF<Bit>,
    m_end: DFF<Bit>,
    m_data: DFF<Bits<W>>,
    m_keep: DFF<Bits<K>>,
    m_word: DFF<Bits<32>>,
    m_offset: DFF<Bits<48>>,
    m_room: DFF<Bits<8>>,
    m_inside: DFF<Bits<K>>,
    m_past: DFF<Bit>,
    // Stage B.
    b_valid: DFF<Bit>,
    b_end: DFF<Bit>,
    b_data: DFF<Bits<W>>,
    b_err: DFF<Bits<K>>,
    b_count: DFF<Bits<8>>,
    b_room: DFF<Bits<8>>,
    b_past: DFF<Bit>,
    b_word: DFF<Bits<32>>,
    b_offset: DFF<Bits<48>>,
    // Stage C.
    c_valid: DFF<Bit>,
    c_end: DFF<Bit>,
    c_any: DFF<Bit>,
    c_beyond: DFF<Bit>,
    c_room: DFF<Bits<8>>,
    c_word: DFF<Bits<32>>,
    c_offset: DFF<Bits<48>>,
    // Counters and the record.
    count: DFF<Bits<64>>,
    errors: DFF<Bits<32>>,
    flag: DFF<Bit>,
    over: DFF<Bit>,
    latched: DFF<Bit>,
    scanning: DFF<Bit>,
    rec_valid: DFF<Bit>,
    cause: DFF<Bits<2>>,
    cap_data: DFF<Bits<W>>,
    cap_err: DFF<Bits<K>>,
    cap_word: DFF<Bits<32>>,
    cap_offset: DFF<Bits<48>>,
    cap_index: DFF<Bits<8>>,
    scan_byte: DFF<Bits<16>>,
    npackets: DFF<Bits<32>>,
    scan_lane: DFF<Bits<32>>,
    rec_offset: DFF<Bits<48>>,
    rec_expected: DFF<Bits<32>>,
    rec_received: DFF<Bits<32>>,
    // Combinational.
    lanes: PatternLanes<W>,
    check: BeatCheck<W, K>,
    mask: ByteMask<K>,
    room48: Signal<Local, Bits<48>>,
    lane_err: Signal<Local, Bits<4>>,
    /// Stage C holds the first error: capture it at this edge.
    latch_now: Signal<Local, Bit>,
    first_in_lane: Signal<Local, Bits<48>>,
    c_zero48: Constant<Bits<48>>,
    c_zero64: Constant<Bits<64>>,
    c_zero32: Constant<Bits<32>>,
    c_zero16: Constant<Bits<16>>,
    c_zero8: Constant<Bits<8>>,
    c_one32: Constant<Bits<32>>,
    c_one48: Constant<Bits<48>>,
    c_two48: Constant<Bits<48>>,
    c_three48: Constant<Bits<48>>,
    c_max32: Constant<Bits<32>>,
    c_255: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
    c_lanes: Constant<Bits<32>>,
    c_beat_bytes: Constant<Bits<48>>,
    c_lane_step: Constant<Bits<16>>,
    c_shift_err: Constant<Bits<8>>,
    c_shift_data: Constant<Bits<8>>,
    c_beat_bytes16: Constant<Bits<16>>,
    c_room_mask: Constant<Bits<48>>,
    c_cause_none: Constant<Bits<2>>,
    c_cause_mismatch: Constant<Bits<2>>,
    c_zero_keep: Constant<Bits<K>>,
    c_cause_beyond: Constant<Bits<2>>,
    c_cause_short: Constant<Bits<2>>,
}

impl<const W: usize, const K: usize> DataVerifier<W, K> {
    pub fn new() -> Self {
        assert!(config::DATA_WIDTHS.contains(&W), "DataVerifier: W = {W} is not {}", config::data_widths_text());
        assert_eq!(K, W / 8, "DataVerifier: K must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            finish: Default::default(),
            clear: Default::default(),
            transfer_size: Default::default(),
            verify: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            bytes: Default::default(),
            packets: Default::default(),
            complete: Default::default(),
            error: Default::default(),
            beyond: Default::default(),
            settled: Default::default(),
            err_count: Default::default(),
            err_valid: Default::default(),
            err_cause: Default::default(),
            err_offset: Default::default(),
            err_expected: Default::default(),
            err_received: Default::default(),
            size_q: Default::default(),
            verify_q: Default::default(),
            next_word: Default::default(),
            next_offset: Default::default(),
            a_valid: Default::default(),
            a_end: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_word: Default::default(),
            a_offset: Default::default(),
            a_room: Default::default(),
            a_past: Default::default(),
            m_valid: Default::default(),
            m_end: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_word: Default::default(),
            m_offset: Default::default(),
            m_room: Default::default(),
            m_inside: Default::default(),
            m_past: Default::default(),
            b_valid: Default::default(),
            b_end: Default::default(),
            b_data: Default::default(),
            b_err: Default::default(),
            b_count: Default::default(),
            b_room: Default::default(),
            b_past: Default::default(),
            b_word: Default::default(),
            b_offset: Default::default(),
            c_valid: Default::default(),
            c_end: Default::default(),
            c_any: Default::default(),
            c_beyond: Default::default(),
            c_room: Default::default(),
            c_word: Default::default(),
            c_offset: Default::default(),
            count: Default::default(),
            errors: Default::default(),
            flag: Default::default(),
            over: Default::default(),
            latched: Default::default(),
            scanning: Default::default(),
            rec_valid: Default::default(),
            cause: Default::default(),
            cap_data: Default::default(),
            cap_err: Default::default(),
            cap_word: Default::default(),
            cap_offset: Default::default(),
            cap_index: Default::default(),
            scan_byte: Default::default(),
            npackets: Default::default(),
            scan_lane: Default::default(),
            rec_offset: Default::default(),
            rec_expected: Default::default(),
            rec_received: Default::default(),
            lanes: PatternLanes::new(),
            check: BeatCheck::new(),
            mask: ByteMask::new(),
            room48: Default::default(),
            lane_err: Default::default(),
            latch_now: Default::default(),
            first_in_lane: Default::default(),
            c_zero48: Constant::new(bits(0)),
            c_zero64: Constant::new(bits(0)),
            c_zero32: Constant::new(bits(0)),
            c_zero16: Constant::new(bits(0)),
            c_zero8: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            c_one48: Constant::new(bits(1)),
            c_two48: Constant::new(bits(2)),
            c_three48: Constant::new(bits(3)),
            c_max32: Constant::new(bits(u32::MAX as u64)),
            c_255: Constant::new(bits(255)),
            c_zero4: Constant::new(bits(0)),
            c_lanes: Constant::new(bits((W / 32) as u64)),
            c_beat_bytes: Constant::new(bits(K as u64)),
            c_lane_step: Constant::new(bits(4)),
            c_shift_err: Constant::new(bits(4)),
            c_shift_data: Constant::new(bits(32)),
            c_beat_bytes16: Constant::new(bits(K as u64)),
            c_room_mask: Constant::new(bits(!255u64 & ((1u64 << 48) - 1))),
            c_cause_none: Constant::new(bits(CAUSE_NONE)),
            c_cause_mismatch: Constant::new(bits(CAUSE_MISMATCH)),
            c_zero_keep: Constant::new(Bits::<K>::default()),
            c_cause_beyond: Constant::new(bits(CAUSE_BEYOND)),
            c_cause_short: Constant::new(bits(CAUSE_SHORT)),
        }
    }
}

impl<const W: usize, const K: usize> Default for DataVerifier<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for DataVerifier<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            size_q,
            verify_q,
            next_word,
            next_offset,
            a_valid,
            a_end,
            a_data,
            a_keep,
            a_word,
            a_offset,
            a_room,
            a_past,
            m_valid,
            m_end,
            m_data,
            m_keep,
            m_word,
            m_offset,
            m_room,
            m_inside,
            m_past,
            b_valid,
            b_end,
            b_data,
            b_err,
            b_count,
            b_room,
            b_past,
            b_word,
            b_offset,
            c_valid,
            c_end,
            c_any,
            c_beyond,
            c_room,
            c_word,
            c_offset,
            count,
            errors,
            flag,
            over,
            latched,
            scanning,
            rec_valid,
            cause,
            cap_data,
            cap_err,
            cap_word,
            cap_offset,
            cap_index,
            scan_byte,
            scan_lane,
            npackets,
            rec_offset,
            rec_expected,
            rec_received
        );
        self.s_tready.next = true;
        self.bytes.next = self.count.q.val();
        self.packets.next = self.npackets.q.val();
        self.complete.next = self.count.q.val() == bit_cast::<64, 48>(self.size_q.q.val());
        self.error.next = self.flag.q.val();
        self.beyond.next = self.over.q.val();
        self.settled.next = !(self.a_valid.q.val()
            | self.a_end.q.val()
            | self.m_valid.q.val()
            | self.m_end.q.val()
            | self.b_valid.q.val()
            | self.b_end.q.val()
            | self.c_valid.q.val()
            | self.c_end.q.val());
        self.err_count.next = self.errors.q.val();
        self.err_valid.next = self.rec_valid.q.val();
        self.err_cause.next = self.cause.q.val();
        self.err_offset.next = self.rec_offset.q.val();
        self.err_expected.next = self.rec_expected.q.val();
        self.err_received.next = self.rec_received.q.val();

        // Stage A: register the beat with its place in the stream.
        self.a_valid.d.next = self.s_tvalid.val();
        self.a_end.d.next = self.finish.val();
        self.a_data.d.next = self.s_tdata.val();
        self.a_keep.d.next = self.s_tkeep.val();
        self.a_word.d.next = self.next_word.q.val();
        self.a_offset.d.next = self.next_offset.q.val();
        // Bytes left in the transfer at this beat, saturated to 8 bits: 0 for a
        // beat that starts past the end.
        self.room48.next = self.size_q.q.val() - self.next_offset.q.val();
        self.a_past.d.next = self.next_offset.q.val() >= self.size_q.q.val();
        if self.next_offset.q.val() >= self.size_q.q.val() {
            self.a_room.d.next = self.c_zero8.val();
        } else if (self.room48.val() & self.c_room_mask.val()) != self.c_zero48.val() {
            self.a_room.d.next = self.c_255.val();
        } else {
            self.a_room.d.next = self.room48.val().get_bits::<8>(0);
        }
        if self.s_tvalid.val() & self.s_tlast.val() {
            self.npackets.d.next = self.npackets.q.val() + self.c_one32.val();
        }
        if self.s_tvalid.val() {
            self.next_word.d.next = self.next_word.q.val() + self.c_lanes.val();
            self.next_offset.d.next = self.next_offset.q.val() + self.c_beat_bytes.val();
        }

        // Stage M: which bytes of the beat lie inside the transfer.
        self.mask.room.next = self.a_room.q.val();
        self.m_valid.d.next = self.a_valid.q.val();
        self.m_end.d.next = self.a_end.q.val();
        self.m_data.d.next = self.a_data.q.val();
        self.m_keep.d.next = self.a_keep.q.val();
        self.m_word.d.next = self.a_word.q.val();
        self.m_offset.d.next = self.a_offset.q.val();
        self.m_room.d.next = self.a_room.q.val();
        self.m_inside.d.next = self.mask.in_transfer.val();
        self.m_past.d.next = self.a_past.q.val();

        // Stage B: per-byte compare against the pattern.
        self.lanes.word.next = self.m_word.q.val();
        self.check.data.next = self.m_data.q.val();
        self.check.expected.next = self.lanes.data.val();
        self.check.keep.next = self.m_keep.q.val();
        self.check.in_transfer.next = self.m_inside.q.val();
        self.b_valid.d.next = self.m_valid.q.val();
        self.b_end.d.next = self.m_end.q.val();
        self.b_data.d.next = self.m_data.q.val();
        if self.verify_q.q.val() {
            self.b_err.d.next = self.check.byte_err.val();
        } else {
            self.b_err.d.next = self.c_zero_keep.val();
        }
        self.b_count.d.next = self.check.count.val();
        self.b_room.d.next = self.m_room.q.val();
        self.b_past.d.next = self.m_past.q.val();
        self.b_word.d.next = self.m_word.q.val();
        self.b_offset.d.next = self.m_offset.q.val();

        // Stage C: reduce, count bytes, data past the transfer size.
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_end.d.next = self.b_end.q.val();
        self.c_any.d.next = self.b_valid.q.val() & self.b_err.q.val().any();
        self.c_beyond.d.next =
            self.b_valid.q.val() & (self.b_past.q.val() | (self.b_count.q.val() > self.b_room.q.val()));
        self.c_room.d.next = self.b_room.q.val();
        self.c_word.d.next = self.b_word.q.val();
        self.c_offset.d.next = self.b_offset.q.val();
        if self.b_valid.q.val() {
            self.count.d.next = self.count.q.val() + bit_cast::<64, 8>(self.b_count.q.val());
        }

        // Stage C's beat and byte errors are the capture registers
        // themselves: `cap_data`/`cap_err` follow stage B until the beat they
        // hold is captured (or while a capture is held, unless `start`,
        // `clear` or `reset` ends it in this cycle), so the first error's
        // beat needs no copy of its own.
        self.latch_now.next = !self.latched.q.val() & (self.c_any.q.val() | self.c_beyond.q.val());
        if !self.latch_now.val() & (!self.latched.q.val() | self.start.val() | self.clear.val() | self.reset.val()) {
            self.cap_data.d.next = self.b_data.q.val();
            self.cap_err.d.next = self.b_err.q.val();
        }

        // Stage D: the first error is captured; every error is counted.
        if (self.c_any.q.val() | self.c_beyond.q.val()) & (self.errors.q.val() != self.c_max32.val()) {
            self.errors.d.next = self.errors.q.val() + self.c_one32.val();
        }
        if self.c_any.q.val() | self.c_beyond.q.val() {
            self.flag.d.next = true;
        }
        if self.c_beyond.q.val() {
            self.over.d.next = true;
        }
        if self.latch_now.val() {
            self.latched.d.next = true;
            self.cap_word.d.next = self.c_word.q.val();
            self.cap_offset.d.next = self.c_offset.q.val();
            self.scan_byte.d.next = self.c_zero16.val();
            self.scan_lane.d.next = self.c_zero32.val();
            if self.c_any.q.val() {
                // A wrong byte inside the transfer comes before the first byte past it.
                self.cause.d.next = self.c_cause_mismatch.val();
                self.scanning.d.next = true;
            } else {
                self.cause.d.next = self.c_cause_beyond.val();
                self.cap_index.d.next = self.c_room.q.val();
                self.rec_offset.d.next = self.size_q.q.val();
                self.rec_expected.d.next = self.size_q.q.val().get_bits::<32>(2);
                self.scanning.d.next = true;
            }
        }
        if self.c_end.q.val()
            & (bit_cast::<64, 48>(self.size_q.q.val()) > self.count.q.val())
            & !(self.c_any.q.val() | self.c_beyond.q.val())
        {
            self.flag.d.next = true;
            if self.errors.q.val() != self.c_max32.val() {
                self.errors.d.next = self.errors.q.val() + self.c_one32.val();
            }
            if !self.latched.q.val() {
                self.latched.d.next = true;
                self.cause.d.next = self.c_cause_short.val();
                self.rec_offset.d.next = self.count.q.val().get_bits::<48>(0);
                self.rec_expected.d.next = self.count.q.val().get_bits::<32>(2);
                self.rec_received.d.next = self.c_zero32.val();
                self.rec_valid.d.next = true;
            }
        }

        // Scan: one lane a cycle until the first wrong byte (mismatch), or the
        // lane that holds the first byte past the transfer (beyond).
        // The captured beat shifts down one lane per scan step, so the lane
        // under inspection is always the lowest: no wide multiplexer.
        self.lane_err.next = self.cap_err.q.val().get_bits::<4>(0);
        if self.lane_err.val().get_bit(0) {
            self.first_in_lane.next = self.c_zero48.val();
        } else if self.lane_err.val().get_bit(1) {
            self.first_in_lane.next = self.c_one48.val();
        } else if self.lane_err.val().get_bit(2) {
            self.first_in_lane.next = self.c_two48.val();
        } else {
            self.first_in_lane.next = self.c_three48.val();
        }
        if self.scanning.q.val() {
            if self.cause.q.val() == self.c_cause_beyond.val() {
                if (bit_cast::<16, 8>(self.cap_index.q.val()) < self.scan_byte.q.val() + self.c_lane_step.val())
                    | (self.scan_byte.q.val() + self.c_lane_step.val() >= self.c_beat_bytes16.val())
                {
                    self.scanning.d.next = false;
                    self.rec_valid.d.next = true;
                    self.rec_received.d.next = self.cap_data.q.val().get_bits::<32>(0);
                } else {
                    self.scan_byte.d.next = self.scan_byte.q.val() + self.c_lane_step.val();
                    self.cap_err.d.next = self.cap_err.q.val() >> self.c_shift_err.val();
                    self.cap_data.d.next = self.cap_data.q.val() >> self.c_shift_data.val();
                    self.scan_lane.d.next = self.scan_lane.q.val() + self.c_one32.val();
                }
            } else if self.lane_err.val() != self.c_zero4.val() {
                self.scanning.d.next = false;
                self.rec_valid.d.next = true;
                self.rec_offset.d.next =
                    self.cap_offset.q.val() + bit_cast::<48, 16>(self.scan_byte.q.val()) + self.first_in_lane.val();
                self.rec_expected.d.next = self.cap_word.q.val() | self.scan_lane.q.val();
                self.rec_received.d.next = self.cap_data.q.val().get_bits::<32>(0);
            } else {
                self.scan_byte.d.next = self.scan_byte.q.val() + self.c_lane_step.val();
                self.cap_err.d.next = self.cap_err.q.val() >> self.c_shift_err.val();
                self.cap_data.d.next = self.cap_data.q.val() >> self.c_shift_data.val();
                self.scan_lane.d.next = self.scan_lane.q.val() + self.c_one32.val();
            }
        }

        if self.start.val() {
            self.size_q.d.next = self.transfer_size.val();
            self.verify_q.d.next = self.verify.val();
            self.next_word.d.next = self.c_zero32.val();
            self.next_offset.d.next = self.c_zero48.val();
            self.count.d.next = self.c_zero64.val();
            self.npackets.d.next = self.c_zero32.val();
            self.over.d.next = false;
        }
        if self.start.val() | self.clear.val() | self.reset.val() {
            self.errors.d.next = self.c_zero32.val();
            self.flag.d.next = false;
            self.latched.d.next = false;
            self.scanning.d.next = false;
            self.rec_valid.d.next = false;
            self.cause.d.next = self.c_cause_none.val();
            self.rec_offset.d.next = self.c_zero48.val();
            self.rec_expected.d.next = self.c_zero32.val();
            self.rec_received.d.next = self.c_zero32.val();
        }
        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.c_any.d.next = false;
            self.c_beyond.d.next = false;
            self.a_end.d.next = false;
            self.m_valid.d.next = false;
            self.m_end.d.next = false;
            self.b_end.d.next = false;
            self.c_end.d.next = false;
            self.count.d.next = self.c_zero64.val();
            self.npackets.d.next = self.c_zero32.val();
            self.next_word.d.next = self.c_zero32.val();
            self.next_offset.d.next = self.c_zero48.val();
            self.over.d.next = false;
        }
    }
}
