//! The console's register operations, in the demo's terms, over any
//! register bus: a board inside a simulation ([`crate::boards::BoardBus`]),
//! or a virtual or real board reached over Etherbone (`vboard`'s tests).
//!
//! Every address and field comes from the typed accessors of the register
//! map (`top1024_regs`). A design with fewer sessions has its session blocks
//! at the same addresses (the map places block s at BASE + s * STRIDE), so
//! the default design's accessors serve every design of up to 4 sessions.

use crate::top1024_regs::regs;

/// 32-bit register access. An access that fails (an AXI error response, a
/// lost connection) panics: these operations serve tests and the demo,
/// where a failed access is a bug to report, not a condition to handle.
pub trait Registers {
    fn read(&mut self, addr: u32) -> u32;
    fn write(&mut self, addr: u32, value: u32);
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
    /// The first-error record's expected and received 32-bit words.
    pub err_expected: u32,
    pub err_received: u32,
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


/// Reads a wide value: `_lo` first (it latches `_hi`), then `_hi`.
pub fn read_wide(bus: &mut impl Registers, wide: regs::Wide) -> u64 {
    let lo = bus.read(wide.lo.addr);
    let hi = bus.read(wide.hi.addr);
    wide.join(lo, hi)
}

/// The `id` register holds the map's magic and `info.sessions` the
/// session count: `Err` says which does not match.
pub fn check_identity(bus: &mut impl Registers, sessions: usize) -> Result<(), String> {
    let id = bus.read(regs::info::ID.addr);
    if id != regs::ID_MAGIC {
        return Err(format!("id register reads {id:#010x}, expected {:#010x}: not a TOE user-logic register file", regs::ID_MAGIC));
    }
    let n = regs::info::sessions::COUNT.get(bus.read(regs::info::SESSIONS.addr)) as usize;
    if n != sessions {
        return Err(format!("info.sessions reads {n}, expected {sessions}"));
    }
    Ok(())
}

/// TOE parameters: window update gap (1 KB units) and last packet mode, then
/// `toe_ctrl.init`; polls `init_done` up to `polls` times, calling `wait`
/// between polls. True when the TOE reported it initialised.
pub fn init_toe<R: Registers>(
    bus: &mut R,
    window_update_gap: u32,
    last_packet_mode: u32,
    polls: u32,
    mut wait: impl FnMut(&mut R),
) -> bool {
    use regs::toe::toe_config as c;
    let mut word = bus.read(regs::toe::TOE_CONFIG.addr);
    word = c::WINDOW_UPDATE_GAP.set(word, window_update_gap).expect("window update gap 0..=1023");
    word = c::LAST_PACKET_MODE.set(word, last_packet_mode).expect("last packet mode 0..=2");
    bus.write(regs::toe::TOE_CONFIG.addr, word);
    bus.write(regs::toe::TOE_CTRL.addr, regs::toe::toe_ctrl::INIT.word(1).unwrap());
    for _ in 0..polls {
        wait(bus);
        if regs::toe::toe_status::INIT_DONE.get(bus.read(regs::toe::TOE_STATUS.addr)) == 1 {
            return true;
        }
    }
    false
}

/// Programs session `s` (does not start it).
pub fn program(bus: &mut impl Registers, s: usize, t: &SessionTest) {
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
    bus.write(r.test_config().addr, cfg);
    let sp = speed::TX_PERCENT
        .word(u32::from(t.tx_percent))
        .and_then(|w| speed::RX_PERCENT.set(w, u32::from(t.rx_percent)));
    bus.write(r.speed().addr, sp.expect("percent 1..=100"));
    for (wide, value) in [(r.transfer_size(), t.transfer_size), (r.packet_size(), t.packet_size)] {
        let (lo, hi) = wide.split(value).expect("size fits 48 bits");
        bus.write(wide.lo.addr, lo);
        bus.write(wide.hi.addr, hi);
    }
}

/// Sets session `s`'s ports: the board listens on / connects from
/// `fpga_port` and connects to `target_port`.
pub fn ports(bus: &mut impl Registers, s: usize, fpga_port: u16, target_port: u16) {
    let r = regs::session(s).expect("session index");
    bus.write(r.fpga_port().addr, u32::from(fpga_port));
    bus.write(r.target_port().addr, u32::from(target_port));
}

/// Clears `done`/`error` of session `s` and starts it.
pub fn start(bus: &mut impl Registers, s: usize) {
    use regs::session::{ctrl, status};
    let r = regs::session(s).expect("session index");
    let clear = status::DONE.word(1).unwrap() | status::ERROR.word(1).unwrap();
    bus.write(r.status().addr, clear);
    bus.write(r.ctrl().addr, ctrl::START.word(1).unwrap());
}

/// Writes `ctrl.abort` of session `s`.
pub fn abort(bus: &mut impl Registers, s: usize) {
    let r = regs::session(s).expect("session index");
    bus.write(r.ctrl().addr, regs::session::ctrl::ABORT.word(1).unwrap());
}

/// `status.busy` of session `s`.
pub fn busy(bus: &mut impl Registers, s: usize) -> bool {
    let r = regs::session(s).expect("session index");
    regs::session::status::BUSY.get(bus.read(r.status().addr)) == 1
}

/// Reads session `s`'s status, counters and peer information.
pub fn result(bus: &mut impl Registers, s: usize) -> SessionResult {
    use regs::session::status;
    let r = regs::session(s).expect("session index");
    let st = bus.read(r.status().addr);
    SessionResult {
        busy: status::BUSY.get(st) == 1,
        done: status::DONE.get(st) == 1,
        error: status::ERROR.get(st) == 1,
        closed: status::CLOSED.get(st) == 1,
        error_cause: status::ERROR_CAUSE.get(st),
        tx_bytes: read_wide(bus, r.tx_bytes()),
        rx_bytes: read_wide(bus, r.rx_bytes()),
        elapsed: read_wide(bus, r.elapsed()),
        err_count: bus.read(r.err_count().addr),
        err_offset: read_wide(bus, r.err_offset()),
        err_expected: bus.read(r.err_expected().addr),
        err_received: bus.read(r.err_received().addr),
        peer_port: bus.read(r.peer_port().addr),
        peer_mss: bus.read(r.peer_mss().addr),
        peer_window_scale: bus.read(r.peer_window_scale().addr),
    }
}
