//! The generated top of a design with the open engine (`toe.core = "open"`),
//! verilated whole and driven as a board would drive it: registers over its
//! AXI4-Lite slave, frames on its network port (`mac_*`), random `tready`
//! on the transmit side. Every frame it sends is checked byte for byte
//! against `net_model::NetNode`, fed the same frames, and every `net`
//! counter read over the bus against the model's count:
//!
//! - the register file's TOE parameters reach the engine: server mode,
//!   `toe_ctrl.init`, `toe_status.init_done`; the peer's MAC learned from
//!   its ARP request shows in `net.resolved_mac`;
//! - ARP requests and ICMP echoes of random sizes are answered as the model
//!   answers them; bad frames are dropped under their own counters;
//! - a session's test ends `refused` (part 1 has no TCP), it does not hang.
//!
//! The examples `open25g_alveo_u50_1s` (64 bits) and `open200g_agilex7_1s`
//! (1024 bits, MTU 9000) are the designs. `TB_SEED=<n>` replays a run.

use std::path::{Path, PathBuf};

use board_sim::axil::{self, Checker, Completion, Master, Timing};
use board_sim::clocks::TwoClocks;
use board_sim::verilated::{Model, Port};
use config::codes::{ConnMode, ErrorCause, TestMode, ToeMode};
use config::ports::Group;
use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, DropReason, Mac, NetNode, NodeConfig};
use rand::Rng;
use rand::SeedableRng;
use regmap::RegisterMap;
use verilate::Source;

/// The peer: the kernel's side of the wire.
const PEER_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x20, 0x30];
/// User-clock cycles an access may take before the test calls it hung.
const BUS_LIMIT: u64 = 10_000;
/// Cycles a frame's answer may take to come out.
const ANSWER_LIMIT: u64 = 20_000;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The verilated top and the register map it was generated with; the
/// register bus is `board_sim`'s AXI4-Lite master (random timing) watched by
/// its protocol checker, the two clocks unrelated, as on a board.
struct Board {
    m: Model,
    map: RegisterMap,
    clocks: TwoClocks,
    axi: Master,
    checker: Checker,
    p: MacPorts,
    width: usize,
    cycle: u64,
    rng: rand_chacha::ChaCha8Rng,
}

/// The network port.
struct MacPorts {
    rx_tdata: Port,
    rx_tkeep: Port,
    rx_tlast: Port,
    rx_tvalid: Port,
    rx_tuser: Port,
    tx_tdata: Port,
    tx_tkeep: Port,
    tx_tlast: Port,
    tx_tvalid: Port,
    tx_tready: Port,
}

/// Clock periods in ps for a frequency in MHz.
fn period_ps(mhz: f64) -> u64 {
    (1e6 / mhz).round() as u64
}

impl Board {
    fn build(example: &str) -> Board {
        let design = gen::read_config(&repo().join("examples").join(format!("{example}.toml"))).unwrap();
        let map = RegisterMap::try_for_design(&design).unwrap();
        let rtl = gen::rtl::generate(&design, &map).unwrap();
        let sources: Vec<Source> = rtl
            .sources
            .iter()
            .map(|path| {
                let file = rtl.files.iter().find(|f| &f.path == path).unwrap();
                Source { path: path.trim_start_matches("rtl/").into(), contents: file.contents.clone() }
            })
            .collect();
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("open-core");
        std::fs::create_dir_all(&cache).unwrap();
        let waivers = verilate::write_waivers(&cache).unwrap();
        let model = format!("open_{example}");
        let fns =
            verilate::load_cached(&model, &design.name, &sources, Some(&waivers), &model, &cache, false, &mut |l| {
                eprintln!("{l}")
            })
            .unwrap_or_else(|e| panic!("verilating {example}: {e}"));
        let mut m = Model::new(fns);
        let mac = |l: &str| m.port(&Group::Mac.top_name(l));
        let p = MacPorts {
            rx_tdata: mac("rx_tdata"),
            rx_tkeep: mac("rx_tkeep"),
            rx_tlast: mac("rx_tlast"),
            rx_tvalid: mac("rx_tvalid"),
            rx_tuser: mac("rx_tuser"),
            tx_tdata: mac("tx_tdata"),
            tx_tkeep: mac("tx_tkeep"),
            tx_tlast: mac("tx_tlast"),
            tx_tvalid: mac("tx_tvalid"),
            tx_tready: mac("tx_tready"),
        };
        let mut rng = seeded_inputs::seed::rng(&format!("open core {example}"));
        let clocks = TwoClocks::new(
            &mut m,
            "user_clk",
            period_ps(design.user_clock_mhz),
            &Group::Bus.top_name("aclk"),
            period_ps(design.reg_clock_mhz),
            1_300,
        );
        let axi = Master::new(&mut m, rand_chacha::ChaCha8Rng::seed_from_u64(rng.gen()), Timing::default());
        let checker = Checker::new(&m, 2_000);
        let mut b = Board { m, map, clocks, axi, checker, p, width: design.data_width, cycle: 0, rng };
        // Both domains in reset, then out.
        let (rst, aresetn) = (b.m.port("user_rst"), b.m.port(&Group::Bus.top_name("aresetn")));
        b.m.set(rst, 1);
        b.m.set(aresetn, 0);
        for _ in 0..16 {
            b.step();
        }
        b.m.set(rst, 0);
        b.m.set(aresetn, 1);
        for _ in 0..16 {
            b.step();
        }
        b
    }

