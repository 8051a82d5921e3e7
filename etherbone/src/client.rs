//! A register client over Etherbone/TCP that reports failed accesses.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::bus::{AxiResp, BusError, RegisterBus};
use crate::codec::{read_packet, Packet, Record, RecordFlags, StreamError};
use crate::server::{ServerInfo, CONFIG_BUS_ERROR_COUNT, CONFIG_ERROR_HIGH, CONFIG_ERROR_LOW};

/// One connection to an Etherbone server (this crate's or `litex_server`).
///
/// Each access is one packet followed, in the same TCP write, by a
/// config-space read of the server's error shift register; bit 0 of its answer
/// says whether the access failed. So every access costs one round trip and
/// an error response comes back as [`BusError::Response`].
///
/// LiteX's own `litex_server` ignores the config-space flag and would answer
/// that read from bus address 0x4; against it, turn the check off with
/// [`Client::set_error_checks`] (errors then go unnoticed, as with LiteX's
/// client).
///
/// A server may close a connection that has been idle (this crate's server
/// does after [`crate::ServerOptions::idle_timeout`]); the next access then
/// connects again first, so a client left alone for a while keeps working
/// (the error shift register of the new connection starts at 0).
///
/// Every wait is bounded by the timeout given to [`Client::connect`]. After a
/// time-out or any other transport or protocol error, the stream may be out
/// of step, so the client refuses further accesses: connect again.
pub struct Client {
    stream: TcpStream,
    peer: SocketAddr,
    timeout: Duration,
    info: ServerInfo,
    broken: Option<BusError>,
    error_checks: bool,
}

impl Client {
    /// Connects, then waits for the server-information line.
    pub fn connect(addr: impl ToSocketAddrs, timeout: Duration) -> Result<Client, BusError> {
        let addrs: Vec<SocketAddr> =
            addr.to_socket_addrs().map_err(|e| BusError::io("resolving the server address", &e))?.collect();
        let mut last = None;
        for peer in addrs {
            match TcpStream::connect_timeout(&peer, timeout) {
                Ok(stream) => return Client::handshake(stream, peer, timeout),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    last = Some(BusError::Timeout { what: format!("connecting to {peer}"), after: timeout })
                }
                Err(e) => last = Some(BusError::io(format!("connecting to {peer}"), &e)),
            }
        }
        Err(last.unwrap_or_else(|| BusError::Io {
            what: "resolving the server address".into(),
            kind: io::ErrorKind::NotFound,
            message: "no address".into(),
        }))
    }

    fn handshake(stream: TcpStream, peer: SocketAddr, timeout: Duration) -> Result<Client, BusError> {
        stream.set_nodelay(true).map_err(|e| BusError::io(format!("configuring {peer}"), &e))?;
        let deadline = Instant::now() + timeout;
        let waiting = || format!("waiting for the server-information line from {peer}");
        // The line has no terminator. The server sends it in one write and
        // nothing else until asked; read until it has its three fields.
        let mut line = Vec::new();
        let mut buf = [0u8; 128];
        loop {
            let n = DeadlineReader { stream: &stream, deadline }.read(&mut buf).map_err(|e| match e.kind() {
                io::ErrorKind::TimedOut => BusError::Timeout { what: waiting(), after: timeout },
                _ => BusError::io(waiting(), &e),
            })?;
            if n == 0 {
                return Err(BusError::Io {
                    what: waiting(),
                    kind: io::ErrorKind::UnexpectedEof,
                    message: "the server closed the connection".into(),
                });
            }
            line.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&line);
            if let Ok(info) = ServerInfo::parse(&text) {
                return Ok(Client { stream, peer, timeout, info, broken: None, error_checks: true });
            }
            if line.len() > 128 {
                return Err(BusError::Protocol(format!(
                    "{peer} sent {text:?}, not a server-information line <comm>:<host>:<port>"
                )));
            }
        }
    }

    /// The server's information line, parsed.
    pub fn server_info(&self) -> &ServerInfo {
        &self.info
    }

    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether each access is followed by the error-status read (default on).
    pub fn set_error_checks(&mut self, on: bool) {
        self.error_checks = on;
    }

    /// The server's error shift register for this connection (bit 0: the
    /// most recent access; 1 = failed).
    pub fn error_status(&mut self) -> Result<u64, BusError> {
        let v = self.transact(&[config_read(&[CONFIG_ERROR_HIGH, CONFIG_ERROR_LOW])], "the error status")?;
        let words = expect_values(&v[0], 2, "the error status")?;
        Ok((u64::from(words[0]) << 32) | u64::from(words[1]))
    }

    /// Failed bus accesses of the whole server (all clients), modulo 2^32.
    pub fn server_bus_errors(&mut self) -> Result<u32, BusError> {
        let v = self.transact(&[config_read(&[CONFIG_BUS_ERROR_COUNT])], "the bus error count")?;
        Ok(expect_values(&v[0], 1, "the bus error count")?[0])
    }

    /// Sends `packets` in one write and reads one answer for each that has
    /// reads. Any failure here leaves the client unusable.
    fn transact(&mut self, packets: &[Packet], what: &str) -> Result<Vec<Packet>, BusError> {
        if let Some(e) = &self.broken {
            return Err(BusError::Io {
                what: format!("connection to {} unusable after an earlier error ({e})", self.peer),
                kind: io::ErrorKind::NotConnected,
                message: "connect again".into(),
            });
        }
        if self.closed_by_server() {
            // Nothing is in flight: the server closed an idle connection (its
            // idle limit). Connect again, as a new client would.
            let error_checks = self.error_checks;
            *self = Client::connect(self.peer, self.timeout)?;
            self.error_checks = error_checks;
        }
        let result = self.transact_inner(packets, what);
        if let Err(e) = &result {
            self.broken = Some(e.clone());
        }
        result
    }

    /// True when the server has closed the connection while it was idle
    /// (end of stream or a reset waiting to be read, no answer expected).
    fn closed_by_server(&self) -> bool {
        if self.stream.set_nonblocking(true).is_err() {
            return false;
        }
        let mut byte = [0u8; 1];
        let closed = match self.stream.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => matches!(e.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted),
        };
        let _ = self.stream.set_nonblocking(false);
        closed
    }

    fn transact_inner(&mut self, packets: &[Packet], what: &str) -> Result<Vec<Packet>, BusError> {
        let deadline = Instant::now() + self.timeout;
        let mut bytes = Vec::new();
        for p in packets {
            bytes.extend(p.encode().map_err(|e| BusError::Protocol(e.to_string()))?);
        }
        let sending = format!("sending the request for {what} to {}", self.peer);
        self.stream.set_write_timeout(Some(self.timeout)).map_err(|e| BusError::io(&sending, &e))?;
        self.stream.write_all(&bytes).map_err(|e| match e.kind() {
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => {
                BusError::Timeout { what: sending.clone(), after: self.timeout }
            }
            _ => BusError::io(&sending, &e),
        })?;
        let waiting = format!("waiting for the answer for {what} from {}", self.peer);
        let expected = packets.iter().filter(|p| p.records.iter().any(|r| !r.reads.is_empty()));
        let mut answers = Vec::new();
        for _ in expected {
            let mut reader = DeadlineReader { stream: &self.stream, deadline };
            match read_packet(&mut reader) {
                Ok(Some(p)) => answers.push(p),
                Ok(None) => {
                    return Err(BusError::Io {
                        what: waiting,
                        kind: io::ErrorKind::UnexpectedEof,
                        message: "the server closed the connection".into(),
                    })
                }
                Err(StreamError::Io(e)) if e.kind() == io::ErrorKind::TimedOut => {
                    return Err(BusError::Timeout { what: waiting, after: self.timeout })
                }
                Err(StreamError::Io(e)) => return Err(BusError::io(waiting, &e)),
                Err(StreamError::Decode(e)) => return Err(BusError::Protocol(format!("{waiting}: {e}"))),
            }
        }
        Ok(answers)
    }

    /// Performs `access` (a packet) and reads the error bit of that access.
    fn access(&mut self, access: Packet, has_answer: bool, addr: u32, what: &str) -> Result<Option<u32>, BusError> {
        if !self.error_checks {
            let answers = self.transact(&[access], what)?;
            return match answers.first() {
                Some(a) => Ok(Some(expect_values(a, 1, what)?[0])),
                None => Ok(None),
            };
        }
        let answers = self.transact(&[access, config_read(&[CONFIG_ERROR_LOW])], what)?;
        let (value, status) = if has_answer {
            let v = expect_values(&answers[0], 1, what)?[0];
            (Some(v), &answers[1])
        } else {
            (None, &answers[0])
        };
        let status = expect_values(status, 1, "the error status")?[0];
        if status & 1 != 0 {
            return Err(BusError::Response { addr, resp: AxiResp::Error });
        }
        Ok(value)
    }
}

