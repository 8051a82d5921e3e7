//! The contents of the register map: every register the reference demo's
//! console needs (menus 3.1-3.4 and 4.1-4.4), with explicit offsets.
//!
//! Layout: `info` at 0x000 (identification, design parameters, cycle counter),
//! `toe` at 0x040 (TOE parameters and initialisation), `session` at 0x100 +
//! s * 0x100 for s in 0..sessions.

use config::codes::{CodeTable, ConnMode, ErrorCause, LastPacketMode, TestMode, ToeMode, TxPattern};
use config::Design;

use crate::{Access, Block, EnumValue, Field, Register, RegisterMap, Repeat, Reset, Wide};

/// Value of the ID register: ASCII "TOEU" (`T`=0x54 in bits 31:24).
pub const ID_MAGIC: u32 = u32::from_be_bytes(*b"TOEU");
/// Register-map version: the major number changes when a register moves or
/// changes meaning, the minor number when registers or fields are added or an
/// access that was undefined gets a defined answer (2: out-of-range writes are
/// refused with SLVERR; 3: the bus timeout `info.bus_timeout` and SLVERR
/// while the user domain is in reset, the session watchdog
/// `session.stall_timeout` and its cause `stalled`; 4: open-ended tests,
/// `ctrl.stop`, `duration`, and the TX prefix: the `tx_prefix` bank and
/// `test_config.prefix_length`; 5: the latency modes, their parameters,
/// `ctrl.snapshot`, the round-trip results and the histogram; 6: the
/// session's `claim`, arbitrated between bus masters).
pub const VERSION_MAJOR: u32 = 1;
pub const VERSION_MINOR: u32 = 6;

/// Bytes in the shared TX prefix bank (`tx_prefix`): room for iperf3's
/// 37-byte stream cookie and for most greetings.
pub const TX_PREFIX_BYTES: u32 = 64;

/// Register-bus cycles an access waits for the user clock domain before it
/// completes with SLVERR (`info.bus_timeout`): 1,024, or 64 user-clock
/// periods where the user clock is that much slower than the bus clock. A
/// normal access takes a few bus cycles and 2-3 user cycles, so only a user
/// clock that stopped (or slowed 20-fold) reaches it, and it comes well
/// inside a PCIe completion timeout (50 us at the least) for bus clocks of
/// 25 MHz and more.
pub fn bus_timeout_cycles(design: &Design) -> u32 {
    let user_periods = (64.0 * design.reg_clock_mhz / design.user_clock_mhz).ceil() as u32;
    user_periods.max(1024)
}

/// Reset of the per-session transfer size: 1 MiB, short enough for simulation.
const DEFAULT_TRANSFER_SIZE: u64 = 1 << 20;
/// Reset of the per-session packet size: 8 KiB.
const DEFAULT_PACKET_SIZE: u64 = 8 << 10;
/// Reset of the latency modes' request and response sizes: 64 bytes, the
/// size netperf's TCP_RR and the demo row use.
const DEFAULT_MESSAGE_SIZE: u32 = 64;
/// Reset of `request_count`.
const DEFAULT_REQUEST_COUNT: u32 = 1000;
/// Histogram buckets the hardware keeps (round trips below 2^32 cycles).
pub const HISTOGRAM_BUCKETS: u32 = 464;

/// Reset of `session.stall_timeout.ms`: a second without progress ends a
/// test. TCP's own retransmission gives up after minutes; a test system
/// should say sooner that nothing moves, and software can set 0 (never) or
/// up to 65,535 ms.
pub const DEFAULT_STALL_TIMEOUT_MS: u32 = 1000;

fn field(name: &str, lsb: u32, width: u32, access: Access, reset: u32, description: &str) -> Field {
    Field {
        name: name.to_string(),
        lsb,
        width,
        access,
        reset: Reset::Fixed(reset),
        volatile: false,
        range: None,
        enum_values: Vec::new(),
        description: description.to_string(),
    }
}

impl Field {
    fn volatile(mut self) -> Self {
        self.volatile = true;
        self
    }
    fn range(mut self, min: u32, max: u32) -> Self {
        self.range = Some((min, max));
        self
    }
    /// The field's values: the code table `C` (`config::codes`), the one
    /// definition of their numbers, names and descriptions.
    fn values<C: CodeTable>(mut self) -> Self {
        self.enum_values = C::ALL
            .iter()
            .map(|code| EnumValue {
                name: code.name().to_string(),
                value: code.value(),
                description: code.description().to_string(),
            })
            .collect();
        self
    }
    fn per_instance(mut self, resets: Vec<u32>) -> Self {
        self.reset = Reset::PerInstance(resets);
        self
    }
}

fn reg(name: &str, offset: u32, description: &str, fields: Vec<Field>) -> Register {
    Register { name: name.to_string(), offset, description: description.to_string(), fields }
}

