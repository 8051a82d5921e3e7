//! Two boards joined through the TOE/link model, programmed through their
//! registers as the demo's console would (`testbench::boards`).

use testbench::boards::{Mode, SessionTest, TwoBoardSim};
use testbench::seed;

#[test]
fn one_session_half_duplex_smoke() {
    let seed = seed::from_env("one_session_half_duplex_smoke");
    let mut sim = TwoBoardSim::standard(seed);
    let size = 1 << 20;
    // Board 0 receives (server), board 1 sends (client), as in figure 4-4.
    sim.program(0, 0, &SessionTest::new(Mode::Receive, size, false));
    sim.program(1, 0, &SessionTest::new(Mode::Send, size, true));
    let (p0, p1) = (60000, 61000);
    sim.ports(0, 0, p0, p1);
    sim.ports(1, 0, p1, p0);
    sim.start(0, 0);
    sim.start(1, 0);
    assert!(sim.wait_idle(&[(0, 0), (1, 0)], 2_000, 200_000), "transfer did not finish");
    let khz = sim.user_clock_khz(0);
    let rx = sim.result(0, 0);
    let tx = sim.result(1, 0);
    println!("rx {rx:?}\ntx {tx:?}\nrx {:.1} MB/s tx {:.1} MB/s", rx.mb_s(rx.rx_bytes, khz), tx.mb_s(tx.tx_bytes, khz));
    assert!(rx.done && !rx.error, "{rx:?}");
    assert!(tx.done && !tx.error, "{tx:?}");
    assert_eq!(rx.rx_bytes, size);
    assert_eq!(tx.tx_bytes, size);
    assert!(sim.toe.violations().is_empty(), "{:?}", sim.toe.violations());
}