impl RegisterBus for Client {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        let what = format!("read {addr:#010x}");
        let value = self.access(Packet::new(vec![Record::reads([u64::from(addr)])]), true, addr, &what)?;
        Ok(value.expect("a read has an answer"))
    }

    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        let what = format!("write {addr:#010x}");
        self.access(Packet::new(vec![Record::writes(u64::from(addr), [value])]), false, addr, &what)?;
        Ok(())
    }

    /// Up to 32 writes at a time (a packet each) sent in one TCP write with
    /// one read of the error shift register (one bit per access, the newest
    /// in bit 0): the server performs them back to back.
    fn write32_all(&mut self, writes: &[(u32, u32)]) -> Result<(), BusError> {
        let mut first = None;
        for chunk in writes.chunks(32) {
            // One record a packet, as on any Etherbone stream over TCP.
            let mut packets: Vec<Packet> =
                chunk.iter().map(|&(a, v)| Packet::new(vec![Record::writes(u64::from(a), [v])])).collect();
            let what = format!("{} writes from {:#010x}", chunk.len(), chunk[0].0);
            if self.error_checks {
                packets.push(config_read(&[CONFIG_ERROR_LOW]));
            }
            let answers = self.transact(&packets, &what)?;
            if let Some(status) = answers.first() {
                let status = expect_values(status, 1, "the error status")?[0];
                let n = chunk.len();
                if let Some(k) = (0..n).find(|&k| status >> (n - 1 - k) & 1 != 0) {
                    first.get_or_insert(BusError::Response { addr: chunk[k].0, resp: AxiResp::Error });
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}

fn config_read(addrs: &[u32]) -> Packet {
    Packet::new(vec![Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads(addrs.iter().map(|&a| u64::from(a)))
    }])
}

/// The answer to n reads is one record of n writes.
fn expect_values<'a>(p: &'a Packet, n: usize, what: &str) -> Result<&'a [u32], BusError> {
    match p.records.as_slice() {
        [r] if r.writes.len() == n && r.reads.is_empty() => Ok(&r.writes),
        _ => Err(BusError::Protocol(format!(
            "the answer for {what} should be one record of {n} value(s), got {} record(s) with {:?} value(s)",
            p.records.len(),
            p.records.iter().map(|r| r.writes.len()).collect::<Vec<_>>()
        ))),
    }
}

/// Reads from a stream with every read bounded by one overall deadline, so a
/// server that trickles bytes cannot stretch the wait.
struct DeadlineReader<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        match s.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Err(io::ErrorKind::TimedOut.into()),
            other => other,
        }
    }
}
