//! Two verilated user-logic tops ("board 1" and "board 2" of the reference
//! demo, indices 0 and 1 here) joined through the Rust TOE and link model
//! (`toe_model`), each programmed through its own AXI4-Lite register bus the
//! way the demo's console would.
//!
//! ```text
//!  Console(0) --AXI4-Lite--> top1024 #0 --toe<s>_*--+                +--toe<s>_*-- top1024 #1 <--AXI4-Lite-- Console(1)
//!                                                   +-- TwoBoards ---+
//!                                                      (TOE x2, link)
//! ```
//!
//! Time: both boards run the same two clocks (user 4 ns = 250 MHz, register
//! bus 10.3 ns, unrelated to it), so one event sequence drives both. At every
//! user-clock edge the model first drives both boards' TOE inputs, both
//! boards settle, then the model sees the handshakes of that edge.
//!
//! Everything a test learns about a transfer it reads from the registers
//! (`tx_bytes`, `rx_bytes`, `elapsed`, `status`, the first-error record),
//! as the console would; the model only moves bytes.

//!
//! The same board glue serves any TOE that implements [`ToeSide`]: the
//! two-board link model here, and the host-TCP-stack TOE of the virtual
//! board (`vboard`), which drives one [`Board`] through [`Rig`].

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use toe_model::{GlobalOutputs, LinkConfig, SessionInputs, SessionOutputs, ToeConfig, TwoBoards};

use crate::axil::{Checker, Completion, Master, Timing, OKAY, SLVERR};
use crate::clocks::{Edges, TwoClocks};
use crate::verilated::{Model, Port, Top};
use config::ports::Group;
use driver::{ops, regs};
use etherbone::{AxiResp, BusError, RegisterBus};

/// User clock period (250 MHz), ps.
pub const USER_PS: u64 = 4_000;
/// Register-bus clock period, ps: unrelated to the user clock.
pub const BUS_PS: u64 = 10_300;

/// The TOE session interface ports of one session (`Group::ToeSession(s)`).
struct ToePorts {
    req_valid: Port,
    req_ready: Port,
    req_open: Port,
    req_active: Port,
    req_local: Port,
    req_remote: Port,
    established: Port,
    peer_closed: Port,
    conn_error: Port,
    peer_port: Port,
    peer_mss: Port,
    peer_ws: Port,
    tx_tdata: Port,
    tx_tkeep: Port,
    tx_tlast: Port,
    tx_tvalid: Port,
    tx_tready: Port,
    rx_tdata: Port,
    rx_tkeep: Port,
    rx_tlast: Port,
    rx_tvalid: Port,
    rx_tready: Port,
}

impl ToePorts {
    fn resolve(top: &Top, m: &Model, s: usize) -> Self {
        let p = |n: &str| top.port(m, Group::ToeSession(s), n);
        ToePorts {
            req_valid: p("conn_req_valid"),
            req_ready: p("conn_req_ready"),
            req_open: p("conn_req_open"),
            req_active: p("conn_req_active"),
            req_local: p("conn_req_local_port"),
            req_remote: p("conn_req_remote_port"),
            established: p("established"),
            peer_closed: p("peer_closed"),
            conn_error: p("conn_error"),
            peer_port: p("peer_port"),
            peer_mss: p("peer_mss"),
            peer_ws: p("peer_window_scale"),
            tx_tdata: p("tx_tdata"),
            tx_tkeep: p("tx_tkeep"),
            tx_tlast: p("tx_tlast"),
            tx_tvalid: p("tx_tvalid"),
            tx_tready: p("tx_tready"),
            rx_tdata: p("rx_tdata"),
            rx_tkeep: p("rx_tkeep"),
            rx_tlast: p("rx_tlast"),
            rx_tvalid: p("rx_tvalid"),
            rx_tready: p("rx_tready"),
        }
    }
}

/// The TOE side of one or more boards, called once per user-clock cycle in
/// this order: `drive` (inputs for the coming edge) for every board, then
/// `edge` (the handshakes of that edge) for every board, then `tick`.
pub trait ToeSide {
    /// Inputs of board `b`'s sessions for the coming rising edge.
    fn drive(&mut self, b: usize, tx_tvalid: &[bool]) -> &[SessionInputs];
    /// `toe_init_done` of board `b`.
    fn init_done(&self, b: usize) -> bool;
    /// What board `b`'s user logic shows just before the edge.
    fn edge(&mut self, b: usize, global: GlobalOutputs, outs: &[SessionOutputs]);
    /// One user-clock cycle passes.
    fn tick(&mut self);
    /// Nothing in flight on the TOE side: a simulation may slow down.
    fn quiet(&self) -> bool;
}

