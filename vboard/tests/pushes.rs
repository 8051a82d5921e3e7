//! A PC sender that pauses in the middle of its stream for longer than the
//! virtual board's push timeout (`vboard::DEFAULT_PUSH_TIMEOUT`) makes its TOE deliver partial beats
//! there (`docs/toe_interface.md`: a partial beat at every push). The
//! verifier checks each beat at its own offset: the transfer ends `done`
//! with every byte counted and no error, and a wrong byte sent after a
//! pause is found at its offset, with its lane's expected word. (Before,
//! the verifier numbered beat n as bytes n * W/8 on and raised a false
//! `verify` error on such a stream.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use driver::ops;
use driver::regs::session::status::ErrorCause;
use driver::{Mode, SessionTest};
use vboard::pc::{connect, free_port, wait_idle, wait_listening, Remote};
use vboard::{Options, VirtualBoard};

/// Far longer than the board's push timeout (200 us).
const PAUSE: Duration = Duration::from_millis(100);
const SIZE: usize = 300;

/// Session 0 receives `SIZE` bytes as a server; the PC sends them in three
/// pieces of 100 bytes with a pause after each of the first two, byte
/// `corrupt` (if any) flipped. Returns the session's result.
fn receive_in_pieces(bus: &mut Remote, corrupt: Option<usize>) -> ops::SessionResult {
    let port = free_port();
    ops::program(bus, 0, &SessionTest::new(Mode::Receive, SIZE as u64, false)).unwrap();
    ops::ports(bus, 0, port, 1).unwrap();
    ops::start(bus, 0).unwrap();
    assert!(wait_listening(port, Duration::from_secs(10)), "session 0 does not listen on {port}");
    let mut data = vec![0u8; SIZE];
    pattern::fill(&mut data, 0);
    if let Some(at) = corrupt {
        data[at] ^= 0x5a;
    }
    let mut pc = TcpStream::connect(("127.0.0.1", port)).expect("connect to the board");
    pc.set_nodelay(true).unwrap();
    pc.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    for (i, piece) in data.chunks(100).enumerate() {
        if i > 0 {
            std::thread::sleep(PAUSE);
        }
        pc.write_all(piece).unwrap();
    }
    pc.shutdown(std::net::Shutdown::Write).unwrap();
    // The board closes its side once it has taken everything.
    let mut rest = Vec::new();
    let _ = pc.read_to_end(&mut rest);
    assert!(wait_idle(bus, &[0], Duration::from_secs(60)).unwrap(), "session 0 still busy after 60 s");
    ops::result(bus, 0).unwrap()
}

#[test]
fn partial_beats_at_a_senders_pauses_are_verified_at_their_offsets() {
    let vb = VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}"))
        .expect("the virtual board starts");
    let mut bus = connect(vb.register_addrs()[0]).expect("Etherbone");
    ops::init_toe(&mut bus, 16, 0, 200, |_| std::thread::sleep(Duration::from_millis(5))).unwrap();

    let r = receive_in_pieces(&mut bus, None);
    assert!(r.done && !r.error, "a correct stream with pauses: {r:?}");
    assert_eq!((r.rx_bytes, r.err_count), (SIZE as u64, 0), "{r:?}");

    let r = receive_in_pieces(&mut bus, Some(250));
    assert!(r.error && r.error_cause == ErrorCause::Verify.bits(), "a wrong byte after a pause: {r:?}");
    assert_eq!((r.rx_bytes, r.err_count, r.err_offset), (SIZE as u64, 1, 250), "{r:?}");
    // The lane of byte 250 is bytes 248 .. 251: the pattern's word 62.
    assert_eq!(r.err_expected, 62, "{r:?}");
    assert_eq!(r.err_received, 62 ^ (0x5a << 16), "{r:?}");
}