    /// Clock events up to and including the next rising edge of the user
    /// clock; the bus master and checker take every bus clock edge on the way.
    fn step(&mut self) {
        loop {
            let edges = self.clocks.peek();
            if edges.b {
                self.axi.sample(&self.m);
                self.checker.sample(&self.m);
            }
            self.clocks.advance(&mut self.m);
            if edges.b {
                self.axi.drive(&mut self.m);
            }
            if edges.a {
                self.cycle += 1;
                return;
            }
        }
    }

    fn address(&self, block: &str, register: &str) -> u32 {
        let b = self.map.block(block).unwrap_or_else(|| panic!("no block {block}"));
        b.base + b.register(register).unwrap_or_else(|| panic!("no register {block}.{register}")).offset
    }

    fn field(&self, block: &str, register: &str, field: &str) -> (u32, u32) {
        let f = self.map.block(block).unwrap().register(register).unwrap().field(field).unwrap();
        (f.lsb, f.width)
    }

    /// Runs until the master's transaction `id` completes: its response.
    fn complete(&mut self, id: u64, what: &str) -> Completion {
        for _ in 0..BUS_LIMIT {
            self.step();
            if let Some(c) = self.axi.take_done().into_iter().find(|c| c.id == id) {
                return c;
            }
        }
        panic!("{what}: no response in {BUS_LIMIT} user cycles");
    }

    fn write(&mut self, addr: u32, data: u32) -> Result<(), etherbone::BusError> {
        let id = self.axi.write(addr, data, 0xf);
        let c = self.complete(id, &format!("write of {data:#x} to {addr:#x}"));
        if c.resp == axil::OKAY {
            Ok(())
        } else {
            Err(etherbone::BusError::slverr(addr))
        }
    }

    fn read(&mut self, addr: u32) -> Result<u32, etherbone::BusError> {
        let id = self.axi.read(addr);
        let c = self.complete(id, &format!("read of {addr:#x}"));
        if c.resp == axil::OKAY {
            Ok(c.data)
        } else {
            Err(etherbone::BusError::slverr(addr))
        }
    }

    fn read_field(&mut self, block: &str, register: &str, field: &str) -> u32 {
        let (lsb, width) = self.field(block, register, field);
        let v = self.read(self.address(block, register)).unwrap_or_else(|e| panic!("{block}.{register}: {e}"));
        (v >> lsb) & if width == 32 { u32::MAX } else { (1 << width) - 1 }
    }

    /// Feeds `frame` one beat a cycle (no idle beat), `tuser` on its last.
    fn send(&mut self, frame: &[u8], tuser: bool) {
        let k = self.width / 8;
        let beats = frame.chunks(k).count();
        for (i, chunk) in frame.chunks(k).enumerate() {
            let mut beat = vec![0u8; k];
            beat[..chunk.len()].copy_from_slice(chunk);
            self.m.set_bytes(self.p.rx_tdata, &beat);
            if k > 64 {
                let mut words = vec![0u32; k / 32];
                for byte in 0..chunk.len() {
                    words[byte / 32] |= 1 << (byte % 32);
                }
                self.m.set_wide(self.p.rx_tkeep, &words);
            } else {
                let keep = if chunk.len() == 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
                self.m.set(self.p.rx_tkeep, keep);
            }
            let last = i + 1 == beats;
            self.m.set(self.p.rx_tlast, u64::from(last));
            self.m.set(self.p.rx_tuser, u64::from(last && tuser));
            self.m.set(self.p.rx_tvalid, 1);
            self.step();
        }
        self.m.set(self.p.rx_tvalid, 0);
    }

