//! The register server: Etherbone over TCP in, [`BusRequest`]s out to the
//! simulation loop, answers back (the crate docs give the behaviour).

use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::bus::{BusError, Op, RegisterBus};
use crate::codec::{
    packet_ready, read_packet, AddrSize, Packet, PacketHeader, Record, RecordFlags, StreamError, BYTE_ENABLE_32,
};

/// Config space, byte address of the upper 32 bits of the connection's error
/// shift register (the Etherbone specification's register at 0x0).
pub const CONFIG_ERROR_HIGH: u32 = 0x0;
/// Config space: lower 32 bits of the error shift register. Bit 0 is the most
/// recent bus access of this connection, bit 1 the one before, and so on;
/// a bit is 1 when that access failed.
pub const CONFIG_ERROR_LOW: u32 = 0x4;
/// Config space: the two words of the SDB address; this server has no SDB (0).
pub const CONFIG_SDB_HIGH: u32 = 0x8;
pub const CONFIG_SDB_LOW: u32 = 0xc;
/// Config space (an addition to the specification's layout): the number of
/// failed bus accesses of the whole server, all connections, modulo 2^32.
pub const CONFIG_BUS_ERROR_COUNT: u32 = 0x10;

/// What a read answers when its access failed: all ones, as a PCIe host reads
/// from a failed or absent device.
pub const FAILED_READ_VALUE: u32 = 0xffff_ffff;

/// How the server introduces itself, and how long it waits for the simulation.
///
/// A connecting client first receives the line `<comm>:<host>:<port>`, ASCII,
/// with no line terminator, in one write, as LiteX's `litex_server` sends it
/// (for instance `CommUDP:localhost:1234`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    comm: String,
    host: String,
    port: u16,
    reply_timeout: Duration,
}

/// Why a server-information line is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoError(String);

impl fmt::Display for InfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InfoError {}

/// LiteX's client reads the line with one `recv(128)`.
const INFO_MAX_LEN: usize = 128;

impl ServerInfo {
    /// The `comm` this crate's users announce: a simulated board, not real hardware.
    pub const DEFAULT_COMM: &'static str = "CommVirtualBoard";
    /// Below the 2 s after which LiteX's `RemoteClient` gives up on an answer,
    /// so that a stalled simulation still yields an (error) answer in time.
    pub const DEFAULT_REPLY_TIMEOUT: Duration = Duration::from_millis(1500);

    /// `comm` names the interface, like LiteX's `CommUART`/`CommUDP`: letters,
    /// digits and `_`. It must not contain `CommPCIe`: LiteX's client then
    /// rebases every address on the PCIe CSR window.
    pub fn new(comm: &str, host: &str, port: u16) -> Result<Self, InfoError> {
        if comm.is_empty() || !comm.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(InfoError(format!(
                "server-information comm {comm:?} must be non-empty letters, digits and '_'"
            )));
        }
        if comm.contains("CommPCIe") {
            return Err(InfoError(format!(
                "server-information comm {comm:?} must not contain \"CommPCIe\": LiteX's client would rebase every address"
            )));
        }
        if host.is_empty() || !host.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InfoError(format!(
                "server-information host {host:?} must be non-empty printable ASCII without spaces"
            )));
        }
        let info = ServerInfo {
            comm: comm.to_string(),
            host: host.to_string(),
            port,
            reply_timeout: Self::DEFAULT_REPLY_TIMEOUT,
        };
        let len = info.line().len();
        if len > INFO_MAX_LEN {
            return Err(InfoError(format!(
                "server-information line is {len} bytes; LiteX's client reads at most {INFO_MAX_LEN}"
            )));
        }
        Ok(info)
    }

    /// The line for a server listening on `addr` (host = its IP address).
    pub fn for_addr(comm: &str, addr: SocketAddr) -> Result<Self, InfoError> {
        ServerInfo::new(comm, &addr.ip().to_string(), addr.port())
    }

    /// How long the server waits for the simulation to answer a request
    /// before answering the client that the accesses failed.
    pub fn with_reply_timeout(mut self, timeout: Duration) -> Self {
        self.reply_timeout = timeout;
        self
    }

    pub fn comm(&self) -> &str {
        &self.comm
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn reply_timeout(&self) -> Duration {
        self.reply_timeout
    }

    /// `<comm>:<host>:<port>`.
    pub fn line(&self) -> String {
        format!("{}:{}:{}", self.comm, self.host, self.port)
    }

    /// Parses a line as a client receives it: comm up to the first `:`, port
    /// after the last one, host in between (so an IPv6 host is fine).
    pub fn parse(line: &str) -> Result<Self, InfoError> {
        let bad = || InfoError(format!("server-information line {line:?} is not <comm>:<host>:<port>"));
        let (comm, rest) = line.split_once(':').ok_or_else(bad)?;
        let (host, port) = rest.rsplit_once(':').ok_or_else(bad)?;
        let port = port.parse().map_err(|_| bad())?;
        ServerInfo::new(comm, host, port)
    }
}

