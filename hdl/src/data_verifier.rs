//! Data verifier: one session's receive stream against the incremental
//! pattern, one beat per cycle at any width.
//!
//! ```text
//!  s_t* --> A: register the beat, its offset (the one before + the bytes it kept),
//!              the pattern there (PatternAt), bytes left in the transfer (room)
//!           B: BeatCheck -> lanes with a wrong byte, lanes with a byte past the end,
//!              byte count; the beat and its keep enter the capture registers
//!           D: OR-reduce the lane flags (wrong, past the end): count bytes and errors;
//!              on the first error the capture registers hold that beat
//!           E: the peer's close: a short transfer?
//!           scan: a lane a cycle (LaneSelect, registered; LaneCheck, registered)
//!                 to the first wrong byte
//!        --> bytes, packets, complete, error, err_count, err_valid, err_offset/expected/received, err_cause
//! ```
//!
//! The pattern offset counts from `start` (a new transfer) and is not reset
//! by `tlast`. Bytes with `tkeep` low are not checked. A beat may be partial
//! wherever the TOE pushes (`docs/toe_interface.md`: a PSH, the duplicated
//! last packet, its push timeout), not only at the end of the transfer, so
//! each beat is checked against the pattern at its own offset (`PatternAt`)
//! and the offset advances by the bytes the beat keeps (`KeepCount`). The
//! first-error record's expected word is the pattern's 4 bytes at the
//! wrong byte's lane.
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
//! does too and also zeroes the byte counter. A beat accepted in cycle t
//! shows in `bytes`, `complete`, `error`, `beyond` and `err_count` from
//! cycle t + 3. If it holds the first error, the record is complete
//! (`err_valid`) from cycle t + 6 + j, j the lane of its first wrong byte
//! (of the first byte past the transfer, for beyond): at the latest
//! t + W/32 + 5. A `finish` in cycle t shows a short end from t + 5, its
//! record complete at once. `settled` is high once nothing taken is still
//! on its way to those outputs.

use rust_hdl::prelude::*;

