//! A seeded random transfer: a stream cut into random segments by a simple
//! retransmitting sender written here (go-back-N from the last ACK on a
//! timer, zero-window probes), through a network that loses, reorders and
//! duplicates in both directions, read by random beats and reads. The bytes
//! read must be the stream exactly, and the connection must close.
//! `TB_SEED=<n>` replays a run.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use net_model::frame::tcp::{ACK_FLAG, FIN, PSH, SYN};
use net_model::frames::Ends;
use net_model::tcp::segment::{self, Header};
use net_model::tcp::{EngineCounter, Request, SessionCounter, State, TcpConfig};
use net_model::NetNode;

use crate::*;

/// One direction of the network: frames in flight with their arrival cycle.
struct Wire {
    loss: f64,
    dup: f64,
    /// Chance that a frame is held back (and so overtaken).
    late: f64,
    flight: Vec<(u64, u64, Vec<u8>)>,
    order: u64,
}

impl Wire {
    fn put(&mut self, rng: &mut ChaCha8Rng, now: u64, frame: Vec<u8>) {
        if rng.gen_bool(self.loss) {
            return;
        }
        let copies = if rng.gen_bool(self.dup) { 2 } else { 1 };
        for _ in 0..copies {
            let extra = if rng.gen_bool(self.late) { rng.gen_range(50..600) } else { 0 };
            self.order += 1;
            self.flight.push((now + rng.gen_range(20..60) + extra, self.order, frame.clone()));
        }
    }

    /// The frames due at `now`, earliest first.
    fn due(&mut self, now: u64) -> Vec<Vec<u8>> {
        self.flight.sort_by_key(|(t, o, _)| (*t, *o));
        let n = self.flight.iter().take_while(|(t, _, _)| *t <= now).count();
        self.flight.drain(..n).map(|(_, _, f)| f).collect()
    }
}

/// The host's side: sends `data` and a FIN, go-back-N.
struct Sender {
    irs: u32,
    iss: u32,
    data: Vec<u8>,
    ts: bool,
    shift: u8,
    /// Stream offsets: acknowledged, next to send (len + 1 once the FIN went), right edge.
    una: usize,
    nxt: usize,
    right: usize,
    last_progress: u64,
    rto: u64,
    /// Our FIN was seen: we acknowledge ISS + 2.
    their_fin: bool,
    segments: u64,
    timeouts: u64,
    probes: u64,
}

impl Sender {
    fn header(&self, now: u64, off: usize, flags: u8) -> Header {
        Header {
            src_port: 40000,
            dst_port: 5001,
            seq: self.irs.wrapping_add(1).wrapping_add(off as u32),
            ack: self.iss.wrapping_add(if self.their_fin { 2 } else { 1 }),
            flags: flags | ACK_FLAG,
            window: 65535,
            syn_options: None,
            timestamps: self.ts.then_some(((now / 7) as u32, 1)),
            sack: SackBlocks::NONE,
        }
    }

    /// Segments to send at `now`.
    fn step(&mut self, rng: &mut ChaCha8Rng, now: u64) -> Vec<(Header, Vec<u8>)> {
        let len = self.data.len();
        let mut out = Vec::new();
        if self.una <= len && now - self.last_progress >= self.rto {
            self.timeouts += 1;
            self.last_progress = now;
            self.nxt = self.una;
            if self.right <= self.una {
                // Zero window: a probe, no data at RCV.NXT - 1.
                self.probes += 1;
                out.push((self.header(now, self.una.wrapping_sub(1), 0), Vec::new()));
                return out;
            }
        }
        while self.nxt < len && self.nxt < self.right {
            let full = if self.ts { 1448 } else { 1460 };
            let n = rng.gen_range(1..=full).min(len - self.nxt).min(self.right - self.nxt);
            let end = self.nxt + n;
            let mut flags = if end == len || rng.gen_bool(0.2) { PSH } else { 0 };
            if end == len && self.right > len && rng.gen_bool(0.5) {
                flags |= FIN;
            }
            out.push((self.header(now, self.nxt, flags), self.data[self.nxt..end].to_vec()));
            self.nxt = if flags & FIN != 0 { len + 1 } else { end };
        }
        if self.nxt == len && self.right > len {
            out.push((self.header(now, len, FIN), Vec::new()));
            self.nxt = len + 1;
        }
        self.segments += out.len() as u64;
        out
    }

