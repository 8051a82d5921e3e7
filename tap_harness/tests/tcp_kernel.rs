//! The open engine's TCP model (`net_model::tcp`) met by the Linux kernel's
//! TCP stack through the TAP: the demo's `tcpdatatest c t` (the PC sends)
//! into receiving sessions that verify every byte, iperf 2, the faults of
//! netem (loss, reordering, duplication, corruption) drawn by the pump from
//! a printed seed, a slow reader that closes the window, and the open/close
//! edge cases. Each test makes its own private namespace; nothing touches
//! the host's.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use net_model::tcp::{EngineCounter, SessionCounter, State, TcpConfig};
use net_model::{ArpMode, NetNode, NodeConfig};
use tap_harness::pump::Faults;
use tap_harness::{
    in_private_namespace, kernel_counter, run_bounded, Direction, LoggedFrame, PcapWriter, Pump, PumpOptions, Received,
    Receiver, ReceiverOptions, Tap, TapConfig,
};

mod common;

use common::{tcpdatatest, wait_bounded};

const KERNEL_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const FPGA_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const FPGA_MAC: [u8; 6] = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02];
const PORT: u16 = 5001;
/// The longest a transfer of these tests may take.
const TRANSFER_LIMIT: Duration = Duration::from_secs(30);

/// Runs `f` in a fresh namespace; a harness error fails the test with its line.
fn in_ns<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let pcap = pcap_path();
    in_private_namespace(move || {
        PCAP.with(|p| *p.borrow_mut() = Some(pcap));
        f()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

std::thread_local! {
    /// The capture of the test running on this (namespace) thread.
    static PCAP: std::cell::RefCell<Option<std::path::PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// The TAP at MTU `mtu`, the model node with `sessions` TCP sessions behind
/// the pump, its sessions listening as `opts` says.
fn start(sessions: usize, mtu: usize, opts: ReceiverOptions, faults: Faults) -> Pump<Receiver> {
    start_with(sessions, mtu, opts, faults, |_| {})
}

/// Where the calling test's capture goes: `target/tmp/tcp_kernel/<test
/// name>.pcap`, kept for `tcpdump -r` after a failure.
fn pcap_path() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tcp_kernel");
    std::fs::create_dir_all(&dir).expect("the capture folder");
    let name = std::thread::current().name().unwrap_or("test").replace("::", "_");
    dir.join(format!("{name}.pcap"))
}

fn start_with(
    sessions: usize,
    mtu: usize,
    opts: ReceiverOptions,
    faults: Faults,
    tune: impl FnOnce(&mut TcpConfig),
) -> Pump<Receiver> {
    start_in_mode(ArpMode::Server, sessions, mtu, opts, faults, tune)
}

fn start_in_mode(
    mode: ArpMode,
    sessions: usize,
    mtu: usize,
    opts: ReceiverOptions,
    faults: Faults,
    tune: impl FnOnce(&mut TcpConfig),
) -> Pump<Receiver> {
    let tap = Tap::create(&TapConfig { mtu, ..TapConfig::new("tap0", KERNEL_IP) }).unwrap_or_else(|e| panic!("{e}"));
    let mut tcp = TcpConfig::new(sessions);
    tune(&mut tcp);
    let mut cfg = NodeConfig::new(FPGA_MAC, FPGA_IP, KERNEL_IP, mode);
    cfg.mtu = mtu;
    cfg.tx_buffer_bytes = net_model::config::default_tx_buffer_bytes(mtu);
    cfg.tcp = Some(tcp);
    let mut node = NetNode::new(cfg).unwrap_or_else(|e| panic!("{e}"));
    node.init(0);
    let receiver = Receiver::new(node, opts, 0);
    let path = PCAP.with(|p| p.borrow().clone()).expect("started inside in_ns");
    let pcap = Some(PcapWriter::create(&path).unwrap_or_else(|e| panic!("{e}")));
    Pump::start(tap, receiver, PumpOptions { faults, pcap, ..PumpOptions::default() }).unwrap_or_else(|e| panic!("{e}"))
}

/// `tcpdatatest c t 10.0.0.2 5001 <bytes> 1 2 --sessions N`: exit 0 required.
fn send(pump: &Pump<Receiver>, bytes: u64, sessions: usize) {
    let out = run_bounded(
        &tcpdatatest(),
        &[
            "c",
            "t",
            "10.0.0.2",
            &PORT.to_string(),
            &bytes.to_string(),
            "1",
            "2",
            "--sessions",
            &sessions.to_string(),
            "--timeout",
            "60",
            "--quiet",
        ],
        TRANSFER_LIMIT,
    )
    .unwrap_or_else(|e| panic!("{e}; the pump: {:?}", pump.failure()));
    assert!(
        out.status.success(),
        "tcpdatatest failed: {}\n{}{}; the pump: {:?}",
        out.status,
        out.stdout,
        out.stderr,
        pump.failure()
    );
}

/// Waits (bounded) until every session has finished `n` connections.
fn wait_finished(pump: &Pump<Receiver>, sessions: usize, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let done = pump.with_node(|r, _| (0..sessions).all(|s| r.finished(s).len() >= n));
        if done {
            return;
        }
        if let Some(why) = pump.failure() {
            panic!("the pump failed: {why}");
        }
        let states: Vec<_> = pump.with_node(|r, _| (0..sessions).map(|s| r.state(s).name()).collect());
        assert!(Instant::now() < deadline, "sessions did not finish {n} connections in 20 s; states {states:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The one connection of session `s`: whole, verified, closed by the peer.
fn assert_whole(r: &Receiver, s: usize, bytes: u64) {
    let got = r.finished(s);
    assert_eq!(got.len(), 1, "session {s}: one connection, got {got:?}");
    let want = Received { bytes, mismatch: None, peer_closed: true, conn_error: false, bad_beat: false };
    assert_eq!(got[0], want, "session {s}");
    assert_eq!(r.session_count(s, SessionCounter::BytesInOrder), bytes, "session {s}: bytes in order");
}

fn segments_from_node(log: &[LoggedFrame]) -> Vec<(u32, u8, u16)> {
    log.iter()
        .filter(|f| f.direction == Direction::FromNode && f.ethertype() == Some(0x0800) && f.bytes[23] == 6)
        .map(|f| {
            let t = &f.bytes[34..];
            (u32::from_be_bytes([t[8], t[9], t[10], t[11]]), t[13], u16::from_be_bytes([t[14], t[15]]))
        })
        .collect()
}

#[test]
fn tcpdatatest_sends_into_one_session_at_1024_bits_every_byte_verified() {
    let bytes = 32 << 20;
    in_ns(|| {
        let pump = start(1, 1500, ReceiverOptions { beat_bytes: 128, ..ReceiverOptions::default() }, Faults::default());
        send(&pump, bytes, 1);
        wait_finished(&pump, 1, 1);
        let stopped = pump.stop().unwrap_or_else(|e| panic!("{e}"));
        let r = &stopped.node;
        assert_whole(r, 0, bytes);
        for c in [
            SessionCounter::OutOfOrder,
            SessionCounter::Duplicate,
            SessionCounter::OutsideWindow,
            SessionCounter::RstsIn,
        ] {
            assert_eq!(r.session_count(0, c), 0, "{c} on a clean link");
        }
        let tcp = r.node().tcp().expect("engine");
        assert_eq!(tcp.count(EngineCounter::Checksum), 0);
        assert!(matches!(r.state(0), State::Closed | State::TimeWait), "{:?}", r.state(0));
    });
}

#[test]
fn tcpdatatest_sends_into_four_sessions_at_64_bits_at_mtu_9000() {
    let bytes = 4 << 20;
    in_ns(|| {
        let pump = start(4, 9000, ReceiverOptions { beat_bytes: 8, ..ReceiverOptions::default() }, Faults::default());
        send(&pump, bytes, 4);
        wait_finished(&pump, 4, 1);
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        for s in 0..4 {
            assert_whole(&r, s, bytes);
        }
        let mss = r.node().tcp().expect("engine").mss();
        assert_eq!(mss, 8960, "MTU 9000 - 40");
    });
}

#[test]
fn iperf2_sends_into_an_open_ended_session() {
    in_ns(|| {
        let pump = start(1, 1500, ReceiverOptions { verify: false, ..ReceiverOptions::default() }, Faults::default());
        let out = run_bounded("iperf", &["-c", "10.0.0.2", "-p", &PORT.to_string(), "-n", "8M"], TRANSFER_LIMIT)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success(), "iperf: {}{}", out.stdout, out.stderr);
        wait_finished(&pump, 1, 1);
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        let got = &r.finished(0)[0];
        // iperf 2 sends its 8 MiB of data and nothing else (-n counts the payload).
        assert_eq!(got.bytes, 8 << 20, "{got:?}");
        assert!(got.peer_closed && !got.conn_error && !got.bad_beat, "{got:?}");
    });
}

/// One fault setting: the stream arrives whole through it, and the counters
/// and the kernel account for what the fault did.
fn through_faults(
    what: &str,
    faults: impl Fn(u64) -> Faults,
    check: impl Fn(&Receiver, &tap_harness::PumpStats, u64, &[LoggedFrame]) + Send + Sync,
) {
    let seed = seeded_inputs::seed::from_env(&format!("tcp through faults: {what}"));
    let bytes = 4 << 20;
    let faults = faults(seed);
    in_ns(|| {
        let pump = start(1, 1500, ReceiverOptions::default(), faults);
        let retrans_before = kernel_counter("TcpRetransSegs").unwrap_or_else(|e| panic!("{e}"));
        send(&pump, bytes, 1);
        wait_finished(&pump, 1, 1);
        let retrans = kernel_counter("TcpRetransSegs").unwrap_or_else(|e| panic!("{e}")) - retrans_before;
        let stopped = pump.stop().unwrap_or_else(|e| panic!("{e}"));
        assert_whole(&stopped.node, 0, bytes);
        eprintln!(
            "{what}: pump {:?}; kernel retransmitted {retrans}; engine: {}",
            (stopped.stats.lost, stopped.stats.reordered, stopped.stats.duplicated, stopped.stats.corrupted),
            SessionCounter::ALL
                .iter()
                .map(|&c| format!("{c} {}", stopped.node.session_count(0, c)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        check(&stopped.node, &stopped.stats, retrans, &stopped.log);
    });
}

/// Three ACKs from the node in a row with one acknowledgment number, the
/// window unchanged: the duplicate ACKs that start the kernel's fast retransmit.
fn has_duplicate_acks(log: &[LoggedFrame]) -> bool {
    let acks: Vec<_> = segments_from_node(log).into_iter().filter(|&(_, flags, _)| flags == 0x10).collect();
    acks.windows(3).any(|w| w[0] == w[1] && w[1] == w[2])
}

#[test]
fn one_percent_loss_the_stream_arrives_whole_through_fast_retransmit() {
    through_faults(
        "1 % loss",
        |seed| Faults { seed, loss: 0.01, ..Faults::default() },
        |r, st, retrans, log| {
            assert!(st.lost > 0, "the pump lost nothing");
            assert!(r.session_count(0, SessionCounter::OutOfOrder) > 0, "a loss leaves a gap");
            assert!(retrans > 0, "the kernel retransmitted nothing");
            assert!(has_duplicate_acks(log), "no duplicate ACKs from the node");
        },
    );
}

#[test]
fn five_percent_reordering_the_stream_arrives_whole() {
    through_faults(
        "5 % reordering",
        |seed| Faults { seed, reorder: 0.05, ..Faults::default() },
        |r, st, _, _| {
            assert!(st.reordered > 0);
            assert!(r.session_count(0, SessionCounter::OutOfOrder) > 0, "a frame overtaken leaves a gap");
        },
    );
}

#[test]
fn one_percent_duplication_never_delivers_a_byte_twice() {
    through_faults(
        "1 % duplication",
        |seed| Faults { seed, duplicate: 0.01, ..Faults::default() },
        |r, st, _, _| {
            assert!(st.duplicated > 0);
            assert!(r.session_count(0, SessionCounter::Duplicate) > 0, "a duplicate is dropped and counted");
        },
    );
}

#[test]
fn one_percent_corruption_is_caught_by_the_checks() {
    through_faults(
        "1 % corruption",
        |seed| Faults { seed, corrupt: 0.01, ..Faults::default() },
        |r, st, _, _| {
            assert!(st.corrupted > 0);
            let node = r.node();
            let dropped: u64 =
                net_model::DropReason::ALL.iter().map(|&d| node.count(net_model::Counter::Dropped(d))).sum();
            let tcp = node.tcp().expect("engine");
            assert!(tcp.count(EngineCounter::Checksum) + dropped > 0, "a flipped bit is caught somewhere");
        },
    );
}

#[test]
fn all_four_faults_together_the_stream_arrives_whole() {
    through_faults(
        "all four",
        |seed| Faults { seed, loss: 0.01, reorder: 0.05, duplicate: 0.01, corrupt: 0.01 },
        |r, _, retrans, _| {
            assert!(retrans > 0);
            assert!(r.session_count(0, SessionCounter::OutOfOrder) > 0);
        },
    );
}

#[test]
fn a_slow_reader_closes_the_window_and_window_updates_open_it() {
    let bytes = 2 << 20;
    in_ns(|| {
        // 16 KiB of buffer, and a reader that stops for 20 ms after every
        // 64 KiB: the window closes again and again.
        let opts = ReceiverOptions { beat_bytes: 8, pause: Some((64 << 10, 20_000)), ..ReceiverOptions::default() };
        let pump = start_with(1, 1500, opts, Faults::default(), |t| {
            t.rx_buffer_bytes = 16 << 10;
            t.window_update_gap_kb = 4;
        });
        send(&pump, bytes, 1);
        wait_finished(&pump, 1, 1);
        let stopped = pump.stop().unwrap_or_else(|e| panic!("{e}"));
        assert_whole(&stopped.node, 0, bytes);
        assert!(stopped.node.session_count(0, SessionCounter::WindowUpdates) > 0);
        let zero_windows = segments_from_node(&stopped.log).iter().filter(|&&(_, _, w)| w == 0).count();
        assert!(zero_windows > 0, "the window never closed: the reader was not slow enough to test it");
    });
}

/// A plain client socket of the kernel to the node's port.
fn connect() -> std::io::Result<TcpStream> {
    TcpStream::connect_timeout(&SocketAddr::from((FPGA_IP, PORT)), Duration::from_secs(5))
}

#[test]
fn a_second_connection_to_a_busy_port_is_refused_and_a_reset_mid_stream_is_seen() {
    in_ns(|| {
        let opts = ReceiverOptions { same_port: true, ..ReceiverOptions::default() };
        let pump = start(1, 1500, opts, Faults::default());
        let mut first = connect().expect("the first connection");
        first.write_all(&[0; 1000]).expect("write");
        let second = connect();
        assert_eq!(
            second.map(|_| ()).map_err(|e| e.kind()),
            Err(std::io::ErrorKind::ConnectionRefused),
            "one session, one connection: the second gets an RST"
        );
        // SO_LINGER 0: close sends an RST mid-stream.
        let linger = libc::linger { l_onoff: 1, l_linger: 0 };
        use std::os::fd::AsRawFd;
        // SAFETY: a valid socket and a linger struct of the right size.
        let rc = unsafe {
            libc::setsockopt(
                first.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&linger as *const libc::linger).cast(),
                std::mem::size_of::<libc::linger>() as libc::socklen_t,
            )
        };
        assert_eq!(rc, 0, "SO_LINGER");
        drop(first);
        wait_finished(&pump, 1, 1);
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        let got = &r.finished(0)[0];
        assert!(got.conn_error && !got.peer_closed, "{got:?}");
        assert_eq!(r.session_count(0, SessionCounter::RstsIn), 1);
        assert!(r.node().tcp().expect("engine").count(EngineCounter::NoConnection) >= 1, "the refused SYN");
    });
}

#[test]
fn a_thousand_open_close_cycles_leave_no_session_stuck() {
    let cycles = 1000;
    in_ns(|| {
        let opts = ReceiverOptions { same_port: true, reopen: true, ..ReceiverOptions::default() };
        let pump = start_with(2, 1500, opts, Faults::default(), |t| t.time_wait_cycles = 2_500);
        for i in 0..cycles {
            let mut c = connect().unwrap_or_else(|e| panic!("connection {i}: {e}"));
            let data: Vec<u8> = (0..100u64).map(pattern::byte_at).collect();
            c.write_all(&data).expect("write");
            c.shutdown(Shutdown::Write).expect("shutdown");
            let mut rest = Vec::new();
            c.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
            c.read_to_end(&mut rest).unwrap_or_else(|e| panic!("connection {i}: the node's FIN: {e}"));
            assert!(rest.is_empty(), "the node sends no data");
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let total: usize = pump.with_node(|r, _| (0..2).map(|s| r.finished(s).len()).sum());
            if total >= cycles {
                break;
            }
            assert!(Instant::now() < deadline, "{total} of {cycles} connections finished");
            std::thread::sleep(Duration::from_millis(5));
        }
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        for s in 0..2 {
            for (i, got) in r.finished(s).iter().enumerate() {
                let want =
                    Received { bytes: 100, mismatch: None, peer_closed: true, conn_error: false, bad_beat: false };
                assert_eq!(*got, want, "session {s}, connection {i}");
            }
            assert!(matches!(r.state(s), State::Listen | State::SynReceived | State::TimeWait), "{:?}", r.state(s));
        }
    });
}

#[test]
fn the_fpga_closes_first_and_still_takes_the_rest_of_the_stream() {
    let bytes = 4 << 20;
    in_ns(|| {
        let opts = ReceiverOptions { close_after: Some(1 << 20), ..ReceiverOptions::default() };
        // A 50 ms retransmission wait: the kernel's ACK of our FIN comes on
        // the wall clock of the harness, not the link's microseconds.
        let pump = start_with(1, 1500, opts, Faults::default(), |t| {
            t.time_wait_cycles = 2_500_000;
            t.rto_cycles = 12_500_000;
        });
        send(&pump, bytes, 1);
        wait_finished(&pump, 1, 1);
        let stopped = pump.stop().unwrap_or_else(|e| panic!("{e}"));
        assert_whole(&stopped.node, 0, bytes);
        // Our FIN went first, so we end in TIME-WAIT (10 ms here) or past it.
        let fins: Vec<_> = segments_from_node(&stopped.log).into_iter().filter(|&(_, f, _)| f & 0x01 != 0).collect();
        assert_eq!(fins.len(), 1, "one FIN from the node: {fins:?}");
        assert_eq!(stopped.node.session_count(0, SessionCounter::Retransmits), 0);
        assert!(matches!(stopped.node.state(0), State::TimeWait | State::Closed), "{:?}", stopped.node.state(0));
    });
}

/// `tcpdatatest s t 0.0.0.0 6000 <bytes> 1 2` in the background, once it
/// listens (`ss`): the kernel serves one connection and sends it the stream.
// The child is returned to the caller, who waits for it (wait_bounded).
#[allow(clippy::zombie_processes)]
fn kernel_server(bytes: u64) -> std::process::Child {
    let mut child = std::process::Command::new(tcpdatatest())
        .args(["s", "t", "0.0.0.0", "6000", &bytes.to_string(), "1", "2", "--timeout", "30", "--quiet"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tcpdatatest s t starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let listening = run_bounded("ss", &["-ltnH", "sport = :6000"], Duration::from_secs(5))
            .is_ok_and(|out| !out.stdout.trim().is_empty());
        if listening {
            return child;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tcpdatatest s t did not listen on port 6000 within 10 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn an_active_open_connects_to_the_kernel_and_receives_its_stream() {
    let bytes = 2 << 20;
    in_ns(|| {
        let server = kernel_server(bytes);
        // Client mode: the node resolves the kernel's MAC, then connects.
        let opts = ReceiverOptions { active: Some(6000), port: 40000, ..ReceiverOptions::default() };
        let pump = start_in_mode(ArpMode::Client, 1, 1500, opts, Faults::default(), |_| {});
        wait_finished(&pump, 1, 1);
        let out = wait_bounded(server, TRANSFER_LIMIT, "tcpdatatest s t");
        assert!(
            out.status.success(),
            "tcpdatatest s t: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        assert_whole(&r, 0, bytes);
        let status = r.node().tcp().expect("engine").status(0);
        assert_eq!(status.peer_port, 6000);
        assert_eq!(status.peer_mss, 1460, "the kernel's MSS at MTU 1500");
    });
}

#[test]
fn an_active_open_to_a_port_nobody_listens_on_is_refused() {
    in_ns(|| {
        let opts = ReceiverOptions { active: Some(6001), port: 40000, ..ReceiverOptions::default() };
        let pump = start_in_mode(ArpMode::Client, 1, 1500, opts, Faults::default(), |_| {});
        wait_finished(&pump, 1, 1);
        let r = pump.stop().unwrap_or_else(|e| panic!("{e}")).node;
        let want = Received { bytes: 0, mismatch: None, peer_closed: false, conn_error: true, bad_beat: false };
        assert_eq!(r.finished(0), &[want][..]);
        assert_eq!(r.session_count(0, SessionCounter::RstsIn), 1, "the kernel's RST");
        assert_eq!(r.state(0), State::Closed);
    });
}
