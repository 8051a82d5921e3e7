//! The reference: what a session's side must end with, computed from the
//! plan and the `pattern` crate, never from the hardware's registers.

use super::plan::{Fault, Round, SessionPlan, Side, Use};
use driver::regs::session::status::ErrorCause;

/// The first-error record the verifier must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// A received byte differs from the pattern: its offset and the aligned words.
    Mismatch { offset: u64, expected: u32, received: u32 },
    /// Data past the transfer size: offset = transfer size.
    Beyond { offset: u64 },
    /// The peer closed early: offset = bytes received.
    Short { offset: u64 },
}

impl Record {
    pub fn offset(&self) -> u64 {
        match *self {
            Record::Mismatch { offset, .. } | Record::Beyond { offset } | Record::Short { offset } => offset,
        }
    }
}

/// The verifier's view of the stream board `to` receives in session `p`,
/// from the pattern model: the byte the sender sent at `offset`, with the
/// plan's corruption applied.
pub(super) struct Stream<'a> {
    pub(super) p: &'a SessionPlan,
    pub(super) to: usize,
}

impl Stream<'_> {
    fn sent(&self) -> &Side {
        &self.p.sides[1 - self.to]
    }

    fn byte(&self, offset: u64) -> u8 {
        let sent = match self.sent() {
            s if offset < u64::from(s.prefix_length) => self.p.tx_prefix[offset as usize],
            s if s.incremental => pattern::byte_at(offset),
            _ => 0,
        };
        match self.p.fault {
            Fault::Corrupt { to, offset: o, xor } if to == self.to && o == offset => sent ^ xor,
            _ => sent,
        }
    }

    /// The 32-bit word at word index `w` as the verifier captures it: the
    /// received bytes, zeros past the end of the data (`n` bytes).
    fn word(&self, w: u64, n: u64) -> u32 {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            let o = w * 4 + i as u64;
            if o < n {
                *x = self.byte(o);
            }
        }
        u32::from_le_bytes(b)
    }

    /// The first mismatching byte in `lo..hi`, if any.
    fn first_mismatch_in(&self, lo: u64, hi: u64) -> Option<u64> {
        (lo..hi).find(|&o| self.byte(o) != pattern::byte_at(o))
    }

    /// The first-error record and `err_count` after `n` bytes were received,
    /// `short` when the session ended the transfer as short.
    pub(super) fn record(&self, n: u64, short: bool) -> (Option<Record>, u32) {
        let side = &self.p.sides[self.to];
        // Open-ended, no byte is past the end.
        let size = if self.p.open { u64::MAX } else { side.transfer_size };
        let beat = self.p.beat;
        let inside = n.min(size);
        // Beats with an error (a mismatch inside the transfer, or data past
        // it), each with its first wrong byte. With the pattern sent, only
        // the prefix and a corrupted byte can differ from it; with dummy
        // data, every beat is looked at.
        let mut bad: std::collections::BTreeMap<u64, u64> = Default::default();
        if side.verify {
            let mut suspects: Vec<u64> = Vec::new();
            if self.sent().incremental {
                suspects.extend(0..u64::from(self.sent().prefix_length).min(inside));
                if let Fault::Corrupt { to, offset, .. } = self.p.fault {
                    if to == self.to && offset < inside {
                        suspects.push(offset);
                    }
                }
            } else {
                for k in 0..inside.div_ceil(beat) {
                    suspects.extend(self.first_mismatch_in(k * beat, ((k + 1) * beat).min(inside)));
                }
            }
            for o in suspects.into_iter().filter(|&o| self.byte(o) != pattern::byte_at(o)) {
                let first = bad.entry(o / beat).or_insert(o);
                *first = (*first).min(o);
            }
        }
        let first = bad.values().copied().min();
        // A beat straddling the size with data past it is counted below.
        let full = size / beat;
        let mut beats = bad.keys().filter(|&&k| k < full || n <= size).count() as u64;
        if n > size {
            beats += n.div_ceil(beat) - size / beat;
        }
        let count = beats + u64::from(short);
        let rec = match (first, n > size, short) {
            (Some(o), _, _) => {
                let w = o / 4;
                Some(Record::Mismatch { offset: o, expected: pattern::word_at(w), received: self.word(w, n) })
            }
            (None, true, _) => Some(Record::Beyond { offset: size }),
            (None, false, true) => Some(Record::Short { offset: n }),
            (None, false, false) => None,
        };
        (rec, count.min(u64::from(u32::MAX)) as u32)
    }
}

/// What a side must end with when the plan determines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// `None`: never started (or test mode disabled): idle, no `done`, no `error`.
    pub cause: Option<ErrorCause>,
    pub tx: u64,
    pub rx: u64,
    pub closed: bool,
}

