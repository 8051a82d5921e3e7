//! A classic libpcap capture file (the format `tcpdump -w` writes):
//! a 24-byte global header, then per frame a 16-byte record header and the
//! frame's bytes. Written in the host's byte order, as libpcap does; readers
//! tell the order from the magic number.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::HarnessError;

/// The magic number of microsecond-resolution captures.
pub const PCAP_MAGIC: u32 = 0xa1b2_c3d4;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The longest frame kept whole; longer ones are cut to this (no frame the
/// harness moves is that long: the TAP's MTU is at most 65521).
pub const SNAPLEN: u32 = 65535;

/// The 24-byte global header: magic, version 2.4, zone 0, accuracy 0,
/// snaplen, link type.
pub fn global_header(snaplen: u32, linktype: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&PCAP_MAGIC.to_ne_bytes());
    h[4..6].copy_from_slice(&2u16.to_ne_bytes());
    h[6..8].copy_from_slice(&4u16.to_ne_bytes());
    // thiszone and sigfigs stay 0
    h[16..20].copy_from_slice(&snaplen.to_ne_bytes());
    h[20..24].copy_from_slice(&linktype.to_ne_bytes());
    h
}

/// The 16-byte record header of a frame of `orig_len` bytes of which
/// `incl_len` are kept, taken at `at`.
pub fn record_header(at: SystemTime, incl_len: u32, orig_len: u32) -> [u8; 16] {
    let d = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&(d.as_secs() as u32).to_ne_bytes());
    h[4..8].copy_from_slice(&d.subsec_micros().to_ne_bytes());
    h[8..12].copy_from_slice(&incl_len.to_ne_bytes());
    h[12..16].copy_from_slice(&orig_len.to_ne_bytes());
    h
}

/// Appends Ethernet frames to a pcap file.
pub struct PcapWriter {
    out: BufWriter<File>,
    path: PathBuf,
    frames: u64,
}

impl PcapWriter {
    /// Creates (or truncates) `path` and writes the global header.
    pub fn create(path: &Path) -> Result<Self, HarnessError> {
        let what = || format!("pcap file {}", path.display());
        let file = File::create(path).map_err(|e| HarnessError::io(what(), e))?;
        let mut out = BufWriter::new(file);
        out.write_all(&global_header(SNAPLEN, LINKTYPE_ETHERNET)).map_err(|e| HarnessError::io(what(), e))?;
        Ok(PcapWriter { out, path: path.to_path_buf(), frames: 0 })
    }

    /// Records one frame seen at `at`.
    pub fn write_frame(&mut self, at: SystemTime, frame: &[u8]) -> io::Result<()> {
        let orig = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        let incl = orig.min(SNAPLEN);
        self.out.write_all(&record_header(at, incl, orig))?;
        self.out.write_all(&frame[..incl as usize])?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Where the capture goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Pushes everything written so far to the file.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn headers_have_the_libpcap_layout() {
        let g = global_header(SNAPLEN, LINKTYPE_ETHERNET);
        assert_eq!(u32::from_ne_bytes(g[0..4].try_into().unwrap()), 0xa1b2c3d4);
        assert_eq!(u16::from_ne_bytes(g[4..6].try_into().unwrap()), 2);
        assert_eq!(u16::from_ne_bytes(g[6..8].try_into().unwrap()), 4);
        assert_eq!(&g[8..16], &[0; 8]);
        assert_eq!(u32::from_ne_bytes(g[16..20].try_into().unwrap()), 65535);
        assert_eq!(u32::from_ne_bytes(g[20..24].try_into().unwrap()), 1);

        let at = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
        let r = record_header(at, 60, 60);
        assert_eq!(u32::from_ne_bytes(r[0..4].try_into().unwrap()), 1_700_000_000);
        assert_eq!(u32::from_ne_bytes(r[4..8].try_into().unwrap()), 123_456);
        assert_eq!(u32::from_ne_bytes(r[8..12].try_into().unwrap()), 60);
        assert_eq!(u32::from_ne_bytes(r[12..16].try_into().unwrap()), 60);
    }

    #[test]
    fn a_file_is_the_header_then_records() {
        let path = std::env::temp_dir().join(format!("tap_harness-unit-{}.pcap", std::process::id()));
        let mut w = PcapWriter::create(&path).unwrap();
        let at = UNIX_EPOCH + Duration::from_secs(5);
        w.write_frame(at, &[0xaa; 60]).unwrap();
        w.write_frame(at, &[0x55; 42]).unwrap();
        w.flush().unwrap();
        assert_eq!(w.frames(), 2);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(bytes.len(), 24 + 16 + 60 + 16 + 42);
        assert_eq!(&bytes[24 + 16..24 + 16 + 60], &[0xaa; 60]);
        assert_eq!(u32::from_ne_bytes(bytes[24 + 16 + 60 + 8..24 + 16 + 60 + 12].try_into().unwrap()), 42);
    }
}
