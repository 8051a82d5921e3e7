//! Traffic generator: one session's transmit stream.
//!
//! ```text
//!            start/abort, sizes, pattern          enable (rate limiter)
//!                      |                               |
//!                 +----v-------------------------------v----+
//!   user_clk ---->|  beat counters -> beat_word, keep, last  |---> m_tdata/tkeep/tlast/tvalid
//!                 |  (one beat per cycle while enabled)      |<--- m_tready
//!                 +------------------------------------------+---> busy, done, bytes_sent
//! ```
//!
//! A transfer of `transfer_size` bytes (1 .. 2^48-1) leaves as `ceil(size / B)`
//! beats of `B = W/8` bytes; only the final beat may be partial (ARCHITECTURE
//! section 3), and its `tkeep` holds exactly the remaining bytes. Packets are
//! whole beats: a packet of `packet_size` bytes is `ceil(packet_size / B)`
//! beats, `tlast` marks the last beat of each packet and the final beat of
//! the transfer (the final packet may be shorter). A packet size of 0 means
//! no packet boundary before the end of the transfer.
//!
//! The pattern: beat `n` lane `i` holds the 32-bit word `n * (W/32) + i`, the
//! incremental pattern of the `pattern` crate; with `pattern` low the data is
//! all zeros (the dummy pattern).
//!
//! Flow control: the output stage is a register loaded whenever it is empty or
//! being accepted (`!tvalid || tready`) and `enable` is high, so with `tready`
//! and `enable` always high one beat leaves every cycle, across packet
//! boundaries too. A beat once presented stays until accepted; `enable` only
//! decides when the next beat may be presented. `abort` drops everything at
//! once, including a presented beat (the session is being torn down).
//! A transfer of size 0 finishes at once with 0 bytes.
//!
//! Open-ended (`open_ended` high at `start`): the size is ignored and every
//! beat is whole; the stream runs until `stop`. `stop` (a level, in either
//! mode) ends the stream with the next beat the generator loads, marked
//! `tlast`, so at most one beat follows it and the stream still ends on a
//! packet boundary; a beat presented when it rises cannot change (AXI4-Stream)
//! and goes first. With `stop` or `prefix_only` high at `start` the stream is
//! the prefix alone (`prefix_length` bytes, a sized transfer; nothing when it
//! is 0): a client that must greet its server and then only receive
//! (iperf3's reverse mode).
//! With `stop` rising at the setup cycle nothing is sent.
//!
//! Prefix: the first `prefix_length` bytes (sampled at `start`, up to 64) of
//! the stream are bytes of `prefix` (byte 0 in bits 7:0) in place of the
//! pattern; the pattern goes on at its own offset, so no byte moves between
//! lanes. `prefix` is the register file's shared bank, read live: the
//! generator keeps no copy, only byte counts (the prefix bytes not yet
//! loaded, and the presented beat's prefix bytes and offset in the bank),
//! and [`PrefixOverlay`] lays the bank's bytes over the beat. From 512 bits
//! up one beat holds the whole bank, the offset stays 0 (a constant step of
//! 0) and the overlay is one 2:1 choice per bit of the beat's first 64 bytes;
//! below, the offset picks the beat's share of the bank.

use rust_hdl::prelude::*;

use crate::pattern_lanes::PatternLanes;
use crate::prefix_overlay::PrefixOverlay;

