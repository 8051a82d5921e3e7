//! Test helpers: a small plain-Rust "user logic" that clocks a [`HostToe`]
//! (drive/edge every cycle, poll every `poll_every` cycles) and sends/checks
//! the incremental pattern, plus loopback peers with bounded waits.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use socket_toe::{GlobalOutputs, HostToe, NetConfig, SessionInputs, SessionOutputs};

/// Wall-clock cap of any single wait in these tests.
pub const WALL_LIMIT: Duration = Duration::from_secs(20);

/// A connection request the user logic presents until it is taken.
#[derive(Clone, Copy, Debug)]
pub enum Req {
    /// Active open from `local` to the target's `remote` port.
    Connect { local: u16, remote: u16 },
    /// Passive open on `port`.
    Listen { port: u16 },
    /// Close.
    Close,
}

/// One session of the test user logic.
#[derive(Default)]
pub struct Ul {
    /// Request presented until taken.
    pub req: Option<Req>,
    /// Send pattern bytes `tx_sent .. tx_total` while true.
    pub tx_enable: bool,
    pub tx_total: u64,
    /// Bytes taken by the TOE on TX.
    pub tx_sent: u64,
    /// Present a close request once every TX byte is taken.
    pub close_after_tx: bool,
    pub close_taken: bool,
    /// An explicit TX beat (data, tlast) presented until taken, instead of the pattern.
    pub custom_tx: Option<(Vec<u8>, bool)>,
    /// `rx_tready`.
    pub rx_ready: bool,
    /// Every byte taken on RX.
    pub rx: Vec<u8>,
    /// (length, tlast) of every beat taken on RX.
    pub rx_beats: Vec<(usize, bool)>,
    /// The RX beat presented and not taken at the previous edge.
    rx_hold: Option<(Vec<u8>, bool)>,
    /// Cycles in which tx_tvalid was high and tx_tready low (consecutive).
    pub tx_blocked_run: u64,
    pub tx_blocked_max: u64,
}

/// The clocked test bench.
pub struct Tb {
    pub toe: HostToe,
    pub ul: Vec<Ul>,
    /// The inputs of the last `drive`.
    pub ins: Vec<SessionInputs>,
    outs: Vec<SessionOutputs>,
    tvalid: Vec<bool>,
    /// Present `toe_init` at the next edge.
    pub init_pulse: bool,
    pub poll_every: u64,
    pub cycle: u64,
    /// Every event taken from the TOE so far.
    pub events: Vec<String>,
    /// `init_done` as shown at each drive.
    pub init_done: bool,
    beat: usize,
}

impl Tb {
    pub fn new(sessions: usize, beat: usize, net: NetConfig) -> Self {
        Self {
            toe: HostToe::new(sessions, beat, net).expect("HostToe::new"),
            ul: (0..sessions).map(|_| Ul { rx_ready: true, ..Default::default() }).collect(),
            ins: vec![SessionInputs::default(); sessions],
            outs: vec![SessionOutputs::default(); sessions],
            tvalid: vec![false; sessions],
            init_pulse: false,
            poll_every: 64,
            cycle: 0,
            events: Vec::new(),
            init_done: true,
            beat,
        }
    }