/// The limits a server keeps (the crate docs, "Limits").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// A connection on which nothing is received for this long is closed,
    /// with a line on stderr, so that forgotten clients do not hold a thread
    /// each for ever. `None`: never. Default [`ServerOptions::DEFAULT_IDLE_TIMEOUT`].
    pub idle_timeout: Option<Duration>,
    /// Each answer (and the server-information line) must be sent whole
    /// within this long; a connection whose client reads nothing, so that
    /// its socket buffers stay full, is closed with a line on stderr instead
    /// of holding its thread and its place for ever. What waits for a
    /// client is thus bounded by its socket buffers and this time. Default
    /// [`ServerOptions::DEFAULT_WRITE_TIMEOUT`].
    pub write_timeout: Duration,
    /// Connections served at once; one more is closed as soon as it is
    /// accepted, with a line on stderr. Default [`ServerOptions::DEFAULT_MAX_CONNECTIONS`].
    pub max_connections: usize,
    /// The bus's register map spans byte addresses `0..span`: the server
    /// refuses every access at or above `span` itself, before it reaches the
    /// bus, as a failed access (the bus would only see the address bits it
    /// decodes, and alias it onto the map). `None`: every address reaches the bus.
    pub register_span: Option<u64>,
}

impl ServerOptions {
    /// Long enough for a person reading between two commands of a LiteX
    /// session; this crate's [`crate::Client`] reconnects on its own anyway.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// Far more than a console, LiteX tools and tests use at once.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 64;
    /// A client that reads its answers frees the socket buffer in well under
    /// a millisecond; one that reads nothing is closed after this long.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(10);

    /// The address range the server lets through, for messages: `0x0000..0x07FF`.
    pub fn span_text(span: u64) -> String {
        format!("0x{:04X}..0x{:04X}", 0, span.saturating_sub(1))
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            idle_timeout: Some(Self::DEFAULT_IDLE_TIMEOUT),
            write_timeout: Self::DEFAULT_WRITE_TIMEOUT,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            register_span: None,
        }
    }
}

/// The accesses of one Etherbone record, for the simulation loop to perform
/// in order on the AXI4-Lite bus, as one uninterrupted sequence (another
/// client's accesses come before or after, never in between).
#[derive(Debug)]
pub struct BusRequest {
    ops: Vec<Op>,
    reply: Sender<Vec<Result<u32, BusError>>>,
}

