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

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use toe_model::{GlobalOutputs, LinkConfig, SessionOutputs, ToeConfig, TwoBoards};

use crate::axil::{Checker, Master, Timing, OKAY};
use crate::clocks::TwoClocks;
use crate::models::top1024;
use crate::top1024_regs::regs;
use crate::verilated::{Model, ModelFns, Port};

/// User clock period (250 MHz), ps.
pub const USER_PS: u64 = 4_000;
/// Register-bus clock period, ps: unrelated to the user clock.
pub const BUS_PS: u64 = 10_300;

/// The TOE session interface ports of one session (`toe<s>_*`).
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
    fn resolve(m: &Model, s: usize) -> Self {
        let p = |n: &str| m.port(&format!("toe{s}_{n}"));
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
    words: Vec<u32>,
    keep: Vec<u32>,
}

impl Board {
    fn new(fns: &'static ModelFns, seed: u64) -> Self {
        let mut m = Model::new(fns);
        // Sessions and width, from the model's own ports.
        let sessions = (0..).take_while(|s| m.try_port(&format!("toe{s}_established")).is_some()).count();
        let width = m.port("toe0_tx_tdata").width;
        let clocks = TwoClocks::new(&mut m, "user_clk", USER_PS, "s_axil_aclk", BUS_PS, 1_300);
        let axi = Master::new(&mut m, ChaCha8Rng::seed_from_u64(seed), Timing { max_delay: 2, ready_probability: 0.8 });
        let checker = Checker::new(&m, 2_000);
        let toe = (0..sessions).map(|s| ToePorts::resolve(&m, s)).collect();
        let words = vec![0; width / 32];
        let keep = vec![0; (width / 8).div_ceil(32)];
        Board {
            init: m.port("toe_init"),
            init_done: m.port("toe_init_done"),
            last_packet_mode: m.port("toe_last_packet_mode"),
            window_update_gap: m.port("toe_window_update_gap"),
            user_rst: m.port("user_rst"),
            aresetn: m.port("s_axil_aresetn"),
            m,
            clocks,
            axi,
            checker,
            toe,
            outs: vec![SessionOutputs::default(); sessions],
            tvalid: vec![false; sessions],
            words,
            keep,
        }
    }

    /// Drives the model's inputs for the coming user edge.
    fn apply(&mut self, ins: &[toe_model::SessionInputs], init_done: bool) {
        let bytes = self.words.len() * 4;
        self.m.set(self.init_done, u64::from(init_done));
        for (p, i) in self.toe.iter().zip(ins) {
            self.m.set(p.req_ready, u64::from(i.conn_req_ready));
            self.m.set(p.established, u64::from(i.established));
            self.m.set(p.peer_closed, u64::from(i.peer_closed));
            self.m.set(p.conn_error, u64::from(i.conn_error));
            self.m.set(p.peer_port, u64::from(i.peer_port));
            self.m.set(p.peer_mss, u64::from(i.peer_mss));
            self.m.set(p.peer_ws, u64::from(i.peer_window_scale));
            self.m.set(p.tx_tready, u64::from(i.tx_tready));
            self.m.set(p.rx_tvalid, u64::from(i.rx_tvalid));
            if i.rx_tvalid {
                assert!(!i.rx_data.is_empty() && i.rx_data.len() <= bytes, "model presented {} bytes", i.rx_data.len());
                self.words.iter_mut().for_each(|w| *w = 0);
                for (k, b) in i.rx_data.iter().enumerate() {
                    self.words[k / 4] |= u32::from(*b) << (8 * (k % 4));
                }
                self.m.set_wide(p.rx_tdata, &self.words);
                self.keep.iter_mut().for_each(|w| *w = 0);
                for k in 0..i.rx_data.len() {
                    self.keep[k / 32] |= 1 << (k % 32);
                }
                self.m.set_wide(p.rx_tkeep, &self.keep);
                self.m.set(p.rx_tlast, u64::from(i.rx_tlast));
            }
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
                self.m.get_wide(p.tx_tdata, &mut self.words);
                for k in 0..kept as usize {
                    o.tx_data.push((self.words[k / 4] >> (8 * (k % 4))) as u8);
                }
            }
        }
        GlobalOutputs {
            init: self.m.bit(self.init),
            last_packet_mode: self.m.get(self.last_packet_mode) as u8,
            window_update_gap: self.m.get(self.window_update_gap) as u16,
        }
    }
}