impl ToeSide for TwoBoards {
    fn drive(&mut self, b: usize, tx_tvalid: &[bool]) -> &[SessionInputs] {
        TwoBoards::drive(self, b, tx_tvalid)
    }
    fn init_done(&self, b: usize) -> bool {
        TwoBoards::init_done(self, b)
    }
    fn edge(&mut self, b: usize, global: GlobalOutputs, outs: &[SessionOutputs]) {
        TwoBoards::edge(self, b, global, outs)
    }
    fn tick(&mut self) {
        TwoBoards::tick(self)
    }
    fn quiet(&self) -> bool {
        TwoBoards::quiet(self)
    }
}

/// The TOE SYN timeout of the fault tests and the soak, cycles: short, so a
/// client whose peer never answers ends its test quickly (80 us at 250 MHz).
pub const QUICK_SYN_TIMEOUT: u64 = 20_000;

/// The model's TOE for `beat_bytes`-byte beats with the fault tests' short
/// SYN timeout ([`QUICK_SYN_TIMEOUT`]).
pub fn quick_toe(beat_bytes: usize) -> ToeConfig {
    ToeConfig { syn_timeout_cycles: QUICK_SYN_TIMEOUT, ..ToeConfig::new(beat_bytes) }
}

/// Clock periods and register-bus behaviour of a board.
#[derive(Clone, Copy, Debug)]
pub struct BoardTiming {
    /// User clock period, ps.
    pub user_ps: u64,
    /// Register-bus clock period, ps.
    pub bus_ps: u64,
    /// The bus master's channel timing.
    pub bus: Timing,
}

impl BoardTiming {
    /// The tests' timing: 250 MHz user clock, an unrelated 10.3 ns bus clock,
    /// random channel delays.
    pub fn test() -> Self {
        BoardTiming { user_ps: USER_PS, bus_ps: BUS_PS, bus: Timing { max_delay: 2, ready_probability: 0.8 } }
    }
}

/// One board: the verilated top, its clocks and its register-bus master.
pub struct Board {
    pub m: Model,
    clocks: TwoClocks,
    axi: Master,
    checker: Checker,
    toe: Vec<ToePorts>,
    init: Port,
    init_done: Port,
    last_packet_mode: Port,
    window_update_gap: Port,
    user_rst: Port,
    aresetn: Port,
    outs: Vec<SessionOutputs>,
    tvalid: Vec<bool>,
    /// Bytes of a stream beat.
    beat_bytes: usize,
    keep: Vec<u32>,
    /// What `apply` last drove, per session (none yet: drive everything),
    /// so that a cycle writes only the inputs that change.
    applied: Vec<Option<Applied>>,
    applied_init_done: Option<bool>,
}

/// The inputs of one session that `Board::apply` last drove, but a beat's bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Applied {
    control: (bool, bool, bool, bool, u16, u16, u8),
    tx_tready: bool,
    rx_tvalid: bool,
}

impl Board {
    /// A board of product top `top` with the tests' timing.
    pub fn new(top: &Top, seed: u64) -> Self {
        Self::with_timing(top, seed, BoardTiming::test())
    }

    /// A board of product top `top`; `seed` drives the bus master's random timing.
    pub fn with_timing(top: &Top, seed: u64, timing: BoardTiming) -> Self {
        let mut m = Model::new(top.fns);
        // Sessions and width, from the top's port plan.
        let sessions = top.sessions();
        let width = top.planned(Group::ToeSession(0), "tx_tdata").width;
        let clocks = TwoClocks::new(
            &mut m,
            &top.planned(Group::Clock, "user_clk").name,
            timing.user_ps,
            &top.planned(Group::Bus, "aclk").name,
            timing.bus_ps,
            1_300,
        );
        let axi = Master::new(&mut m, ChaCha8Rng::seed_from_u64(seed), timing.bus);
        let checker = Checker::new(&m, 2_000);
        let toe = (0..sessions).map(|s| ToePorts::resolve(top, &m, s)).collect();
        let keep = vec![0; (width / 8).div_ceil(32)];
        Board {
            init: top.port(&m, Group::ToeGlobal, "init"),
            init_done: top.port(&m, Group::ToeGlobal, "init_done"),
            last_packet_mode: top.port(&m, Group::ToeGlobal, "last_packet_mode"),
            window_update_gap: top.port(&m, Group::ToeGlobal, "window_update_gap"),
            user_rst: top.port(&m, Group::Clock, "user_rst"),
            aresetn: top.port(&m, Group::Bus, "aresetn"),
            m,
            clocks,
            axi,
            checker,
            toe,
            outs: vec![SessionOutputs::default(); sessions],
            tvalid: vec![false; sessions],
            beat_bytes: width / 8,
            keep,
            applied: vec![None; sessions],
            applied_init_done: None,
        }
    }