/// A value wider than 32 bits, before it becomes two registers.
struct WideDef<'a> {
    name: &'a str,
    /// Offset of the low half; the high half is at `offset + 4`.
    offset: u32,
    width: u32,
    access: Access,
    volatile: bool,
    reset: u64,
    description: &'a str,
}

/// Adds a wide value's two registers and its [`Wide`] record.
fn wide(regs: &mut Vec<Register>, wides: &mut Vec<Wide>, def: WideDef<'_>) {
    let WideDef { name, offset, width, access, volatile, reset, description } = def;
    let lo_name = format!("{name}_lo");
    let hi_name = format!("{name}_hi");
    let mut lo = field("value", 0, 32, access, reset as u32, &format!("Bits 31:0 of {name}."));
    let mut hi =
        field("value", 0, width - 32, access, (reset >> 32) as u32, &format!("Bits {}:32 of {name}.", width - 1));
    lo.volatile = volatile;
    hi.volatile = volatile;
    let lo_doc = format!("{description} Bits 31:0; reading this register latches `{hi_name}`.");
    let hi_doc = format!("{description} Bits {}:32, as latched by the last read of `{lo_name}`.", width - 1);
    regs.push(reg(&lo_name, offset, &lo_doc, vec![lo]));
    regs.push(reg(&hi_name, offset + 4, &hi_doc, vec![hi]));
    wides.push(Wide { name: name.to_string(), lo: lo_name, hi: hi_name, width, description: description.to_string() });
}

fn mac_value(mac: [u8; 6]) -> u64 {
    mac.iter().fold(0, |v, b| (v << 8) | u64::from(*b))
}

fn info_block(design: &Design) -> Block {
    use Access::*;
    let mut regs = vec![
        reg("id", 0x00, "Identifies the register file: ASCII \"TOEU\" (byte 'T' in bits 31:24). Check it before anything else.", vec![
            field("value", 0, 32, Ro, ID_MAGIC, "The magic value 0x544F4555."),
        ]),
        reg("version", 0x04, "Register-map version. The major number changes when a register moves or changes meaning, the minor number when registers are added or an undefined access gets a defined answer.", vec![
            field("minor", 0, 16, Ro, VERSION_MINOR, "Minor version."),
            field("major", 16, 16, Ro, VERSION_MAJOR, "Major version."),
        ]),
        reg("sessions", 0x08, "Number of TCP sessions the design has (session blocks present).", vec![
            field("count", 0, 3, Ro, design.sessions as u32, "Sessions, 1..=4."),
        ]),
        reg("data_width", 0x0C, "Width of the TOE data streams.", vec![
            field("bits", 0, 11, Ro, design.data_width as u32, &format!("Bits per beat: {}.", config::data_widths_text())),
        ]),
        reg("user_clock_khz", 0x10, "User (TOE data) clock frequency. Peak bandwidth in bytes/s = data_width / 8 * user_clock_khz * 1000; cycle counts are in this clock.", vec![
            field("khz", 0, 32, Ro, design.user_clock_khz(), "Frequency in kHz."),
        ]),
        reg("reg_clock_khz", 0x14, "Register-bus (AXI4-Lite) clock frequency.", vec![
            field("khz", 0, 32, Ro, (design.reg_clock_mhz * 1000.0).round() as u32, "Frequency in kHz."),
        ]),
        reg("bus_timeout", 0x28, "How long a register access waits for the user clock domain. An access the user domain has not answered after this many register-bus cycles (its clock stopped) completes with SLVERR; a write may still take effect when the clock runs again. Every access made while the user domain is in reset completes with SLVERR and does nothing.", vec![
            field("cycles", 0, 32, Ro, bus_timeout_cycles(design), "Register-bus cycles."),
        ]),
    ];
    let mut wides = Vec::new();
    let hash = u64::from_str_radix(&design.config_hash, 16).unwrap_or(0);
    wide(&mut regs, &mut wides, WideDef {
        name: "config_hash",
        offset: 0x18,
        width: 64,
        access: Ro,
        volatile: false,
        reset: hash,
        description: "First 64 bits of the SHA-256 of the configuration this bitstream was generated from (the `configuration` in every generated file's banner).",
    });
    wide(
        &mut regs,
        &mut wides,
        WideDef {
            name: "cycle_count",
            offset: 0x20,
            width: 64,
            access: Ro,
            volatile: true,
            reset: 0,
            description: "Free-running count of user-clock cycles since reset; wraps at 2^64.",
        },
    );
    Block {
        name: "info".into(),
        description:
            "Identification, design parameters and the free-running cycle counter. Constant except `cycle_count`."
                .into(),
        base: 0x000,
        size: 0x040,
        repeat: None,
        registers: regs,
        wides,
        bank: None,
    }
}

