//! The TCP engine (`net_model::tcp`) against a scripted peer: hand-built
//! segments in, every segment out read back by an independent parser
//! (explicit RFC 9293 byte positions and its own checksum), exact sequence
//! numbers, windows, cycles and counters. One test binary, one module per
//! behaviour.

mod close;
mod data;
mod islands;
mod open;
mod random;
mod rst;
mod timestamps;
mod window;

use std::net::Ipv4Addr;

use net_model::frame::tcp::{ACK_FLAG, SYN};
use net_model::frames::Ends;
use net_model::tcp::segment::{self, Header, SackBlocks, SynOptions};
use net_model::tcp::{EngineCounter, Request, RxBeat, SessionCounter, SessionStatus, State, TcpConfig};
use net_model::{ArpMode, Mac, NetNode, NodeConfig};

pub const FPGA_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x01];
pub const HOST_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02];
pub const FPGA_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
pub const HOST_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);

/// The engine's timing in the tests: short, distinct numbers so a wrong
/// timer shows as a wrong cycle.
pub const ACK_DELAY: u64 = 500;
pub const RTO: u64 = 1000;
pub const RETRIES: u32 = 3;
pub const TIME_WAIT: u64 = 2000;
pub const TS_TICK: u64 = 100;

/// `sessions` sessions, a 256 KiB buffer (window scale 3), the timings above.
pub fn tcp_cfg(sessions: usize) -> TcpConfig {
    let mut t = TcpConfig::new(sessions);
    t.ack_delay_cycles = ACK_DELAY;
    t.rto_cycles = RTO;
    t.retries = RETRIES;
    t.time_wait_cycles = TIME_WAIT;
    t.timestamp_cycles = TS_TICK;
    t
}

/// What the engine sent, read back by [`parse_out`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub mss: Option<u16>,
    pub ws: Option<u8>,
    pub ts: Option<(u32, u32)>,
    /// SACK permitted (SYNs only).
    pub sack_ok: bool,
    /// The SACK blocks, in the order sent.
    pub sack: Blocks,
    pub payload: usize,
}

/// Up to 4 SACK blocks (left, right) as the option carried them, first
/// first; `Copy`, so an [`Out`] stays one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blocks {
    pub n: usize,
    pub b: [(u32, u32); 4],
}

impl Blocks {
    pub fn list(&self) -> Vec<(u32, u32)> {
        self.b[..self.n].to_vec()
    }
}

/// The blocks of `list`, in its order.
pub fn blocks(list: &[(u32, u32)]) -> Blocks {
    let mut b = Blocks { n: list.len(), ..Blocks::default() };
    b.b[..list.len()].copy_from_slice(list);
    b
}

impl Out {
    /// A pure ACK from port `src` to `dst` (no options but timestamps).
    pub fn ack(src: u16, dst: u16, seq: u32, ack: u32, window: u16, ts: Option<(u32, u32)>) -> Out {
        Out {
            src_port: src,
            dst_port: dst,
            seq,
            ack,
            flags: ACK_FLAG,
            window,
            mss: None,
            ws: None,
            ts,
            sack_ok: false,
            sack: Blocks::default(),
            payload: 0,
        }
    }
}

fn w16(b: &[u8], at: usize) -> u16 {
    (u16::from(b[at]) << 8) | u16::from(b[at + 1])
}

fn w32(b: &[u8], at: usize) -> u32 {
    (u32::from(w16(b, at)) << 16) | u32::from(w16(b, at + 2))
}

/// Ones' complement sum of big-endian words, folded.
fn ones_sum(start: u64, bytes: &[u8]) -> u64 {
    let mut total = start;
    for (i, b) in bytes.iter().enumerate() {
        total += if i % 2 == 0 { u64::from(*b) << 8 } else { u64::from(*b) };
    }
    total
}

fn fold(mut total: u64) -> u16 {
    while total >> 16 != 0 {
        total = (total & 0xffff) + (total >> 16);
    }
    total as u16
}