#[derive(LogicBlock)]
pub struct TrafficGenerator<const W: usize, const K: usize> {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: back to idle, counters cleared.
    pub reset: Signal<In, Bit>,
    // ---- Control (from the session).
    /// One-cycle pulse: latch the sizes and pattern, clear the counters, begin.
    pub start: Signal<In, Bit>,
    /// One-cycle pulse: stop at once and drop any presented beat.
    pub abort_req: Signal<In, Bit>,
    /// One-cycle pulse: a new test begins; zero `bytes_sent` and `done`
    /// without starting (a test that never sends must not show the previous
    /// test's count). `start` does the same and begins.
    pub clear: Signal<In, Bit>,
    /// Bytes to send, 1 .. 2^48-1; sampled on `start`.
    pub transfer_size: Signal<In, Bits<48>>,
    /// Packet size in bytes (rounded up to whole beats; 0 = no boundary); sampled on `start`.
    pub packet_size: Signal<In, Bits<48>>,
    /// 1: incremental pattern, 0: dummy data (zeros); sampled on `start`.
    pub pattern: Signal<In, Bit>,
    /// 1: send until `stop`, whatever `transfer_size` says; sampled on `start`.
    pub open_ended: Signal<In, Bit>,
    /// Level: end the stream with the next beat loaded (marked `tlast`).
    pub stop: Signal<In, Bit>,
    /// Prefix bytes the stream begins with, 0..=64; sampled on `start`.
    pub prefix_length: Signal<In, Bits<7>>,
    /// 1: the stream is the prefix alone (as `stop` high at `start`); sampled on `start`.
    pub prefix_only: Signal<In, Bit>,
    /// The prefix bank, byte k in bits 8k+7:8k; read while the prefix is sent.
    pub prefix: Signal<In, Bits<512>>,
    /// High when the next beat may be presented (from the rate limiter).
    pub enable: Signal<In, Bit>,
    // ---- Status.
    /// A transfer is in progress (from `start` until its last beat is accepted or `abort`).
    pub busy: Signal<Out, Bit>,
    /// The last transfer completed; cleared by `start`, `abort` or `reset`.
    pub done: Signal<Out, Bit>,
    /// Bytes accepted downstream since `start`.
    pub bytes_sent: Signal<Out, Bits<64>>,
    // ---- Stream out (AXI4-Stream, towards the TOE).
    /// Stream data, byte 0 in bits 7:0.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte qualifiers, contiguous from bit 0.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a packet.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// The TOE takes the beat.
    pub m_tready: Signal<In, Bit>,
    // Sampled parameters.
    size_q: DFF<Bits<48>>,
    psize_q: DFF<Bits<48>>,
    pattern_q: DFF<Bit>,
    open_q: DFF<Bit>,
    /// `stop` or `prefix_only` was high at `start`: the stream is the prefix alone.
    pfx_only: DFF<Bit>,
    // Control.
    setup: DFF<Bit>,
    running: DFF<Bit>,
    done_q: DFF<Bit>,
    // Beat bookkeeping: beats still to load, packet length and position in beats.
    beats_left: DFF<Bits<48>>,
    pkt_beats: DFF<Bits<48>>,
    pkt_left: DFF<Bits<48>>,
    final_keep: DFF<Bits<K>>,
    final_nbytes: DFF<Bits<16>>,
    // Word index of the next beat to load and of the presented beat.
    next_word: DFF<Bits<32>>,
    beat_word: DFF<Bits<32>>,
    // Prefix bytes not yet loaded and the next beat's offset in the bank;
    // the presented beat's prefix bytes (from lane 0) and offset.
    pfx_left: DFF<Bits<8>>,
    pfx_off: DFF<Bits<6>>,
    out_pfx: DFF<Bits<8>>,
    out_off: DFF<Bits<6>>,
    // Output stage.
    out_valid: DFF<Bit>,
    out_last: DFF<Bit>,
    out_final: DFF<Bit>,
    out_keep: DFF<Bits<K>>,
    out_nbytes: DFF<Bits<16>>,
    sent: DFF<Bits<64>>,
    // Combinational helpers.
    load: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    low_bytes: Signal<Local, Bits<48>>,
    // The presented beat's pattern (or zeros), before the prefix overlay.
    beat_data: Signal<Local, Bits<W>>,
    lanes: PatternLanes<W>,
    overlay: PrefixOverlay<W>,
    // Constants.
    c_zero48: Constant<Bits<48>>,
    c_one48: Constant<Bits<48>>,
    c_log2_bytes: Constant<Bits<48>>,
    c_byte_mask: Constant<Bits<48>>,
    c_beat_bytes: Constant<Bits<16>>,
    c_lanes: Constant<Bits<32>>,
    c_all_keep: Constant<Bits<K>>,
    c_zero_data: Constant<Bits<W>>,
    c_zero64: Constant<Bits<64>>,
    c_zero32: Constant<Bits<32>>,
    c_zero8: Constant<Bits<8>>,
    c_beat_bytes8: Constant<Bits<8>>,
    /// Bytes from one prefix beat's offset in the bank to the next: a beat,
    /// or 0 from 512 bits up, where one beat holds the whole bank.
    c_pfx_step: Constant<Bits<6>>,
    c_zero6: Constant<Bits<6>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> TrafficGenerator<W, K> {
    /// Panics unless `W` is one of [`config::DATA_WIDTHS`] and `K == W / 8`:
    /// these are programming errors of the assembly, not user input (the
    /// config is validated before any block is built).
    pub fn new() -> Self {
        assert!(config::DATA_WIDTHS.contains(&W), "TrafficGenerator: W = {W} is not {}", config::data_widths_text());
        assert_eq!(K, W / 8, "TrafficGenerator: K must be W / 8");
        let lanes = W / 32;
        Self {
            verilog_name: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            abort_req: Default::default(),
            clear: Default::default(),
            transfer_size: Default::default(),
            packet_size: Default::default(),
            pattern: Default::default(),
            open_ended: Default::default(),
            stop: Default::default(),
            prefix_length: Default::default(),
            prefix_only: Default::default(),
            prefix: Default::default(),
            enable: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            bytes_sent: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            size_q: Default::default(),
            psize_q: Default::default(),
            pattern_q: Default::default(),
            open_q: Default::default(),
            pfx_only: Default::default(),
            setup: Default::default(),
            running: Default::default(),
            done_q: Default::default(),
            beats_left: Default::default(),
            pkt_beats: Default::default(),
            pkt_left: Default::default(),
            final_keep: Default::default(),
            final_nbytes: Default::default(),
            next_word: Default::default(),
            beat_word: Default::default(),
            pfx_left: Default::default(),
            pfx_off: Default::default(),
            out_pfx: Default::default(),
            out_off: Default::default(),
            out_valid: Default::default(),
            out_last: Default::default(),
            out_final: Default::default(),
            out_keep: Default::default(),
            out_nbytes: Default::default(),
            sent: Default::default(),
            load: Default::default(),
            accept: Default::default(),
            low_bytes: Default::default(),
            beat_data: Default::default(),
            lanes: PatternLanes::new(),
            overlay: PrefixOverlay::new(),
            c_zero48: Constant::new(bits(0)),
            c_one48: Constant::new(bits(1)),
            c_log2_bytes: Constant::new(bits(K.trailing_zeros() as u64)),
            c_byte_mask: Constant::new(bits(K as u64 - 1)),
            c_beat_bytes: Constant::new(bits(K as u64)),
            c_lanes: Constant::new(bits(lanes as u64)),
            c_all_keep: Constant::new(Bits::<K>::mask()),
            c_zero_data: Constant::new(Bits::<W>::default()),
            c_zero64: Constant::new(bits(0)),
            c_zero32: Constant::new(bits(0)),
            c_zero8: Constant::new(bits(0)),
            c_beat_bytes8: Constant::new(bits(K as u64)),
            c_pfx_step: Constant::new(bits(if K < 64 { K as u64 } else { 0 })),
            c_zero6: Constant::new(bits(0)),
        }
    }
}

impl<const W: usize, const K: usize> Default for TrafficGenerator<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for TrafficGenerator<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            size_q,
            psize_q,
            pattern_q,
            open_q,
            pfx_only,
            setup,
            running,
            done_q,
            beats_left,
            pkt_beats,
            pkt_left,
            final_keep,
            final_nbytes,
            next_word,
            beat_word,
            pfx_left,
            pfx_off,
            out_pfx,
            out_off,
            out_valid,
            out_last,
            out_final,
            out_keep,
            out_nbytes,
            sent
        );
        self.lanes.word.next = self.beat_word.q.val();
        if self.pattern_q.q.val() {
            self.beat_data.next = self.lanes.data.val();
        } else {
            self.beat_data.next = self.c_zero_data.val();
        }
        self.overlay.data.next = self.beat_data.val();
        self.overlay.bank.next = self.prefix.val();
        self.overlay.offset.next = self.out_off.q.val();
        self.overlay.count.next = self.out_pfx.q.val();
        self.m_tdata.next = self.overlay.out.val();
        self.m_tkeep.next = self.out_keep.q.val();
        self.m_tlast.next = self.out_last.q.val();
        self.m_tvalid.next = self.out_valid.q.val();
        self.busy.next = self.setup.q.val() | self.running.q.val() | self.out_valid.q.val();
        self.done.next = self.done_q.q.val();
        self.bytes_sent.next = self.sent.q.val();

        self.accept.next = self.out_valid.q.val() & self.m_tready.val();
        self.load.next = self.running.q.val() & self.enable.val() & (!self.out_valid.q.val() | self.m_tready.val());
        self.low_bytes.next = self.size_q.q.val() & self.c_byte_mask.val();

        // Setup cycle: sizes in beats, and the final beat's keep and byte count.
        if self.setup.q.val() {
            self.setup.d.next = false;
            if self.low_bytes.val() == self.c_zero48.val() {
                self.beats_left.d.next = self.size_q.q.val() >> self.c_log2_bytes.val();
                self.final_keep.d.next = self.c_all_keep.val();
                self.final_nbytes.d.next = self.c_beat_bytes.val();
            } else {
                self.beats_left.d.next = (self.size_q.q.val() >> self.c_log2_bytes.val()) + self.c_one48.val();
                self.final_keep.d.next = !(self.c_all_keep.val() << self.low_bytes.val());
                self.final_nbytes.d.next = self.low_bytes.val().get_bits::<16>(0);
            }
            if (self.psize_q.q.val() & self.c_byte_mask.val()) == self.c_zero48.val() {
                self.pkt_beats.d.next = self.psize_q.q.val() >> self.c_log2_bytes.val();
                self.pkt_left.d.next = self.psize_q.q.val() >> self.c_log2_bytes.val();
            } else {
                self.pkt_beats.d.next = (self.psize_q.q.val() >> self.c_log2_bytes.val()) + self.c_one48.val();
                self.pkt_left.d.next = (self.psize_q.q.val() >> self.c_log2_bytes.val()) + self.c_one48.val();
            }
            if ((self.size_q.q.val() == self.c_zero48.val()) & !self.open_q.q.val())
                | (self.stop.val() & !self.pfx_only.q.val())
            {
                self.done_q.d.next = true;
            } else {
                self.running.d.next = true;
            }
        }

        if self.accept.val() {
            self.sent.d.next = self.sent.q.val() + bit_cast::<64, 16>(self.out_nbytes.q.val());
            if self.out_final.q.val() {
                self.done_q.d.next = true;
            }
        }

        if self.load.val() {
            self.out_valid.d.next = true;
            self.beat_word.d.next = self.next_word.q.val();
            self.next_word.d.next = self.next_word.q.val() + self.c_lanes.val();
            self.beats_left.d.next = self.beats_left.q.val() - self.c_one48.val();
            self.out_pfx.d.next = self.pfx_left.q.val();
            self.out_off.d.next = self.pfx_off.q.val();
            if self.pfx_left.q.val() > self.c_beat_bytes8.val() {
                self.pfx_left.d.next = self.pfx_left.q.val() - self.c_beat_bytes8.val();
                self.pfx_off.d.next = self.pfx_off.q.val() + self.c_pfx_step.val();
            } else {
                self.pfx_left.d.next = self.c_zero8.val();
            }
            if (self.beats_left.q.val() == self.c_one48.val()) & !self.open_q.q.val() {
                self.running.d.next = false;
                self.out_final.d.next = true;
                self.out_last.d.next = true;
                self.out_keep.d.next = self.final_keep.q.val();
                self.out_nbytes.d.next = self.final_nbytes.q.val();
            } else if self.stop.val() & !self.pfx_only.q.val() {
                // Stopped: this whole beat ends the stream.
                self.running.d.next = false;
                self.out_final.d.next = true;
                self.out_last.d.next = true;
                self.out_keep.d.next = self.c_all_keep.val();
                self.out_nbytes.d.next = self.c_beat_bytes.val();
            } else {
                self.out_final.d.next = false;
                self.out_last.d.next = self.pkt_left.q.val() == self.c_one48.val();
                self.out_keep.d.next = self.c_all_keep.val();
                self.out_nbytes.d.next = self.c_beat_bytes.val();
            }
            if self.pkt_left.q.val() == self.c_one48.val() {
                self.pkt_left.d.next = self.pkt_beats.q.val();
            } else {
                self.pkt_left.d.next = self.pkt_left.q.val() - self.c_one48.val();
            }
        } else if self.accept.val() {
            self.out_valid.d.next = false;
        }

        if self.clear.val() {
            self.done_q.d.next = false;
            self.sent.d.next = self.c_zero64.val();
        }
        if self.start.val() {
            if self.stop.val() | self.prefix_only.val() {
                self.size_q.d.next = bit_cast::<48, 7>(self.prefix_length.val());
                self.open_q.d.next = false;
            } else {
                self.size_q.d.next = self.transfer_size.val();
                self.open_q.d.next = self.open_ended.val();
            }
            self.pfx_only.d.next = self.stop.val() | self.prefix_only.val();
            self.psize_q.d.next = self.packet_size.val();
            self.pattern_q.d.next = self.pattern.val();
            self.setup.d.next = true;
            self.running.d.next = false;
            self.done_q.d.next = false;
            self.out_valid.d.next = false;
            self.next_word.d.next = self.c_zero32.val();
            self.sent.d.next = self.c_zero64.val();
            self.pfx_left.d.next = bit_cast::<8, 7>(self.prefix_length.val());
            self.pfx_off.d.next = self.c_zero6.val();
        }
        if self.abort_req.val() | self.reset.val() {
            self.setup.d.next = false;
            self.running.d.next = false;
            self.done_q.d.next = false;
            self.out_valid.d.next = false;
        }
        if self.reset.val() {
            self.sent.d.next = self.c_zero64.val();
            self.next_word.d.next = self.c_zero32.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn clock(g: &mut TrafficGenerator<64, 8>, level: bool) {
        g.clock.next = Clock { clk: level };
    }

    /// The word index wraps at 2^32 as the pattern does: a transfer that
    /// crosses the wrap continues with word 0. Reaching the wrap honestly
    /// takes 2^31 beats at 64 bits, so the test starts the word counter just
    /// before it, once the transfer is set up.
    #[test]
    fn word_index_wraps_at_two_to_the_32() {
        let mut g = TrafficGenerator::<64, 8>::new();
        g.connect_all();
        g.transfer_size.next = bits(16 * 8);
        g.packet_size.next = bits(0);
        g.pattern.next = true;
        g.enable.next = true;
        g.m_tready.next = true;
        g.start.next = true;
        settle(&mut g);
        cycle(&mut g, clock);
        g.start.next = false;
        settle(&mut g);
        cycle(&mut g, clock); // setup
        let first_word = (1u64 << 32) - 6;
        g.next_word.q.next = bits(first_word);
        settle(&mut g);
        let mut words = Vec::new();
        for _ in 0..40 {
            if g.m_tvalid.val() {
                let data = g.m_tdata.val().to_u64();
                words.push(data as u32);
                words.push((data >> 32) as u32);
            }
            cycle(&mut g, clock);
        }
        assert_eq!(words.len(), 32);
        for (k, w) in words.iter().enumerate() {
            assert_eq!(*w, pattern::word_at(first_word + k as u64), "word {k}");
        }
        assert_eq!(&words[4..8], &[0xffff_fffe, 0xffff_ffff, 0, 1]);
        assert!(g.done.val());
        assert_eq!(g.bytes_sent.val().to_u64(), 128);
    }

    /// The stream's bytes, one transfer at 64 bits with `tready` toggling,
    /// the bank holding `0xA0 + k` at byte k (no byte of the pattern's
    /// first words looks like that).
    fn stream_with_prefix(size: u64, prefix_length: u64, pattern: bool, stop: bool) -> Vec<u8> {
        let mut g = TrafficGenerator::<64, 8>::new();
        g.connect_all();
        let bank: Vec<u8> = (0..64).map(|k| 0xA0u8.wrapping_add(k)).collect();
        let mut prefix = Bits::<512>::default();
        for (k, b) in bank.iter().enumerate() {
            prefix = prefix | (bit_cast::<512, 8>(bits(u64::from(*b))) << (8 * k as u64));
        }
        g.prefix.next = prefix;
        g.prefix_length.next = bits(prefix_length);
        g.transfer_size.next = bits(size);
        g.packet_size.next = bits(0);
        g.pattern.next = pattern;
        g.enable.next = true;
        g.stop.next = stop;
        g.start.next = true;
        settle(&mut g);
        cycle(&mut g, clock);
        g.start.next = false;
        let mut out = Vec::new();
        let mut last = false;
        for n in 0..200u32 {
            // Hold tready low on every third cycle: a presented beat must keep its prefix bytes.
            g.m_tready.next = n % 3 != 1;
            settle(&mut g);
            if g.m_tvalid.val() && g.m_tready.val() {
                let data = g.m_tdata.val().to_u64().to_le_bytes();
                let keep = g.m_tkeep.val().to_u64();
                out.extend((0..8).filter(|i| keep >> i & 1 == 1).map(|i| data[i]));
                assert!(!last, "no beat after the one marked tlast (packet size 0)");
                last = g.m_tlast.val();
            }
            cycle(&mut g, clock);
        }
        assert!(g.done.val(), "the transfer of {size} bytes ends");
        assert_eq!(g.bytes_sent.val().to_u64(), out.len() as u64, "the prefix counts among the bytes sent");
        assert!(out.is_empty() || last, "the stream ends with tlast");
        out
    }

    /// The prefix takes the place of the stream's first bytes, across beat
    /// boundaries (8-byte beats, so a 64-byte prefix spans eight beats), and
    /// the pattern goes on at its own offset; a transfer shorter than the
    /// prefix sends its first bytes only.
    #[test]
    fn the_prefix_replaces_the_first_bytes_of_the_stream() {
        for (size, len, pattern) in [(100, 37, true), (100, 64, true), (100, 8, false), (20, 37, true), (50, 0, true)] {
            let got = stream_with_prefix(size, len, pattern, false);
            let want: Vec<u8> = (0..size)
                .map(|i| match (i < len, pattern) {
                    (true, _) => 0xA0u8.wrapping_add(i as u8),
                    (false, true) => pattern::byte_at(i),
                    (false, false) => 0,
                })
                .collect();
            assert_eq!(got, want, "size {size}, prefix {len}, pattern {pattern}");
        }
    }

    /// `stop` already high at `start`: the stream is the prefix alone,
    /// whatever the size (a greeting before receiving only), across beats;
    /// without a prefix nothing is sent.
    #[test]
    fn a_stop_before_the_start_sends_the_prefix_alone() {
        for len in [37u64, 64, 8, 1, 0] {
            let got = stream_with_prefix(1000, len, true, true);
            let want: Vec<u8> = (0..len).map(|i| 0xA0u8.wrapping_add(i as u8)).collect();
            assert_eq!(got, want, "prefix {len}");
        }
    }
}