    /// Sessions of the top.
    pub fn sessions(&self) -> usize {
        self.toe.len()
    }

    /// Bytes of a stream beat.
    pub fn beat_bytes(&self) -> usize {
        self.beat_bytes
    }

    /// Queues a 32-bit register read on the bus; see [`Board::bus_done`].
    pub fn bus_read(&mut self, addr: u32) -> u64 {
        self.axi.read(addr)
    }

    /// Queues a 32-bit register write (all byte lanes) on the bus.
    pub fn bus_write(&mut self, addr: u32, value: u32) -> u64 {
        self.axi.write(addr, value, 0xF)
    }

    /// Bus accesses not answered yet.
    pub fn bus_outstanding(&self) -> usize {
        self.axi.outstanding()
    }

    /// Stops the register-bus clock (it keeps its level and phase, see
    /// [`TwoClocks::stop_b`]) or lets it run again: a gated clock. Stop it
    /// only with no access outstanding: the bus side of the register file
    /// then holds still (its crossing is idle once the last response is
    /// taken), so nothing it shows changes while its clock is stopped.
    pub fn gate_bus_clock(&mut self, stopped: bool) {
        self.clocks.stop_b(stopped);
    }

    /// Rising edges of the register-bus clock so far.
    pub fn bus_cycles(&self) -> u64 {
        self.clocks.rises().1
    }

    /// The answered bus accesses, in completion order.
    pub fn bus_done(&mut self) -> Vec<Completion> {
        self.axi.take_done()
    }

    /// The user logic shows the TOE nothing: no request, no beat, no connection.
    pub fn quiet(&self) -> bool {
        self.toe.iter().all(|p| {
            !(self.m.bit(p.req_valid)
                || self.m.bit(p.established)
                || self.m.bit(p.tx_tvalid)
                || self.m.bit(p.rx_tvalid))
        })
    }

    /// Drives the model's inputs for the coming user edge. Only the inputs
    /// that differ from what the last call drove are written: most cycles
    /// change a stream's handshake and beat and nothing else, and an idle
    /// session changes nothing.
    fn apply(&mut self, ins: &[toe_model::SessionInputs], init_done: bool) {
        let bytes = self.beat_bytes;
        if self.applied_init_done != Some(init_done) {
            self.m.set(self.init_done, u64::from(init_done));
            self.applied_init_done = Some(init_done);
        }
        for ((p, i), last) in self.toe.iter().zip(ins).zip(self.applied.iter_mut()) {
            let now = Applied {
                control: (
                    i.conn_req_ready,
                    i.established,
                    i.peer_closed,
                    i.conn_error,
                    i.peer_port,
                    i.peer_mss,
                    i.peer_window_scale,
                ),
                tx_tready: i.tx_tready,
                rx_tvalid: i.rx_tvalid,
            };
            if last.map(|l| l.control) != Some(now.control) {
                self.m.set(p.req_ready, u64::from(i.conn_req_ready));
                self.m.set(p.established, u64::from(i.established));
                self.m.set(p.peer_closed, u64::from(i.peer_closed));
                self.m.set(p.conn_error, u64::from(i.conn_error));
                self.m.set(p.peer_port, u64::from(i.peer_port));
                self.m.set(p.peer_mss, u64::from(i.peer_mss));
                self.m.set(p.peer_ws, u64::from(i.peer_window_scale));
            }
            if last.map(|l| l.tx_tready) != Some(i.tx_tready) {
                self.m.set(p.tx_tready, u64::from(i.tx_tready));
            }
            if i.rx_tvalid {
                assert!(!i.rx_data.is_empty() && i.rx_data.len() <= bytes, "model presented {} bytes", i.rx_data.len());
                self.m.set(p.rx_tvalid, 1);
                self.m.set_bytes(p.rx_tdata, &i.rx_data);
                keep_mask(i.rx_data.len(), &mut self.keep);
                self.m.set_wide(p.rx_tkeep, &self.keep);
                self.m.set(p.rx_tlast, u64::from(i.rx_tlast));
            } else if last.map(|l| l.rx_tvalid) != Some(false) {
                // Between beats the stream shows no byte kept, as an idle
                // AXI-Stream source may: the design ignores `tkeep` without
                // `tvalid`, and the verifier's beat check takes its short
                // branch for an empty keep instead of the byte loop a held
                // partial beat would cost it every cycle (issue 27).
                self.m.set(p.rx_tvalid, 0);
                keep_mask(0, &mut self.keep);
                self.m.set_wide(p.rx_tkeep, &self.keep);
            }
            *last = Some(now);
        }
    }

