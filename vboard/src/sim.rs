//! The simulation loop: the boards run in batches of user-clock cycles;
//! between batches the loop answers register requests from the Etherbone
//! servers and lets the host-stack TOE move bytes to and from its sockets.
//! When nothing is in flight it sleeps between batches; when nothing can
//! happen at all until software asks (no session listens, connects or holds
//! a connection, the user logic shows the TOE nothing) it stops the clocks
//! and blocks on the register port, so an idle virtual board costs no CPU.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::Duration;

use board_sim::boards::{Board, Rig, ToeSide};
use etherbone::{AxiResp, BusError, BusRequest, Op};
use toe_model::{GlobalOutputs, SessionInputs, SessionOutputs, TwoBoards};

/// User-clock cycles between two looks at the sockets and the register requests.
pub const BATCH_CYCLES: u64 = 64;
/// Quiet batches in a row before the loop starts sleeping.
const QUIET_BATCHES: u32 = 64;
/// The sleep of a quiet batch.
const QUIET_SLEEP: Duration = Duration::from_millis(1);
/// How fast simulated time runs, at most, while the board sleeps between
/// batches (nothing on the sockets, no register request, no connection):
/// one batch per [`QUIET_SLEEP`].
pub const IDLE_CYCLES_PER_S: f64 = BATCH_CYCLES as f64 / 0.001;
/// The longest the loop blocks on the register port while the board is
/// dormant ([`Backend::dormant`]) before it looks at the stop flag again.
const DORMANT_WAIT: Duration = Duration::from_millis(100);
/// User-clock cycles a register access may take before the loop gives up on
/// it (the register file answers in a few dozen; see docs/register_file.md).
pub const BUS_TIMEOUT_CYCLES: u64 = 200_000;

/// A TOE side that may also have a network to serve between batches.
pub trait Backend: ToeSide {
    /// Socket I/O; true if anything moved.
    fn poll(&mut self) -> bool {
        false
    }
    /// Log lines since the last call.
    fn events(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Idle wait of a quiet batch: up to `timeout`, shorter if the network
    /// has something to do.
    fn idle(&mut self, timeout: Duration) {
        std::thread::sleep(timeout);
    }
    /// Nothing can happen on the network side until the user logic asks for
    /// it (no listener, no connection, nothing pending): with the user logic
    /// quiet too, the loop may stop the clocks until a register request.
    fn dormant(&self) -> bool {
        false
    }
}

/// The host-stack TOE behind the one board of a single virtual board.
pub struct HostSide(pub socket_toe::HostToe);

impl ToeSide for HostSide {
    fn drive(&mut self, _b: usize, tx_tvalid: &[bool]) -> &[SessionInputs] {
        self.0.drive(tx_tvalid)
    }
    fn init_done(&self, _b: usize) -> bool {
        self.0.init_done()
    }
    fn edge(&mut self, _b: usize, global: GlobalOutputs, outs: &[SessionOutputs]) {
        self.0.edge(global, outs)
    }
    fn tick(&mut self) {}
    fn quiet(&self) -> bool {
        !self.0.busy()
    }
}

impl Backend for HostSide {
    fn poll(&mut self) -> bool {
        self.0.poll()
    }
    fn events(&mut self) -> Vec<String> {
        self.0.take_events()
    }
    fn idle(&mut self, timeout: Duration) {
        self.0.wait(timeout);
    }
    fn dormant(&self) -> bool {
        self.0.dormant()
    }
}

/// Two boards joined by the link model: no network of their own, and never
/// dormant (the link model keeps its own time).
impl Backend for TwoBoards {}

/// One register request being carried out on a board's bus.
struct InFlight {
    req: BusRequest,
    results: Vec<Result<u32, BusError>>,
    /// Index of the first operation not yet issued.
    next: usize,
    /// (transaction id, operation index) of the group on the bus.
    issued: Vec<(u64, usize)>,
    /// Cycle the group was issued.
    since: u64,
}

/// The register port of one board.
pub struct BusPort {
    rx: Receiver<BusRequest>,
    /// A request taken while the loop waited on the port, served next.
    held: Option<BusRequest>,
    cur: Option<InFlight>,
    /// An access timed out: the bus cannot be trusted any more, every later
    /// request is answered with an error.
    wedged: bool,
}

impl BusPort {
    pub fn new(rx: Receiver<BusRequest>) -> Self {
        BusPort { rx, held: None, cur: None, wedged: false }
    }

    /// The next request: the one taken while waiting, else one from the channel.
    fn next(&mut self) -> Result<BusRequest, TryRecvError> {
        match self.held.take() {
            Some(req) => Ok(req),
            None => self.rx.try_recv(),
        }
    }

