//! The register bus as software sees it: 32-bit reads and writes that either
//! complete or fail, a trait for anything that offers them, and a memory-backed
//! test double.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// An AXI error response. `OKAY`/`EXOKAY` are successes and have no variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AxiResp {
    /// `RESP = 2'b10`: the slave was reached and refused the access.
    SlvErr,
    /// `RESP = 2'b11`: no slave at that address.
    DecErr,
    /// SLVERR or DECERR, not known which: Etherbone carries one failure bit
    /// per access, so this is what a remote client sees.
    Error,
}

impl fmt::Display for AxiResp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AxiResp::SlvErr => "SLVERR",
            AxiResp::DecErr => "DECERR",
            AxiResp::Error => "an error response (SLVERR or DECERR; Etherbone does not say which)",
        })
    }
}

/// Why a register access did not complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusError {
    /// The access reached the bus and the bus answered with an error response.
    Response { addr: u32, resp: AxiResp },
    /// No answer in time; `what` says what was being waited for.
    Timeout { what: String, after: Duration },
    /// The connection failed (refused, reset, closed).
    Io { what: String, kind: io::ErrorKind, message: String },
    /// The peer sent something that is not the expected Etherbone answer.
    Protocol(String),
}

impl BusError {
    /// An SLVERR response to an access at `addr`.
    pub fn slverr(addr: u32) -> Self {
        BusError::Response { addr, resp: AxiResp::SlvErr }
    }

    /// A DECERR response to an access at `addr`.
    pub fn decerr(addr: u32) -> Self {
        BusError::Response { addr, resp: AxiResp::DecErr }
    }

    /// True for an error response of the bus, false for a transport failure.
    pub fn is_response(&self) -> bool {
        matches!(self, BusError::Response { .. })
    }

    pub(crate) fn io(what: impl Into<String>, e: &io::Error) -> Self {
        BusError::Io { what: what.into(), kind: e.kind(), message: e.to_string() }
    }
}

impl fmt::Display for BusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BusError::Response { addr, resp } => write!(f, "bus error at {addr:#010x}: {resp}"),
            BusError::Timeout { what, after } => write!(f, "timed out after {after:?} {what}"),
            BusError::Io { what, message, .. } => write!(f, "{what}: {message}"),
            BusError::Protocol(m) => write!(f, "Etherbone protocol error: {m}"),
        }
    }
}

impl std::error::Error for BusError {}

/// One 32-bit access (byte enable 0xF). Addresses are byte addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Read { addr: u32 },
    Write { addr: u32, value: u32 },
}

impl Op {
    pub fn addr(&self) -> u32 {
        match *self {
            Op::Read { addr } | Op::Write { addr, .. } => addr,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Read { addr } => write!(f, "read {addr:#010x}"),
            Op::Write { addr, value } => write!(f, "write {addr:#010x} <- {value:#010x}"),
        }
    }
}

/// Anything that performs 32-bit register accesses.
pub trait RegisterBus {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError>;
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError>;

    /// Performs `writes` (address, value) in order, every one of them, and
    /// returns the first one's error if any failed. A bus that can sends
    /// them together, so that they land within a few bus cycles of each
    /// other (the Etherbone [`Client`](crate::Client): one TCP write and
    /// one answer for up to 32 writes) rather than a round trip apart.
    fn write32_all(&mut self, writes: &[(u32, u32)]) -> Result<(), BusError> {
        let mut first = None;
        for &(addr, value) in writes {
            if let Err(e) = self.write32(addr, value) {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Performs `op`; a write yields 0.
    fn execute(&mut self, op: Op) -> Result<u32, BusError> {
        match op {
            Op::Read { addr } => self.read32(addr),
            Op::Write { addr, value } => self.write32(addr, value).map(|()| 0),
        }
    }
}

impl<B: RegisterBus + ?Sized> RegisterBus for &mut B {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        (**self).read32(addr)
    }
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        (**self).write32(addr, value)
    }
    fn write32_all(&mut self, writes: &[(u32, u32)]) -> Result<(), BusError> {
        (**self).write32_all(writes)
    }
}

impl<B: RegisterBus + ?Sized> RegisterBus for Box<B> {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        (**self).read32(addr)
    }
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        (**self).write32(addr, value)
    }
    fn write32_all(&mut self, writes: &[(u32, u32)]) -> Result<(), BusError> {
        (**self).write32_all(writes)
    }
}

