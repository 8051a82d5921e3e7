//! A fixed-capacity byte ring: the user-space TX and RX buffers of a session.

/// A fixed-capacity byte ring (no allocation after `new`).
pub(crate) struct Ring {
    buf: Box<[u8]>,
    head: usize,
    len: usize,
}

impl Ring {
    pub(crate) fn new(cap: usize) -> Self {
        Self { buf: vec![0; cap].into_boxed_slice(), head: 0, len: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn free(&self) -> usize {
        self.buf.len() - self.len
    }

    pub(crate) fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// The buffered bytes, oldest first, as two slices.
    pub(crate) fn slices(&self) -> (&[u8], &[u8]) {
        let cap = self.buf.len();
        let end = self.head + self.len;
        if end <= cap {
            (&self.buf[self.head..end], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..end - cap])
        }
    }

    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.len);
        self.len -= n;
        self.head = if self.len == 0 { 0 } else { (self.head + n) % self.buf.len() };
    }

    /// Appends `data` (the caller checked `free()`).
    pub(crate) fn push(&mut self, data: &[u8]) {
        assert!(data.len() <= self.free(), "ring overflow");
        let cap = self.buf.len();
        let tail = (self.head + self.len) % cap;
        let first = data.len().min(cap - tail);
        self.buf[tail..tail + first].copy_from_slice(&data[..first]);
        self.buf[..data.len() - first].copy_from_slice(&data[first..]);
        self.len += data.len();
    }

    /// The first contiguous free region after the buffered bytes.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        let cap = self.buf.len();
        if self.len == cap {
            return &mut [];
        }
        let tail = (self.head + self.len) % cap;
        if tail >= self.head {
            &mut self.buf[tail..]
        } else {
            &mut self.buf[tail..self.head]
        }
    }

    /// Marks `n` bytes of [`Ring::spare`] as filled.
    pub(crate) fn commit(&mut self, n: usize) {
        debug_assert!(n <= self.free());
        self.len += n;
    }

    /// Appends the first `n` buffered bytes to `out`.
    pub(crate) fn copy_front(&self, n: usize, out: &mut Vec<u8>) {
        let (a, b) = self.slices();
        if a.len() >= n {
            out.extend_from_slice(&a[..n]);
        } else {
            out.extend_from_slice(a);
            out.extend_from_slice(&b[..n - a.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    /// Pushes, reads (spare/commit) and consumes through many wraps of an
    /// odd-sized ring and compares with a plain queue.
    #[test]
    fn ring_wraps_correctly() {
        let mut r = Ring::new(37);
        let mut model = std::collections::VecDeque::new();
        let mut next = 0u8;
        let mut out = Vec::new();
        for step in 0..2000usize {
            let n = (step * 7 + 3) % 23;
            if step % 3 == 0 {
                // Fill like a socket read: into the spare region, then commit.
                let sp = r.spare();
                let k = n.min(sp.len());
                for b in &mut sp[..k] {
                    *b = next;
                    model.push_back(next);
                    next = next.wrapping_add(1);
                }
                r.commit(k);
            } else {
                let k = n.min(r.free());
                let data: Vec<u8> = (0..k)
                    .map(|_| {
                        let b = next;
                        next = next.wrapping_add(1);
                        model.push_back(b);
                        b
                    })
                    .collect();
                r.push(&data);
            }
            assert_eq!(r.len(), model.len());
            assert_eq!(r.free(), 37 - model.len());
            let (a, b) = r.slices();
            let both: Vec<u8> = a.iter().chain(b).copied().collect();
            assert!(both.iter().eq(model.iter()), "step {step}");
            let take = ((step * 5) % 19).min(r.len());
            out.clear();
            r.copy_front(take, &mut out);
            assert!(out.iter().eq(model.iter().take(take)));
            r.consume(take);
            model.drain(..take);
        }
    }
}
