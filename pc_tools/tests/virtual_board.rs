//! The PC tools against the virtual board: the verilated product top with
//! its TOE on this host's TCP stack (loopback), programmed only through its
//! registers over Etherbone, as the demo's first environment (reference
//! section 3). Every byte is accounted for three times: the board's
//! counters and first-error record, the tool's report, and the size asked.

use std::time::{Duration, Instant};

use driver::ops as console;
use driver::regs;
use driver::regs::session::status::ErrorCause;
use driver::Mode;
use etherbone::RegisterBus;
use vboard::pc::{connect, free_port, run_legs, wait_listening, Leg, Remote, ToolProcess, Tools};
use vboard::{Options, VirtualBoard};

const LIMIT: Duration = Duration::from_secs(120);

fn tools() -> Tools {
    Tools {
        tcpdatatest: env!("CARGO_BIN_EXE_tcpdatatest").into(),
        txrx: env!("CARGO_BIN_EXE_tcp_client_txrx_single").into(),
    }
}

/// A default virtual board on a free Etherbone port, and a register client.
fn board() -> (VirtualBoard, Remote) {
    board_with(Options { port: 0, ..Options::default() })
}

fn board_with(opts: Options) -> (VirtualBoard, Remote) {
    let vb = VirtualBoard::start(&opts, |l| eprintln!("vboard: {l}")).expect("the virtual board starts");
    let mut bus = connect(vb.register_addrs()[0]).expect("Etherbone connect");
    let sessions = vb.design.sessions;
    console::check_identity(&mut bus, sessions).expect("the board's identity");
    (vb, bus)
}

fn start_fpga(bus: &mut Remote, leg: &Leg) {
    vboard::pc::start_fpga(bus, leg).expect("the session starts");
}

fn wait_idle(bus: &mut Remote, sessions: &[usize], limit: Duration) -> bool {
    vboard::pc::wait_idle(bus, sessions, limit).expect("register access")
}

fn leg(session: usize, mode: Mode, size: u64, fpga_client: bool) -> Leg {
    Leg { session, mode, size, fpga_client, incremental: true, fpga_port: free_port(), pc_port: free_port() }
}