fn toe_block(design: &Design) -> Block {
    use Access::*;
    let d = &design.defaults;
    let mut regs = vec![
        reg("toe_ctrl", 0x00, "TOE commands.", vec![
            field("init", 0, 1, WPulse, 0, "Write 1: reset the TOE and initialise it with the current TOE parameters (the demo's menu 1). `toe_status.init_done` falls, then rises when initialisation completes."),
        ]),
        reg("toe_status", 0x04, "TOE state.", vec![
            field("init_done", 0, 1, Ro, 0, "1: the TOE finished initialising and accepts connections.").volatile(),
        ]),
        reg("toe_config", 0x08, "TOE parameters; the TOE takes them at `toe_ctrl.init`.", vec![
            field("mode", 0, 2, Rw, d.mode as u32, "How the TOE finds its peer.").values::<ToeMode>(),
            field("last_packet_mode", 4, 2, Rw, d.last_packet_mode as u32, "How the TOE marks the last packet of a transmission.").values::<LastPacketMode>(),
            field("window_update_gap", 16, 10, Rw, u32::from(d.window_update_gap_kb), "Threshold for sending a window update packet, in units of 1 KB; 0 disables window updates (set it non-zero when an RX max speed is below 100)."),
        ]),
        reg("fpga_ip", 0x14, "IPv4 address of the FPGA; taken at `toe_ctrl.init`.", vec![
            field("value", 0, 32, Rw, u32::from(d.fpga_ip), "Address, first octet in bits 31:24 (192.168.200.42 = 0xC0A8C82A)."),
        ]),
        reg("target_ip", 0x20, "IPv4 address of the target (peer); taken at `toe_ctrl.init`.", vec![
            field("value", 0, 32, Rw, u32::from(d.target_ip), "Address, first octet in bits 31:24."),
        ]),
    ];
    let mut wides = Vec::new();
    wide(&mut regs, &mut wides, WideDef {
        name: "fpga_mac",
        offset: 0x0C,
        width: 48,
        access: Rw,
        volatile: false,
        reset: mac_value(d.fpga_mac),
        description: "MAC address of the FPGA, first byte on the wire in bits 47:40 (00:01:02:03:04:05 = 0x000102030405); taken at `toe_ctrl.init`.",
    });
    wide(&mut regs, &mut wides, WideDef {
        name: "target_mac",
        offset: 0x18,
        width: 48,
        access: Rw,
        volatile: false,
        reset: mac_value(d.target_mac),
        description: "MAC address of the target, used in fixed-MAC mode only; first byte in bits 47:40; taken at `toe_ctrl.init`.",
    });
    regs.sort_by_key(|r| r.offset);
    Block {
        name: "toe".into(),
        description: "TOE parameters (the demo's menus 0 and 1), initialisation command and status.".into(),
        base: 0x040,
        size: 0x080,
        repeat: None,
        registers: regs,
        wides,
        bank: None,
    }
}

/// The TX prefix bank: one for all sessions (iperf3 gives every stream of a
/// test the same cookie), so that 64 bytes cost 16 register words and not
/// 16 per session. Each session sends the first `test_config.prefix_length`
/// bytes of it.
fn tx_prefix_block() -> Block {
    use Access::*;
    let words = TX_PREFIX_BYTES / 4;
    let registers = (0..words)
        .map(|k| {
            reg(
                &format!("tx_prefix_{k}"),
                4 * k,
                &format!("TX prefix bytes {}..={}, byte {} in bits 7:0.", 4 * k, 4 * k + 3, 4 * k),
                vec![field("bytes", 0, 32, Wo, 0, "Four prefix bytes, the first in bits 7:0.")],
            )
        })
        .collect();
    Block {
        name: "tx_prefix".into(),
        description: format!("The TX prefix: {TX_PREFIX_BYTES} bytes shared by the sessions, byte 0 in bits 7:0 of `tx_prefix_0`. A session whose `test_config.prefix_length` is n sends the first n bytes in place of its stream's first n bytes. The sessions read it while they send: write it before `ctrl.start` and leave it while a test that uses it runs. Write-only (reads return 0): a read-back path for 16 words would cost more logic than the bank itself; software keeps its copy."),
        base: 0x0C0,
        size: 0x040,
        repeat: None,
        registers,
        wides: Vec::new(),
        bank: Some("tx_prefix".into()),
    }
}

/// Base of the `net` block: above the fourth session's block, so it stays
/// put whatever the session count.
pub const NET_BASE: u32 = 0x500;
/// Offset of the first counter register in the `net` block; counter i of
/// `net_model::Counter::ALL` is at `NET_COUNTERS + 4 * i`.
pub const NET_COUNTERS: u32 = 0x20;
/// Reset of `net.arp_attempts`: client-mode ARP requests before `arp_failed`,
/// as many as Linux sends before it gives up on a neighbour (ucast_solicit +
/// mcast_solicit = 3).
pub const DEFAULT_ARP_ATTEMPTS: u32 = 3;