/// What the demo's console asks per session (sections 3.3, 3.4, 4.3, 4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Send,
    Receive,
    FullDuplex,
}

/// One session's test parameters, in the console's terms.
#[derive(Clone, Copy, Debug)]
pub struct SessionTest {
    pub mode: Mode,
    pub transfer_size: u64,
    pub packet_size: u64,
    pub verify: bool,
    /// Max speed, % of 32,000 MB/s, per direction.
    pub tx_percent: u8,
    pub rx_percent: u8,
    /// Client (active open) or server (passive open).
    pub client: bool,
    /// Incremental pattern (true) or dummy data.
    pub incremental: bool,
}

impl SessionTest {
    pub fn new(mode: Mode, transfer_size: u64, client: bool) -> Self {
        SessionTest {
            mode,
            transfer_size,
            packet_size: 8192,
            verify: true,
            tx_percent: 100,
            rx_percent: 100,
            client,
            incremental: true,
        }
    }
}

/// What the console reads back for a session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionResult {
    pub busy: bool,
    pub done: bool,
    pub error: bool,
    pub closed: bool,
    pub error_cause: u32,
    pub tx_bytes: u64,
    pub rx_bytes: u64,
    pub elapsed: u64,
    pub err_count: u32,
    pub err_offset: u64,
    pub peer_port: u32,
    pub peer_mss: u32,
    pub peer_window_scale: u32,
}

impl SessionResult {
    /// MB/s as the console computes it: bytes * f_MHz / cycles.
    pub fn mb_s(&self, bytes: u64, user_clock_khz: u32) -> f64 {
        if self.elapsed == 0 {
            0.0
        } else {
            bytes as f64 * f64::from(user_clock_khz) / 1000.0 / self.elapsed as f64
        }
    }
}

/// Two boards, the TOE/link model between them.
pub struct TwoBoardSim {
    pub boards: [Board; 2],
    pub toe: TwoBoards,
    user_cycles: u64,
}

impl TwoBoardSim {
    /// Two default tops (`top1024`: 4 sessions of 1024 bits).
    pub fn new(seed: u64, link: LinkConfig, toe: ToeConfig) -> Self {
        Self::with_model(&top1024::FNS, seed, link, toe)
    }

    /// Two copies of product model `fns`; `toe.beat_bytes` must match its width.
    pub fn with_model(fns: &'static ModelFns, seed: u64, link: LinkConfig, toe: ToeConfig) -> Self {
        let boards = [Board::new(fns, seed), Board::new(fns, seed ^ 0x5a5a)];
        assert_eq!(toe.beat_bytes * 8, boards[0].words.len() * 32, "ToeConfig::beat_bytes must match the model's width");
        let toe = TwoBoards::new(boards[0].toe.len(), link, toe);
        let mut sim = TwoBoardSim { boards, toe, user_cycles: 0 };
        sim.reset();
        sim
    }

    /// Sessions of each board.
    pub fn sessions(&self) -> usize {
        self.boards[0].toe.len()
    }

    /// Default link (200G, 99.0 bytes per cycle) and TOE (1 MB buffers).
    pub fn standard(seed: u64) -> Self {
        Self::new(seed, LinkConfig::default(), ToeConfig::new(top1024::DATA_WIDTH / 8))
    }