impl BusRequest {
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Answers with one result per op, in order (a write's value is ignored).
    /// Errors should be [`BusError::Response`]. Returns false when nobody
    /// waits any more (the client left, or the server's reply time-out passed).
    pub fn respond(self, results: Vec<Result<u32, BusError>>) -> bool {
        self.reply.send(results).is_ok()
    }

    /// Performs every op on `bus` and answers with the results.
    pub fn execute<B: RegisterBus + ?Sized>(self, bus: &mut B) -> bool {
        let results = self.ops.iter().map(|&op| bus.execute(op)).collect();
        self.respond(results)
    }
}

/// Serves `requests` with `bus` on a new thread until every sender is gone
/// (the server stopped); the thread then returns the bus. This is what a
/// simulation loop does, without the clock.
pub fn serve_requests<B>(requests: Receiver<BusRequest>, mut bus: B) -> JoinHandle<B>
where
    B: RegisterBus + Send + 'static,
{
    thread::Builder::new()
        .name("etherbone-bus".into())
        .spawn(move || {
            for request in requests {
                request.execute(&mut bus);
            }
            bus
        })
        .expect("spawn the bus thread")
}

struct Shared {
    info: ServerInfo,
    opts: ServerOptions,
    stop: AtomicBool,
    bus_errors: AtomicU64,
    /// Open connections, so that stopping can shut them down.
    conns: Mutex<HashMap<u64, TcpStream>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running server. Dropping it stops it, as [`ServerHandle::stop`] does.
pub struct ServerHandle {
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
    addr: SocketAddr,
}

impl ServerHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn info(&self) -> &ServerInfo {
        &self.shared.info
    }

    /// Failed bus accesses since the start, all connections.
    pub fn bus_errors(&self) -> u64 {
        self.shared.bus_errors.load(Ordering::Relaxed)
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        lock(&self.shared.conns).len()
    }

