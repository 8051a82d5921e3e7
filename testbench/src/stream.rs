//! Reference model of a session's byte stream on a W-bit bus, written from
//! ARCHITECTURE section 3, independent of the hardware's counters.
//!
//! A transfer of `size` bytes is `ceil(size / B)` beats of `B = W/8` bytes;
//! only the final beat is partial. A packet is `ceil(packet_size / B)` beats
//! (packet size 0: no boundary before the end); `tlast` is on each packet's
//! last beat and on the final beat. Data is the incremental pattern of the
//! `pattern` crate, or zeros for the dummy pattern.

/// A transfer as the model expects to see it.
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    pub size: u64,
    pub packet_size: u64,
    /// Bytes per beat (W/8).
    pub beat_bytes: usize,
    /// Incremental pattern (true) or zeros (false).
    pub pattern: bool,
}

impl Transfer {
    pub fn beats(&self) -> u64 {
        self.size.div_ceil(self.beat_bytes as u64)
    }

    fn packet_beats(&self) -> u64 {
        self.packet_size.div_ceil(self.beat_bytes as u64)
    }

    /// Bytes and `tlast` of beat `n`.
    pub fn beat(&self, n: u64) -> (usize, bool) {
        let beats = self.beats();
        let final_beat = n + 1 == beats;
        let bytes = if final_beat { (self.size - n * self.beat_bytes as u64) as usize } else { self.beat_bytes };
        let pb = self.packet_beats();
        (bytes, final_beat || (pb > 0 && (n + 1).is_multiple_of(pb)))
    }
}

/// Checks received beats, in order, against a [`Transfer`].
pub struct StreamChecker {
    pub transfer: Transfer,
    next: u64,
    bytes: Vec<u8>,
}

impl StreamChecker {
    pub fn new(transfer: Transfer) -> Self {
        StreamChecker { transfer, next: 0, bytes: vec![0; transfer.beat_bytes] }
    }

    /// Beats accepted so far.
    pub fn beats_seen(&self) -> u64 {
        self.next
    }

    pub fn finished(&self) -> bool {
        self.next == self.transfer.beats()
    }

    /// One accepted beat: `data` and `keep` as 32-bit words, least significant first.
    pub fn accept(&mut self, data: &[u32], keep: &[u32], last: bool) -> Result<(), String> {
        let n = self.next;
        if n >= self.transfer.beats() {
            return Err(format!("beat {n} is beyond the transfer of {} beats", self.transfer.beats()));
        }
        let (bytes, want_last) = self.transfer.beat(n);
        let b = self.transfer.beat_bytes;
        for i in 0..b {
            let kept = keep[i / 32] >> (i % 32) & 1 == 1;
            if kept != (i < bytes) {
                return Err(format!("beat {n}: tkeep bit {i} is {kept}, expected {} bytes kept", bytes));
            }
        }
        if last != want_last {
            return Err(format!("beat {n}: tlast is {last}, expected {want_last}"));
        }
        for (i, byte) in self.bytes.iter_mut().enumerate() {
            *byte = (data[i / 4] >> (8 * (i % 4))) as u8;
        }
        let offset = n * b as u64;
        let got = &self.bytes[..bytes];
        if self.transfer.pattern {
            if let Some(m) = pattern::first_mismatch(got, offset) {
                return Err(format!("beat {n}: {m}"));
            }
        } else if let Some(i) = got.iter().position(|&x| x != 0) {
            return Err(format!(
                "beat {n}: dummy data byte at offset {} is 0x{:02x}, expected 0",
                offset + i as u64,
                got[i]
            ));
        }
        self.next += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_round_up_to_beats_and_the_final_beat_is_partial() {
        let t = Transfer { size: 21, packet_size: 9, beat_bytes: 8, pattern: true };
        assert_eq!(t.beats(), 3);
        // Packets of 9 bytes take 2 beats: tlast on beat 1 and on the final beat 2.
        assert_eq!(t.beat(0), (8, false));
        assert_eq!(t.beat(1), (8, true));
        assert_eq!(t.beat(2), (5, true));
        let no_packets = Transfer { packet_size: 0, ..t };
        assert_eq!(no_packets.beat(1), (8, false));
    }

    #[test]
    fn checker_accepts_the_pattern_and_rejects_a_flipped_bit() {
        let t = Transfer { size: 12, packet_size: 0, beat_bytes: 8, pattern: true };
        let mut c = StreamChecker::new(t);
        c.accept(&[0, 1], &[0xff], false).unwrap();
        let e = c.accept(&[2, 3 ^ 0x100], &[0x0f], true);
        // Only 4 bytes are kept in the final beat: lane 1 is not checked.
        assert!(e.is_ok(), "{e:?}");
        let mut c = StreamChecker::new(t);
        let e = c.accept(&[0, 1 ^ 0x100], &[0xff], false).unwrap_err();
        assert!(e.contains("offset 5"), "{e}");
    }
}
