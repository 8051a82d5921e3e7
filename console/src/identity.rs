//! The first thing the console does on any board: read the `info` block and
//! check it is the register file the accessors describe.

use etherbone::RegisterBus;

use crate::ops::{self, OpError};
use crate::{design, regs};

/// What the `info` block says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub version_major: u32,
    pub version_minor: u32,
    pub sessions: usize,
    pub data_width: u32,
    pub user_clock_khz: u32,
    pub reg_clock_khz: u32,
    pub config_hash: u64,
}

impl Identity {
    /// The design's peak user bandwidth in MB/s (data width / 8 x user clock).
    pub fn peak_mb_s(&self) -> f64 {
        f64::from(self.data_width / 8) * f64::from(self.user_clock_khz) / 1000.0
    }
}

/// The design parameters the console expects; by default the design its
/// accessors were generated for ([`design`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub sessions: usize,
    pub data_width: u32,
    pub user_clock_khz: u32,
}

impl Default for Expect {
    fn default() -> Self {
        Expect { sessions: design::SESSIONS, data_width: design::DATA_WIDTH, user_clock_khz: design::USER_CLOCK_KHZ }
    }
}

/// Reads the `info` block: `id` first, then the version, then the design
/// parameters; `Err` names the first that does not match.
pub fn identify(bus: &mut (impl RegisterBus + ?Sized), expect: &Expect) -> Result<Identity, OpError> {
    use regs::info;
    let id = ops::read(bus, info::ID)?;
    if id != regs::ID_MAGIC {
        return Err(OpError(format!(
            "info.id reads {id:#010x}, expected {:#010x} (\"TOEU\"): this is not a TOE user-logic register file (wrong address, BAR or board?)",
            regs::ID_MAGIC
        )));
    }
    let v = ops::read(bus, info::VERSION)?;
    let (major, minor) = (info::version::MAJOR.get(v), info::version::MINOR.get(v));
    if major != regs::VERSION_MAJOR || minor < regs::VERSION_MINOR {
        return Err(OpError(format!(
            "register-map version {major}.{minor}, this console speaks {}.{} (same major, minor at least {}): rebuild the console for this design",
            regs::VERSION_MAJOR,
            regs::VERSION_MINOR,
            regs::VERSION_MINOR
        )));
    }
    let ident = Identity {
        version_major: major,
        version_minor: minor,
        sessions: info::sessions::COUNT.get(ops::read(bus, info::SESSIONS)?) as usize,
        data_width: info::data_width::BITS.get(ops::read(bus, info::DATA_WIDTH)?),
        user_clock_khz: info::user_clock_khz::KHZ.get(ops::read(bus, info::USER_CLOCK_KHZ)?),
        reg_clock_khz: info::reg_clock_khz::KHZ.get(ops::read(bus, info::REG_CLOCK_KHZ)?),
        config_hash: ops::read_wide(bus, info::CONFIG_HASH)?,
    };
    let mismatch = |what: &str, got: String, want: String| {
        Err(OpError(format!(
            "info.{what} reads {got}, the console expects {want} (see --sessions, --data-width, --clock-khz)"
        )))
    };
    if ident.sessions == 0 || ident.sessions > regs::session::COUNT {
        return mismatch(
            "sessions",
            ident.sessions.to_string(),
            format!("1..={} (the register map's session blocks)", regs::session::COUNT),
        );
    }
    if ident.sessions != expect.sessions {
        return mismatch("sessions", ident.sessions.to_string(), expect.sessions.to_string());
    }
    if ident.data_width != expect.data_width {
        return mismatch("data_width", format!("{} bits", ident.data_width), format!("{} bits", expect.data_width));
    }
    if ident.user_clock_khz != expect.user_clock_khz {
        return mismatch(
            "user_clock_khz",
            format!("{} kHz", ident.user_clock_khz),
            format!("{} kHz", expect.user_clock_khz),
        );
    }
    Ok(ident)
}