    /// Stops accepting, closes every connection and waits for the server's
    /// threads, which takes at most a few tens of milliseconds. The request
    /// receiver then reports the senders gone.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for (_, stream) in lock(&self.shared.conns).drain() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let workers = std::mem::take(&mut *lock(&self.shared.workers));
        for w in workers {
            let _ = w.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// How often the accept loop and a waiting connection look at the stop flag.
const POLL: Duration = Duration::from_millis(10);

/// Serves Etherbone on `listener`, one thread per connection, with the
/// default [`ServerOptions`]. Every record's bus accesses arrive on the
/// returned receiver as one [`BusRequest`].
pub fn spawn_server(listener: TcpListener, info: ServerInfo) -> io::Result<(ServerHandle, Receiver<BusRequest>)> {
    spawn_server_with(listener, info, ServerOptions::default())
}

/// [`spawn_server`] with the given limits.
pub fn spawn_server_with(
    listener: TcpListener,
    info: ServerInfo,
    opts: ServerOptions,
) -> io::Result<(ServerHandle, Receiver<BusRequest>)> {
    if opts.max_connections == 0 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "max_connections must be at least 1"));
    }
    if opts.idle_timeout == Some(Duration::ZERO) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "idle_timeout must be above 0 (None: no limit)"));
    }
    if opts.write_timeout.is_zero() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "write_timeout must be above 0"));
    }
    let addr = listener.local_addr()?;
    // Non-blocking so that the accept loop can see the stop flag.
    listener.set_nonblocking(true)?;
    let (tx, rx) = mpsc::channel();
    let shared = Arc::new(Shared {
        info,
        opts,
        stop: AtomicBool::new(false),
        bus_errors: AtomicU64::new(0),
        conns: Mutex::new(HashMap::new()),
        workers: Mutex::new(Vec::new()),
    });
    let s = shared.clone();
    let accept = thread::Builder::new().name("etherbone-accept".into()).spawn(move || accept_loop(listener, s, tx))?;
    Ok((ServerHandle { shared, accept: Some(accept), addr }, rx))
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>, requests: Sender<BusRequest>) {
    let mut next_id = 0u64;
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, peer)) => {
                let open = lock(&shared.conns).len();
                if open >= shared.opts.max_connections {
                    eprintln!("etherbone: {peer}: connection refused: {open} connections are open, the server's limit");
                    let _ = stream.shutdown(Shutdown::Both);
                    continue;
                }
                let id = next_id;
                next_id += 1;
                if let Err(e) = start_connection(&shared, &requests, stream, peer, id) {
                    eprintln!("etherbone: {peer}: cannot serve the connection: {e}");
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => thread::sleep(POLL),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // Out of file descriptors and the like: say so, and try again later.
                eprintln!("etherbone: accept on {}: {e}", shared.info.line());
                thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

fn start_connection(
    shared: &Arc<Shared>,
    requests: &Sender<BusRequest>,
    stream: TcpStream,
    peer: SocketAddr,
    id: u64,
) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    // The socket's receive time-out is the idle limit: every read of the
    // connection's thread waits at most that long for a byte.
    stream.set_read_timeout(shared.opts.idle_timeout)?;
    lock(&shared.conns).insert(id, stream.try_clone()?);
    let mut conn = Connection { stream, peer, shared: shared.clone(), requests: requests.clone(), error_shift: 0 };
    let worker = thread::Builder::new().name(format!("etherbone-{peer}")).spawn(move || {
        let result = conn.serve();
        lock(&conn.shared.conns).remove(&id);
        if let Err(e) = result {
            if !conn.shared.stop.load(Ordering::SeqCst) {
                eprintln!("etherbone: {peer}: connection dropped: {e}");
            }
        }
    });
    let mut workers = lock(&shared.workers);
    workers.retain(|w| !w.is_finished());
    match worker {
        Ok(w) => {
            workers.push(w);
            Ok(())
        }
        Err(e) => {
            lock(&shared.conns).remove(&id);
            Err(e)
        }
    }
}

struct Connection {
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    requests: Sender<BusRequest>,
    /// The Etherbone error shift register of this connection: one bit per
    /// bus access, newest in bit 0, 1 = failed.
    error_shift: u64,
}

impl Connection {
    fn serve(&mut self) -> Result<(), String> {
        let line = self.shared.info.line();
        if !self.send(line.as_bytes(), "the server-information line")? {
            return Ok(());
        }
        let read_half = self.stream.try_clone().map_err(|e| format!("cloning the socket: {e}"))?;
        let mut reader = BufReader::new(read_half);
        loop {
            let first = match read_packet(&mut reader) {
                Ok(Some(p)) => p,
                Ok(None) => return Ok(()),
                Err(StreamError::Io(e))
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
                        && !self.shared.stop.load(Ordering::SeqCst) =>
                {
                    let limit = self.shared.opts.idle_timeout.unwrap_or_default();
                    eprintln!(
                        "etherbone: {}: connection closed: nothing received for {} s (the server's idle limit)",
                        self.peer,
                        limit.as_secs_f64()
                    );
                    let _ = self.stream.shutdown(Shutdown::Both);
                    return Ok(());
                }
                Err(e) => return Err(e.to_string()),
            };
            // Every further packet the client has already sent joins this
            // one: their accesses go to the bus as one request, back to back,
            // as a board's Etherbone core runs a pipelined stream. Served one
            // at a time, each would wait a turn of the simulation loop, and
            // writes sent together (the starts of several sessions) would
            // land hundreds of cycles apart.
            let mut packets = vec![first];
            let mut fault = None;
            while fault.is_none() && packet_ready(reader.buffer()) {
                match read_packet(&mut reader) {
                    Ok(Some(p)) => packets.push(p),
                    Ok(None) => break,
                    Err(e) => fault = Some(e.to_string()),
                }
            }
            let (answer, refused) = self.handle(packets);
            if !answer.is_empty() && !self.send(&answer, "an answer")? {
                return Ok(());
            }
            if let Some(why) = refused.or(fault) {
                return Err(why);
            }
        }
    }

    /// Sends `bytes` whole within the server's write limit. Returns false,
    /// with the connection shut down and a line on stderr, when the client
    /// let them wait that long (it reads nothing: its receive buffer and the
    /// server's send buffer are full).
    fn send(&self, mut bytes: &[u8], what: &str) -> Result<bool, String> {
        let limit = self.shared.opts.write_timeout;
        let deadline = Instant::now() + limit;
        while !bytes.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            let result = if left.is_zero() {
                Err(io::ErrorKind::TimedOut.into())
            } else {
                self.stream.set_write_timeout(Some(left)).and_then(|()| (&self.stream).write(bytes))
            };
            match result {
                Ok(0) => return Err(format!("sending {what}: the connection accepts no more bytes")),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
                        && !self.shared.stop.load(Ordering::SeqCst) =>
                {
                    eprintln!(
                        "etherbone: {}: connection closed: {what} could not be sent within {} s, the client reads nothing (the server's write limit)",
                        self.peer,
                        limit.as_secs_f64()
                    );
                    let _ = self.stream.shutdown(Shutdown::Both);
                    return Ok(false);
                }
                Err(e) => return Err(format!("sending {what}: {e}")),
            }
        }
        Ok(true)
    }

    /// Serves `packets` in order with one bus request for all their
    /// accesses. Returns the answers, one packet per packet that has reads
    /// or is a probe, and why the connection must close, if a packet says
    /// so (then the packets before it are served and answered).
    fn handle(&mut self, packets: Vec<Packet>) -> (Vec<u8>, Option<String>) {
        let mut refused = None;
        let mut planned = Vec::with_capacity(packets.len());
        for packet in packets {
            if !packet.header.probe && packet.header.addr_size != AddrSize::A32 {
                refused = Some(
                    "the packet has 64-bit addresses; this server's bus has 32-bit addresses (LiteX: --addr-width 32)"
                        .into(),
                );
                break;
            }
            planned.push(PlannedPacket {
                probe_id: packet.header.probe.then_some(packet.header.probe_id),
                records: packet.records.into_iter().map(PlannedRecord::new).collect(),
            });
        }
        let accesses: Vec<Access> = planned
            .iter()
            .flat_map(|p| &p.records)
            .filter(|r| r.refused.is_none())
            .flat_map(|r| r.accesses.clone())
            .collect();
        let mut results = self.run_in_map(&accesses).into_iter();

        let mut bytes = Vec::new();
        for packet in planned {
            let answer = match packet.probe_id {
                Some(probe_id) => Packet {
                    header: PacketHeader {
                        probe: false,
                        probe_reply: true,
                        no_reads: true,
                        probe_id,
                        ..PacketHeader::default()
                    },
                    records: Vec::new(),
                },
                None => {
                    let answers: Vec<Record> =
                        packet.records.into_iter().filter_map(|r| self.finish_record(r, &mut results)).collect();
                    if answers.is_empty() {
                        continue;
                    }
                    Packet::new(answers)
                }
            };
            match answer.encode() {
                Ok(b) => bytes.extend(b),
                Err(e) => {
                    refused.get_or_insert(e.to_string());
                    break;
                }
            }
        }
        (bytes, refused)
    }

    /// Takes a record's results from `results` (the batch's, in order),
    /// notes them in the error shift register and returns the answer
    /// record, if it has reads.
    fn finish_record(
        &mut self,
        planned: PlannedRecord,
        results: &mut impl Iterator<Item = Result<u32, String>>,
    ) -> Option<Record> {
        let PlannedRecord { rec, accesses, refused } = planned;
        if rec.flags.wca && !rec.writes.is_empty() {
            eprintln!(
                "etherbone: {}: {} config-space write(s) ignored: the config space is read-only",
                self.peer,
                rec.writes.len()
            );
        }
        let results: Vec<Result<u32, String>> = match refused {
            Some(why) => vec![Err(why); accesses.len()],
            None => accesses.iter().map(|_| results.next().unwrap_or_else(|| Err("no result".into()))).collect(),
        };
        for (access, result) in accesses.iter().zip(&results) {
            self.error_shift = (self.error_shift << 1) | u64::from(result.is_err());
            if let Err(why) = result {
                let n = self.shared.bus_errors.fetch_add(1, Ordering::Relaxed) + 1;
                eprintln!("etherbone: {}: {access} failed: {why} (bus error {n})", self.peer);
            }
        }

        if rec.reads.is_empty() {
            return None;
        }
        let values = if rec.flags.rca {
            rec.reads.iter().map(|&a| self.config_read(a)).collect()
        } else {
            let reads = &results[results.len() - rec.reads.len()..];
            reads.iter().map(|r| *r.as_ref().unwrap_or(&FAILED_READ_VALUE)).collect()
        };
        Some(Record {
            flags: RecordFlags { wca: rec.flags.bca, wff: rec.flags.rff, ..RecordFlags::default() },
            byte_enable: rec.byte_enable,
            write_base: rec.read_base,
            writes: values,
            ..Record::default()
        })
    }

    fn config_read(&self, addr: u64) -> u32 {
        match u32::try_from(addr) {
            Ok(CONFIG_ERROR_HIGH) => (self.error_shift >> 32) as u32,
            Ok(CONFIG_ERROR_LOW) => self.error_shift as u32,
            Ok(CONFIG_BUS_ERROR_COUNT) => self.shared.bus_errors.load(Ordering::Relaxed) as u32,
            _ => 0,
        }
    }

    /// Why the server refuses an access at `addr` itself, if it does: at or
    /// above the register map's span, or past 0xFFFFFFFF (no 32-bit bus has
    /// that address; a burst is never wrapped onto 0x0).
    fn refusal(&self, addr: u64) -> Option<String> {
        let beyond_32_bits = addr > u64::from(u32::MAX);
        match self.shared.opts.register_span {
            Some(span) if addr >= span || beyond_32_bits => {
                Some(format!("outside the register map ({})", ServerOptions::span_text(span)))
            }
            None if beyond_32_bits => {
                Some("past 0xFFFFFFFF, the end of the 32-bit address space (a burst does not wrap)".into())
            }
            _ => None,
        }
    }

    /// Runs the accesses the bus may see and refuses the others, address by
    /// address, without handing them to the bus: a bus that decodes only
    /// the map's address bits would alias them onto a register.
    fn run_in_map(&self, accesses: &[Access]) -> Vec<Result<u32, String>> {
        let mapped: Vec<Op> =
            accesses.iter().filter(|a| self.refusal(a.addr).is_none()).filter_map(Access::op).collect();
        let mut answers = if mapped.is_empty() { Vec::new() } else { self.run(&mapped) }.into_iter();
        accesses
            .iter()
            .map(|a| match self.refusal(a.addr) {
                Some(why) => Err(why),
                None => answers.next().unwrap_or_else(|| Err("no result".into())),
            })
            .collect()
    }

    /// Hands the ops to the simulation and waits, bounded, for the results.
    /// An op that did not complete has the reason as its error.
    fn run(&self, ops: &[Op]) -> Vec<Result<u32, String>> {
        let all = |why: String| vec![Err(why); ops.len()];
        let (tx, rx) = mpsc::channel();
        if self.requests.send(BusRequest { ops: ops.to_vec(), reply: tx }).is_err() {
            return all("the simulation takes no more requests".into());
        }
        let timeout = self.shared.info.reply_timeout;
        let deadline = Instant::now() + timeout;
        loop {
            if self.shared.stop.load(Ordering::SeqCst) {
                return all("the server is stopping".into());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return all(format!("the simulation did not answer within {timeout:?}"));
            }
            match rx.recv_timeout(left.min(POLL)) {
                Ok(results) => {
                    if results.len() != ops.len() {
                        eprintln!(
                            "etherbone: {}: the simulation answered {} results for {} accesses",
                            self.peer,
                            results.len(),
                            ops.len()
                        );
                    }
                    let mut out: Vec<Result<u32, String>> =
                        results.into_iter().take(ops.len()).map(|r| r.map_err(describe)).collect();
                    out.resize(ops.len(), Err("the simulation gave no result".into()));
                    return out;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return all("the simulation dropped the request unanswered".into())
                }
            }
        }
    }
}