/// Reads a frame the engine sent, independently of the crate's parser:
/// Ethernet to the host, IPv4 without options (checksum checked), TCP from
/// fpga_ip with a valid checksum over the pseudo-header, options walked.
pub fn parse_out(f: &[u8]) -> Out {
    assert!(f.len() >= 60, "a frame of {} bytes is a runt", f.len());
    assert_eq!((&f[0..6], &f[6..12], w16(f, 12)), (&HOST_MAC[..], &FPGA_MAC[..], 0x0800), "Ethernet header");
    let ip = &f[14..];
    assert_eq!(ip[0], 0x45, "IPv4 without options");
    assert_eq!(fold(ones_sum(0, &ip[..20])), 0xffff, "IPv4 header checksum");
    assert_eq!(
        (ip[9], &ip[12..16], &ip[16..20]),
        (6, &FPGA_IP.octets()[..], &HOST_IP.octets()[..]),
        "TCP, fpga -> host"
    );
    let total = usize::from(w16(ip, 2));
    assert!(total <= ip.len(), "IPv4 total length {total} beyond the frame");
    let t = &ip[20..total];
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&ip[12..20]);
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&(t.len() as u16).to_be_bytes());
    assert_eq!(fold(ones_sum(ones_sum(0, &pseudo), t)), 0xffff, "TCP checksum");
    let header_len = usize::from(t[12] >> 4) * 4;
    assert!((20..=t.len()).contains(&header_len), "TCP data offset");
    let (mut mss, mut ws, mut ts, mut sack_ok, mut sack) = (None, None, None, false, Blocks::default());
    let mut sack_options = 0;
    let mut o = &t[20..header_len];
    while let Some(&kind) = o.first() {
        match kind {
            0 => break,
            1 => o = &o[1..],
            _ => {
                let len = usize::from(o[1]);
                assert!(len >= 2 && len <= o.len(), "option {kind} of length {len}");
                match (kind, len) {
                    (2, 4) => mss = Some(w16(o, 2)),
                    (3, 3) => ws = Some(o[2]),
                    (8, 10) => ts = Some((w32(o, 2), w32(o, 6))),
                    (4, 2) => sack_ok = true,
                    (5, 10 | 18 | 26 | 34) => {
                        sack_options += 1;
                        let n = (len - 2) / 8;
                        sack = blocks(&(0..n).map(|k| (w32(o, 2 + 8 * k), w32(o, 6 + 8 * k))).collect::<Vec<_>>());
                    }
                    _ => panic!("an option the engine never sends: kind {kind}, length {len}"),
                }
                o = &o[len..];
            }
        }
    }
    assert!(sack_options <= 1, "{sack_options} SACK options");
    assert!(header_len <= 60, "more than 40 option bytes");
    Out {
        src_port: w16(t, 0),
        dst_port: w16(t, 2),
        seq: w32(t, 4),
        ack: w32(t, 8),
        flags: t[13],
        window: w16(t, 14),
        mss,
        ws,
        ts,
        sack_ok,
        sack,
        payload: t.len() - header_len,
    }
}

/// The node with a TCP engine, initialised at cycle 0 (fixed-MAC mode, so
/// `init_done` at once), and the cycle the test stands at.
pub struct Tb {
    pub node: NetNode,
    pub now: u64,
}

pub fn node_cfg(tcp: TcpConfig) -> NodeConfig {
    let mut c = NodeConfig::new(FPGA_MAC, FPGA_IP, HOST_IP, ArpMode::FixedMac);
    c.target_mac = HOST_MAC;
    c.tcp = Some(tcp);
    c
}

impl Tb {
    pub fn new(tcp: TcpConfig) -> Tb {
        Tb::with(node_cfg(tcp))
    }

    pub fn with(cfg: NodeConfig) -> Tb {
        let mut node = NetNode::new(cfg).expect("a valid configuration");
        node.init(0);
        assert!(node.init_done());
        Tb { node, now: 0 }
    }

    /// Moves time to `t` (never back).
    pub fn at(&mut self, t: u64) {
        assert!(t >= self.now, "time runs forward: {} -> {t}", self.now);
        self.now = t;
    }

    pub fn advance(&mut self, dt: u64) {
        self.now += dt;
    }

    /// Every frame the node sends at `now`.
    pub fn drain(&mut self) -> Vec<Out> {
        let now = self.now;
        std::iter::from_fn(|| self.node.transmit(now)).take(1000).map(|f| parse_out(&f)).collect()
    }

    /// The host's segment in at `now`; what the node sends at `now` back.
    pub fn send(&mut self, h: &Header, payload: &[u8]) -> Vec<Out> {
        let ends = Ends { src_mac: HOST_MAC, dst_mac: FPGA_MAC, src_ip: HOST_IP, dst_ip: FPGA_IP };
        self.node.receive(&segment::frame(ends, h, payload), false, self.now);
        self.drain()
    }