    /// What the user logic shows before the edge, after `apply` and `eval`.
    fn sample(&mut self) -> GlobalOutputs {
        for (p, o) in self.toe.iter().zip(self.outs.iter_mut()) {
            o.conn_req_valid = self.m.bit(p.req_valid);
            o.conn_req_open = self.m.bit(p.req_open);
            o.conn_req_active = self.m.bit(p.req_active);
            o.conn_req_local_port = self.m.get(p.req_local) as u16;
            o.conn_req_remote_port = self.m.get(p.req_remote) as u16;
            o.tx_tvalid = self.m.bit(p.tx_tvalid);
            o.tx_tlast = self.m.bit(p.tx_tlast);
            o.rx_tready = self.m.bit(p.rx_tready);
            o.tx_data.clear();
            if o.tx_tvalid {
                self.m.get_wide(p.tx_tkeep, &mut self.keep);
                let kept: u32 = self.keep.iter().map(|w| w.count_ones()).sum();
                o.tx_data.resize(kept as usize, 0);
                self.m.get_bytes(p.tx_tdata, &mut o.tx_data);
            }
        }
        GlobalOutputs {
            init: self.m.bit(self.init),
            last_packet_mode: self.m.get(self.last_packet_mode) as u8,
            window_update_gap: self.m.get(self.window_update_gap) as u16,
        }
    }
}

/// The keep of a beat of `n` bytes, bytes 0..n: bit k of the mask, word k / 32.
fn keep_mask(n: usize, keep: &mut [u32]) {
    for (i, w) in keep.iter_mut().enumerate() {
        let below = n.saturating_sub(32 * i);
        *w = if below >= 32 { u32::MAX } else { (1u32 << below) - 1 };
    }
}

pub use driver::{Mode, SessionResult, SessionTest};

/// Boards and the TOE side that serves them: two boards joined by the link
/// model ([`TwoBoardSim`]), or the virtual board's one board on the host's
/// TCP stack. Everything a test or the console learns comes from the
/// boards' registers.
pub struct Rig<T: ToeSide> {
    pub boards: Vec<Board>,
    pub toe: T,
    user_cycles: u64,
}

/// Two boards, the TOE/link model between them.
pub type TwoBoardSim = Rig<TwoBoards>;

impl Rig<TwoBoards> {
    /// Two copies of product top `top`; `toe.beat_bytes` must match its width.
    pub fn with_model(top: &Top, seed: u64, link: LinkConfig, toe: ToeConfig) -> Self {
        Self::with_timing(top, seed, link, toe, BoardTiming::test())
    }

    /// Two copies of product top `top` with the given clocks and bus timing.
    pub fn with_timing(top: &Top, seed: u64, link: LinkConfig, toe: ToeConfig, timing: BoardTiming) -> Self {
        let boards = vec![Board::with_timing(top, seed, timing), Board::with_timing(top, seed ^ 0x5a5a, timing)];
        assert_eq!(toe.beat_bytes, boards[0].beat_bytes(), "ToeConfig::beat_bytes must match the model's width");
        let toe = TwoBoards::new(boards[0].sessions(), link, toe);
        Rig::from_parts(boards, toe)
    }
}

impl<T: ToeSide> Rig<T> {
    /// Boards of one model (their clocks run in step) served by `toe`; resets them.
    pub fn from_parts(boards: Vec<Board>, toe: T) -> Self {
        assert!(!boards.is_empty(), "a rig needs a board");
        let mut rig = Rig { boards, toe, user_cycles: 0 };
        rig.reset();
        rig
    }