    /// Checks that board `b`'s register file is the one the accessors
    /// describe for the sessions it has: the `id`, and `info.sessions`
    /// equal to the model's session count. The accessors are those of the
    /// default design; a design with fewer sessions has its session blocks at
    /// the same addresses (the map places block s at BASE + s * STRIDE), and a
    /// wrong address would answer SLVERR, which every access checks.
    pub fn check_identity(&mut self, b: usize) {
        assert_eq!(self.read(b, regs::info::ID), regs::ID_MAGIC, "board {b}: not a TOE user-logic register file");
        let sessions = regs::info::sessions::COUNT.get(self.read(b, regs::info::SESSIONS));
        assert_eq!(sessions as usize, self.sessions(), "board {b}: info.sessions");
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

    /// One clock event (rising or falling edge of either clock) on both boards.
    fn event(&mut self) {
        let edges = self.boards[0].clocks.peek();
        debug_assert_eq!(edges, self.boards[1].clocks.peek(), "the boards' clocks run in step");
        if edges.a {
            for b in 0..2 {
                let tvalid: Vec<bool> = {
                    let board = &mut self.boards[b];
                    for (s, p) in board.toe.iter().enumerate() {
                        board.tvalid[s] = board.m.bit(p.tx_tvalid);
                    }
                    board.tvalid.clone()
                };
                let init_done = self.toe.init_done(b);
                let ins = self.toe.drive(b, &tvalid);
                self.boards[b].apply(ins, init_done);
            }
            for b in 0..2 {
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

    /// Runs until every queued register access of board `b` has completed;
    /// returns the read data in order. Panics on SLVERR (a test bug).
    fn settle_bus(&mut self, b: usize) -> Vec<u32> {
        let mut data = Vec::new();
        let limit = self.user_cycles + 100_000;
        while self.boards[b].axi.outstanding() > 0 {
            assert!(self.user_cycles < limit, "register access on board {b} did not complete");
            self.event();
        }
        for c in self.boards[b].axi.take_done() {
            assert_eq!(c.resp, OKAY, "register access {c:?} on board {b} failed");
            if !c.write {
                data.push(c.data);
            }
        }
        data
    }

    pub fn write(&mut self, b: usize, reg: regs::Register, value: u32) {
        self.boards[b].axi.write(reg.addr, value, 0xF);
        self.settle_bus(b);
    }

    pub fn read(&mut self, b: usize, reg: regs::Register) -> u32 {
        self.boards[b].axi.read(reg.addr);
        self.settle_bus(b)[0]
    }

    /// Reads a wide value: `_lo` first (it latches `_hi`), then `_hi`.
    pub fn read_wide(&mut self, b: usize, wide: regs::Wide) -> u64 {
        self.boards[b].axi.read(wide.lo.addr);
        self.boards[b].axi.read(wide.hi.addr);
        let d = self.settle_bus(b);
        wide.join(d[0], d[1])
    }

    /// TOE parameters: window update gap (1 KB units) and last packet mode,
    /// then `toe_ctrl.init`, waiting for `init_done` (the demo's menu 1).
    pub fn init_toe(&mut self, b: usize, window_update_gap: u32, last_packet_mode: u32) {
        use regs::toe::toe_config as c;
        let mut word = self.read(b, regs::toe::TOE_CONFIG);
        word = c::WINDOW_UPDATE_GAP.set(word, window_update_gap).expect("window update gap 0..=1023");
        word = c::LAST_PACKET_MODE.set(word, last_packet_mode).expect("last packet mode 0..=2");
        self.write(b, regs::toe::TOE_CONFIG, word);
        self.write(b, regs::toe::TOE_CTRL, regs::toe::toe_ctrl::INIT.word(1).unwrap());
        for _ in 0..1_000 {
            self.run(50);
            if regs::toe::toe_status::INIT_DONE.get(self.read(b, regs::toe::TOE_STATUS)) == 1 {
                return;
            }
        }
        panic!("board {b}: TOE initialisation did not complete");
    }

    /// Programs session `s` of board `b` (does not start it).
    pub fn program(&mut self, b: usize, s: usize, t: &SessionTest) {
        use regs::session::{speed, test_config};
        let r = regs::session(s).expect("session index");
        let mode = match t.mode {
            Mode::Send => test_config::TestMode::Send,
            Mode::Receive => test_config::TestMode::Receive,
            Mode::FullDuplex => test_config::TestMode::FullDuplex,
        };
        let mut cfg = test_config::TEST_MODE.word(mode.bits()).unwrap();
        cfg = test_config::VERIFY.set(cfg, u32::from(t.verify)).unwrap();
        cfg = test_config::TX_PATTERN.set(cfg, u32::from(!t.incremental)).unwrap();
        let conn = if t.client { test_config::ConnMode::Active } else { test_config::ConnMode::Passive };
        cfg = test_config::CONN_MODE.set(cfg, conn.bits()).unwrap();
        self.write(b, r.test_config(), cfg);
        let sp = speed::TX_PERCENT
            .word(u32::from(t.tx_percent))
            .and_then(|w| speed::RX_PERCENT.set(w, u32::from(t.rx_percent)));
        self.write(b, r.speed(), sp.expect("percent 1..=100"));
        for (wide, value) in [(r.transfer_size(), t.transfer_size), (r.packet_size(), t.packet_size)] {
            let (lo, hi) = wide.split(value).expect("size fits 48 bits");
            self.write(b, wide.lo, lo);
            self.write(b, wide.hi, hi);
        }
    }

    /// Sets session `s`'s ports: board `b` listens on / connects from
    /// `fpga_port` and connects to `target_port`.
    pub fn ports(&mut self, b: usize, s: usize, fpga_port: u16, target_port: u16) {
        let r = regs::session(s).expect("session index");
        self.write(b, r.fpga_port(), u32::from(fpga_port));
        self.write(b, r.target_port(), u32::from(target_port));
    }

    /// Clears `done`/`error` of session `s` and starts it.
    pub fn start(&mut self, b: usize, s: usize) {
        use regs::session::{ctrl, status};
        let r = regs::session(s).expect("session index");
        let clear = status::DONE.word(1).unwrap() | status::ERROR.word(1).unwrap();
        self.write(b, r.status(), clear);
        self.write(b, r.ctrl(), ctrl::START.word(1).unwrap());
    }

    /// Writes `ctrl.abort` of session `s`.
    pub fn abort(&mut self, b: usize, s: usize) {
        let r = regs::session(s).expect("session index");
        self.write(b, r.ctrl(), regs::session::ctrl::ABORT.word(1).unwrap());
    }

    /// Reads session `s`'s status, counters and peer information.
    pub fn result(&mut self, b: usize, s: usize) -> SessionResult {
        use regs::session::status;
        let r = regs::session(s).expect("session index");
        let st = self.read(b, r.status());
        SessionResult {
            busy: status::BUSY.get(st) == 1,
            done: status::DONE.get(st) == 1,
            error: status::ERROR.get(st) == 1,
            closed: status::CLOSED.get(st) == 1,
            error_cause: status::ERROR_CAUSE.get(st),
            tx_bytes: self.read_wide(b, r.tx_bytes()),
            rx_bytes: self.read_wide(b, r.rx_bytes()),
            elapsed: self.read_wide(b, r.elapsed()),
            err_count: self.read(b, r.err_count()),
            err_offset: self.read_wide(b, r.err_offset()),
            peer_port: self.read(b, r.peer_port()),
            peer_mss: self.read(b, r.peer_mss()),
            peer_window_scale: self.read(b, r.peer_window_scale()),
        }
    }

    /// Polls `status.busy` of the listed sessions every `poll` cycles until
    /// all are idle, or `max_cycles` pass; true when all finished.
    pub fn wait_idle(&mut self, sessions: &[(usize, usize)], poll: u64, max_cycles: u64) -> bool {
        let end = self.user_cycles + max_cycles;
        loop {
            let mut busy = false;
            for &(b, s) in sessions {
                let r = regs::session(s).expect("session index");
                busy |= regs::session::status::BUSY.get(self.read(b, r.status())) == 1;
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