    /// Blocks up to `timeout` for a request, holding it for the next
    /// [`service`]. True if one came; a port whose server is gone sleeps
    /// `timeout` and says false.
    fn wait(&mut self, timeout: Duration) -> bool {
        if self.held.is_some() {
            return true;
        }
        match self.rx.recv_timeout(timeout) {
            Ok(req) => {
                self.held = Some(req);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(timeout);
                false
            }
        }
    }
}

/// The error of an access the stuck bus will never answer.
fn stuck(addr: u32) -> BusError {
    BusError::Timeout { what: format!("register access at {addr:#06x} on the simulated bus"), after: Duration::ZERO }
}

/// Issues the next group of operations of the same kind (reads or writes):
/// within a group the bus may overlap them, between groups the order of the
/// request is kept, so a write is on the board before a later read.
fn issue_group(board: &mut Board, f: &mut InFlight, cycle: u64) {
    let ops = f.req.ops();
    let first_is_read = matches!(ops[f.next], Op::Read { .. });
    while f.next < ops.len() && matches!(ops[f.next], Op::Read { .. }) == first_is_read {
        let id = match ops[f.next] {
            Op::Read { addr } => board.bus_read(addr),
            Op::Write { addr, value } => board.bus_write(addr, value),
        };
        f.issued.push((id, f.next));
        f.next += 1;
    }
    f.since = cycle;
}

/// Moves board `b`'s register port one step: takes a new request, collects
/// the answers of the group on the bus, issues the next group, replies when
/// the request is complete. True while a request is in flight.
fn service(port: &mut BusPort, board: &mut Board, cycle: u64, log: &mut dyn FnMut(String)) -> bool {
    if port.cur.is_none() {
        match port.next() {
            Ok(req) if port.wedged || req.ops().is_empty() => {
                let results = req.ops().iter().map(|op| Err(stuck(op.addr()))).collect();
                req.respond(results);
                return false;
            }
            Ok(req) => {
                let n = req.ops().len();
                let mut f = InFlight { req, results: vec![Ok(0); n], next: 0, issued: Vec::new(), since: cycle };
                issue_group(board, &mut f, cycle);
                port.cur = Some(f);
            }
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => return false,
        }
    }
    let f = port.cur.as_mut().expect("a request in flight");
    for c in board.bus_done() {
        if let Some(pos) = f.issued.iter().position(|(id, _)| *id == c.id) {
            let (_, op) = f.issued.swap_remove(pos);
            f.results[op] = if c.resp == 0 {
                Ok(c.data)
            } else {
                let kind = if c.write { "write" } else { "read" };
                log(format!("register {kind} at {:#06x}: AXI error response {}", c.addr, c.resp));
                Err(BusError::Response {
                    addr: c.addr,
                    resp: if c.resp == 3 { AxiResp::DecErr } else { AxiResp::SlvErr },
                })
            };
        }
    }
    if f.issued.is_empty() {
        if f.next < f.req.ops().len() {
            issue_group(board, f, cycle);
        } else {
            let f = port.cur.take().expect("in flight");
            f.req.respond(f.results);
            return false;
        }
    } else if cycle - f.since > BUS_TIMEOUT_CYCLES {
        log(format!(
            "register access did not complete in {BUS_TIMEOUT_CYCLES} user-clock cycles: the bus is stuck, later accesses fail"
        ));
        port.wedged = true;
        let mut f = port.cur.take().expect("in flight");
        let ops: Vec<Op> = f.req.ops().to_vec();
        for (_, op) in f.issued.drain(..) {
            f.results[op] = Err(stuck(ops[op].addr()));
        }
        for (i, r) in f.results.iter_mut().enumerate().skip(f.next) {
            *r = Err(stuck(ops[i].addr()));
        }
        f.req.respond(f.results);
        return false;
    }
    true
}

/// A TOE event with both clocks: simulated time (user-clock cycles at the
/// configured clock, what `elapsed` counts) and the wall-clock seconds since
/// the loop started: `[sim    22035.7 us | wall    9.312 s] session 0: ...`.
pub fn stamped(cycles: u64, user_clock_mhz: f64, wall: Duration, event: &str) -> String {
    let us = cycles as f64 / user_clock_mhz;
    format!("[sim {us:>12.1} us | wall {:>8.3} s] {event}", wall.as_secs_f64())
}

/// Runs `rig` until `stop`: batches of cycles, register requests of board
/// `b` from `ports[b]`, the backend's network between batches, and sleeps
/// while everything is quiet. A single board that is dormant (the backend
/// [`Backend::dormant`], the user logic quiet) stops its clocks: the loop
/// blocks on the register port, and simulated time stands still until a
/// request comes. `log` receives every line to print.
pub fn run<T: Backend>(
    rig: &mut Rig<T>,
    ports: &mut [BusPort],
    stop: &AtomicBool,
    user_clock_mhz: f64,
    log: &mut dyn FnMut(String),
) {
    assert_eq!(ports.len(), rig.boards.len(), "one register port per board");
    let mut quiet_batches = 0u32;
    let started = std::time::Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let mut busy = false;
        for (b, port) in ports.iter_mut().enumerate() {
            let cycle = rig.cycles();
            busy |= service(port, &mut rig.boards[b], cycle, log);
        }
        // The register bus's clock runs only while an access is on it: the
        // board spends most of its time between a console's polls, and its
        // bus clock's edges cost as much to simulate as the user clock's.
        // The boards of a pair share their clocks, so theirs stop together.
        let bus_idle = rig.boards.iter().all(|board| board.bus_outstanding() == 0);
        for board in &mut rig.boards {
            board.gate_bus_clock(bus_idle);
        }
        rig.run(BATCH_CYCLES);
        let moved = rig.toe.poll();
        for e in rig.toe.events() {
            log(stamped(rig.cycles(), user_clock_mhz, started.elapsed(), &e));
        }
        let quiet = !busy && !moved && rig.toe.quiet() && rig.boards.iter().all(Board::quiet);
        quiet_batches = if quiet { quiet_batches.saturating_add(1) } else { 0 };
        if quiet_batches >= QUIET_BATCHES {
            match ports {
                [port] if rig.toe.dormant() => while !stop.load(Ordering::Relaxed) && !port.wait(DORMANT_WAIT) {},
                _ => rig.toe.idle(QUIET_SLEEP),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_line_names_both_time_bases() {
        let line = stamped(5_508_925, 250.0, Duration::from_millis(9312), "session 0: listening on 127.0.0.1:60000");
        assert_eq!(line, "[sim      22035.7 us | wall    9.312 s] session 0: listening on 127.0.0.1:60000");
    }
}