/// A register bus made of a map of words, for tests. Clones share the same
/// memory, so a test can keep one clone to look at what a server did through
/// another. Unwritten words read 0; addresses marked with [`set_error`]
/// answer every access with that error response and keep their value.
///
/// [`set_error`]: MemoryBus::set_error
#[derive(Debug, Clone, Default)]
pub struct MemoryBus {
    state: Arc<Mutex<MemoryState>>,
}

#[derive(Debug, Default)]
struct MemoryState {
    words: HashMap<u32, u32>,
    errors: HashMap<u32, AxiResp>,
    latency: Duration,
    log: Vec<Op>,
}

impl MemoryBus {
    pub fn new() -> Self {
        MemoryBus::default()
    }

    fn state(&self) -> MutexGuard<'_, MemoryState> {
        // A test thread that panicked while holding the lock leaves plain data behind.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks `addr` to answer every access with `resp`.
    pub fn with_error(self, addr: u32, resp: AxiResp) -> Self {
        self.set_error(addr, resp);
        self
    }

    pub fn set_error(&self, addr: u32, resp: AxiResp) {
        self.state().errors.insert(addr, resp);
    }

    pub fn clear_error(&self, addr: u32) {
        self.state().errors.remove(&addr);
    }

    /// Makes every access take `latency` (a slow simulation).
    pub fn set_latency(&self, latency: Duration) {
        self.state().latency = latency;
    }

    /// Sets a word without an access being logged.
    pub fn poke(&self, addr: u32, value: u32) {
        self.state().words.insert(addr, value);
    }

    /// The word at `addr`, if ever written.
    pub fn peek(&self, addr: u32) -> Option<u32> {
        self.state().words.get(&addr).copied()
    }

    /// Every access performed so far, in order, failed ones included.
    pub fn log(&self) -> Vec<Op> {
        self.state().log.clone()
    }

    fn access(&self, op: Op) -> Result<u32, BusError> {
        let latency = self.state().latency;
        if !latency.is_zero() {
            std::thread::sleep(latency);
        }
        let mut s = self.state();
        s.log.push(op);
        if let Some(&resp) = s.errors.get(&op.addr()) {
            return Err(BusError::Response { addr: op.addr(), resp });
        }
        match op {
            Op::Read { addr } => Ok(s.words.get(&addr).copied().unwrap_or(0)),
            Op::Write { addr, value } => {
                s.words.insert(addr, value);
                Ok(0)
            }
        }
    }
}

impl RegisterBus for MemoryBus {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        self.access(Op::Read { addr })
    }

    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.access(Op::Write { addr, value }).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_bus_reads_writes_and_errors() {
        let mut bus = MemoryBus::new().with_error(0x10, AxiResp::DecErr);
        let view = bus.clone();
        assert_eq!(bus.read32(0x4), Ok(0));
        bus.write32(0x4, 0x1234_5678).unwrap();
        assert_eq!(bus.read32(0x4), Ok(0x1234_5678));
        assert_eq!(view.peek(0x4), Some(0x1234_5678));
        assert_eq!(bus.write32(0x10, 1), Err(BusError::decerr(0x10)));
        assert_eq!(view.peek(0x10), None);
        assert_eq!(bus.execute(Op::Read { addr: 0x10 }).unwrap_err().to_string(), "bus error at 0x00000010: DECERR");
        assert_eq!(view.log().len(), 5);
    }

    #[test]
    fn error_messages_say_which_kind() {
        let remote = BusError::Response { addr: 0x20, resp: AxiResp::Error };
        assert_eq!(
            remote.to_string(),
            "bus error at 0x00000020: an error response (SLVERR or DECERR; Etherbone does not say which)"
        );
        assert!(remote.is_response());
        let t = BusError::Timeout { what: "waiting".into(), after: Duration::from_millis(250) };
        assert_eq!(t.to_string(), "timed out after 250ms waiting");
        assert!(!t.is_response());
    }
}
