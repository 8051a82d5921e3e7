//! `vboard --pair`: two simulated boards joined by the 200G link model, each
//! programmed only through its own Etherbone port, run the demo's
//! FPGA-to-FPGA scenario of figure 4-4 (one session, half duplex: board 2
//! sends, board 1 receives and verifies) as a console on the PC would.

use std::time::Duration;

use driver::ops as console;
use testbench::demo;
use vboard::pc::{connect, wait_idle, Remote};
use vboard::{Options, VirtualBoard};

#[test]
fn pair_runs_the_4_4_scenario_over_etherbone_with_every_byte_verified() {
    let vb = VirtualBoard::start(&Options { port: 0, pair: true, ..Options::default() }, |l| eprintln!("vboard: {l}"))
        .expect("the pair starts");
    let addrs = vb.register_addrs().to_vec();
    assert_eq!(addrs.len(), 2, "one register port per board");
    let mut buses: Vec<Remote> = addrs.iter().map(|a| connect(*a).expect("Etherbone")).collect();
    for bus in &mut buses {
        console::check_identity(bus, vb.design.sessions).expect("identity");
    }
    let sc = demo::scenarios().into_iter().find(|s| s.name == "1 session half duplex").expect("the 4-4 scenario");
    for leg in &sc.legs {
        let bus = &mut buses[leg.board];
        console::program(bus, leg.session, &leg.test).unwrap();
        let (fpga, target) = demo::ports(leg.board, leg.session);
        console::ports(bus, leg.session, fpga, target).unwrap();
    }
    // The server (board 0) listens before the client (board 1) connects.
    let mut order: Vec<_> = sc.legs.iter().collect();
    order.sort_by_key(|l| l.test.client);
    for leg in order {
        console::start(&mut buses[leg.board], leg.session).unwrap();
    }
    for leg in &sc.legs {
        assert!(
            wait_idle(&mut buses[leg.board], &[leg.session], Duration::from_secs(120)).unwrap(),
            "board {} session {}",
            leg.board,
            leg.session
        );
    }
    for leg in &sc.legs {
        let r = console::result(&mut buses[leg.board], leg.session).unwrap();
        assert!(r.done && !r.error && r.closed, "board {} session {}: {r:?}", leg.board, leg.session);
        assert_eq!(r.err_count, 0);
        let size = leg.test.transfer_size;
        let (tx, rx) = if leg.test.client { (size, 0) } else { (0, size) };
        assert_eq!((r.tx_bytes, r.rx_bytes), (tx, rx), "board {} session {}", leg.board, leg.session);
        // The link model's 24,751 MB/s, as the console computes it from the registers.
        let mb_s = r.mb_s(size, vb.design.user_clock_khz());
        assert!((mb_s - 24_750.0).abs() / 24_750.0 < 0.01, "board {}: {mb_s:.1} MB/s", leg.board);
    }
}