    /// Every frame the top sends within `cycles` cycles, `tready` random
    /// (outside this call it is low: nothing leaves unseen).
    fn collect(&mut self, cycles: u64) -> Vec<Vec<u8>> {
        let k = self.width / 8;
        let mut frames = Vec::new();
        let mut current = Vec::new();
        let mut beat = vec![0u8; k];
        for _ in 0..cycles {
            let ready = self.rng.gen_bool(0.7);
            self.m.set(self.p.tx_tready, u64::from(ready));
            self.m.eval();
            let taken = ready && self.m.bit(self.p.tx_tvalid);
            if taken {
                self.m.get_bytes(self.p.tx_tdata, &mut beat);
                let bytes = if k > 64 {
                    let mut words = vec![0u32; k / 32];
                    self.m.get_wide(self.p.tx_tkeep, &mut words);
                    words.iter().map(|w| w.count_ones() as usize).sum()
                } else {
                    self.m.get(self.p.tx_tkeep).count_ones() as usize
                };
                current.extend_from_slice(&beat[..bytes]);
                if self.m.bit(self.p.tx_tlast) {
                    frames.push(std::mem::take(&mut current));
                }
            }
            self.step();
        }
        self.m.set(self.p.tx_tready, 0);
        assert!(current.is_empty(), "a frame was still going out after {cycles} cycles");
        frames
    }
}

/// The top's AXI4-Lite slave as a register bus, as the console uses one.
impl etherbone::RegisterBus for Board {
    fn read32(&mut self, addr: u32) -> Result<u32, etherbone::BusError> {
        self.read(addr)
    }
    fn write32(&mut self, addr: u32, value: u32) -> Result<(), etherbone::BusError> {
        self.write(addr, value)
    }
}

/// One frame in, the model's answer (or none) out, compared.
fn exchange(b: &mut Board, model: &mut NetNode, frame: &[u8], tuser: bool, what: &str) {
    b.send(frame, tuser);
    model.receive(frame, tuser, 0);
    let want: Vec<Vec<u8>> = std::iter::from_fn(|| model.transmit(0)).collect();
    let limit = if want.is_empty() { 64 + frame.len() as u64 } else { ANSWER_LIMIT.min(200 + 4 * frame.len() as u64) };
    let got = b.collect(limit);
    assert_eq!(got.len(), want.len(), "{what}: {} frames out, the model {}", got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            g == w,
            "{what}: the top sent {} bytes, the model {}; first difference at byte {:?}",
            g.len(),
            w.len(),
            g.iter().zip(w).position(|(x, y)| x != y)
        );
    }
}