/// The outcome of side `b` of session `p` with no abort (exact), given
/// whether board `b`'s server side was left listening and aborted by the
/// soak. Open-ended, the bytes are not in the plan: `sent` is what the TOE
/// model took from each board (`sent[b]` is board `b`'s), and a side must
/// have sent exactly that and received every byte its peer sent.
pub fn expect(round: &Round, p: &SessionPlan, b: usize, sent: [u64; 2]) -> Expect {
    let idle = Expect { cause: None, tx: 0, rx: 0, closed: false };
    if p.usage == Use::Disabled {
        return idle;
    }
    let refused = Expect { cause: Some(ErrorCause::Refused), tx: 0, rx: 0, closed: false };
    if p.fault == Fault::NobodyListening {
        return if b == p.client { refused } else { idle };
    }
    if round.silent == Some(p.server()) {
        return if b == p.client {
            refused
        } else {
            // Still listening when the clients gave up: the soak aborts it.
            Expect { cause: Some(ErrorCause::Aborted), ..refused }
        };
    }
    let (tx, rx) =
        if p.open { (sent[b], sent[1 - b]) } else { (p.sides[b].transfer_size, p.sides[1 - b].transfer_size) };
    let (tx, rx) = (if p.sends(b) { tx } else { 0 }, if p.receives(b) { rx } else { 0 });
    let cause = if p.receives(b) {
        let expected = p.sides[b].transfer_size;
        if rx < expected && !p.open {
            ErrorCause::PeerClosed
        } else {
            match (Stream { p, to: b }).record(rx, false).0 {
                Some(Record::Mismatch { .. }) => ErrorCause::Verify,
                Some(Record::Beyond { .. }) => ErrorCause::BeyondSize,
                Some(Record::Short { .. }) => unreachable!("not short"),
                None => ErrorCause::None,
            }
        }
    } else {
        ErrorCause::None
    };
    Expect { cause: Some(cause), tx, rx, closed: true }
}

#[cfg(test)]
mod tests {
    use super::super::plan::Plan;
    use super::*;

    fn half(size_tx: u64, size_rx: u64, fault: Fault, verify: bool, incremental: bool) -> SessionPlan {
        let side = |size| Side {
            transfer_size: size,
            packet_size: 0,
            tx_percent: 100,
            rx_percent: 100,
            verify,
            incremental,
            duration: 0,
            stop_at: None,
            prefix_length: 0,
        };
        SessionPlan {
            session: 0,
            beat: 128,
            usage: Use::Send { from: 1 },
            client: 1,
            sides: [side(size_rx), side(size_tx)],
            fault,
            open: false,
            tx_prefix: [0; 64],
        }
    }

    #[test]
    fn the_record_of_a_corrupted_byte_is_its_word() {
        let p = half(1 << 20, 1 << 20, Fault::Corrupt { to: 0, offset: 777_777, xor: 0x40 }, true, true);
        let (rec, count) = Stream { p: &p, to: 0 }.record(1 << 20, false);
        let expected = pattern::word_at(777_777 / 4);
        assert_eq!(rec, Some(Record::Mismatch { offset: 777_777, expected, received: expected ^ (0x40 << 8) }));
        assert_eq!(count, 1);
        // Verification off: nothing to see.
        let p = half(1 << 20, 1 << 20, Fault::Corrupt { to: 0, offset: 5, xor: 1 }, false, true);
        assert_eq!(Stream { p: &p, to: 0 }.record(1 << 20, false), (None, 0));
    }

    #[test]
    fn dummy_data_differs_from_word_1_on_and_every_beat_counts() {
        let p = half(1000, 1000, Fault::None, true, false);
        let (rec, count) = Stream { p: &p, to: 0 }.record(1000, false);
        assert_eq!(rec, Some(Record::Mismatch { offset: 4, expected: 1, received: 0 }));
        assert_eq!(count, 8, "1000 bytes are 8 beats of 128, each with a non-zero word");
        // Four zero bytes are the pattern's word 0.
        let p = half(4, 4, Fault::None, true, false);
        assert_eq!(Stream { p: &p, to: 0 }.record(4, false), (None, 0));
    }

    #[test]
    fn a_prefix_that_differs_from_the_pattern_is_a_mismatch_at_its_first_differing_byte() {
        let mut p = half(1000, 1000, Fault::None, true, true);
        p.sides[1].prefix_length = 37;
        // The bank holds the pattern's bytes except byte 9.
        p.tx_prefix = std::array::from_fn(|k| pattern::byte_at(k as u64));
        p.tx_prefix[9] ^= 0x10;
        let received = pattern::word_at(2) ^ (0x10 << 8);
        let (rec, count) = Stream { p: &p, to: 0 }.record(1000, false);
        assert_eq!(rec, Some(Record::Mismatch { offset: 9, expected: pattern::word_at(2), received }));
        assert_eq!(count, 1, "one beat of 128 bytes holds the prefix");
        // At 8-byte beats the prefix spans beats 0..=4; byte 33 is in beat 4.
        p.beat = 8;
        p.tx_prefix[33] ^= 1;
        assert_eq!(Stream { p: &p, to: 0 }.record(1000, false).1, 2);
        // Past the prefix's length, the bank is not sent.
        p.tx_prefix[9] ^= 0x10;
        p.tx_prefix[33] ^= 1;
        p.tx_prefix[40] ^= 1;
        assert_eq!(Stream { p: &p, to: 0 }.record(1000, false), (None, 0));
    }

    #[test]
    fn short_and_beyond_records() {
        let p = half(300, 1000, Fault::PeerClosesEarly, true, true);
        assert_eq!(Stream { p: &p, to: 0 }.record(300, true), (Some(Record::Short { offset: 300 }), 1));
        let p = half(1000, 300, Fault::PeerSendsMore, true, true);
        // Beats 2..7 hold data past 300 (beat 2 straddles it).
        assert_eq!(Stream { p: &p, to: 0 }.record(1000, false), (Some(Record::Beyond { offset: 300 }), 6));
        let mut plan = Plan::draw(1);
        plan.rounds[0].silent = None;
        let e = expect(&plan.rounds[0], &p, 0, [0, 0]);
        assert_eq!((e.cause, e.rx), (Some(ErrorCause::BeyondSize), 1000));
    }
}