/// A packet of a batch, before its accesses run.
struct PlannedPacket {
    /// A probe has no records and is answered with its id.
    probe_id: Option<u32>,
    records: Vec<PlannedRecord>,
}

/// A record's bus accesses, worked out before any of them runs. Writes
/// come first, as in LiteX and the specification.
struct PlannedRecord {
    rec: Record,
    accesses: Vec<Access>,
    /// Why none of them goes to the bus, if none does.
    refused: Option<String>,
}

impl PlannedRecord {
    fn new(rec: Record) -> Self {
        let mut accesses = Vec::with_capacity(rec.writes.len() + rec.reads.len());
        // Config-space writes (`wca`) are ignored, and said so when served.
        if !rec.flags.wca {
            // Addresses in 64 bits: a burst that runs past 0xFFFFFFFF goes
            // out of the address space, it does not wrap onto 0x0 (the map).
            for (i, &value) in rec.writes.iter().enumerate() {
                let step = if rec.flags.wff { 0 } else { 4 * i as u64 };
                accesses.push(Access { addr: rec.write_base.saturating_add(step), write: Some(value) });
            }
        }
        if !rec.flags.rca {
            accesses.extend(rec.reads.iter().map(|&addr| Access { addr, write: None }));
        }
        let refused = (!accesses.is_empty() && rec.byte_enable != BYTE_ENABLE_32)
            .then(|| format!("byte enable {:#04x} refused: only 0x0f (32-bit accesses) is supported", rec.byte_enable));
        PlannedRecord { rec, accesses, refused }
    }
}

