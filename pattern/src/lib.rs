//! The incremental test pattern, defined once for the whole workspace.
//!
//! The byte at stream offset `b` (counted from 0 at the start of each
//! transfer) is byte `b % 4` of the little-endian `u32` value `(b / 4) mod 2^32`.
//! So 32-bit word `k` of the stream holds the value `k`, and on a W-bit bus
//! lane `i` of beat `n` holds `n * (W / 32) + i`.
//!
//! The hardware generator and verifier, the testbench models and the host
//! tools (`tcpdatatest` pattern 1) all agree on this definition; this crate is
//! the one software implementation of it.
//!
//! ```
//! assert_eq!(pattern::byte_at(0), 0);
//! assert_eq!(pattern::byte_at(4), 1);
//! assert_eq!(pattern::word_at(5), 5);
//! let mut buf = [0u8; 8];
//! pattern::fill(&mut buf, 2);
//! assert_eq!(buf, [0, 0, 1, 0, 0, 0, 2, 0]);
//! assert_eq!(pattern::first_mismatch(&buf, 2), None);
//! ```

/// The 32-bit word at word index `word` of the stream (word `k` holds `k mod 2^32`).
#[inline]
pub fn word_at(word: u64) -> u32 {
    word as u32
}

/// The byte at stream offset `offset`.
#[inline]
pub fn byte_at(offset: u64) -> u8 {
    word_at(offset / 4).to_le_bytes()[(offset % 4) as usize]
}

/// Fills `buf` with the pattern bytes for stream offsets `offset ..`.
pub fn fill(buf: &mut [u8], offset: u64) {
    // Head: bytes until the next word boundary.
    let head = (((4 - offset % 4) % 4) as usize).min(buf.len());
    for (i, b) in buf[..head].iter_mut().enumerate() {
        *b = byte_at(offset + i as u64);
    }
    let mut word = (offset + head as u64) / 4;
    let body = &mut buf[head..];
    let mut chunks = body.chunks_exact_mut(4);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&word_at(word).to_le_bytes());
        word += 1;
    }
    let tail = chunks.into_remainder();
    let bytes = word_at(word).to_le_bytes();
    tail.copy_from_slice(&bytes[..tail.len()]);
}

/// The first byte that differs from the pattern, with the aligned 32-bit stream
/// word that contains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Stream offset of the first wrong byte.
    pub offset: u64,
    /// The pattern word that contains that byte (`offset / 4`).
    pub expected: u32,
    /// The received word at the same position. Bytes of that word that were
    /// not part of the checked data (before the start or past the end of the
    /// slice) are taken from the expected word, so only received bytes differ.
    pub received: u32,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pattern mismatch at byte offset {} (0x{:x}): expected word 0x{:08x}, received 0x{:08x}",
            self.offset, self.offset, self.expected, self.received
        )
    }
}

/// Checks `buf` against the pattern for stream offsets `offset ..` and returns
/// the first mismatch, if any. Compares eight bytes at a time.
pub fn first_mismatch(buf: &[u8], offset: u64) -> Option<Mismatch> {
    let head = (((4 - offset % 4) % 4) as usize).min(buf.len());
    for i in 0..head {
        if buf[i] != byte_at(offset + i as u64) {
            return Some(mismatch_at(buf, offset, i));
        }
    }
    let mut word = (offset + head as u64) / 4;
    let body = &buf[head..];
    let mut chunks = body.chunks_exact(8);
    for (n, chunk) in (&mut chunks).enumerate() {
        let got = u64::from_le_bytes(chunk.try_into().expect("chunk of 8"));
        let want = u64::from(word_at(word)) | (u64::from(word_at(word + 1)) << 32);
        if got != want {
            let lane = ((got ^ want).trailing_zeros() / 8) as usize;
            return Some(mismatch_at(buf, offset, head + n * 8 + lane));
        }
        word += 2;
    }
    let rest = chunks.remainder();
    let base = buf.len() - rest.len();
    for (i, &b) in rest.iter().enumerate() {
        if b != byte_at(offset + (base + i) as u64) {
            return Some(mismatch_at(buf, offset, base + i));
        }
    }
    None
}

fn mismatch_at(buf: &[u8], offset: u64, index: usize) -> Mismatch {
    let at = offset + index as u64;
    let word = at / 4;
    let expected = word_at(word);
    let mut bytes = expected.to_le_bytes();
    for (k, byte) in bytes.iter_mut().enumerate() {
        let stream = word * 4 + k as u64;
        if stream >= offset && stream < offset + buf.len() as u64 {
            *byte = buf[(stream - offset) as usize];
        }
    }
    Mismatch { offset: at, expected, received: u32::from_le_bytes(bytes) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte-by-byte restatement of the definition, independent of the fast paths.
    fn naive(offset: u64, len: usize) -> Vec<u8> {
        (0..len as u64).map(|i| (((offset + i) / 4) as u32).to_le_bytes()[((offset + i) % 4) as usize]).collect()
    }

    #[test]
    fn fill_matches_definition_at_every_alignment() {
        for offset in [0u64, 1, 2, 3, 4, 5, 1023, (1 << 34) - 3] {
            for len in [0usize, 1, 3, 4, 5, 7, 8, 9, 63, 64, 65] {
                let mut buf = vec![0xAA; len];
                fill(&mut buf, offset);
                assert_eq!(buf, naive(offset, len), "offset {offset} len {len}");
                assert_eq!(first_mismatch(&buf, offset), None);
            }
        }
    }

    #[test]
    fn word_wraps_at_two_to_the_32() {
        let wrap = 4u64 << 32;
        assert_eq!(word_at((1 << 32) - 1), u32::MAX);
        assert_eq!(word_at(1 << 32), 0);
        let mut buf = [0u8; 8];
        fill(&mut buf, wrap - 4);
        assert_eq!(buf, [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    }

    #[test]
    fn every_single_byte_error_is_found_with_its_word() {
        for offset in [0u64, 1, 6] {
            let good = naive(offset, 37);
            for i in 0..good.len() {
                let mut bad = good.clone();
                bad[i] ^= 0x10;
                let m = first_mismatch(&bad, offset).expect("mismatch found");
                let at = offset + i as u64;
                assert_eq!(m.offset, at);
                assert_eq!(m.expected, (at / 4) as u32);
                let shift = 8 * (at % 4);
                assert_eq!(m.received, m.expected ^ (0x10 << shift));
            }
        }
    }

    #[test]
    fn first_of_two_errors_is_reported() {
        let mut buf = naive(0, 64);
        buf[40] = 0;
        buf[17] = 0xEE;
        assert_eq!(first_mismatch(&buf, 0).map(|m| m.offset), Some(17));
    }
}