    /// A connection request at `now`; what the node sends at `now`.
    pub fn request(&mut self, s: usize, req: Request) -> Vec<Out> {
        self.node.tcp_request(s, req, self.now);
        self.drain()
    }

    pub fn status(&self, s: usize) -> SessionStatus {
        self.node.tcp().expect("engine").status(s)
    }

    pub fn state(&self, s: usize) -> State {
        self.status(s).state
    }

    pub fn count(&self, s: usize, c: SessionCounter) -> u64 {
        self.node.tcp().expect("engine").session_count(s, c)
    }

    pub fn engine_count(&self, c: EngineCounter) -> u64 {
        self.node.tcp().expect("engine").count(c)
    }

    pub fn available(&self, s: usize) -> usize {
        self.node.tcp().expect("engine").rx_available(s)
    }

    pub fn read(&mut self, s: usize, max: usize) -> (Vec<u8>, bool) {
        let now = self.now;
        self.node.tcp_mut().expect("engine").read_rx(s, max, now)
    }

    pub fn beat(&mut self, s: usize, bytes: usize) -> Option<RxBeat> {
        let now = self.now;
        self.node.tcp_mut().expect("engine").rx_beat(s, bytes, now)
    }

    /// Every session counter of `s`, in `SessionCounter::ALL` order.
    pub fn counters(&self, s: usize) -> Vec<u64> {
        SessionCounter::ALL.iter().map(|c| self.count(s, *c)).collect()
    }

    /// Asserts that since `before` exactly the counters in `moved` moved, by the amounts given.
    pub fn assert_moved(&self, s: usize, before: &[u64], moved: &[(SessionCounter, u64)]) {
        for (i, c) in SessionCounter::ALL.iter().enumerate() {
            let want: u64 = moved.iter().filter(|(m, _)| m == c).map(|(_, d)| d).sum();
            assert_eq!(self.count(s, *c) - before[i], want, "session {s} counter {c} moved wrongly");
        }
    }
}

pub fn listen(port: u16) -> Request {
    Request::Open { active: false, local_port: port, remote_port: 0 }
}

pub fn connect(local: u16, remote: u16) -> Request {
    Request::Open { active: true, local_port: local, remote_port: remote }
}

/// The options of a host SYN.
#[derive(Clone, Copy, Debug)]
pub struct PeerOpts {
    pub mss: Option<u16>,
    pub ws: Option<u8>,
    /// The SYN's TSval, if it offers timestamps.
    pub ts: Option<u32>,
    /// The SYN permits SACK.
    pub sack: bool,
}

pub const FULL_OPTS: PeerOpts = PeerOpts { mss: Some(1460), ws: Some(7), ts: Some(5000), sack: false };
pub const NO_OPTS: PeerOpts = PeerOpts { mss: None, ws: None, ts: None, sack: false };

/// A host SYN from `peer_port` to `port`: only the options `o` offers.
pub fn host_syn(port: u16, peer_port: u16, seq: u32, o: PeerOpts) -> Header {
    Header {
        src_port: peer_port,
        dst_port: port,
        seq,
        ack: 0,
        flags: SYN,
        window: 64240,
        syn_options: o.mss.map(|mss| SynOptions { mss, window_scale: o.ws, sack_permitted: o.sack }),
        timestamps: o.ts.map(|v| (v, 0)),
        sack: SackBlocks::NONE,
    }
}

/// One established connection from the host's side.
#[derive(Clone, Debug)]
pub struct Link {
    pub s: usize,
    /// The FPGA's port.
    pub port: u16,
    pub peer_port: u16,
    /// The host's initial sequence number.
    pub irs: u32,
    /// The FPGA's initial sequence number.
    pub iss: u32,
    /// Both SYNs carried timestamps: the host sends `tsval` on each segment.
    pub ts: bool,
    pub tsval: u32,
    /// The shift the FPGA's window fields carry (0 unless both SYNs had window scale).
    pub shift: u8,
}

impl Link {
    /// The host's sequence number of stream byte `off` (0 is the first data byte).
    pub fn seq(&self, off: usize) -> u32 {
        self.irs.wrapping_add(1).wrapping_add(off as u32)
    }