/// The open engine's network node (`toe.core = "open"` only): its ARP
/// settings and state, and one counter per event and per drop reason, named
/// and described by `net_model::Counter`, the model the RTL is checked
/// against.
fn net_block(design: &Design) -> Block {
    use net_model::Counter;
    use Access::*;
    let one_second = design.user_clock_khz().saturating_mul(1000);
    let mut regs = vec![
        reg("net_status", 0x00, "The node's ARP state.", vec![
            field("target_known", 0, 1, Ro, 0, "1: the target's MAC is known (`resolved_mac`): from its ARP reply (client mode), from its ARP request (server mode), or `toe.target_mac` (fixed-MAC mode); cleared by `toe_ctrl.init`.").volatile(),
            field("arp_failed", 1, 1, Ro, 0, "1: client mode sent `arp_attempts` requests for `toe.target_ip`, each waited `arp_retry_cycles`, and none was answered; `toe_status.init_done` stays 0. Cleared by `toe_ctrl.init`.").volatile(),
        ]),
        reg("arp_attempts", 0x04, "Client mode: ARP requests for `toe.target_ip` before the node gives up (`net_status.arp_failed`); taken at `toe_ctrl.init`.", vec![
            field("count", 0, 8, Rw, DEFAULT_ARP_ATTEMPTS, "Requests, 1..=255.").range(1, 255),
        ]),
        reg("arp_retry_cycles", 0x08, "Client mode: user-clock cycles between two ARP requests, and after the last before `arp_failed`; taken at `toe_ctrl.init`. The reset value is one second.", vec![
            field("cycles", 0, 32, Rw, one_second, "Cycles, 1..=4,294,967,295.").range(1, u32::MAX),
        ]),
    ];
    let mut wides = Vec::new();
    wide(&mut regs, &mut wides, WideDef {
        name: "resolved_mac",
        offset: 0x10,
        width: 48,
        access: Ro,
        volatile: true,
        reset: 0,
        description: "The target's MAC as the node knows it (valid while `net_status.target_known`), first byte on the wire in bits 47:40.",
    });
    for (i, counter) in Counter::ALL.iter().enumerate() {
        let doc = format!("Count of {}; wraps at 2^32, so software takes differences. Kept across `toe_ctrl.init`; cleared by a reset of the user clock domain.", counter.doc());
        regs.push(reg(
            counter.name(),
            NET_COUNTERS + 4 * i as u32,
            &doc,
            vec![field("count", 0, 32, Ro, 0, "Events.").volatile()],
        ));
    }
    regs.sort_by_key(|r| r.offset);
    Block {
        name: "net".into(),
        description: "The open engine's network node (`toe.core = \"open\"` only; docs/open_engine.md): ARP settings and state, and a counter for every event and every reason a frame is dropped.".into(),
        base: NET_BASE,
        size: 0x100,
        repeat: None,
        registers: regs,
        wides,
        bank: None,
    }
}