    /// A segment from the FPGA. Returns the ACK to send back, if any.
    fn take(&mut self, o: &Out, now: u64) -> Option<Header> {
        assert_eq!(o.flags & !(ACK_FLAG | FIN), 0, "the engine sends only ACKs and a FIN here: {o:?}");
        // SND.NXT: ISS + 1, ISS + 2 once the FPGA's FIN went (its FIN sits at ISS + 1).
        let seq = o.seq.wrapping_sub(self.iss);
        assert!(seq == 1 || (seq == 2 && o.flags & FIN == 0), "seq ISS + {seq}: {o:?}");
        let a = o.ack.wrapping_sub(self.irs.wrapping_add(1)) as usize;
        assert!(a <= self.data.len() + 1, "ACK of {a} beyond what was sent");
        if a > self.una {
            self.una = a;
            self.last_progress = now;
        }
        if a >= self.una {
            self.right = a + (usize::from(o.window) << self.shift);
        }
        if o.flags & FIN != 0 {
            self.their_fin = true;
            return Some(self.header(now, self.data.len() + 1, 0));
        }
        None
    }
}

struct Run {
    len: usize,
    buffer: usize,
    gap_kb: u32,
    ws: bool,
    ts: bool,
    /// The host's SYN permits SACK (the engine then reports its islands).
    sack: bool,
    /// `TcpConfig::islands`, 1 ..= 8.
    islands: usize,
    irs: u32,
    beat: usize,
    loss: f64,
    dup: f64,
    late: f64,
    /// Chance per step that the reader stops for 1000 .. 20000 cycles.
    stall: f64,
}

/// What a run saw, summed over the runs to show they covered the cases.
#[derive(Default, Debug)]
struct Seen {
    probes: u64,
    out_of_order: u64,
    joined: u64,
    duplicate: u64,
    window_updates: u64,
    /// The most SACK blocks one ACK carried.
    most_blocks: usize,
}