    /// One user-clock cycle.
    pub fn step(&mut self) {
        let beat = self.beat;
        for (s, (u, o)) in self.ul.iter_mut().zip(self.outs.iter_mut()).enumerate() {
            if let Some((d, l)) = &u.custom_tx {
                o.tx_tvalid = true;
                o.tx_data.clone_from(d);
                o.tx_tlast = *l;
            } else if u.tx_enable && u.tx_sent < u.tx_total {
                let len = (beat as u64).min(u.tx_total - u.tx_sent) as usize;
                o.tx_data.resize(len, 0);
                pattern::fill(&mut o.tx_data, u.tx_sent);
                o.tx_tvalid = true;
                o.tx_tlast = u.tx_sent + len as u64 == u.tx_total;
            } else {
                o.tx_tvalid = false;
                o.tx_tlast = false;
                o.tx_data.clear();
            }
            let req = u.req.or_else(|| {
                (u.close_after_tx && !u.close_taken && u.tx_sent == u.tx_total && !o.tx_tvalid).then_some(Req::Close)
            });
            o.conn_req_valid = req.is_some();
            (o.conn_req_open, o.conn_req_active, o.conn_req_local_port, o.conn_req_remote_port) = match req {
                Some(Req::Connect { local, remote }) => (true, true, local, remote),
                Some(Req::Listen { port }) => (true, false, port, 0),
                Some(Req::Close) | None => (false, false, 0, 0),
            };
            o.rx_tready = u.rx_ready;
            self.tvalid[s] = o.tx_tvalid;
        }
        self.init_done = self.toe.init_done();
        let ins = self.toe.drive(&self.tvalid);
        for (d, i) in self.ins.iter_mut().zip(ins) {
            let data = std::mem::take(&mut d.rx_data);
            *d = SessionInputs { rx_data: data, ..*i };
            d.rx_data.clone_from(&i.rx_data);
        }
        let init = std::mem::take(&mut self.init_pulse);
        self.toe.edge(GlobalOutputs { init, ..Default::default() }, &self.outs);
        for (s, (u, (o, i))) in self.ul.iter_mut().zip(self.outs.iter().zip(&self.ins)).enumerate() {
            // A taken request that was not `req` is the automatic close.
            if o.conn_req_valid && i.conn_req_ready && u.req.take().is_none() {
                u.close_taken = true;
            }
            if o.tx_tvalid && i.tx_tready {
                if u.custom_tx.take().is_none() {
                    u.tx_sent += o.tx_data.len() as u64;
                }
                u.tx_blocked_run = 0;
            } else if o.tx_tvalid {
                u.tx_blocked_run += 1;
                u.tx_blocked_max = u.tx_blocked_max.max(u.tx_blocked_run);
            }
            if let Some((d, l)) = u.rx_hold.take() {
                if !i.conn_error {
                    assert!(i.rx_tvalid, "session {s}: rx_tvalid dropped before rx_tready (cycle {})", self.cycle);
                    assert!(
                        d == i.rx_data && l == i.rx_tlast,
                        "session {s}: RX beat changed while waiting (cycle {})",
                        self.cycle
                    );
                }
            }
            if i.rx_tvalid {
                assert!((1..=beat).contains(&i.rx_data.len()), "session {s}: RX beat of {} bytes", i.rx_data.len());
                assert!(i.rx_data.len() == beat || i.rx_tlast, "session {s}: partial RX beat without tlast");
                assert!(!i.peer_closed, "session {s}: rx_tvalid while peer_closed");
                if o.rx_tready {
                    u.rx.extend_from_slice(&i.rx_data);
                    u.rx_beats.push((i.rx_data.len(), i.rx_tlast));
                } else {
                    u.rx_hold = Some((i.rx_data.clone(), i.rx_tlast));
                }
            }
        }
        self.cycle += 1;
        if self.cycle % self.poll_every == 0 {
            self.toe.poll();
            self.events.extend(self.toe.take_events());
        }
    }

    /// Steps until `f` holds; panics after `max_cycles` cycles or [`WALL_LIMIT`].
    pub fn run_until(&mut self, what: &str, max_cycles: u64, mut f: impl FnMut(&Tb) -> bool) {
        let deadline = Instant::now() + WALL_LIMIT;
        for n in 0..max_cycles {
            if f(self) {
                return;
            }
            self.step();
            if n % 1024 == 0 && Instant::now() > deadline {
                panic!("{what}: not reached within {WALL_LIMIT:?} ({n} cycles); events {:#?}", self.all_events());
            }
        }
        if f(self) {
            return;
        }
        panic!("{what}: not reached within {max_cycles} cycles; events {:#?}", self.all_events());
    }

    /// Steps for `d` of wall-clock time.
    pub fn run_for(&mut self, d: Duration) {
        let end = Instant::now() + d;
        while Instant::now() < end {
            for _ in 0..256 {
                self.step();
            }
        }
    }

