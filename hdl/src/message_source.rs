//! Message source: the transmit stream of issue 29's latency modes, one
//! message of `size` bytes for every `send` (the initiator's requests, the
//! echo's responses), the pattern continuing across messages
//! (docs/latency.md).
//!
//! ```text
//!   start --> setup: beats per message, the last beat's keep and bytes
//!   send  --> owed += 1
//!   load  --> a message's beats: whole beats, then its last one (tlast,
//!             partial unless size is a multiple of W/8); offset += bytes
//!         --> m_tdata = PatternAt(offset of the presented beat), m_tkeep,
//!             m_tlast, m_tvalid; first (a message's first beat taken)
//! ```
//!
//! The data is always the incremental pattern (issue 29: the verifiers
//! check every request and response); a choice of zeros would cost a gate
//! per data bit. Every message starts at lane 0 of a new beat, at whatever stream offset
//! the messages before it reached, so the beat's pattern comes from
//! [`PatternAt`] rather than the aligned [`PatternLanes`](crate::PatternLanes);
//! as every message has the same size, its beats' keeps and byte counts are
//! worked out once, in the setup cycle after `start`. Flow control is the
//! traffic generator's: the output stage loads whenever it is empty or
//! being taken and `enable` (the rate limiter) is high, so messages owed
//! leave back to back, one beat a cycle; a presented beat stays until taken.
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `start`: a new test: samples `size` (1 .. 65,535; with 0 no message
//!   ever starts), zeroes the offset, the counts and the messages owed;
//! - `send`: one more message owed (the count saturates at 2^32 - 1; one
//!   in the cycle of `start` or `abort_req` is not counted);
//! - `abort_req`: drops everything at once, a presented beat and the
//!   messages owed too (the session is being torn down);
//! - `first`: a message's first beat was taken by the TOE (the round
//!   trip's start, `RttMeter`'s `request`);
//! - `busy` (level): a message is owed, under way or presented;
//! - `reset` (level, synchronous): as `abort_req`.

use rust_hdl::prelude::*;

use crate::pattern_at::PatternAt;

#[derive(LogicBlock)]
pub struct MessageSource<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: as `abort_req`.
    pub reset: Signal<In, Bit>,
    // ---- Control (from the session).
    /// A new test (one-cycle pulse): samples `size`.
    pub start: Signal<In, Bit>,
    /// Drop everything at once (one-cycle pulse).
    pub abort_req: Signal<In, Bit>,
    /// Message size in bytes, 1 .. 65,535; sampled on `start`.
    pub size: Signal<In, Bits<16>>,
    /// One more message owed (one-cycle pulse).
    pub send: Signal<In, Bit>,
    /// High when the next beat may be presented (from the rate limiter).
    pub enable: Signal<In, Bit>,
    // ---- Status.
    /// A message is owed, under way or presented.
    pub busy: Signal<Out, Bit>,
    /// A message's first beat was taken (one-cycle pulse).
    pub first: Signal<Out, Bit>,
    /// Messages owed and not yet begun.
    pub owed: Signal<Out, Bits<32>>,
    /// Messages whose last beat was taken since `start`.
    pub messages: Signal<Out, Bits<32>>,
    /// Bytes taken since `start`.
    pub bytes_sent: Signal<Out, Bits<64>>,
    // ---- Stream out (AXI4-Stream, towards the TOE).
    /// Stream data, byte 0 in bits 7:0.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte qualifiers, contiguous from bit 0.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a message.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// The TOE takes the beat.
    pub m_tready: Signal<In, Bit>,
    // Sampled parameters, and what the setup cycle works out from them.
    message_size: DFF<Bits<16>>,
    setup: DFF<Bit>,
    /// Beats of a message less one; `single_beat` when that is 0.
    message_beats_less1: DFF<Bits<16>>,
    single_beat: DFF<Bit>,
    /// The size is not 0, so messages can start.
    sized: DFF<Bit>,
    last_keep: DFF<Bits<K>>,
    last_bytes: DFF<Bits<8>>,
    // Messages owed (and whether any), the current message's beats still to
    // load (and whether one is under way), the stream offset of the next beat.
    pending: DFF<Bits<32>>,
    has_owed: DFF<Bit>,
    beats_left: DFF<Bits<16>>,
    in_message: DFF<Bit>,
    next_offset: DFF<Bits<34>>,
    // Output stage.
    out_valid: DFF<Bit>,
    out_first: DFF<Bit>,
    out_last: DFF<Bit>,
    out_keep: DFF<Bits<K>>,
    out_bytes: DFF<Bits<8>>,
    out_offset: DFF<Bits<34>>,
    // Counts.
    sent: DFF<Bits<64>>,
    done_messages: DFF<Bits<32>>,
    lanes: PatternAt<W>,
    // Combinational.
    load: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    starting: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    more: Signal<Local, Bit>,
    fewer: Signal<Local, Bit>,
    low_bytes: Signal<Local, Bits<16>>,
    beats: Signal<Local, Bits<16>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_max32: Constant<Bits<32>>,
    c_zero34: Constant<Bits<34>>,
    c_zero64: Constant<Bits<64>>,
    c_log2_bytes: Constant<Bits<16>>,
    c_byte_mask: Constant<Bits<16>>,
    c_beat_bytes: Constant<Bits<8>>,
    c_all_keep: Constant<Bits<K>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> MessageSource<W, K> {
    pub fn new() -> Self {
        assert!(W == 8 * K, "MessageSource: K = {K} must be W / 8 = {}", W / 8);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            abort_req: Default::default(),
            size: Default::default(),
            send: Default::default(),
            enable: Default::default(),
            busy: Default::default(),
            first: Default::default(),
            owed: Default::default(),
            messages: Default::default(),
            bytes_sent: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            message_size: Default::default(),
            setup: Default::default(),
            message_beats_less1: Default::default(),
            single_beat: Default::default(),
            sized: Default::default(),
            last_keep: Default::default(),
            last_bytes: Default::default(),
            pending: Default::default(),
            has_owed: Default::default(),
            beats_left: Default::default(),
            in_message: Default::default(),
            next_offset: Default::default(),
            out_valid: Default::default(),
            out_first: Default::default(),
            out_last: Default::default(),
            out_keep: Default::default(),
            out_bytes: Default::default(),
            out_offset: Default::default(),
            sent: Default::default(),
            done_messages: Default::default(),
            lanes: PatternAt::new(),
            load: Default::default(),
            accept: Default::default(),
            starting: Default::default(),
            is_last: Default::default(),
            more: Default::default(),
            fewer: Default::default(),
            low_bytes: Default::default(),
            beats: Default::default(),
            c_zero16: Constant::new(bits(0)),
            c_one16: Constant::new(bits(1)),
            c_zero32: Constant::new(bits(0)),
            c_one32: Constant::new(bits(1)),
            c_max32: Constant::new(bits(u32::MAX as u64)),
            c_zero34: Constant::new(bits(0)),
            c_zero64: Constant::new(bits(0)),
            c_log2_bytes: Constant::new(bits(K.trailing_zeros() as u64)),
            c_byte_mask: Constant::new(bits(K as u64 - 1)),
            c_beat_bytes: Constant::new(bits(K as u64)),
            c_all_keep: Constant::new(Bits::<K>::mask()),
            verilog_name: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Default for MessageSource<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for MessageSource<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            message_size,
            setup,
            message_beats_less1,
            single_beat,
            sized,
            last_keep,
            last_bytes,
            pending,
            has_owed,
            beats_left,
            in_message,
            next_offset,
            out_valid,
            out_first,
            out_last,
            out_keep,
            out_bytes,
            out_offset,
            sent,
            done_messages
        );
        self.lanes.offset.next = self.out_offset.q.val();
        self.m_tdata.next = self.lanes.data.val();
        self.m_tkeep.next = self.out_keep.q.val();
        self.m_tlast.next = self.out_last.q.val();
        self.m_tvalid.next = self.out_valid.q.val();
        self.busy.next = self.has_owed.q.val() | self.in_message.q.val() | self.out_valid.q.val();
        self.owed.next = self.pending.q.val();
        self.messages.next = self.done_messages.q.val();
        self.bytes_sent.next = self.sent.q.val();

        // Setup cycle: a message's beats, and its last beat's keep and bytes.
        self.low_bytes.next = self.message_size.q.val() & self.c_byte_mask.val();
        if self.low_bytes.val() == self.c_zero16.val() {
            self.beats.next = self.message_size.q.val() >> self.c_log2_bytes.val();
        } else {
            self.beats.next = (self.message_size.q.val() >> self.c_log2_bytes.val()) + self.c_one16.val();
        }
        if self.setup.q.val() {
            self.setup.d.next = false;
            self.message_beats_less1.d.next = self.beats.val() - self.c_one16.val();
            self.single_beat.d.next = self.beats.val() == self.c_one16.val();
            self.sized.d.next = self.message_size.q.val() != self.c_zero16.val();
            if self.low_bytes.val() == self.c_zero16.val() {
                self.last_keep.d.next = self.c_all_keep.val();
                self.last_bytes.d.next = self.c_beat_bytes.val();
            } else {
                self.last_keep.d.next = !(self.c_all_keep.val() << self.low_bytes.val());
                self.last_bytes.d.next = self.low_bytes.val().get_bits::<8>(0);
            }
        }

        // The output stage: the next beat of the message under way, or the
        // first of the next message owed. Flags kept beside the counts keep
        // the decision to load shallow.
        self.accept.next = self.out_valid.q.val() & self.m_tready.val();
        self.starting.next = !self.in_message.q.val() & self.has_owed.q.val() & self.sized.q.val();
        self.load.next = !self.setup.q.val()
            & self.enable.val()
            & (!self.out_valid.q.val() | self.m_tready.val())
            & (self.in_message.q.val() | self.starting.val());
        if self.starting.val() {
            self.is_last.next = self.single_beat.q.val();
        } else {
            self.is_last.next = self.beats_left.q.val() == self.c_one16.val();
        }
        if self.accept.val() {
            self.out_valid.d.next = false;
            self.sent.d.next = self.sent.q.val() + bit_cast::<64, 8>(self.out_bytes.q.val());
            if self.out_last.q.val() {
                self.done_messages.d.next = self.done_messages.q.val() + self.c_one32.val();
            }
        }
        self.first.next = self.accept.val() & self.out_first.q.val();
        if self.load.val() {
            self.out_valid.d.next = true;
            self.out_first.d.next = self.starting.val();
            self.out_offset.d.next = self.next_offset.q.val();
            self.in_message.d.next = !self.is_last.val();
            if self.starting.val() {
                self.beats_left.d.next = self.message_beats_less1.q.val();
            } else {
                self.beats_left.d.next = self.beats_left.q.val() - self.c_one16.val();
            }
            self.out_last.d.next = self.is_last.val();
            if self.is_last.val() {
                self.out_keep.d.next = self.last_keep.q.val();
                self.out_bytes.d.next = self.last_bytes.q.val();
                self.next_offset.d.next = self.next_offset.q.val() + bit_cast::<34, 8>(self.last_bytes.q.val());
            } else {
                self.out_keep.d.next = self.c_all_keep.val();
                self.out_bytes.d.next = self.c_beat_bytes.val();
                self.next_offset.d.next = self.next_offset.q.val() + bit_cast::<34, 8>(self.c_beat_bytes.val());
            }
        }

        // Messages owed: one more for `send` (saturating), one fewer for a
        // message begun; both at once leave the count as it is.
        self.more.next = self.send.val() & (self.pending.q.val() != self.c_max32.val());
        self.fewer.next = self.load.val() & self.starting.val();
        if self.more.val() & !self.fewer.val() {
            self.pending.d.next = self.pending.q.val() + self.c_one32.val();
            self.has_owed.d.next = true;
        }
        if self.fewer.val() & !self.more.val() {
            self.pending.d.next = self.pending.q.val() - self.c_one32.val();
            self.has_owed.d.next = self.pending.q.val() != self.c_one32.val();
        }

        if self.start.val() {
            self.message_size.d.next = self.size.val();
            self.setup.d.next = true;
            self.next_offset.d.next = self.c_zero34.val();
            self.sent.d.next = self.c_zero64.val();
            self.done_messages.d.next = self.c_zero32.val();
        }
        if self.start.val() | self.abort_req.val() | self.reset.val() {
            self.pending.d.next = self.c_zero32.val();
            self.has_owed.d.next = false;
            self.beats_left.d.next = self.c_zero16.val();
            self.in_message.d.next = false;
            self.out_valid.d.next = false;
        }
    }
}