fn run(example: &str) {
    let mut b = Board::build(example);
    let design = gen::read_config(&repo().join("examples").join(format!("{example}.toml"))).unwrap();
    let d = &design.defaults;
    let mtu = match design.toe_core {
        config::ToeCore::Open { mtu } => mtu,
        config::ToeCore::Licensed => panic!("{example} must select the open core"),
    };

    // Server mode through the register file, then init.
    let (lsb, _) = b.field("toe", "toe_config", "mode");
    let config = b.read(b.address("toe", "toe_config")).unwrap();
    let config = (config & !(0b11 << lsb)) | ((ToeMode::Server as u32) << lsb);
    b.write(b.address("toe", "toe_config"), config).unwrap();
    let (init_lsb, _) = b.field("toe", "toe_ctrl", "init");
    b.write(b.address("toe", "toe_ctrl"), 1 << init_lsb).unwrap();
    for _ in 0..16 {
        b.step();
    }
    assert_eq!(b.read_field("toe", "toe_status", "init_done"), 1, "server mode: init done at once");

    let mut cfg = NodeConfig::new(d.fpga_mac, d.fpga_ip, d.target_ip, ArpMode::Server);
    cfg.mtu = mtu;
    cfg.tx_buffer_bytes = 4 * (14 + mtu); // the answers are taken one at a time: never full
    let mut model = NetNode::new(cfg).unwrap();
    model.init(0);

    // The peer asks for the FPGA's MAC: answered, and its MAC learned.
    let arp = frames::arp_request(PEER_MAC, d.target_ip, d.fpga_ip);
    exchange(&mut b, &mut model, &arp, false, "ARP request");
    // What `toe-console net` reads (driver::net) shows the learned MAC.
    let state = driver::net::read(&mut b).unwrap();
    assert!(state.target_known && !state.arp_failed, "{state:?}");
    assert_eq!(state.resolved_mac, PEER_MAC);

    // Echoes of random sizes up to the MTU, and bad frames among them.
    let ends = Ends { src_mac: PEER_MAC, dst_mac: d.fpga_mac, src_ip: d.target_ip, dst_ip: d.fpga_ip };
    for seq in 0..40u16 {
        let size = match seq {
            0 => 0,
            1 => mtu - 28,
            _ => b.rng.gen_range(0..=mtu - 28),
        };
        let data: Vec<u8> = (0..size).map(|_| b.rng.gen()).collect();
        let request = frames::echo_request(ends, 0x4242, seq, &data);
        exchange(&mut b, &mut model, &request, false, &format!("echo {seq} of {size} bytes"));
        match seq % 8 {
            2 => exchange(&mut b, &mut model, &request, true, "an echo with a frame error"),
            3 => exchange(&mut b, &mut model, &request[..40], false, "a runt"),
            4 => {
                let mut bad = request.clone();
                bad[24] ^= 0x55; // the IPv4 header checksum
                exchange(&mut b, &mut model, &bad, false, "a bad IPv4 checksum")
            }
            5 => {
                let mut other = request.clone();
                other[0..6].copy_from_slice(&[0x02, 9, 9, 9, 9, 9]);
                exchange(&mut b, &mut model, &other, false, "another host's frame")
            }
            _ => {}
        }
    }
    for reason in [DropReason::FrameError, DropReason::Runt, DropReason::Ipv4Checksum, DropReason::NotOurMac] {
        assert!(model.count(Counter::Dropped(reason)) > 0, "the run must drop frames as {}", reason.name());
    }
    assert!(model.count(Counter::IcmpEchoesAnswered) >= 40);

    // Every counter, as the bus reads it, is the model's; and as the
    // console reads them, every one of them.
    for counter in Counter::ALL {
        let got = b.read(b.address("net", counter.name())).unwrap();
        assert_eq!(u64::from(got), model.count(counter), "net.{}", counter.name());
    }
    let state = driver::net::read(&mut b).unwrap();
    let names: Vec<&str> = state.counters.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, Counter::ALL.map(|c| c.name()), "the console's counters are the model's, in order");
    for (name, value) in &state.counters {
        let counter = Counter::ALL.into_iter().find(|c| c.name() == *name).unwrap();
        assert_eq!(u64::from(*value), model.count(counter), "toe-console net: {name}");
    }

    // A session's test: refused, since part 1 has no TCP.
    let (mode_lsb, _) = b.field("session", "test_config", "test_mode");
    let (conn_lsb, _) = b.field("session", "test_config", "conn_mode");
    let test = ((TestMode::Send as u32) << mode_lsb) | ((ConnMode::Active as u32) << conn_lsb);
    let test_config = b.address("session", "test_config");
    let keep = b.read(test_config).unwrap() & !((0b111 << mode_lsb) | (1 << conn_lsb));
    b.write(test_config, keep | test).unwrap();
    let (start_lsb, _) = b.field("session", "ctrl", "start");
    b.write(b.address("session", "ctrl"), 1 << start_lsb).unwrap();
    let mut polls = 0;
    while b.read_field("session", "status", "error") == 0 {
        polls += 1;
        assert!(polls < 100, "the session's test did not end within 100 polls");
    }
    assert_eq!(b.read_field("session", "status", "error_cause"), ErrorCause::Refused as u32);
    eprintln!("{example}: {} cycles", b.cycle);
}

#[test]
fn the_open_top_at_64_bits_answers_as_the_model_and_counts_on_the_bus() {
    run("open25g_alveo_u50_1s");
}

#[test]
fn the_open_top_at_1024_bits_answers_as_the_model_and_counts_on_the_bus() {
    run("open200g_agilex7_1s");
}
