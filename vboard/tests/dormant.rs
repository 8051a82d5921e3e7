//! An idle virtual board stops its clocks: with no session listening,
//! connecting or connected and no register request, the simulation blocks on
//! the register port instead of running cycles (docs/virtual_board.md), and
//! the next request wakes it and is answered.

use std::time::Duration;

use driver::regs;
use etherbone::{Client, RegisterBus};
use vboard::{Options, VirtualBoard};

/// The board's free-running user-clock count, low half first (the read of
/// the low half latches the high half).
fn cycles(client: &mut Client) -> u64 {
    let lo = client.read32(regs::info::CYCLE_COUNT_LO.addr).unwrap();
    let hi = client.read32(regs::info::CYCLE_COUNT_HI.addr).unwrap();
    u64::from(hi) << 32 | u64::from(lo)
}

#[test]
fn an_idle_board_stops_its_clocks_and_a_request_wakes_it() {
    let vb = VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}")).unwrap();
    let mut client = Client::connect(vb.register_addrs()[0], Duration::from_secs(5)).unwrap();
    // Let the loop see its quiet batches and fall asleep.
    std::thread::sleep(Duration::from_millis(500));
    let before = cycles(&mut client);
    std::thread::sleep(Duration::from_secs(1));
    let after = cycles(&mut client);
    // Awake, the loop ran a 64-cycle batch per millisecond at least (tens of
    // thousands a second); dormant, only the accesses themselves and the
    // quiet batches before it sleeps again (64 x 64 cycles) run.
    let ran = after - before;
    eprintln!("{ran} user-clock cycles in one idle second");
    assert!(ran < 12_000, "the idle board ran {ran} cycles in a second: it did not stop its clocks");
    assert!(ran > 0, "the reads themselves take cycles");
    assert_eq!(client.read32(regs::info::ID.addr).unwrap(), regs::ID_MAGIC, "a request wakes the board");
}