fn transfer(rng: &mut ChaCha8Rng, r: &Run, seen: &mut Seen) {
    let what = format!(
        "{} bytes, buffer {}, gap {} KiB, ws {}, ts {}, sack {}, islands {}, irs {:#x}, beat {}, loss {:.2} dup {:.2} late {:.2} stall {}",
        r.len, r.buffer, r.gap_kb, r.ws, r.ts, r.sack, r.islands, r.irs, r.beat, r.loss, r.dup, r.late, r.stall
    );
    let mut cfg = TcpConfig::new(2);
    cfg.rx_buffer_bytes = r.buffer;
    cfg.window_update_gap_kb = r.gap_kb;
    cfg.ack_delay_cycles = 300;
    cfg.rto_cycles = 2000;
    cfg.retries = 12;
    cfg.time_wait_cycles = 1000;
    cfg.timestamp_cycles = 50;
    cfg.islands = r.islands;
    let shift = if r.ws { cfg.window_scale() } else { 0 };
    let mut node = NetNode::new(node_cfg(cfg)).expect("config");
    node.init(0);
    let ends = Ends { src_mac: HOST_MAC, dst_mac: FPGA_MAC, src_ip: HOST_IP, dst_ip: FPGA_IP };
    let data: Vec<u8> = (0..r.len).map(|_| rng.gen()).collect();

    // The handshake, on session 1 (session 0 listens elsewhere), without loss.
    node.tcp_request(0, listen(6000), 1);
    node.tcp_request(1, listen(5001), 1);
    let opts = PeerOpts { mss: Some(1460), ws: r.ws.then_some(5), ts: r.ts.then_some(1), sack: r.sack };
    node.receive(&segment::frame(ends, &host_syn(5001, 40000, r.irs, opts), &[]), false, 10);
    let syn_ack = parse_out(&node.transmit(10).expect("a SYN-ACK"));
    assert_eq!(syn_ack.flags, SYN | ACK_FLAG, "{what}");
    let mut snd = Sender {
        irs: r.irs,
        iss: syn_ack.seq,
        data: data.clone(),
        ts: r.ts,
        shift: 0,
        una: 0,
        nxt: 0,
        right: usize::from(syn_ack.window),
        last_progress: 20,
        rto: 1500,
        their_fin: false,
        segments: 0,
        timeouts: 0,
        probes: 0,
    };
    node.receive(&segment::frame(ends, &snd.header(20, 0, 0), &[]), false, 20);
    assert!(node.tcp().expect("engine").status(1).established, "{what}");
    snd.shift = shift;

    let mut to_node = Wire { loss: r.loss, dup: r.dup, late: r.late, flight: Vec::new(), order: 0 };
    let mut to_host = Wire { loss: r.loss, dup: r.dup, late: r.late, flight: Vec::new(), order: 0 };
    let mut got = Vec::new();
    let mut now = 20;
    let mut closing = false;
    let mut stalled_until = 0;
    for _ in 0..2_000_000 {
        now += rng.gen_range(1..=20);
        for f in to_node.due(now) {
            // Once closed, what is still in flight would meet no connection.
            if !(closing && node.tcp().expect("engine").status(1).state == State::Closed) {
                node.receive(&f, false, now);
            }
        }
        while let Some(f) = node.transmit(now) {
            to_host.put(rng, now, f);
        }
        for f in to_host.due(now) {
            let o = parse_out(&f);
            assert_eq!((o.src_port, o.dst_port), (5001, 40000), "{what}");
            // The blocks: no more than the islands, 3 beside timestamps, else 4;
            // each above the ACK, none overlapping or touching another.
            let blocks = o.sack.list();
            assert!(r.sack || blocks.is_empty(), "{what}: SACK not permitted: {o:?}");
            assert!(blocks.len() <= r.islands.min(if r.ts { 3 } else { 4 }), "{what}: {o:?}");
            for (k, &(left, right)) in blocks.iter().enumerate() {
                let (l, rt) = (left.wrapping_sub(o.ack) as i32, right.wrapping_sub(o.ack) as i32);
                assert!(0 < l && l < rt, "{what}: block {k} not above the ACK: {o:?}");
                for &(l2, r2) in &blocks[..k] {
                    assert!(lt32(right, l2) || lt32(r2, left), "{what}: blocks overlap or touch: {o:?}");
                }
            }
            seen.most_blocks = seen.most_blocks.max(blocks.len());
            if let Some(ack) = snd.take(&o, now) {
                to_node.put(rng, now, segment::frame(ends, &ack, &[]));
            }
        }
        for (h, p) in snd.step(rng, now) {
            to_node.put(rng, now, segment::frame(ends, &h, &p));
        }
        // The reader: sometimes stalls for a while (so the window closes), else reads.
        let tcp = node.tcp_mut().expect("engine");
        if now >= stalled_until {
            if rng.gen_bool(r.stall) {
                stalled_until = now + rng.gen_range(1000..20_000);
            } else if rng.gen_bool(0.7) {
                for _ in 0..rng.gen_range(1..8) {
                    match tcp.rx_beat(1, r.beat, now) {
                        Some(b) => {
                            assert!(b.data.len() == r.beat || b.last, "{what}: a partial beat without last");
                            got.extend(b.data);
                        }
                        None => break,
                    }
                }
            } else {
                got.extend(tcp.read_rx(1, rng.gen_range(1..3000), now).0);
            }
        }
        let st = tcp.status(1);
        assert!(!st.conn_error, "{what}: conn_error at {now}");
        if st.peer_closed && !closing {
            closing = true;
            node.tcp_request(1, Request::Close, now);
        }
        if closing && st.state == State::Closed {
            break;
        }
    }
    let tcp = node.tcp().expect("engine");
    let st = tcp.status(1);
    assert_eq!(got.len(), data.len(), "{what}: bytes read");
    assert!(got == data, "{what}: the bytes read differ from the stream");
    assert_eq!(
        (st.state, st.established, st.peer_closed, st.conn_error),
        (State::Closed, false, true, false),
        "{what}"
    );
    assert_eq!(tcp.session_count(1, SessionCounter::BytesInOrder), r.len as u64, "{what}");
    assert_eq!(tcp.status(0).state, State::Listen, "{what}");
    for c in net_model::Counter::ALL {
        if let net_model::Counter::Dropped(_) = c {
            assert_eq!(node.count(c), 0, "{what}: node counter {c}");
        }
    }
    for c in EngineCounter::ALL {
        assert_eq!(tcp.count(c), 0, "{what}: engine counter {}", c.name());
    }
    let count = |c| tcp.session_count(1, c);
    seen.probes += snd.probes;
    seen.out_of_order += count(SessionCounter::OutOfOrder);
    seen.joined += count(SessionCounter::OutOfOrder) - count(SessionCounter::OutOfOrderDropped);
    seen.duplicate += count(SessionCounter::Duplicate);
    seen.window_updates += count(SessionCounter::WindowUpdates);
    eprintln!(
        "{what}: {} segments, {} time-outs, {} probes, {} out of order ({} dropped), {} duplicate, {} outside, {} window updates",
        snd.segments,
        snd.timeouts,
        snd.probes,
        tcp.session_count(1, SessionCounter::OutOfOrder),
        tcp.session_count(1, SessionCounter::OutOfOrderDropped),
        tcp.session_count(1, SessionCounter::Duplicate),
        tcp.session_count(1, SessionCounter::OutsideWindow),
        tcp.session_count(1, SessionCounter::WindowUpdates),
    );
}