/// Runs `legs` and requires every byte accounted for.
fn run_clean(bus: &mut Remote, legs: &[Leg]) {
    let out = run_legs(bus, &tools(), legs, LIMIT).expect("the legs run");
    for o in &out {
        eprintln!("session {}: {:?} board {:?}", o.leg.session, o.leg.mode, o.fpga);
        o.check().unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn send_test_fpga_to_tcpdatatest() {
    let (_vb, mut bus) = board();
    // Not a multiple of the 128-byte beat: the last beat is partial.
    run_clean(&mut bus, &[leg(0, Mode::Send, 1_000_003, false)]);
}

#[test]
fn receive_test_tcpdatatest_to_fpga() {
    let (_vb, mut bus) = board();
    run_clean(&mut bus, &[leg(0, Mode::Receive, 1_048_573, false)]);
}

/// Tests in a row on one session, as a person at the console runs them:
/// each reports only its own bytes.
#[test]
fn tests_in_a_row_on_one_session_report_only_their_own_bytes() {
    let (_vb, mut bus) = board();
    run_clean(&mut bus, &[leg(0, Mode::Send, 300_000, false)]);
    run_clean(&mut bus, &[leg(0, Mode::Receive, 200_000, false)]);
    run_clean(&mut bus, &[leg(0, Mode::FullDuplex, 100_000, true)]);
    run_clean(&mut bus, &[leg(0, Mode::Send, 50_000, false)]);
}

#[test]
fn fpga_as_client_against_tcpdatatest_servers() {
    let (_vb, mut bus) = board();
    run_clean(&mut bus, &[leg(0, Mode::Send, 300_001, true), leg(1, Mode::Receive, 299_999, true)]);
}

#[test]
fn mixed_two_sessions_send_two_receive() {
    let (_vb, mut bus) = board();
    let legs = [
        leg(0, Mode::Send, 777_777, false),
        leg(1, Mode::Send, 1 << 20, false),
        leg(2, Mode::Receive, 777_779, false),
        leg(3, Mode::Receive, (1 << 20) + 5, false),
    ];
    run_clean(&mut bus, &legs);
}

/// `tcp_client_txrx_single` half-closes its sending side as soon as it has
/// sent everything; the FPGA server must still finish its own transmission.
#[test]
fn full_duplex_four_sessions_fpga_server_with_half_closing_clients() {
    let (_vb, mut bus) = board();
    let legs: Vec<Leg> = (0..4).map(|s| leg(s, Mode::FullDuplex, 500_000 + 3 * s as u64, false)).collect();
    run_clean(&mut bus, &legs);
}

#[test]
fn full_duplex_fpga_client_with_tool_server() {
    let (_vb, mut bus) = board();
    run_clean(&mut bus, &[leg(0, Mode::FullDuplex, 654_321, true)]);
}

#[test]
fn dummy_data_without_verification() {
    let (_vb, mut bus) = board();
    let mut legs = [leg(0, Mode::Send, 400_000, false), leg(1, Mode::Receive, 400_001, false)];
    for l in &mut legs {
        l.incremental = false;
    }
    run_clean(&mut bus, &legs);
}

/// A PC peer that sends the pattern with one byte flipped: the board's
/// first-error record names the byte's offset and the word it sits in.
#[test]
fn a_wrong_byte_from_the_pc_is_recorded_with_its_word() {
    let (_vb, mut bus) = board();
    let size = 200_000u64;
    let offset = 123_457u64;
    let l = leg(0, Mode::Receive, size, false);
    start_fpga(&mut bus, &l);
    assert!(wait_listening(l.fpga_port, Duration::from_secs(10)));
    // The tool itself sends the one wrong byte: its lowest bit flipped.
    let mut cmd = l.command(&tools(), 60);
    cmd.args(["--corrupt", &offset.to_string()]);
    let tool = ToolProcess::spawn(cmd, false).expect("tool").finish(LIMIT);
    assert!(tool.ok(), "the sender does not see the receiver's verification: {}", tool.stderr);
    assert_eq!(tool.json["corrupt"].as_u64(), Some(offset));
    assert!(wait_idle(&mut bus, &[0], LIMIT), "the session must end");
    let r = console::result(&mut bus, 0).unwrap();
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(r.error_cause, ErrorCause::Verify.bits());
    assert_eq!(r.rx_bytes, size, "a verification error does not stop the transfer");
    assert_eq!((r.err_count, r.err_offset), (1, offset));
    let expected = pattern::word_at(offset / 4);
    assert_eq!(r.err_expected, expected);
    assert_eq!(r.err_received, expected ^ (1 << (8 * (offset % 4))));
}

#[test]
fn the_pc_closing_early_is_peer_closed_with_the_bytes_received() {
    let (_vb, mut bus) = board();
    let expected = 600_000u64;
    let sent = 250_001u64;
    let l = leg(0, Mode::Receive, expected, false);
    start_fpga(&mut bus, &l);
    assert!(wait_listening(l.fpga_port, Duration::from_secs(10)));
    let mut short = l;
    short.size = sent;
    let tool = ToolProcess::spawn(short.command(&tools(), 60), false).expect("tool").finish(LIMIT);
    assert!(tool.ok(), "the tool sent its bytes: {}", tool.stderr);
    assert!(wait_idle(&mut bus, &[0], LIMIT));
    let r = console::result(&mut bus, 0).unwrap();
    assert!(r.error, "{r:?}");
    assert_eq!(r.error_cause, ErrorCause::PeerClosed.bits());
    assert_eq!((r.rx_bytes, r.err_offset), (sent, sent));
}

#[test]
fn nobody_listening_is_refused() {
    let (_vb, mut bus) = board();
    // The PC port is free: nobody listens there.
    start_fpga(&mut bus, &leg(0, Mode::Send, 10_000, true));
    assert!(wait_idle(&mut bus, &[0], LIMIT));
    let r = console::result(&mut bus, 0).unwrap();
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(r.error_cause, ErrorCause::Refused.bits());
    assert_eq!((r.tx_bytes, r.elapsed), (0, 0));
}

/// The tool is killed in the middle of receiving what the board sends: the
/// board reports an error (its peer reset, `conn_reset`, or closed; never
/// `refused`, which is a failed open) and never hangs;
/// `abort` brings a session that has not noticed back to idle; then the
/// same session runs a clean test.
#[test]
fn a_killed_tool_ends_in_an_error_and_the_session_runs_again() {
    let (_vb, mut bus) = board();
    let l = leg(0, Mode::Send, 1 << 40, false);
    start_fpga(&mut bus, &l);
    assert!(wait_listening(l.fpga_port, Duration::from_secs(10)));
    let tool = ToolProcess::spawn(l.command(&tools(), 60), false).expect("tool");
    let r = regs::session(0).unwrap();
    let deadline = Instant::now() + LIMIT;
    while console::read_wide(&mut bus, r.tx_bytes()).unwrap() < 2_000_000 {
        assert!(Instant::now() < deadline, "the transfer did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    tool.kill();
    let ended = wait_idle(&mut bus, &[0], Duration::from_secs(20));
    if !ended {
        console::abort(&mut bus, 0).unwrap();
        assert!(wait_idle(&mut bus, &[0], Duration::from_secs(5)), "abort must bring the session back to idle");
    }
    let res = console::result(&mut bus, 0).unwrap();
    assert!(res.error && !res.done, "{res:?}");
    let cause = res.error_cause;
    assert!(
        [ErrorCause::ConnReset.bits(), ErrorCause::PeerClosed.bits(), ErrorCause::Aborted.bits()].contains(&cause),
        "cause {cause}: {res:?}"
    );
    run_clean(&mut bus, &[leg(0, Mode::Send, 100_000, false)]);
}

/// A configuration that is not built in is verilated on first use into the
/// cache (keyed by its hash) and then runs the demo like the default.
#[test]
fn a_users_configuration_is_verilated_into_the_cache_and_runs() {
    let dir = tempfile_dir("vboard-config");
    let text = config::Variant::default().sessions(1).data_width(128).to_toml();
    let path = dir.join("one_session_128.toml");
    std::fs::write(&path, text).unwrap();
    let (vb, mut bus) = board_with(Options { port: 0, config: Some(path), ..Options::default() });
    assert_eq!(vb.design.sessions, 1);
    assert_eq!(regs::info::data_width::BITS.get(bus.read32(regs::info::DATA_WIDTH.addr).unwrap()), 128);
    run_clean(&mut bus, &[leg(0, Mode::FullDuplex, 100_003, false)]);
}

fn tempfile_dir(what: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