/// One access of a record at the address the client gave, which may lie
/// past 0xFFFFFFFF (a write burst from near the top); only those that fit
/// 32 bits become an [`Op`] for the bus.
#[derive(Debug, Clone, Copy)]
struct Access {
    addr: u64,
    /// The value of a write; `None` for a read.
    write: Option<u32>,
}

impl Access {
    fn op(&self) -> Option<Op> {
        let addr = u32::try_from(self.addr).ok()?;
        Some(match self.write {
            Some(value) => Op::Write { addr, value },
            None => Op::Read { addr },
        })
    }
}

impl fmt::Display for Access {
    /// As [`Op`] shows it, with the address's 33rd bit when it has one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.write {
            Some(value) => write!(f, "write {:#010x} <- {value:#010x}", self.addr),
            None => write!(f, "read {:#010x}", self.addr),
        }
    }
}

fn describe(e: BusError) -> String {
    match e {
        BusError::Response { resp, .. } => resp.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_access_past_32_bits_is_named_at_its_own_address() {
        let past = Access { addr: 0x1_0000_0000, write: Some(0x1234_5679) };
        assert_eq!(past.to_string(), "write 0x100000000 <- 0x12345679");
        assert_eq!(past.op(), None, "no 32-bit op for the bus");
        let top = Access { addr: 0xffff_fffc, write: None };
        assert_eq!(top.to_string(), Op::Read { addr: 0xffff_fffc }.to_string());
    }

    #[test]
    fn info_line_is_litex_format() {
        let info = ServerInfo::new("CommUDP", "localhost", 1234).unwrap();
        assert_eq!(info.line(), "CommUDP:localhost:1234");
        assert_eq!(ServerInfo::parse("CommUDP:localhost:1234").unwrap(), info);
        let v6 = ServerInfo::parse("CommVirtualBoard:::1:4000").unwrap();
        assert_eq!((v6.comm(), v6.host(), v6.port()), ("CommVirtualBoard", "::1", 4000));
    }

    #[test]
    fn info_refuses_what_litex_would_misread() {
        let e = ServerInfo::new("CommPCIe", "127.0.0.1", 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "server-information comm \"CommPCIe\" must not contain \"CommPCIe\": LiteX's client would rebase every address"
        );
        let e = ServerInfo::new("Comm:X", "127.0.0.1", 1).unwrap_err();
        assert_eq!(e.to_string(), "server-information comm \"Comm:X\" must be non-empty letters, digits and '_'");
        let e = ServerInfo::new("CommX", &"h".repeat(130), 1).unwrap_err();
        assert_eq!(e.to_string(), "server-information line is 138 bytes; LiteX's client reads at most 128");
        let e = ServerInfo::parse("CommX:1234").unwrap_err();
        assert_eq!(e.to_string(), "server-information line \"CommX:1234\" is not <comm>:<host>:<port>");
    }
}