    /// Steps `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    pub fn all_events(&mut self) -> Vec<String> {
        self.events.extend(self.toe.take_events());
        self.events.clone()
    }

    /// Whether some event contains `needle`.
    pub fn has_event(&mut self, needle: &str) -> bool {
        self.all_events().iter().any(|e| e.contains(needle))
    }

    /// Asserts that session `s` received exactly the first `len` pattern bytes.
    pub fn check_rx(&self, s: usize, len: u64) {
        let rx = &self.ul[s].rx;
        assert_eq!(rx.len() as u64, len, "session {s}: received byte count");
        assert_eq!(pattern::first_mismatch(rx, 0), None, "session {s}: received bytes differ from the pattern");
    }

    /// Session `s` presents an active open from `local` (0: any port) to the
    /// target's `remote` port until it is taken.
    pub fn connect_to(&mut self, s: usize, local: u16, remote: u16) {
        self.ul[s].req = Some(Req::Connect { local, remote });
    }

    pub fn assert_no_violations(&self) {
        assert!(self.toe.violations().is_empty(), "violations: {:#?}", self.toe.violations());
    }
}

/// A loopback net config with short timers for tests.
pub fn net() -> NetConfig {
    NetConfig {
        connect_timeout: Duration::from_millis(500),
        push_timeout: Duration::from_millis(20),
        tx_buffer: 64 << 10,
        rx_buffer: 64 << 10,
        ..Default::default()
    }
}

/// A port that was free a moment ago (the OS handed it out).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A listener on an OS-chosen loopback port.
pub fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let p = l.local_addr().unwrap().port();
    (l, p)
}

/// Accepts one connection within [`WALL_LIMIT`]; the stream gets read/write timeouts.
pub fn accept(l: &TcpListener) -> (TcpStream, SocketAddr) {
    l.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + WALL_LIMIT;
    loop {
        match l.accept() {
            Ok((s, a)) => {
                s.set_nonblocking(false).unwrap();
                s.set_read_timeout(Some(WALL_LIMIT)).unwrap();
                s.set_write_timeout(Some(WALL_LIMIT)).unwrap();
                return (s, a);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(1))
            }
            Err(e) => panic!("peer: no connection within {WALL_LIMIT:?}: {e}"),
        }
    }
}

/// Connects to 127.0.0.1:port, retrying while refused (the TOE listens at its next poll).
pub fn connect(port: u16) -> TcpStream {
    let deadline = Instant::now() + WALL_LIMIT;
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => {
                s.set_read_timeout(Some(WALL_LIMIT)).unwrap();
                s.set_write_timeout(Some(WALL_LIMIT)).unwrap();
                return s;
            }
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                thread::sleep(Duration::from_millis(2))
            }
            Err(e) => panic!("peer: cannot connect to port {port}: {e}"),
        }
    }
}

/// A peer thread that accepts one connection on `l`, sends the first `len`
/// pattern bytes, shuts down its sending side (FIN) and returns what it read
/// until our FIN.
pub fn peer_sends_then_closes(l: TcpListener, len: u64) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let (mut s, _) = accept(&l);
        send_pattern(&mut s, len);
        s.shutdown(Shutdown::Write).unwrap();
        read_all(&mut s)
    })
}

/// Writes the first `len` pattern bytes.
pub fn send_pattern(s: &mut TcpStream, len: u64) {
    send_pattern_range(s, 0, len);
}

/// Writes the pattern bytes of stream offsets `from .. to`.
pub fn send_pattern_range(s: &mut TcpStream, from: u64, to: u64) {
    let mut buf = vec![0u8; 64 << 10];
    let mut off = from;
    while off < to {
        let n = ((to - off) as usize).min(buf.len());
        pattern::fill(&mut buf[..n], off);
        s.write_all(&buf[..n]).expect("peer write");
        off += n as u64;
    }
}

/// Reads until EOF (bounded by the read timeout); returns the bytes.
pub fn read_all(s: &mut TcpStream) -> Vec<u8> {
    let mut v = Vec::new();
    s.read_to_end(&mut v).expect("peer read until EOF");
    v
}

/// Asserts that `got` is exactly the first `len` pattern bytes.
pub fn check_pattern(who: &str, got: &[u8], len: u64) {
    assert_eq!(got.len() as u64, len, "{who}: byte count");
    assert_eq!(pattern::first_mismatch(got, 0), None, "{who}: bytes differ from the pattern");
}

/// Closes `s` with a TCP reset instead of a FIN.
pub fn reset(s: TcpStream) {
    socket2::SockRef::from(&s).set_linger(Some(Duration::ZERO)).expect("linger 0");
    drop(s);
}