use crate::beat_check::BeatCheck;
use crate::keep_count::KeepCount;
use crate::lane_select::{LaneCheck, LaneSelect};
use crate::pattern_at::PatternAt;

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
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    // ---- Control (from the session).
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
    // ---- Stream in (AXI4-Stream, from the TOE).
    /// Received beat.
    pub s_tdata: Signal<In, Bits<W>>,
    /// Byte enables.
    pub s_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a packet.
    pub s_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Always high: the verifier takes a beat every cycle (the RX rate limiter gates it).
    pub s_tready: Signal<Out, Bit>,
    // ---- Counts and status.
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
    // ---- First-error record.
    /// Beats with a wrong or late byte, plus a short end (saturating).
    pub err_count: Signal<Out, Bits<32>>,
    /// The first-error record below is complete.
    pub err_valid: Signal<Out, Bit>,
    /// `CAUSE_*` above (internal to the verifier, not `error_cause`).
    pub err_cause: Signal<Out, Bits<2>>,
    /// Stream offset of the first error.
    pub err_offset: Signal<Out, Bits<48>>,
    /// Expected word at the first error.
    pub err_expected: Signal<Out, Bits<32>>,
    /// Received word at the first error.
    pub err_received: Signal<Out, Bits<32>>,
    // Sampled at start.
    size_q: DFF<Bits<48>>,
    verify_q: DFF<Bit>,
    // Stream offset of the next beat.
    next_offset: DFF<Bits<48>>,
    // Stage A.
    a_valid: DFF<Bit>,
    a_end: DFF<Bit>,
    a_data: DFF<Bits<W>>,
    a_keep: DFF<Bits<K>>,
    a_offset: DFF<Bits<48>>,
    /// The pattern at `a_offset`.
    a_expected: DFF<Bits<W>>,
    a_room: DFF<Bits<8>>,
    a_past: DFF<Bit>,
    // Stage B (its beat is `cap_data` until the first error is held).
    b_valid: DFF<Bit>,
    b_end: DFF<Bit>,
    /// Lanes of stage B's beat with a byte error (bit j: lane j); none
    /// when no beat is there.
    b_lanes: DFF<Bits<32>>,
    /// Lanes of stage B's beat with a kept byte past the transfer.
    b_over: DFF<Bits<32>>,
    b_count: DFF<Bits<8>>,
    b_room: DFF<Bits<8>>,
    b_past: DFF<Bit>,
    b_offset: DFF<Bits<48>>,
    // Stages D and E: the peer's close, a cycle behind the byte count.
    d_end: DFF<Bit>,
    d_bad: DFF<Bit>,
    e_end: DFF<Bit>,
    e_bad: DFF<Bit>,
    under: DFF<Bit>,
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
    cap_keep: DFF<Bits<K>>,
    /// The captured beat's room (bytes inside the transfer).
    cap_room: DFF<Bits<8>>,
    cap_offset: DFF<Bits<48>>,
    npackets: DFF<Bits<32>>,
    scan_lane: DFF<Bits<8>>,
    // Scan stage 1: the lane picked.
    pick_valid: DFF<Bit>,
    pick_lane: DFF<Bits<8>>,
    pick_word: DFF<Bits<32>>,
    /// The pattern's 4 bytes at the picked lane.
    pick_expected: DFF<Bits<32>>,
    pick_keep: DFF<Bits<4>>,
    // Scan stage 2: its wrong bytes.
    sel_valid: DFF<Bit>,
    sel_lane: DFF<Bits<8>>,
    sel_word: DFF<Bits<32>>,
    sel_expected: DFF<Bits<32>>,
    sel_flags: DFF<Bits<4>>,
    rec_offset: DFF<Bits<48>>,
    rec_expected: DFF<Bits<32>>,
    rec_received: DFF<Bits<32>>,
    // Combinational.
    taken: KeepCount<K>,
    lanes: PatternAt<W>,
    check: BeatCheck<W, K>,
    pick: LaneSelect<W, K>,
    lane_check: LaneCheck,
    room48: Signal<Local, Bits<48>>,
    /// Word index of the first byte of the lane the scan picks.
    scan_word: Signal<Local, Bits<32>>,
    scan_next: Signal<Local, Bits<32>>,
    /// The byte of the captured beat's offset in its word, 8 times it, and
    /// 32 less that: the shifts that take the lane's bytes from the two words.
    scan_byte: Signal<Local, Bits<2>>,
    scan_shift: Signal<Local, Bits<32>>,
    scan_back: Signal<Local, Bits<32>>,
    /// Stage B's beat has a wrong byte inside the transfer.
    mismatch_now: Signal<Local, Bit>,
    /// Stage B's beat carries data past the transfer size.
    beyond_now: Signal<Local, Bit>,
    /// Stage B's beat has a wrong byte or data past the end.
    bad_now: Signal<Local, Bit>,
    /// The peer closed before the transfer size (stage E).
    short_now: Signal<Local, Bit>,
    /// The lane that holds byte `room` of the captured beat (the first byte
    /// past the transfer, for a beyond error).
    room_lane: Signal<Local, Bits<8>>,
    /// Stage B's beat is the first error: hold it at this edge.
    latch_now: Signal<Local, Bit>,
    /// First byte of the selected lane.
    sel_byte: Signal<Local, Bits<8>>,
    first_in_lane: Signal<Local, Bits<48>>,
    /// The selected lane ends the scan.
    found: Signal<Local, Bit>,
    c_zero48: Constant<Bits<48>>,
    c_zero64: Constant<Bits<64>>,
    c_zero32: Constant<Bits<32>>,
    c_zero8: Constant<Bits<8>>,
    c_one32: Constant<Bits<32>>,
    c_one48: Constant<Bits<48>>,
    c_two48: Constant<Bits<48>>,
    c_three48: Constant<Bits<48>>,
    c_max32: Constant<Bits<32>>,
    c_255: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
    c_one8: Constant<Bits<8>>,
    c_two8: Constant<Bits<8>>,
    c_3: Constant<Bits<32>>,
    c_32: Constant<Bits<32>>,
    c_last_lane: Constant<Bits<8>>,
    c_room_mask: Constant<Bits<48>>,
    c_cause_none: Constant<Bits<2>>,
    c_cause_mismatch: Constant<Bits<2>>,
    c_cause_beyond: Constant<Bits<2>>,
    c_cause_short: Constant<Bits<2>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> DataVerifier<W, K> {
    pub fn new() -> Self {
        assert!(config::DATA_WIDTHS.contains(&W), "DataVerifier: W = {W} is not {}", config::data_widths_text());
        assert_eq!(K, W / 8, "DataVerifier: K must be W / 8");
        Self {
            verilog_name: Default::default(),
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
            next_offset: Default::default(),
            a_valid: Default::default(),
            a_end: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_offset: Default::default(),
            a_expected: Default::default(),
            a_room: Default::default(),
            a_past: Default::default(),
            b_valid: Default::default(),
            b_end: Default::default(),
            b_lanes: Default::default(),
            b_over: Default::default(),
            b_count: Default::default(),
            b_room: Default::default(),
            b_past: Default::default(),
            b_offset: Default::default(),
            d_end: Default::default(),
            d_bad: Default::default(),
            e_end: Default::default(),
            e_bad: Default::default(),
            under: Default::default(),
            count: Default::default(),
            errors: Default::default(),
            flag: Default::default(),
            over: Default::default(),
            latched: Default::default(),
            scanning: Default::default(),
            rec_valid: Default::default(),
            cause: Default::default(),
            cap_data: Default::default(),
            cap_keep: Default::default(),
            cap_room: Default::default(),
            cap_offset: Default::default(),
            npackets: Default::default(),
            scan_lane: Default::default(),
            pick_valid: Default::default(),
            pick_lane: Default::default(),
            pick_word: Default::default(),
            pick_expected: Default::default(),
            pick_keep: Default::default(),
            sel_valid: Default::default(),
            sel_lane: Default::default(),
            sel_word: Default::default(),
            sel_expected: Default::default(),
            sel_flags: Default::default(),
            rec_offset: Default::default(),
            rec_expected: Default::default(),
            rec_received: Default::default(),
            taken: Default::default(),
            lanes: PatternAt::new(),
            check: BeatCheck::new(),
            pick: LaneSelect::new(),
            lane_check: LaneCheck::default(),
            room48: Default::default(),
            scan_word: Default::default(),
            scan_next: Default::default(),
            scan_byte: Default::default(),
            scan_shift: Default::default(),
            scan_back: Default::default(),
            mismatch_now: Default::default(),
            beyond_now: Default::default(),
            bad_now: Default::default(),
            short_now: Default::default(),
            room_lane: Default::default(),
            latch_now: Default::default(),
            sel_byte: Default::default(),
            first_in_lane: Default::default(),
            found: Default::default(),
            c_zero48: Constant::new(bits(0)),
            c_zero64: Constant::new(bits(0)),
            c_zero32: Constant::new(bits(0)),
            c_zero8: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            c_one48: Constant::new(bits(1)),
            c_two48: Constant::new(bits(2)),
            c_three48: Constant::new(bits(3)),
            c_max32: Constant::new(bits(u32::MAX as u64)),
            c_255: Constant::new(bits(255)),
            c_zero4: Constant::new(bits(0)),
            c_one8: Constant::new(bits(1)),
            c_two8: Constant::new(bits(2)),
            c_3: Constant::new(bits(3)),
            c_32: Constant::new(bits(32)),
            c_last_lane: Constant::new(bits((W / 32 - 1) as u64)),
            c_room_mask: Constant::new(bits(!255u64 & ((1u64 << 48) - 1))),
            c_cause_none: Constant::new(bits(CAUSE_NONE)),
            c_cause_mismatch: Constant::new(bits(CAUSE_MISMATCH)),
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
            next_offset,
            a_valid,
            a_end,
            a_data,
            a_keep,
            a_offset,
            a_expected,
            a_room,
            a_past,
            b_valid,
            b_end,
            b_lanes,
            b_over,
            b_count,
            b_room,
            b_past,
            b_offset,
            d_end,
            d_bad,
            e_end,
            e_bad,
            under,
            count,
            errors,
            flag,
            over,
            latched,
            scanning,
            rec_valid,
            cause,
            cap_data,
            cap_keep,
            cap_room,
            cap_offset,
            npackets,
            scan_lane,
            pick_valid,
            pick_lane,
            pick_word,
            pick_expected,
            pick_keep,
            sel_valid,
            sel_lane,
            sel_word,
            sel_expected,
            sel_flags,
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
            | self.b_valid.q.val()
            | self.b_end.q.val()
            | self.d_end.q.val()
            | self.e_end.q.val());
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
        self.a_offset.d.next = self.next_offset.q.val();
        // The pattern at the beat's offset, registered with the beat: the
        // two offset bits that pick each byte drive the whole beat, a
        // fanout kept off the compare's path.
        self.lanes.offset.next = self.next_offset.q.val().get_bits::<34>(0);
        self.a_expected.d.next = self.lanes.data.val();
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
        // The next beat starts where this one ends: a beat may be partial
        // at any push, not only at the end of the transfer.
        self.taken.keep.next = self.s_tkeep.val();
        if self.s_tvalid.val() {
            self.next_offset.d.next = self.next_offset.q.val() + bit_cast::<48, 8>(self.taken.count.val());
        }

        // Stage B: per-byte compare against the pattern, inside the room.
        self.check.expected.next = self.a_expected.q.val();
        self.check.data.next = self.a_data.q.val();
        self.check.keep.next = self.a_keep.q.val();
        self.check.room.next = self.a_room.q.val();
        // The lane flags exist only for a beat, so stage D's reduction needs
        // no `b_valid`.
        if self.verify_q.q.val() & self.a_valid.q.val() {
            self.b_lanes.d.next = self.check.lane_err.val();
        } else {
            self.b_lanes.d.next = self.c_zero32.val();
        }
        if self.a_valid.q.val() {
            self.b_over.d.next = self.check.lane_over.val();
        } else {
            self.b_over.d.next = self.c_zero32.val();
        }
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_end.d.next = self.a_end.q.val();
        self.b_count.d.next = self.check.count.val();
        self.b_room.d.next = self.a_room.q.val();
        self.b_past.d.next = self.a_valid.q.val() & self.a_past.q.val();
        self.b_offset.d.next = self.a_offset.q.val();

        // Stage D: reduce; count bytes; hold the first error (errors are
        // counted with stage E's below).
        // Stage B's beat is the capture registers' own: they take it with
        // stage B (no copy of the beat exists for the record alone), and the
        // first error's edge, or a capture already held, stops them. `start`,
        // `clear` and `reset` empty the record, so they restart the capture
        // even in the cycle of an error (whose latch they cancel): the beat
        // entering stage B is then the one to hold.
        // A kept byte at or past the transfer's end is beyond it (a beat that
        // starts past the end is beyond even with no byte kept).
        self.mismatch_now.next = self.b_lanes.q.val().any();
        self.beyond_now.next = self.b_past.q.val() | self.b_over.q.val().any();
        self.bad_now.next = self.mismatch_now.val() | self.beyond_now.val();
        self.latch_now.next = !self.latched.q.val() & self.bad_now.val();
        if (!self.latched.q.val() & !self.latch_now.val()) | self.start.val() | self.clear.val() | self.reset.val() {
            self.cap_data.d.next = self.a_data.q.val();
            self.cap_keep.d.next = self.a_keep.q.val();
        }
        if self.b_valid.q.val() {
            self.count.d.next = self.count.q.val() + bit_cast::<64, 8>(self.b_count.q.val());
        }
        if self.beyond_now.val() {
            self.over.d.next = true;
        }
        self.d_end.d.next = self.b_end.q.val();
        self.d_bad.d.next = self.bad_now.val();
        if self.latch_now.val() {
            self.latched.d.next = true;
            self.cap_offset.d.next = self.b_offset.q.val();
            self.cap_room.d.next = self.b_room.q.val();
            self.scan_lane.d.next = self.c_zero8.val();
            self.scanning.d.next = true;
            if self.mismatch_now.val() {
                // A wrong byte inside the transfer comes before the first byte past it.
                self.cause.d.next = self.c_cause_mismatch.val();
            } else {
                self.cause.d.next = self.c_cause_beyond.val();
            }
        }

        // Stage E: the peer closed before the transfer size. The byte count
        // stage D shows includes the close's own beat; its compare is
        // registered (`under`), so the close waits a cycle for it.
        self.e_end.d.next = self.d_end.q.val();
        self.e_bad.d.next = self.d_bad.q.val();
        self.under.d.next = bit_cast::<64, 48>(self.size_q.q.val()) > self.count.q.val();
        self.short_now.next = self.e_end.q.val() & self.under.q.val() & !self.e_bad.q.val();
        // Every error raises the flag and counts once: a beat's in stage D,
        // a short end in stage E (both in one cycle count once).
        if self.bad_now.val() | self.short_now.val() {
            self.flag.d.next = true;
            if self.errors.q.val() != self.c_max32.val() {
                self.errors.d.next = self.errors.q.val() + self.c_one32.val();
            }
        }
        if self.short_now.val() & !self.latched.q.val() {
            self.latched.d.next = true;
            self.scanning.d.next = false;
            self.cause.d.next = self.c_cause_short.val();
            self.rec_offset.d.next = self.count.q.val().get_bits::<48>(0);
            self.rec_expected.d.next = self.count.q.val().get_bits::<32>(2);
            self.rec_received.d.next = self.c_zero32.val();
            self.rec_valid.d.next = true;
        }

        // Scan: one lane a cycle, picked (`pick`, registered as `pick_*`),
        // its bytes checked (`lane_check`, registered as `sel_*`), until the
        // first wrong byte (mismatch), or the lane that holds the first byte
        // past the transfer (beyond). The lane index stops at the beat's last
        // lane.
        self.pick.data.next = self.cap_data.q.val();
        self.pick.flags.next = self.cap_keep.q.val();
        self.pick.lane.next = self.scan_lane.q.val();
        self.pick_word.d.next = self.pick.word.val();
        // The pattern's 4 bytes at the lane: bytes `b .. b + 3` (b the
        // captured offset's byte in its word) of the lane's word and the next.
        self.scan_word.next = self.cap_offset.q.val().get_bits::<32>(2) + bit_cast::<32, 8>(self.scan_lane.q.val());
        self.scan_next.next = self.scan_word.val() + self.c_one32.val();
        self.scan_byte.next = self.cap_offset.q.val().get_bits::<2>(0);
        self.scan_shift.next = bit_cast::<32, 2>(self.scan_byte.val()) << self.c_3.val();
        self.scan_back.next = self.c_32.val() - self.scan_shift.val();
        // A shift by 32 (b = 0) leaves nothing of the next word.
        self.pick_expected.d.next =
            (self.scan_word.val() >> self.scan_shift.val()) | (self.scan_next.val() << self.scan_back.val());
        self.pick_keep.d.next = self.pick.lane_flags.val();
        self.pick_lane.d.next = self.scan_lane.q.val();
        self.lane_check.word.next = self.pick_word.q.val();
        self.lane_check.expected.next = self.pick_expected.q.val();
        self.lane_check.keep.next = self.pick_keep.q.val();
        self.lane_check.first.next = self.pick_lane.q.val() << self.c_two8.val();
        self.lane_check.room.next = self.cap_room.q.val();
        self.sel_word.d.next = self.pick_word.q.val();
        self.sel_expected.d.next = self.pick_expected.q.val();
        self.sel_flags.d.next = self.lane_check.wrong.val();
        self.sel_lane.d.next = self.pick_lane.q.val();
        self.sel_byte.next = self.sel_lane.q.val() << self.c_two8.val();
        if self.sel_flags.q.val().get_bit(0) {
            self.first_in_lane.next = self.c_zero48.val();
        } else if self.sel_flags.q.val().get_bit(1) {
            self.first_in_lane.next = self.c_one48.val();
        } else if self.sel_flags.q.val().get_bit(2) {
            self.first_in_lane.next = self.c_two48.val();
        } else {
            self.first_in_lane.next = self.c_three48.val();
        }
        self.room_lane.next = self.cap_room.q.val() >> self.c_two8.val();
        if self.cause.q.val() == self.c_cause_beyond.val() {
            // The lane holds byte `room`, or it is the last lane (the scan
            // starts at lane 0 and counts up, so equality is enough).
            self.found.next = self.sel_valid.q.val()
                & ((self.sel_lane.q.val() == self.room_lane.val()) | (self.sel_lane.q.val() == self.c_last_lane.val()));
        } else {
            self.found.next = self.sel_valid.q.val() & (self.sel_flags.q.val() != self.c_zero4.val());
        }
        // The lane index runs on while scanning (up to the last lane), found
        // or not: the next latch restarts it.
        self.pick_valid.d.next = self.scanning.q.val() & !self.found.val();
        self.sel_valid.d.next = self.pick_valid.q.val() & !self.found.val();
        if self.scanning.q.val() & (self.scan_lane.q.val() != self.c_last_lane.val()) {
            self.scan_lane.d.next = self.scan_lane.q.val() + self.c_one8.val();
        }
        if self.scanning.q.val() & self.found.val() {
            self.scanning.d.next = false;
            self.rec_valid.d.next = true;
            self.rec_received.d.next = self.sel_word.q.val();
            if self.cause.q.val() == self.c_cause_mismatch.val() {
                self.rec_offset.d.next =
                    self.cap_offset.q.val() + bit_cast::<48, 8>(self.sel_byte.val()) + self.first_in_lane.val();
                self.rec_expected.d.next = self.sel_expected.q.val();
            } else {
                self.rec_offset.d.next = self.size_q.q.val();
                self.rec_expected.d.next = self.size_q.q.val().get_bits::<32>(2);
            }
        }

        if self.start.val() {
            self.size_q.d.next = self.transfer_size.val();
            self.verify_q.d.next = self.verify.val();
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
            self.pick_valid.d.next = false;
            self.sel_valid.d.next = false;
            self.rec_valid.d.next = false;
            self.cause.d.next = self.c_cause_none.val();
            self.rec_offset.d.next = self.c_zero48.val();
            self.rec_expected.d.next = self.c_zero32.val();
            self.rec_received.d.next = self.c_zero32.val();
        }
        if self.reset.val() {
            self.a_valid.d.next = false;
            self.a_end.d.next = false;
            self.b_valid.d.next = false;
            self.b_end.d.next = false;
            self.d_end.d.next = false;
            self.d_bad.d.next = false;
            self.e_end.d.next = false;
            self.e_bad.d.next = false;
            self.count.d.next = self.c_zero64.val();
            self.npackets.d.next = self.c_zero32.val();
            self.next_offset.d.next = self.c_zero48.val();
            self.over.d.next = false;
        }
    }
}