/// `a < b` in sequence space.
fn lt32(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[test]
fn random_streams_through_a_lossy_network_arrive_exactly() {
    let mut rng = seeded_inputs::seed::rng("tcp random transfer");
    let mut seen = Seen::default();
    for i in 0..40 {
        let buffer = [4096, 8192, 16 * 1024, 64 * 1024, 256 * 1024][rng.gen_range(0..5)];
        let run = Run {
            len: if i == 0 { 0 } else { rng.gen_range(1..150_000) },
            buffer,
            gap_kb: [0, 1, 2, 8][rng.gen_range(0..4)],
            ws: rng.gen_bool(0.5),
            ts: rng.gen_bool(0.5),
            sack: rng.gen_bool(0.5),
            irs: if rng.gen_bool(0.3) { u32::MAX - rng.gen_range(0..100_000) } else { rng.gen() },
            beat: [8, 16, 32, 64, 128][rng.gen_range(0..5)],
            loss: rng.gen_range(0.0..0.15),
            dup: rng.gen_range(0.0..0.1),
            late: rng.gen_range(0.0..0.2),
            // Every fourth run a slow reader, so the window closes.
            stall: if i % 4 == 1 { 0.02 } else { 0.002 },
            islands: rng.gen_range(1..=8),
        };
        transfer(&mut rng, &run, &mut seen);
    }
    eprintln!("over all runs: {seen:?}");
    assert!(seen.probes > 0 && seen.joined > 0 && seen.duplicate > 0 && seen.window_updates > 0, "{seen:?}");
    assert!(seen.most_blocks >= 3, "several islands reported at once: {seen:?}");
}