    /// Sessions of each board.
    pub fn sessions(&self) -> usize {
        self.boards[0].sessions()
    }

    /// Checks that board `b`'s register file is the one the accessors
    /// describe for the sessions it has: the `id`, and `info.sessions`
    /// equal to the model's session count. The accessors are those of the
    /// default design; a design with fewer sessions has its session blocks at
    /// the same addresses (the map places block s at BASE + s * STRIDE), and a
    /// wrong address would answer SLVERR, which every access checks.
    pub fn check_identity(&mut self, b: usize) {
        let sessions = self.sessions();
        if let Err(e) = ops::check_identity(&mut self.bus(b), sessions) {
            panic!("board {b}: {e}");
        }
    }

    /// User-clock cycles simulated so far.
    pub fn cycles(&self) -> u64 {
        self.user_cycles
    }

    fn reset(&mut self) {
        for b in &mut self.boards {
            b.m.set(b.user_rst, 1);
            b.m.set(b.aresetn, 0);
        }
        for _ in 0..8 {
            self.event();
        }
        for b in &mut self.boards {
            b.m.set(b.user_rst, 0);
            b.m.set(b.aresetn, 1);
        }
        for b in &mut self.boards {
            b.checker.reset();
        }
    }

    /// One clock event (rising or falling edge of either clock) on every board.
    fn event(&mut self) {
        let edges: Edges = self.boards[0].clocks.peek();
        debug_assert!(self.boards.iter().all(|b| b.clocks.peek() == edges), "the boards' clocks run in step");
        let n = self.boards.len();
        if edges.a {
            for b in 0..n {
                let board = &mut self.boards[b];
                for (s, p) in board.toe.iter().enumerate() {
                    board.tvalid[s] = board.m.bit(p.tx_tvalid);
                }
                let init_done = self.toe.init_done(b);
                let ins = self.toe.drive(b, &board.tvalid);
                board.apply(ins, init_done);
            }
            for b in 0..n {
                self.boards[b].m.eval();
                let global = self.boards[b].sample();
                self.toe.edge(b, global, &self.boards[b].outs);
            }
            self.toe.tick();
            self.user_cycles += 1;
        }
        if edges.b {
            for board in &mut self.boards {
                board.axi.sample(&board.m);
                board.checker.sample(&board.m);
            }
        }
        for board in &mut self.boards {
            board.clocks.advance(&mut board.m);
        }
        if edges.b {
            for board in &mut self.boards {
                board.axi.drive(&mut board.m);
            }
        }
    }

    /// Runs `n` user-clock cycles.
    pub fn run(&mut self, n: u64) {
        let end = self.user_cycles + n;
        while self.user_cycles < end {
            self.event();
        }
    }

    pub fn write(&mut self, b: usize, reg: regs::Register, value: u32) {
        self.bus(b).write32(reg.addr, value).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    pub fn read(&mut self, b: usize, reg: regs::Register) -> u32 {
        self.bus(b).read32(reg.addr).unwrap_or_else(|e| panic!("board {b}: {e}"))
    }

    /// Board `b`'s registers, for the console's register operations (`console::ops`).
    pub fn bus(&mut self, b: usize) -> BoardBus<'_, T> {
        BoardBus { rig: self, b }
    }

    /// Reads a wide value: `_lo` first (it latches `_hi`), then `_hi`.
    pub fn read_wide(&mut self, b: usize, wide: regs::Wide) -> u64 {
        ops::read_wide(&mut self.bus(b), wide).unwrap_or_else(|e| panic!("board {b}: {e}"))
    }

    /// TOE parameters: window update gap (1 KB units) and last packet mode,
    /// then `toe_ctrl.init`, waiting for `init_done` (the demo's menu 1).
    pub fn init_toe(&mut self, b: usize, window_update_gap: u32, last_packet_mode: u32) {
        let done = ops::init_toe(&mut self.bus(b), window_update_gap, last_packet_mode, 1_000, |bus| bus.rig.run(50))
            .unwrap_or_else(|e| panic!("board {b}: {e}"));
        assert!(done, "board {b}: TOE initialisation did not complete");
    }