fn session_block(design: &Design) -> Block {
    use Access::*;
    let ports = |p: &[u16]| p.iter().map(|&v| u32::from(v)).collect::<Vec<_>>();
    let mut regs = vec![
        reg("ctrl", 0x00, "Session commands; each crosses to the user clock as one event.", vec![
            field("start", 0, 1, WPulse, 0, "Write 1: latch the test parameters, clear the counters, the elapsed time and the first-error record, open the connection as `test_config` says and run the test. Ignored while `status.busy` and with test mode `disabled`. Clear `status.done` and `status.error` (write 1) before, to see this run's outcome."),
            field("abort", 1, 1, WPulse, 0, "Write 1: stop the test and close the connection; ends with `status.error` and cause `aborted`."),
            field("clear_errors", 2, 1, WPulse, 0, "Write 1: clear `err_count` and the first-error record (`err_offset`, `err_expected`, `err_received`)."),
            field("snapshot", 4, 1, WPulse, 0, "Write 1: copy the round-trip results (`rtt_*`, `msg_sent`, `msg_received`, `msg_owed`, `latency_status`) into the registers software reads, all in one user-clock cycle, so they are one consistent set while a latency test runs. The end of a test takes one by itself."),
            field("stop", 3, 1, WPulse, 0, "Write 1: end the send gracefully, in either transfer mode: the stream ends with the next beat (marked tlast; at most one beat follows the write), the session closes as after a complete send, and the test ends `done` with every byte counted in `tx_bytes`. Before the connection is established, the send is the TX prefix alone (`test_config.prefix_length` bytes, nothing without one): a greeting, then only receiving. No effect on a receive-only test, a latency test (its round trips do not take it: `abort` ends one) or an idle session."),
        ]),
        reg("status", 0x04, "Session state. `done` and `error` are sticky until software writes 1 to them.", vec![
            field("busy", 0, 1, Ro, 0, "1 from `start` until the test ends (done or error).").volatile(),
            field("connected", 1, 1, Ro, 0, "1 while the connection is established.").volatile(),
            field("closed", 2, 1, Ro, 0, "1 once the connection was closed after being established; cleared by `start`.").volatile(),
            field("done", 3, 1, W1c, 0, "Set when the test completed: every byte sent and/or received and the connection closed.").volatile(),
            field("error", 4, 1, W1c, 0, "Set when the test failed; `error_cause` says why. Clearing it also clears `error_cause`.").volatile(),
            field("sent", 5, 1, Ro, 0, "1 once this test's send has ended: its last byte was taken by the TOE (the session may still wait for the peer's close, or receive); cleared by `start`; 0 in a receive-only test. What a peer that closes only when told needs before it is told (iperf3's TEST_END).").volatile(),
            field("error_cause", 8, 4, Ro, ErrorCause::None as u32, "Why `error` was set; `none` while `error` is 0.").volatile().values::<ErrorCause>(),
        ]),
        reg("test_config", 0x08, "Test parameters (the demo's menus 2 and 3); taken at `ctrl.start`.", vec![
            field("test_mode", 0, 3, Rw, TestMode::Disabled as u32, "What the session does.").values::<TestMode>(),
            field("outstanding", 24, 5, Rw, 1, "Latency mode: requests sent and not yet answered, at most, 1..=16 (1: one transaction at a time, netperf's TCP_RR); 0 is taken as 1, so that software written for version 1.4, which leaves these bits 0, still writes this register.").range(0, 16),
            field("verify", 4, 1, Rw, 1, "1: check received data against the incremental pattern; 0: do not check (the peer may send dummy data)."),
            field("tx_pattern", 5, 1, Rw, TxPattern::Incremental as u32, "Data the session sends.").values::<TxPattern>(),
            field("conn_mode", 8, 1, Rw, ConnMode::Passive as u32, "How the session opens (and, in full duplex, closes) its connection.").values::<ConnMode>(),
            field("prefix_length", 16, 7, Rw, 0, &format!("Bytes of the shared `tx_prefix` bank the send begins with, 0..={TX_PREFIX_BYTES}; 0: none. They take the place of the stream's first bytes (the pattern goes on at its own offset, so a verifying peer sees a mismatch at the first prefix byte that differs from it) and count in `tx_bytes` and in `transfer_size`; a transfer shorter than the prefix sends its first `transfer_size` bytes.")).range(0, TX_PREFIX_BYTES),
            field("prefix_only", 13, 1, Rw, 0, "1: the send is the TX prefix alone (`prefix_length` bytes; sizes, `duration` and `open_ended` do not apply to it; nothing is sent when `prefix_length` is 0), then the send is over: a client that greets its server and then only receives, in full duplex (iperf3's reverse mode). A `ctrl.stop` before the connection opens does the same."),
            field("open_ended", 12, 1, Rw, 0, "0: `transfer_size` bytes each way. 1: no size: send until `ctrl.stop` or `duration`, receive until the peer closes, up to 2^48-1 bytes (2.4 hours at 32,000 MB/s; the test then ends `done`); each side closes its direction when its send ends (in full duplex, a half-close; receiving goes on until the peer closes)."),
        ]),
        reg("speed", 0x0C, "Maximum speed per direction, in percent of the peak bandwidth (data_width / 8 * user clock); taken at `ctrl.start`.", vec![
            field("tx_percent", 0, 7, Rw, 100, "Transmit limit; gates tvalid.").range(1, 100),
            field("rx_percent", 16, 7, Rw, 100, "Receive limit; gates tready.").range(1, 100),
        ]),
        reg("fpga_port", 0x20, "TCP port of the FPGA for this session; taken at `ctrl.start`.", vec![
            field("port", 0, 16, Rw, 0, "Port number.").per_instance(ports(&design.defaults.fpga_ports)),
        ]),
        reg("target_port", 0x24, "TCP port of the target for this session (active open connects to it); taken at `ctrl.start`.", vec![
            field("port", 0, 16, Rw, 0, "Port number.").per_instance(ports(&design.defaults.target_ports)),
        ]),
        reg("latency_sizes", 0x2C, "Message sizes of the latency modes; taken at `ctrl.start`.", vec![
            field("request", 0, 16, Rw, DEFAULT_MESSAGE_SIZE, "Request size in bytes, 1..=65,535.").range(1, 65_535),
            field("response", 16, 16, Rw, DEFAULT_MESSAGE_SIZE, "Response size in bytes, 1..=65,535.").range(1, 65_535),
        ]),
        reg("claim", 0x6C, "Which software owns the session: a console claims it before it programs and starts a test and frees it after, so that two consoles (or any two bus masters) cannot both start a test on it. The register file arbitrates: of two claims written at once, the first takes the session and the second reads back the first's value. The session's logic does not look at it: software that does not claim can still start the session.", vec![
            field("owner", 0, 32, Claim, 0, "The owner's tag; 0: free. Write a nonzero tag while it reads 0 to claim the session, read it back to see whether the claim was taken, write 0 to free it (also to free a claim a killed console left)."),
        ]),
        reg("request_count", 0x68, "Latency mode (initiator): the requests to send; taken at `ctrl.start`. The echo answers until the peer closes.", vec![
            field("count", 0, 32, Rw, DEFAULT_REQUEST_COUNT, "Requests, 1..=4,294,967,295.").range(1, u32::MAX),
        ]),
        reg("rtt_count", 0x80, "Round trips measured (snapshot).", vec![
            field("value", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("rtt_min", 0x84, "Shortest round trip, in user-clock cycles (snapshot); 0 while none.", vec![
            field("cycles", 0, 32, Ro, 0, "Cycles.").volatile(),
        ]),
        reg("rtt_max", 0x88, "Longest round trip, in user-clock cycles (snapshot).", vec![
            field("cycles", 0, 32, Ro, 0, "Cycles.").volatile(),
        ]),
        reg("rtt_last", 0x8C, "The latest round trip, in user-clock cycles (snapshot).", vec![
            field("cycles", 0, 32, Ro, 0, "Cycles.").volatile(),
        ]),
        reg("rtt_sum_sq_0", 0xA0, "Sum of the squares of the round trips, bits 31:0 (snapshot; 96 bits in `rtt_sum_sq_0..2`).", vec![
            field("value", 0, 32, Ro, 0, "Bits 31:0.").volatile(),
        ]),
        reg("rtt_sum_sq_1", 0xA4, "Sum of the squares of the round trips, bits 63:32 (snapshot).", vec![
            field("value", 0, 32, Ro, 0, "Bits 63:32.").volatile(),
        ]),
        reg("rtt_sum_sq_2", 0xA8, "Sum of the squares of the round trips, bits 95:64 (snapshot).", vec![
            field("value", 0, 32, Ro, 0, "Bits 95:64.").volatile(),
        ]),
        reg("msg_sent", 0xB0, "Latency modes: messages sent (requests, or the echo's responses) (snapshot).", vec![
            field("count", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("msg_received", 0xB4, "Latency modes: messages received (responses, or the echo's requests) (snapshot).", vec![
            field("count", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("msg_owed", 0xBC, "Latency modes: messages owed and not yet begun, the echo's responses to requests received (snapshot).", vec![
            field("count", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("latency_status", 0xB8, "Latency modes: the state of the round trips (snapshot).", vec![
            field("in_flight", 0, 5, Ro, 0, "Requests sent whose response has not ended, 0..=16.").volatile(),
            field("fault", 8, 1, Ro, 0, "1: a round trip could not be measured (a response before its request); the counts above still hold every one that was.").volatile(),
        ]),
        reg("hist_index", 0xC0, "The round-trip histogram: the bucket `hist_count` shows (live, not from the snapshot; a bucket's count only grows while a test runs). Bucket b holds round trips of b cycles for b < 32, and from 32 up, with e = floor(log2 v), bucket 16 * (e - 3) + (v >> (e - 4)) % 16.", vec![
            field("bucket", 0, 9, Rw, 0, &format!("Bucket, 0..={}.", HISTOGRAM_BUCKETS - 1)).range(0, HISTOGRAM_BUCKETS - 1),
        ]),
        reg("hist_count", 0xC4, "The round trips in bucket `hist_index` since `ctrl.start`.", vec![
            field("count", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("stall_timeout", 0x28, "The watchdog of a test: how long nothing may move before the test ends with `error_cause` `stalled`; taken at `ctrl.start`.", vec![
            field("ms", 0, 16, Rw, DEFAULT_STALL_TIMEOUT_MS, "Milliseconds (of the user clock, `info.user_clock_khz` cycles each) without progress: no TX or RX beat and no step of the connection. 0: wait for ever."),
        ]),
        reg("err_expected", 0x58, "First verification error: the expected 32-bit word.", vec![
            field("value", 0, 32, Ro, 0, "Pattern word at `err_offset`.").volatile(),
        ]),
        reg("err_received", 0x5C, "First verification error: the received 32-bit word.", vec![
            field("value", 0, 32, Ro, 0, "Received word at `err_offset`.").volatile(),
        ]),
        reg("err_count", 0x60, "Number of received 32-bit words that differed from the pattern; saturates at 0xFFFFFFFF. Cleared by `ctrl.start` and `ctrl.clear_errors`.", vec![
            field("value", 0, 32, Ro, 0, "Count.").volatile(),
        ]),
        reg("rx_packets", 0x64, "Received beats marked with tlast (the TOE's segment marks) since the transfer started.", vec![
            field("value", 0, 32, Ro, 0, "Count; wraps at 2^32.").volatile(),
        ]),
        reg("peer_port", 0x70, "The peer's TCP port as the TOE reports it once connected (the OS may choose another than `target_port`).", vec![
            field("port", 0, 16, Ro, 0, "Port number.").volatile(),
        ]),
        reg("peer_mss", 0x74, "The peer's maximum segment size as the TOE reports it once connected.", vec![
            field("bytes", 0, 16, Ro, 0, "MSS in bytes.").volatile(),
        ]),
        reg("peer_window_scale", 0x78, "The peer's window-scale factor as the TOE reports it once connected.", vec![
            field("shift", 0, 4, Ro, 0, "Window scale shift count, 0..=14.").volatile(),
        ]),
    ];
    let mut wides = Vec::new();
    wide(
        &mut regs,
        &mut wides,
        WideDef {
            name: "transfer_size",
            offset: 0x10,
            width: 48,
            access: Rw,
            volatile: false,
            reset: DEFAULT_TRANSFER_SIZE,
            description: "Bytes to transfer per direction, 0..=2^48-1; 0: nothing is sent or expected (the connection opens and closes, and the test is `done`; a byte received is `beyond_size`); taken at `ctrl.start`.",
        },
    );
    wide(&mut regs, &mut wides, WideDef {
        name: "packet_size",
        offset: 0x18,
        width: 48,
        access: Rw,
        volatile: false,
        reset: DEFAULT_PACKET_SIZE,
        description: "Bytes per packet the generator marks with tlast (the last packet may be shorter), 1..=2^48-1; 0: no mark before the transfer's last beat; taken at `ctrl.start`.",
    });
    wide(
        &mut regs,
        &mut wides,
        WideDef {
            name: "tx_bytes",
            offset: 0x30,
            width: 64,
            access: Ro,
            volatile: true,
            reset: 0,
            description: "Bytes sent since `ctrl.start`; counts while the test runs.",
        },
    );
    wide(
        &mut regs,
        &mut wides,
        WideDef {
            name: "rx_bytes",
            offset: 0x38,
            width: 64,
            access: Ro,
            volatile: true,
            reset: 0,
            description: "Bytes received since `ctrl.start`; counts while the test runs.",
        },
    );
    wide(&mut regs, &mut wides, WideDef {
        name: "elapsed",
        offset: 0x40,
        width: 64,
        access: Ro,
        volatile: true,
        reset: 0,
        description: "User-clock cycles from the connection being established to the end of the transfer; counts while it runs and holds afterwards. MB/s = bytes * user_clock_khz / 1000 / elapsed.",
    });
    wide(&mut regs, &mut wides, WideDef {
        name: "err_offset",
        offset: 0x50,
        width: 48,
        access: Ro,
        volatile: true,
        reset: 0,
        description: "First verification error: stream byte offset of the first wrong byte (a mismatch), of `transfer_size` (data beyond it) or of the bytes received (a short transfer); `err_expected` and `err_received` hold the 32-bit word that contains it. Valid when `err_count` is non-zero.",
    });
    wide(
        &mut regs,
        &mut wides,
        WideDef {
            name: "rtt_sum",
            offset: 0x90,
            width: 64,
            access: Ro,
            volatile: true,
            reset: 0,
            description: "Sum of the round trips, in user-clock cycles (snapshot); the mean is `rtt_sum / rtt_count`.",
        },
    );
    wide(&mut regs, &mut wides, WideDef {
        name: "rtt_jitter_sum",
        offset: 0x98,
        width: 64,
        access: Ro,
        volatile: true,
        reset: 0,
        description: "Sum of |rtt(i) - rtt(i-1)| over consecutive round trips, in user-clock cycles (snapshot); divided by `rtt_count - 1`, the jitter RFC 3550 smooths.",
    });
    wide(&mut regs, &mut wides, WideDef {
        name: "duration",
        offset: 0x48,
        width: 48,
        access: Rw,
        volatile: false,
        reset: 0,
        description: "User-clock cycles from the connection being established after which the send stops as at `ctrl.stop` (250,000,000 cycles = 1 s at 250 MHz; up to 2^48-1, 13 days); 0: no limit. Applies in both transfer modes; taken at `ctrl.start`.",
    });
    regs.sort_by_key(|r| r.offset);
    Block {
        name: "session".into(),
        description: "One TCP session: test parameters, commands, status, counters, verifier and peer information. Repeated per session at a fixed stride.".into(),
        base: 0x100,
        size: 0x100,
        repeat: Some(Repeat { count: design.sessions, stride: 0x100 }),
        registers: regs,
        wides,
        bank: None,
    }
}

impl RegisterMap {
    /// The register map of `design`: TOE parameter resets from its
    /// `[defaults]`, one session block per session, design parameters as
    /// constants.
    ///
    /// The map is validated. A `Design` from `config::parse` always gives a
    /// valid map (the unit tests build every session count), so a failure is a
    /// bug in this crate and panics with the validation message; use
    /// [`RegisterMap::try_for_design`] for a hand-built `Design`.
    pub fn for_design(design: &Design) -> RegisterMap {
        match Self::try_for_design(design) {
            Ok(map) => map,
            Err(e) => panic!("the built-in register map is invalid: {e}"),
        }
    }

    /// As [`RegisterMap::for_design`], but returns the validation error; for a
    /// [`Design`] built by hand rather than by `config::parse` (say, port lists
    /// shorter than `sessions`).
    pub fn try_for_design(design: &Design) -> Result<RegisterMap, crate::RegmapError> {
        let mut blocks = vec![info_block(design), toe_block(design), tx_prefix_block(), session_block(design)];
        if let config::ToeCore::Open { .. } = design.toe_core {
            blocks.push(net_block(design));
        }
        let map = RegisterMap { blocks };
        map.validate()?;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn design(sessions: usize) -> Design {
        config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
    }

    fn open(sessions: usize) -> Design {
        let text = config::Variant::default().sessions(sessions).set("toe.core", "open").to_toml();
        config::parse(&text).unwrap()
    }

    /// The `net` block exists with the open core only, at one base for every
    /// session count, a counter register for every counter of the model in
    /// the model's order.
    #[test]
    fn the_open_core_adds_the_net_block_with_the_models_counters() {
        assert!(RegisterMap::for_design(&design(4)).block("net").is_none());
        for sessions in 1..=config::MAX_SESSIONS {
            let map = RegisterMap::for_design(&open(sessions));
            assert_eq!(map.validate(), Ok(()));
            let net = map.block("net").expect("open core: net block");
            assert_eq!(net.base, NET_BASE);
            let session = map.block("session").unwrap();
            assert_eq!(
                session.base + config::MAX_SESSIONS as u32 * session.stride(),
                NET_BASE,
                "right above session 3"
            );
            for (i, counter) in net_model::Counter::ALL.iter().enumerate() {
                let r = net.register(counter.name()).unwrap_or_else(|| panic!("no register {counter}"));
                assert_eq!(r.offset, NET_COUNTERS + 4 * i as u32, "{counter}");
                assert_eq!((r.fields[0].access, r.fields[0].width), (Access::Ro, 32), "{counter}");
            }
            let retry = net.register("arp_retry_cycles").unwrap();
            assert_eq!(retry.fields[0].reset, Reset::Fixed(250_000_000), "one second at 250 MHz");
        }
    }

    #[test]
    fn every_session_count_gives_a_valid_map() {
        for sessions in 1..=config::MAX_SESSIONS {
            let map = RegisterMap::for_design(&design(sessions));
            assert_eq!(map.block("session").unwrap().instances(), sessions);
            assert_eq!(map.validate(), Ok(()));
        }
    }

    #[test]
    fn resets_follow_the_design_defaults() {
        let d = design(4);
        let map = RegisterMap::for_design(&d);
        let reset = |name: &str, instance: usize| {
            let (_, r) = map.find_register(name).unwrap();
            r.reset_for(instance)
        };
        assert_eq!(reset("id", 0).to_be_bytes(), *b"TOEU");
        assert_eq!(reset("sessions", 0), 4);
        assert_eq!(reset("data_width", 0), 1024);
        assert_eq!(reset("user_clock_khz", 0), 250_000);
        assert_eq!(reset("fpga_mac_lo", 0), 0x0203_0405);
        assert_eq!(reset("fpga_mac_hi", 0), 0x0001);
        assert_eq!(reset("target_mac_lo", 0), 0x3322_1100);
        assert_eq!(reset("target_mac_hi", 0), 0x5544);
        assert_eq!(reset("fpga_ip", 0), 0xC0A8_C82A);
        assert_eq!(reset("target_ip", 0), 0xC0A8_C819);
        // mode client (0), last packet dup (0), gap 16 at bit 16
        assert_eq!(reset("toe_config", 0), 16 << 16);
        assert_eq!(reset("fpga_port", 3), 60003);
        assert_eq!(reset("target_port", 1), 61001);
        let hash = u64::from(reset("config_hash_hi", 0)) << 32 | u64::from(reset("config_hash_lo", 0));
        assert_eq!(format!("{hash:016x}"), d.config_hash);
    }

    #[test]
    fn every_address_decodes_back_to_its_register() {
        let map = RegisterMap::for_design(&design(4));
        let all = map.instances();
        assert!(all.len() > 60, "{} register instances", all.len());
        for loc in &all {
            let addr = loc.block.address(loc.instance, loc.register).unwrap();
            assert_eq!(map.lookup(addr), Some(*loc), "address {addr:#x}");
            assert_eq!(map.lookup(addr + 1), None, "unaligned {addr:#x}+1 must not decode");
        }
        let past = map.block("session").unwrap().instance_base(3).unwrap() + 0x100;
        assert_eq!(map.lookup(past), None);
        assert_eq!(map.address_bits(), 11);
    }
}