    /// The host's segment starting at stream byte `off`, with `flags` and ACK.
    pub fn header(&self, off: usize, flags: u8) -> Header {
        Header {
            src_port: self.peer_port,
            dst_port: self.port,
            seq: self.seq(off),
            ack: self.iss.wrapping_add(1),
            flags: flags | ACK_FLAG,
            window: 65535,
            syn_options: None,
            timestamps: self.ts.then_some((self.tsval, 1)),
            sack: SackBlocks::NONE,
        }
    }

    /// Sends `bytes` as stream bytes from `off` with `flags`; what comes back.
    pub fn data(&self, tb: &mut Tb, off: usize, bytes: &[u8], flags: u8) -> Vec<Out> {
        tb.send(&self.header(off, flags), bytes)
    }

    /// The pure ACK the FPGA must send at `tb.now`: SEQ = ISS + 1, `ack`,
    /// `window` as the field carries it, our TSval with `ts_echo` if timestamps are on.
    pub fn want_ack(&self, tb: &Tb, ack: u32, window: u16, ts_echo: Option<u32>) -> Out {
        let ts = ts_echo.map(|e| ((tb.now / TS_TICK) as u32, e));
        Out::ack(self.port, self.peer_port, self.iss.wrapping_add(1), ack, window, ts)
    }

    /// The most data the host puts in a segment: our MSS (1460) less the
    /// 12 bytes of the timestamps option, when in use, that fill the MTU too.
    pub fn full(&self) -> usize {
        if self.ts {
            1448
        } else {
            1460
        }
    }

    /// The window field for `free` bytes, as the FPGA sends it after the SYNs.
    pub fn field(&self, free: usize) -> u16 {
        (free >> self.shift).min(0xffff) as u16
    }
}

/// A passive open of session `s` on `port` by a host SYN with `o`, the
/// handshake checked on the way: the SYN at `tb.now`, the host's ACK one
/// cycle later, the cycle the test goes on from.
pub fn passive(tb: &mut Tb, s: usize, port: u16, peer_port: u16, irs: u32, o: PeerOpts) -> Link {
    assert_eq!(tb.request(s, listen(port)), vec![]);
    assert_eq!(tb.state(s), State::Listen);
    let out = tb.send(&host_syn(port, peer_port, irs, o), &[]);
    assert_eq!(out.len(), 1, "one SYN-ACK: {out:?}");
    let sa = &out[0];
    assert_eq!(sa.flags, SYN | ACK_FLAG);
    assert_eq!(sa.seq, (tb.now as u32).wrapping_add((s as u32) << 24), "ISN = cycle + session << 24");
    assert_eq!(sa.ack, irs.wrapping_add(1));
    let cfg = tb.node.tcp().expect("engine").config().clone();
    let link = Link {
        s,
        port,
        peer_port,
        irs,
        iss: sa.seq,
        ts: o.ts.is_some(),
        tsval: o.ts.unwrap_or(0),
        shift: if o.ws.is_some() { cfg.window_scale() } else { 0 },
    };
    tb.advance(1);
    let ack = Header { flags: ACK_FLAG, ..link.header(0, 0) };
    assert_eq!(tb.send(&ack, &[]), vec![], "the handshake's ACK is not answered");
    let st = tb.status(s);
    assert_eq!((st.state, st.established, st.peer_port), (State::Established, true, peer_port));
    link
}

/// The default passive link: session 0, port 5001, full options, 256 KiB buffer.
pub fn link(tb: &mut Tb) -> Link {
    tb.at(1000);
    passive(tb, 0, 5001, 40000, 1_000_000, FULL_OPTS)
}

/// A byte stream with no short period: a wrong offset shows in the bytes.
pub fn stream(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i.wrapping_mul(131) ^ (i >> 8).wrapping_mul(29)) as u8).collect()
}

/// Reads everything `s` holds (across push points).
pub fn read_all(tb: &mut Tb, s: usize) -> Vec<u8> {
    let mut got = Vec::new();
    for _ in 0..100_000 {
        let (b, _) = tb.read(s, usize::MAX);
        if b.is_empty() {
            break;
        }
        got.extend(b);
    }
    got
}

pub fn flags_of(outs: &[Out]) -> Vec<u8> {
    outs.iter().map(|o| o.flags).collect()
}