    /// Programs session `s` of board `b` (does not start it).
    pub fn program(&mut self, b: usize, s: usize, t: &SessionTest) {
        ops::program(&mut self.bus(b), s, t).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Writes board `b`'s shared TX prefix bank (`ops::write_tx_prefix`).
    pub fn write_tx_prefix(&mut self, b: usize, bytes: &[u8]) {
        ops::write_tx_prefix(&mut self.bus(b), bytes).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Sets session `s`'s ports: board `b` listens on / connects from
    /// `fpga_port` and connects to `target_port`.
    pub fn ports(&mut self, b: usize, s: usize, fpga_port: u16, target_port: u16) {
        ops::ports(&mut self.bus(b), s, fpga_port, target_port).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Clears `done`/`error` of session `s` and starts it.
    pub fn start(&mut self, b: usize, s: usize) {
        ops::start(&mut self.bus(b), s).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Writes `ctrl.abort` of session `s`.
    pub fn abort(&mut self, b: usize, s: usize) {
        ops::abort(&mut self.bus(b), s).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Writes `ctrl.stop` of session `s`.
    pub fn stop(&mut self, b: usize, s: usize) {
        ops::stop(&mut self.bus(b), s).unwrap_or_else(|e| panic!("board {b}: {e}"));
    }

    /// Reads session `s`'s status, counters and peer information.
    pub fn result(&mut self, b: usize, s: usize) -> SessionResult {
        ops::result(&mut self.bus(b), s).unwrap_or_else(|e| panic!("board {b}: {e}"))
    }

    /// Polls `status.busy` of the listed sessions every `poll` cycles until
    /// all are idle, or `max_cycles` pass; true when all finished.
    pub fn wait_idle(&mut self, sessions: &[(usize, usize)], poll: u64, max_cycles: u64) -> bool {
        let end = self.user_cycles + max_cycles;
        loop {
            let mut busy = false;
            for &(b, s) in sessions {
                busy |= ops::busy(&mut self.bus(b), s).unwrap_or_else(|e| panic!("board {b}: {e}"));
            }
            if !busy {
                return true;
            }
            if self.user_cycles >= end {
                return false;
            }
            self.run(poll);
        }
    }

    /// The user clock in kHz, from the `info` block.
    pub fn user_clock_khz(&mut self, b: usize) -> u32 {
        self.read(b, regs::info::USER_CLOCK_KHZ)
    }
}

/// One board's register bus inside a [`Rig`]: every access runs the
/// simulation until it completes; an error response (SLVERR) is
/// `BusError::Response`, an access that never completes a panic.
pub struct BoardBus<'a, T: ToeSide> {
    rig: &'a mut Rig<T>,
    b: usize,
}

impl<T: ToeSide> BoardBus<'_, T> {
    /// Runs until every queued access of this board completed; the read data
    /// in order, or the first access that answered an error.
    fn settle(&mut self) -> Result<Vec<u32>, BusError> {
        let b = self.b;
        let rig = &mut *self.rig;
        let limit = rig.user_cycles + 100_000;
        while rig.boards[b].axi.outstanding() > 0 {
            assert!(rig.user_cycles < limit, "register access on board {b} did not complete");
            rig.event();
        }
        let mut data = Vec::new();
        let mut failed = None;
        for c in rig.boards[b].axi.take_done() {
            if c.resp != OKAY {
                let resp = if c.resp == SLVERR { AxiResp::SlvErr } else { AxiResp::DecErr };
                failed.get_or_insert(BusError::Response { addr: c.addr, resp });
            } else if !c.write {
                data.push(c.data);
            }
        }
        failed.map_or(Ok(data), Err)
    }
}

impl<T: ToeSide> RegisterBus for BoardBus<'_, T> {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        self.rig.boards[self.b].axi.read(addr);
        Ok(self.settle()?[0])
    }

    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.rig.boards[self.b].axi.write(addr, value, 0xF);
        self.settle().map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::keep_mask;

    /// The word-at-a-time keep equals the bit-at-a-time one, for every
    /// length of a 128-byte beat and a 16-byte one.
    #[test]
    fn a_beats_keep_marks_its_bytes() {
        for beat in [16usize, 128] {
            for n in 0..=beat {
                let mut keep = vec![0xffff_ffff; beat.div_ceil(32)];
                keep_mask(n, &mut keep);
                let mut want = vec![0u32; beat.div_ceil(32)];
                for k in 0..n {
                    want[k / 32] |= 1 << (k % 32);
                }
                assert_eq!(keep, want, "{n} bytes of a {beat}-byte beat");
            }
        }
    }
}
