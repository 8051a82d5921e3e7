//! Message ends: where the messages of a receive stream end, for issue 29's
//! latency modes (docs/latency.md). The initiator's responses and the
//! echo's requests are fixed-size messages packed into the TOE's RX beats:
//! one beat may hold the end of one message and the start of the next, and
//! with messages shorter than a beat several ends.
//!
//! ```text
//!   take, bytes --> left: bytes until the current message ends (1 .. size)
//!                   bytes <  left: no end; left -= bytes
//!                   bytes >= left: an end (the first of the beat); the rest,
//!                                  bytes - left, holds more ends while >= size
//!   held beat   --> one more end a cycle, ready low until the last but one
//!               --> ended, lag (registered)
//! ```
//!
//! One end a cycle, so no divider: a beat with `e` ends shows them in the
//! `e` cycles after it was taken, and `ready` is low in all but the last of
//! them (the caller gates its `tready` with it; a beat taken while `ready`
//! is low is ignored). With messages of at least a beat, or one request in
//! flight, a beat never holds more than one end and `ready` never falls.
//! `lag` says how many cycles ago the beat of the end shown was taken (1
//! for the first end of a beat), so a round trip can still be timed from
//! the cycle its last byte was taken (`RttMeter`'s `response_lag`).
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `start`: a new test: samples `size` (1 .. 65,535 bytes; the register
//!   file refuses 0), the next byte starts a message, no end pending;
//! - `take`, `bytes`: a beat of `bytes` (0 .. W/8; 0, a null beat, changes nothing) was taken;
//! - `ended`, `lag`: a message ended in a beat taken `lag` cycles ago;
//! - `ready` (level): a beat may be taken this cycle;
//! - `reset` (level, synchronous): as `start`.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MessageEnds {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: as `start`.
    pub reset: Signal<In, Bit>,
    // ---- Control.
    /// A new test (one-cycle pulse): samples `size`.
    pub start: Signal<In, Bit>,
    /// Message size in bytes, 1 .. 65,535; sampled on `start`.
    pub size: Signal<In, Bits<16>>,
    // ---- Beats.
    /// A beat was taken (one-cycle pulse).
    pub take: Signal<In, Bit>,
    /// Its byte count, 0 .. W/8 (0: a null beat, which changes nothing).
    pub bytes: Signal<In, Bits<8>>,
    /// A beat may be taken this cycle.
    pub ready: Signal<Out, Bit>,
    // ---- Ends.
    /// A message ended (one-cycle pulse).
    pub ended: Signal<Out, Bit>,
    /// Cycles since the beat holding that end was taken, 1 .. W/8.
    pub lag: Signal<Out, Bits<8>>,
    /// Level: a message has begun and not yet ended (bytes of it taken); 1 while a beat's further ends are held.
    pub mid: Signal<Out, Bit>,
    message_size: DFF<Bits<16>>,
    left: DFF<Bits<16>>,
    rest: DFF<Bits<8>>,
    held: DFF<Bit>,
    ending: DFF<Bit>,
    since: DFF<Bits<8>>,
    /// `mid`: `left != message_size`, kept as a flag set from equality
    /// compares of registers with each beat (`bytes != left`) and each held
    /// end (`rest != size`), so no compare behind a subtraction is in the
    /// cone of what reads it (the session's state machine). While ends are
    /// held it is 1.
    mid_q: DFF<Bit>,
    // Combinational. Every carry chain here has register operands (`bytes`
    // is registered in `RoundTrips`) but two, behind the subtraction that
    // finds what is left of a taken beat: whether that holds a second end,
    // and the message size less it.
    bytes16: Signal<Local, Bits<16>>,
    rest16: Signal<Local, Bits<16>>,
    rest17: Signal<Local, Bits<17>>,
    left8: Signal<Local, Bits<8>>,
    size8: Signal<Local, Bits<8>>,
    /// What is left of a taken beat after the message ending in it (bytes
    /// - left), and of a held beat after the end it shows (rest - size):
    /// below 256 where they are used (bytes >= left, rest >= size).
    after_take: Signal<Local, Bits<8>>,
    after_held: Signal<Local, Bits<8>>,
    after_take16: Signal<Local, Bits<16>>,
    /// bytes - left >= size: a second end in the taken beat.
    second_end: Signal<Local, Bit>,
    /// The next message's bytes left after a taken beat's only end.
    size_less_after: Signal<Local, Bits<16>>,
    /// Twice the message size: a held beat's tests compare and subtract it,
    /// a register shifted (wiring), one carry chain each.
    twice: Signal<Local, Bits<17>>,
    twice16: Signal<Local, Bits<16>>,
    /// The next message's bytes left after a held beat's last end:
    /// size - (rest - size).
    twice_less_rest: Signal<Local, Bits<16>>,
    c_one8: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_one17: Constant<Bits<17>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Default for MessageEnds {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            size: Default::default(),
            take: Default::default(),
            bytes: Default::default(),
            ready: Default::default(),
            ended: Default::default(),
            lag: Default::default(),
            mid: Default::default(),
            message_size: Default::default(),
            left: Default::default(),
            rest: Default::default(),
            held: Default::default(),
            ending: Default::default(),
            since: Default::default(),
            mid_q: Default::default(),
            bytes16: Default::default(),
            rest16: Default::default(),
            rest17: Default::default(),
            left8: Default::default(),
            size8: Default::default(),
            after_take: Default::default(),
            after_held: Default::default(),
            after_take16: Default::default(),
            second_end: Default::default(),
            size_less_after: Default::default(),
            twice16: Default::default(),
            twice_less_rest: Default::default(),
            twice: Default::default(),
            c_one17: Constant::new(bits(1)),
            c_one8: Constant::new(bits(1)),
            c_zero8: Constant::new(bits(0)),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for MessageEnds {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, message_size, left, rest, held, ending, since, mid_q);
        self.ready.next = !self.held.q.val();
        self.ended.next = self.ending.q.val();
        self.lag.next = self.since.q.val();
        self.mid.next = self.mid_q.q.val();
        self.bytes16.next = bit_cast::<16, 8>(self.bytes.val());
        self.rest16.next = bit_cast::<16, 8>(self.rest.q.val());
        self.rest17.next = bit_cast::<17, 8>(self.rest.q.val());
        self.left8.next = self.left.q.val().get_bits::<8>(0);
        self.size8.next = self.message_size.q.val().get_bits::<8>(0);
        self.after_take.next = self.bytes.val() - self.left8.val();
        self.after_held.next = self.rest.q.val() - self.size8.val();
        self.after_take16.next = bit_cast::<16, 8>(self.after_take.val());
        self.second_end.next = self.after_take16.val() >= self.message_size.q.val();
        self.size_less_after.next = self.message_size.q.val() - self.after_take16.val();
        self.twice.next = bit_cast::<17, 16>(self.message_size.q.val()) << self.c_one17.val();
        self.twice16.next = self.twice.val().get_bits::<16>(0);
        self.twice_less_rest.next = self.twice16.val() - self.rest16.val();
        // `left` means nothing while a beat is held, and `rest` nothing
        // while none is: they take their next values whatever the tests
        // behind the subtractions say, so those tests select less.
        self.ending.d.next = false;
        if self.held.q.val() {
            // A held beat has at least one more end (rest >= size).
            self.ending.d.next = true;
            self.since.d.next = self.since.q.val() + self.c_one8.val();
            self.rest.d.next = self.after_held.val();
            self.left.d.next = self.twice_less_rest.val();
            // Begun after this end: after_held != 0, from registers (while
            // more ends are held, rest - size >= size, so this is true).
            self.mid_q.d.next = self.rest16.val() != self.message_size.q.val();
            // rest - size < size: this end is the beat's last.
            if self.rest17.val() < self.twice.val() {
                self.held.d.next = false;
            }
        } else if self.take.val() {
            // A beat of bytes is mid-message after it unless it ends one
            // exactly (bytes == left); below left it has begun one, past
            // it begun the next (after_take != 0, or a second end: bytes
            // held). An empty beat changes nothing. Equality compares of
            // registers, not the end tests' carry chains.
            if self.bytes.val() != self.c_zero8.val() {
                self.mid_q.d.next = self.bytes16.val() != self.left.q.val();
            }
            if self.bytes16.val() < self.left.q.val() {
                self.left.d.next = self.left.q.val() - self.bytes16.val();
            } else {
                self.ending.d.next = true;
                self.since.d.next = self.c_one8.val();
                self.held.d.next = self.second_end.val();
                self.rest.d.next = self.after_take.val();
                self.left.d.next = self.size_less_after.val();
            }
        }
        if self.start.val() | self.reset.val() {
            self.message_size.d.next = self.size.val();
            self.left.d.next = self.size.val();
            self.mid_q.d.next = false;
            self.held.d.next = false;
            self.ending.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step(m: &mut MessageEnds) {
        cycle(m, |m: &mut MessageEnds, level: bool| m.clock.next = Clock::from(level));
    }

    /// Three 5-byte messages and the start of a fourth in a 16-byte beat:
    /// ends in the three cycles after it with lags 1, 2, 3, `ready` low in
    /// the first two; then a 4-byte beat ends the fourth at once.
    #[test]
    fn a_beat_of_short_messages_shows_its_ends_one_a_cycle() {
        let mut m = MessageEnds::default();
        m.connect_all();
        m.size.next = bits(5);
        m.start.next = true;
        settle(&mut m);
        step(&mut m);
        m.start.next = false;
        m.take.next = true;
        m.bytes.next = bits(16);
        settle(&mut m);
        step(&mut m);
        m.take.next = false;
        settle(&mut m);
        let mut seen = Vec::new();
        for _ in 0..3 {
            seen.push((m.ended.val(), m.lag.val().index(), m.ready.val()));
            step(&mut m);
        }
        assert_eq!(seen, [(true, 1, false), (true, 2, false), (true, 3, true)]);
        assert!(!m.ended.val());
        m.take.next = true;
        m.bytes.next = bits(4);
        settle(&mut m);
        step(&mut m);
        assert_eq!((m.ended.val(), m.lag.val().index()), (true, 1));
    }
}
