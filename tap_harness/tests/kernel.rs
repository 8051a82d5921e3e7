//! The node met by the real Linux kernel, as the model (`net_model::NetNode`)
//! and as its RTL verilated at 64 and 1024 bits (`tap_harness::RtlNode`):
//! each test makes its own private network namespace with a TAP, the kernel
//! at 10.0.0.1/24 on it and the node at 10.0.0.2 behind the pump, and talks
//! to the node with the kernel's own tools and sockets. Nothing here touches the
//! host's namespace. Without root, /dev/net/tun or unshare every test fails
//! with the harness's one-line reason.

use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use net_model::{ArpMode, Counter, DropReason, NetNode, NodeConfig};
use rand::{Rng, RngCore};
use tap_harness::{
    in_private_namespace, ip, run_bounded, AnyNode, Direction, FrameNode, PcapWriter, Pump, PumpOptions, RtlNode, Tap,
    TapConfig,
};

const KERNEL_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const FPGA_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const FPGA_MAC: [u8; 6] = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02];
const TAP: &str = "tap0";
/// How long one frame may take to cross the pump and come back.
const ROUND_TRIP: Duration = Duration::from_secs(3);

fn mac_text(mac: &[u8; 6]) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Runs `f` in a fresh namespace; a harness error fails the test with its line.
fn in_ns<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    in_private_namespace(f).unwrap_or_else(|e| panic!("{e}"))
}

/// Which node stands behind the TAP.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// The plain-Rust model.
    Model,
    /// The RTL, verilated at this data width.
    Rtl(usize),
}

/// The TAP, the node and the pump, in the calling thread's namespace.
struct Rig {
    pump: Pump<AnyNode>,
    kernel_mac: [u8; 6],
    ifindex: i32,
}

impl Rig {
    /// A TAP of `tap_mtu`, a node of `kind`, `mode` and `mtu` (its `init` done),
    /// the pump started, optionally capturing to `pcap`.
    fn start(kind: Kind, mode: ArpMode, mtu: usize, tap_mtu: usize, pcap: Option<&PathBuf>) -> Rig {
        let tap = Tap::create(&TapConfig { mtu: tap_mtu, ..TapConfig::new(TAP, KERNEL_IP) })
            .unwrap_or_else(|e| panic!("{e}"));
        let kernel_mac = tap.mac().unwrap_or_else(|e| panic!("{e}"));
        let ifindex = tap.ifindex().unwrap_or_else(|e| panic!("{e}"));
        let mut cfg = NodeConfig::new(FPGA_MAC, FPGA_IP, KERNEL_IP, mode);
        cfg.mtu = mtu;
        cfg.tx_buffer_bytes = net_model::config::default_tx_buffer_bytes(mtu);
        if mode == ArpMode::FixedMac {
            cfg.target_mac = kernel_mac;
        }
        let node = match kind {
            Kind::Model => {
                let mut node = NetNode::new(cfg).unwrap_or_else(|e| panic!("{e}"));
                node.init(0);
                AnyNode::Model(Box::new(node))
            }
            Kind::Rtl(width) => {
                let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tap_rtl");
                let node = RtlNode::build(width, &cfg, &cache, move |m| eprintln!("RTL node at {width} bits: {m}"));
                AnyNode::Rtl(node.unwrap_or_else(|e| panic!("{e}")))
            }
        };
        let pcap = pcap.map(|p| PcapWriter::create(p).unwrap_or_else(|e| panic!("{e}")));
        let pump =
            Pump::start(tap, node, PumpOptions { pcap, ..PumpOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
        Rig { pump, kernel_mac, ifindex }
    }

    fn count(&self, c: Counter) -> u64 {
        self.pump.with_node(|n, _| n.count(c))
    }

    fn counters(&self) -> Vec<u64> {
        self.pump.with_node(|n, _| Counter::ALL.iter().map(|&c| n.count(c)).collect())
    }

    /// Waits until the node has taken `frames` frames in all.
    fn wait_frames_in(&self, frames: u64, what: &str) {
        let deadline = Instant::now() + ROUND_TRIP;
        while self.count(Counter::FramesIn) < frames {
            if let Some(why) = self.pump.failure() {
                panic!("pump failed: {why}");
            }
            assert!(Instant::now() < deadline, "{what}: the node never got frame number {frames}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The nonzero counters, for failure messages.
    fn nonzero(&self) -> String {
        let values = self.counters();
        Counter::ALL
            .iter()
            .zip(values)
            .filter(|(_, v)| *v != 0)
            .map(|(c, v)| format!("{c}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

// ---------------------------------------------------------------- frames

fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn icmp_echo(kind: u8, id: u16, seq: u16, data: &[u8]) -> Vec<u8> {
    let mut m = vec![kind, 0, 0, 0];
    m.extend_from_slice(&id.to_be_bytes());
    m.extend_from_slice(&seq.to_be_bytes());
    m.extend_from_slice(data);
    let c = checksum(&m);
    m[2..4].copy_from_slice(&c.to_be_bytes());
    m
}

/// An IPv4 header (with `options`) and `payload`, checksum right.
fn ipv4(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, flags_frag: u16, options: &[u8], payload: &[u8]) -> Vec<u8> {
    assert_eq!(options.len() % 4, 0);
    let hlen = 20 + options.len();
    let total = (hlen + payload.len()) as u16;
    let mut p = vec![0x40 | (hlen / 4) as u8, 0];
    p.extend_from_slice(&total.to_be_bytes());
    p.extend_from_slice(&0x1234u16.to_be_bytes());
    p.extend_from_slice(&flags_frag.to_be_bytes());
    p.extend_from_slice(&[64, protocol, 0, 0]);
    p.extend_from_slice(&src.octets());
    p.extend_from_slice(&dst.octets());
    p.extend_from_slice(options);
    let c = checksum(&p);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p.extend_from_slice(payload);
    p
}

fn ethernet(dst: [u8; 6], src: [u8; 6], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = dst.to_vec();
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn arp(oper: u16, sha: [u8; 6], spa: Ipv4Addr, tha: [u8; 6], tpa: Ipv4Addr) -> Vec<u8> {
    let mut a = vec![0, 1, 8, 0, 6, 4];
    a.extend_from_slice(&oper.to_be_bytes());
    a.extend_from_slice(&sha);
    a.extend_from_slice(&spa.octets());
    a.extend_from_slice(&tha);
    a.extend_from_slice(&tpa.octets());
    a
}

// ---------------------------------------------------------------- sockets

fn cvt(ret: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

fn wait_readable(fd: &OwnedFd, timeout: Duration) -> bool {
    let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd.
    let n = unsafe { libc::poll(&mut pfd, 1, timeout.as_millis() as libc::c_int) };
    n > 0 && pfd.revents & libc::POLLIN != 0
}

/// socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) of the calling thread's
/// namespace: ICMP messages out through the kernel's IPv4 stack, every ICMP
/// packet the kernel receives in (with its IPv4 header).
struct RawIcmp(OwnedFd);

impl RawIcmp {
    fn open() -> RawIcmp {
        // SAFETY: socket(2) with integer arguments; the fd is ours.
        let fd = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_ICMP) }, "raw ICMP socket")
            .unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: fd is new and owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // A deep receive queue: nothing the node sends is lost on our side.
        let size: libc::c_int = 4 << 20;
        // SAFETY: a c_int option value of the right size.
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        RawIcmp(fd)
    }

    fn send_to(&self, dst: Ipv4Addr, message: &[u8]) {
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: 0,
            sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(dst.octets()) },
            sin_zero: [0; 8],
        };
        // SAFETY: message and addr are valid for the lengths given.
        let n = unsafe {
            libc::sendto(
                self.0.as_raw_fd(),
                message.as_ptr().cast(),
                message.len(),
                0,
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        assert_eq!(n, message.len() as isize, "sendto: {}", io::Error::last_os_error());
    }

    /// The next IPv4 packet carrying ICMP, or `None` after `timeout`.
    fn recv(&self, timeout: Duration) -> Option<Vec<u8>> {
        if !wait_readable(&self.0, timeout) {
            return None;
        }
        let mut buf = vec![0u8; 65536];
        // SAFETY: buf is valid for its length.
        let n = unsafe { libc::recv(self.0.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        assert!(n >= 0, "recv: {}", io::Error::last_os_error());
        buf.truncate(n as usize);
        Some(buf)
    }

    /// Sends an echo request and waits for its reply; checks the reply
    /// (source, type, code, checksum, id, sequence, data) and panics with
    /// what differs.
    fn echo(&self, id: u16, seq: u16, data: &[u8]) {
        self.send_to(FPGA_IP, &icmp_echo(8, id, seq, data));
        let deadline = Instant::now() + ROUND_TRIP;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(packet) = self.recv(left) else {
                panic!("echo id {id} seq {seq} ({} data bytes): no reply within {ROUND_TRIP:?}", data.len());
            };
            let ihl = usize::from(packet[0] & 0x0f) * 4;
            let icmp = &packet[ihl..];
            if icmp.len() < 8 || u16::from_be_bytes([icmp[4], icmp[5]]) != id || icmp[0] != 0 {
                continue; // not ours (or our own request seen on the way out)
            }
            let at = format!("echo id {id} seq {seq} ({} data bytes)", data.len());
            assert_eq!(Ipv4Addr::new(packet[12], packet[13], packet[14], packet[15]), FPGA_IP, "{at}: reply source");
            assert_eq!(icmp[1], 0, "{at}: reply code");
            assert_eq!(checksum(icmp), 0, "{at}: reply's ICMP checksum does not verify");
            assert_eq!(u16::from_be_bytes([icmp[6], icmp[7]]), seq, "{at}: reply sequence");
            assert_eq!(icmp.len() - 8, data.len(), "{at}: reply data length");
            if let Some(i) = (0..data.len()).find(|&i| icmp[8 + i] != data[i]) {
                panic!("{at}: reply data differs first at byte {i}: {:#04x} instead of {:#04x}", icmp[8 + i], data[i]);
            }
            return;
        }
    }
}

/// socket(AF_PACKET, SOCK_RAW) bound to one interface: whole Ethernet
/// frames straight out of it, past the kernel's IP stack.
struct PacketSocket {
    fd: OwnedFd,
    ifindex: i32,
}

impl PacketSocket {
    fn open(ifindex: i32) -> PacketSocket {
        // Protocol 0: this socket receives nothing, it only sends.
        // SAFETY: socket(2) with integer arguments; the fd is ours.
        let fd = cvt(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) }, "AF_PACKET socket")
            .unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: fd is new and owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_ifindex = ifindex;
        // SAFETY: addr is a valid sockaddr_ll of the length given.
        cvt(
            unsafe {
                libc::bind(
                    fd.as_raw_fd(),
                    (&addr as *const libc::sockaddr_ll).cast(),
                    std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
                )
            },
            "bind AF_PACKET",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        PacketSocket { fd, ifindex }
    }

    fn send(&self, frame: &[u8]) -> io::Result<()> {
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_ifindex = self.ifindex;
        addr.sll_halen = 6;
        addr.sll_addr[..6].copy_from_slice(&frame[..6]);
        // SAFETY: frame and addr are valid for the lengths given.
        let n = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                frame.as_ptr().cast(),
                frame.len(),
                0,
                (&addr as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        cvt(n as libc::c_int, &format!("sending a {}-byte frame", frame.len())).map(|_| ())
    }
}

fn temp_path(what: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tap_harness-{}-{what}.pcap", std::process::id()))
}

fn tcpdump_lines(path: &std::path::Path) -> Vec<String> {
    let out = run_bounded("tcpdump", &["-n", "-e", "-r", &path.to_string_lossy()], Duration::from_secs(20))
        .and_then(|o| o.checked())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.stderr.contains("link-type EN10MB (Ethernet)"),
        "tcpdump did not read an Ethernet capture: {}",
        out.stderr
    );
    out.stdout.lines().map(str::to_string).collect()
}

// ---------------------------------------------------------------- tests

#[test]
fn the_namespace_is_private_and_the_callers_is_untouched() {
    let host = tap_harness::namespace::current_namespace_id().unwrap();
    let (inside, links) = in_ns(|| {
        let _rig = Rig::start(Kind::Model, ArpMode::Server, 1500, 1500, None);
        let links = ip(&["-o", "link", "show"]).unwrap().stdout;
        (tap_harness::namespace::current_namespace_id().unwrap(), links)
    });
    assert_ne!(inside, host, "the closure ran in the caller's namespace");
    assert_eq!(tap_harness::namespace::current_namespace_id().unwrap(), host, "the caller's namespace changed");
    let names: Vec<&str> = links.lines().filter_map(|l| l.split(": ").nth(1)).collect();
    assert_eq!(names, ["lo", TAP], "interfaces of the private namespace:\n{links}");
    assert!(links.lines().next().unwrap().contains("UP"), "lo is not up:\n{links}");
}

/// `count` echo requests of seeded random sizes (0 ..= mtu - 28 data bytes)
/// and contents from a raw ICMP socket, one at a time; every reply checked.
fn random_echoes(kind: Kind, mtu: usize, count: u16) {
    let mut rng = seeded_inputs::seed::rng(&format!("random echoes at MTU {mtu}, {kind:?}"));
    let id: u16 = rng.gen();
    let started = Instant::now();
    let (answered, stats, max_seen) = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::Server, mtu, mtu, None);
        let sock = RawIcmp::open();
        let mut max_seen = 0;
        for seq in 0..count {
            // Both ends of the range at the start, random sizes after.
            let len = match seq {
                0 => 0,
                1 => mtu - 28,
                _ => rng.gen_range(0..=mtu - 28),
            };
            let mut data = vec![0u8; len];
            rng.fill_bytes(&mut data);
            sock.echo(id, seq, &data);
            max_seen = max_seen.max(len);
        }
        let answered = rig.count(Counter::IcmpEchoesAnswered);
        let stopped = rig.pump.stop().unwrap_or_else(|e| panic!("{e}"));
        (answered, stopped.stats, max_seen)
    });
    eprintln!(
        "{kind:?}, MTU {mtu}: {count} echoes (largest {max_seen} data bytes) in {:?}: {stats:?}",
        started.elapsed()
    );
    assert_eq!(answered, u64::from(count), "IcmpEchoesAnswered");
    assert_eq!(stats.tap_write_errors, 0, "{stats:?}");
    assert!(stats.padded > 0, "no frame needed padding: the 0-byte echo should have: {stats:?}");
}

#[test]
fn a_thousand_random_echoes_at_mtu_1500() {
    random_echoes(Kind::Model, 1500, 1000);
}

#[test]
fn a_thousand_random_echoes_at_mtu_9000() {
    random_echoes(Kind::Model, 9000, 1000);
}

fn ping_flood(kind: Kind) {
    let (out, answered) = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::Server, 1500, 1500, None);
        let out =
            run_bounded("ping", &["-f", "-c", "10000", "-s", "56", "-w", "60", "10.0.0.2"], Duration::from_secs(90))
                .unwrap_or_else(|e| panic!("{e}"));
        (out, rig.count(Counter::IcmpEchoesAnswered))
    });
    let summary = out.stdout.lines().find(|l| l.contains("packets transmitted")).unwrap_or("(no summary line)");
    eprintln!("ping -f: {summary}");
    assert!(out.status.success(), "{}: {}\n{}{}", out.command, out.status, out.stdout, out.stderr);
    assert!(
        summary.starts_with("10000 packets transmitted, 10000 received") && summary.contains(", 0% packet loss"),
        "{summary}"
    );
    assert_eq!(answered, 10000, "IcmpEchoesAnswered after ping -f -c 10000");
}

fn arping(kind: Kind) {
    let (arping, ping, neigh, answered, wire) = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::Server, 1500, 1500, None);
        let arping = run_bounded("arping", &["-c", "3", "-i", TAP, "10.0.0.2"], Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}"));
        let answered = rig.count(Counter::ArpRequestsAnswered);
        // arping's replies go to arping, not to the kernel's ARP table
        // (arp_accept is 0: the kernel takes no unsolicited reply); the
        // kernel's own request, for the ping, puts the node there.
        let ping = run_bounded("ping", &["-c", "1", "-W", "3", "10.0.0.2"], Duration::from_secs(10))
            .and_then(|o| o.checked())
            .map(|_| ())
            .map_err(|e| e.to_string());
        let neigh = ip(&["neigh", "show", "10.0.0.2", "dev", TAP]).unwrap_or_else(|e| panic!("{e}")).stdout;
        // What crossed the wire, for a failure message.
        let wire = rig
            .pump
            .frames()
            .iter()
            .map(|f| format!("{:?} {:#06x} {} bytes", f.direction, f.ethertype().unwrap_or(0), f.original_len))
            .collect::<Vec<_>>()
            .join("\n");
        (arping, ping, neigh, answered, format!("{}\ncounters: {}", wire, rig.nonzero()))
    });
    assert!(
        arping.status.success(),
        "{}: {}\n{}{}\nframes:\n{wire}",
        arping.command,
        arping.status,
        arping.stdout,
        arping.stderr
    );
    let from_node = format!("bytes from {} ({FPGA_IP})", mac_text(&FPGA_MAC));
    let replies = arping.stdout.lines().filter(|l| l.contains(&from_node)).count();
    assert_eq!(replies, 3, "arping's replies from the node's MAC:\n{}", arping.stdout);
    assert!(arping.stdout.contains("3 packets transmitted, 3 packets received"), "{}", arping.stdout);
    assert!(answered >= 3, "ArpRequestsAnswered = {answered}");
    assert_eq!(ping, Ok(()), "the ping after arping");
    assert!(neigh.contains(&format!("lladdr {}", mac_text(&FPGA_MAC))), "ip neigh show 10.0.0.2: {neigh:?}");
}

fn client_mode(kind: Kind) {
    let (target, done, failed, kernel_mac, sent, received, arp_out) = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::Client, 1500, 1500, None);
        let deadline = Instant::now() + ROUND_TRIP;
        while !rig.pump.with_node(|n, _| n.init_done() || n.arp_failed()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let (target, done, failed) = rig.pump.with_node(|n, _| (n.target_mac(), n.init_done(), n.arp_failed()));
        let arp_out = rig
            .pump
            .frames()
            .iter()
            .filter(|f| f.direction == Direction::FromNode && f.ethertype() == Some(0x0806))
            .map(|f| f.bytes.clone())
            .collect::<Vec<_>>();
        let sent = rig.count(Counter::ArpRequestsSent);
        let received = rig.count(Counter::ArpRepliesReceived);
        (target, done, failed, rig.kernel_mac, sent, received, arp_out)
    });
    assert!(done && !failed, "init_done {done}, arp_failed {failed}, ARP requests sent {sent}");
    assert_eq!(target, Some(kernel_mac), "target_mac: the TAP's MAC is {}", mac_text(&kernel_mac));
    assert_eq!(received, 1, "ArpRepliesReceived");
    assert!(sent >= 1 && arp_out.len() as u64 == sent, "{sent} requests counted, {} ARP frames sent", arp_out.len());
    // The request went to broadcast asking for the kernel's address.
    let request = &arp_out[0];
    assert_eq!(&request[0..6], &[0xff; 6]);
    assert_eq!(&request[38..42], &KERNEL_IP.octets());
}

fn fixed_mac_mode(kind: Kind) {
    let (ping, log) = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::FixedMac, 1500, 1500, None);
        ip(&["neigh", "replace", "10.0.0.2", "lladdr", &mac_text(&FPGA_MAC), "dev", TAP, "nud", "permanent"])
            .unwrap_or_else(|e| panic!("{e}"));
        let ping = run_bounded("ping", &["-c", "3", "-i", "0.2", "-W", "3", "10.0.0.2"], Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e}"));
        let stopped = rig.pump.stop().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stopped.node.target_mac(), Some(rig.kernel_mac));
        (ping, stopped.log)
    });
    assert!(ping.status.success(), "{}: {}\n{}{}", ping.command, ping.status, ping.stdout, ping.stderr);
    assert!(ping.stdout.contains("3 received"), "{}", ping.stdout);
    let arp: Vec<_> = log.iter().filter(|f| f.ethertype() == Some(0x0806)).map(|f| f.direction).collect();
    assert!(
        arp.is_empty(),
        "ARP frames in a fixed-MAC run (node sends none; the kernel has a permanent entry): {arp:?}"
    );
    let replies = log.iter().filter(|f| f.direction == Direction::FromNode && f.ethertype() == Some(0x0800)).count();
    assert_eq!(replies, 3, "echo replies from the node");
}

/// One bad frame: what it is, the frame, and the one reason it must be
/// counted under.
struct Bad {
    name: &'static str,
    frame: Vec<u8>,
    reason: DropReason,
    /// Handed to the node below the padding instead of through the TAP.
    inject: bool,
}

fn bad_frames(kernel_mac: [u8; 6], mtu: usize) -> Vec<Bad> {
    let good_icmp = icmp_echo(8, 0x4242, 1, &[0x5a; 32]);
    let packet = |flags: u16, options: &[u8], icmp: &[u8]| ipv4(KERNEL_IP, FPGA_IP, 1, flags, options, icmp);
    let eth = |payload: &[u8]| ethernet(FPGA_MAC, kernel_mac, 0x0800, payload);
    let good = packet(0, &[], &good_icmp);

    let mut bad_checksum = good.clone();
    bad_checksum[10] ^= 0x01;
    let mut vlan = vec![0x00, 0x05, 0x08, 0x00]; // TCI (VLAN 5), then the IPv4 EtherType
    vlan.extend_from_slice(&good);
    let mut short_icmp = packet(0, &[], &good_icmp[..4]);
    short_icmp.truncate(24);
    let mut bad_icmp = good_icmp.clone();
    bad_icmp[2] ^= 0x80;
    let mut version6 = good.clone();
    version6[0] = 0x65; // version 6, IHL 5: the checksum is left wrong too, but version comes first
    let mut long_claim = good.clone();
    long_claim[2..4].copy_from_slice(&200u16.to_be_bytes()); // beyond the 74-byte frame
    long_claim[10..12].copy_from_slice(&[0, 0]);
    let c = checksum(&long_claim[..20]);
    long_claim[10..12].copy_from_slice(&c.to_be_bytes());
    let oversize_icmp = icmp_echo(8, 0x4242, 2, &vec![0xa5; mtu + 1 - 28]);
    let arp_for_us = arp(1, kernel_mac, KERNEL_IP, [0; 6], FPGA_IP);

    vec![
        Bad {
            name: "IPv4 header checksum wrong",
            frame: eth(&bad_checksum),
            reason: DropReason::Ipv4Checksum,
            inject: false,
        },
        Bad {
            name: "IPv4 options (IHL 6: NOP NOP NOP EOL)",
            frame: eth(&packet(0, &[1, 1, 1, 0], &good_icmp)),
            reason: DropReason::Ipv4Options,
            inject: false,
        },
        Bad {
            name: "a first fragment (MF)",
            frame: eth(&packet(0x2000, &[], &good_icmp)),
            reason: DropReason::Ipv4Fragment,
            inject: false,
        },
        Bad {
            name: "a later fragment (offset 8)",
            frame: eth(&packet(0x0001, &[], &good_icmp)),
            reason: DropReason::Ipv4Fragment,
            inject: false,
        },
        Bad {
            name: "another host's destination MAC",
            frame: ethernet([0x02, 0, 0x5e, 0x10, 0, 0x99], kernel_mac, 0x0800, &good),
            reason: DropReason::NotOurMac,
            inject: false,
        },
        Bad {
            name: "an 802.1Q VLAN tag",
            frame: ethernet(FPGA_MAC, kernel_mac, 0x8100, &vlan),
            reason: DropReason::VlanTag,
            inject: false,
        },
        Bad { name: "ICMP of 4 bytes", frame: eth(&short_icmp), reason: DropReason::IcmpTruncated, inject: false },
        Bad {
            name: "a frame of 14 + mtu + 1 bytes (IP total length mtu + 1), through a TAP of a larger MTU",
            frame: eth(&packet(0, &[], &oversize_icmp)),
            reason: DropReason::Oversize,
            inject: false,
        },
        Bad {
            name: "ICMP checksum wrong",
            frame: eth(&packet(0, &[], &bad_icmp)),
            reason: DropReason::IcmpChecksum,
            inject: false,
        },
        Bad {
            name: "ICMP timestamp request (type 13)",
            frame: eth(&packet(0, &[], &icmp_echo(13, 1, 1, &[0; 12]))),
            reason: DropReason::IcmpNotEchoRequest,
            inject: false,
        },
        Bad {
            name: "UDP",
            frame: eth(&ipv4(KERNEL_IP, FPGA_IP, 17, 0, &[], &[0x30, 0x39, 0x30, 0x39, 0, 12, 0, 0, 1, 2, 3, 4])),
            reason: DropReason::Ipv4Protocol,
            inject: false,
        },
        Bad {
            name: "IPv4 to another address",
            frame: eth(&ipv4(KERNEL_IP, Ipv4Addr::new(10, 0, 0, 3), 1, 0, &[], &good_icmp)),
            reason: DropReason::Ipv4NotForUs,
            inject: false,
        },
        Bad {
            name: "IP version 6 in an IPv4 EtherType",
            frame: eth(&version6),
            reason: DropReason::Ipv4Version,
            inject: false,
        },
        Bad {
            name: "IPv4 total length beyond the frame",
            frame: eth(&long_claim),
            reason: DropReason::Ipv4Length,
            inject: false,
        },
        Bad {
            name: "EtherType 0x88b5 (local experimental)",
            frame: ethernet(FPGA_MAC, kernel_mac, 0x88b5, &[0; 46]),
            reason: DropReason::EtherTypeUnknown,
            inject: false,
        },
        Bad {
            name: "ARP request for another address",
            frame: ethernet(
                [0xff; 6],
                kernel_mac,
                0x0806,
                &arp(1, kernel_mac, KERNEL_IP, [0; 6], Ipv4Addr::new(10, 0, 0, 3)),
            ),
            reason: DropReason::ArpNotForUs,
            inject: false,
        },
        Bad {
            name: "a 42-byte ARP request for the node, unpadded (runt)",
            frame: ethernet([0xff; 6], kernel_mac, 0x0806, &arp_for_us),
            reason: DropReason::Runt,
            inject: true,
        },
        Bad {
            name: "a 59-byte echo request (runt)",
            frame: {
                let mut f = eth(&good);
                f.truncate(59);
                f
            },
            reason: DropReason::Runt,
            inject: true,
        },
    ]
}

fn bad_frames_dropped(kind: Kind) {
    const NODE_MTU: usize = 1500;
    // The TAP's MTU is above the node's so the kernel lets the oversize
    // frame out of the packet socket; the node's MTU is what it checks.
    const TAP_MTU: usize = 1600;
    let mut rng = seeded_inputs::seed::rng("bad frames: echo ids");
    let id: u16 = rng.gen();
    let reports = in_ns(|| {
        let rig = Rig::start(kind, ArpMode::Server, NODE_MTU, TAP_MTU, None);
        // A permanent entry: the kernel sends no ARP of its own in between,
        // so every counter but the expected ones must stay still.
        ip(&["neigh", "replace", "10.0.0.2", "lladdr", &mac_text(&FPGA_MAC), "dev", TAP, "nud", "permanent"])
            .unwrap_or_else(|e| panic!("{e}"));
        let packets = PacketSocket::open(rig.ifindex);
        let icmp = RawIcmp::open();
        let mut reports = Vec::new();

        // The largest frame the node takes is answered: the oversize case
        // below is one byte past it.
        icmp.echo(id, 0, &vec![0x3c; NODE_MTU - 28]);

        for (i, bad) in bad_frames(rig.kernel_mac, NODE_MTU).into_iter().enumerate() {
            let before = rig.counters();
            let log_before = rig.pump.frame_count();
            if bad.inject {
                rig.pump.inject(bad.frame.clone());
            } else {
                packets.send(&bad.frame).unwrap_or_else(|e| panic!("{}: {e}", bad.name));
            }
            rig.wait_frames_in(before[Counter::FramesIn.index()] + 1, bad.name);
            // Time for an answer the node should not send.
            std::thread::sleep(Duration::from_millis(20));
            let after = rig.counters();
            let changed: Vec<String> = Counter::ALL
                .iter()
                .filter(|c| after[c.index()] != before[c.index()])
                .map(|c| format!("{c} +{}", after[c.index()] - before[c.index()]))
                .collect();
            let expected = [format!("{} +1", Counter::FramesIn), format!("{} +1", Counter::Dropped(bad.reason))];
            assert_eq!(changed, expected, "{}: counters that moved (all: {})", bad.name, rig.nonzero());
            let log = rig.pump.frames_from(log_before);
            let answers = log.iter().filter(|f| f.direction == Direction::FromNode).count();
            assert_eq!(answers, 0, "{}: the node sent {answers} frames back", bad.name);
            let seen = log.iter().find(|f| f.direction == Direction::ToNode).expect("the frame is in the log");
            assert_eq!(seen.original_len, bad.frame.len(), "{}: length on the wire", bad.name);
            assert_eq!(seen.injected, bad.inject);
            // The next good ping is answered.
            icmp.echo(id, 1 + i as u16, &[i as u8; 24]);
            reports.push(format!("{} -> {}", bad.name, bad.reason));
        }
        reports
    });
    for r in &reports {
        eprintln!("dropped: {r}");
    }
}

#[test]
fn the_runs_pcap_reads_back_with_tcpdump() {
    let path = temp_path("ping");
    let (log_len, kernel_mac) = in_ns(|| {
        let rig = Rig::start(Kind::Model, ArpMode::Server, 1500, 1500, Some(&path));
        run_bounded("ping", &["-c", "3", "-i", "0.2", "-W", "3", "10.0.0.2"], Duration::from_secs(20))
            .and_then(|o| o.checked())
            .unwrap_or_else(|e| panic!("{e}"));
        let stopped = rig.pump.stop().unwrap_or_else(|e| panic!("{e}"));
        (stopped.log.len(), rig.kernel_mac)
    });
    let lines = tcpdump_lines(&path);
    std::fs::remove_file(&path).ok();
    let text = lines.join("\n");
    assert_eq!(lines.len(), log_len, "tcpdump's frames vs the pump's log:\n{text}");
    let count = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    assert_eq!(count("10.0.0.1 > 10.0.0.2: ICMP echo request"), 3, "{text}");
    assert_eq!(count("10.0.0.2 > 10.0.0.1: ICMP echo reply"), 3, "{text}");
    assert_eq!(count("Request who-has 10.0.0.2 tell 10.0.0.1"), 1, "{text}");
    assert_eq!(count(&format!("Reply 10.0.0.2 is-at {}", mac_text(&FPGA_MAC))), 1, "{text}");
    // Both directions, with the right Ethernet addresses (-e).
    assert_eq!(count(&format!("{} > {}", mac_text(&FPGA_MAC), mac_text(&kernel_mac))), 4, "{text}");
}

#[test]
fn a_refused_namespace_is_one_clear_error() {
    // A thread whose effective capabilities lack CAP_SYS_ADMIN (capabilities
    // are per thread): in_private_namespace's own thread inherits that.
    let result = std::thread::spawn(|| {
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        const VERSION_3: u32 = 0x2008_0522;
        const CAP_SYS_ADMIN: u32 = 21;
        let mut header = Header { version: VERSION_3, pid: 0 };
        let mut data = [Data::default(); 2];
        // SAFETY: capget/capset with a version-3 header and two data words.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_capget, &mut header as *mut Header, data.as_mut_ptr()), 0);
            data[0].effective &= !(1 << CAP_SYS_ADMIN);
            assert_eq!(libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()), 0);
        }
        in_private_namespace(|| ()).map_err(|e| e.to_string())
    })
    .join()
    .unwrap();
    assert_eq!(
        result,
        Err("tap_harness: cannot create a private network namespace: unshare(CLONE_NEWNET): \
             Operation not permitted (run as root)"
            .to_string())
    );
}

// ------------------------------------------------ the tests, model and RTL

#[test]
fn ping_flood_of_ten_thousand_loses_nothing() {
    ping_flood(Kind::Model);
}

#[test]
fn arping_is_answered_and_the_kernel_learns_the_nodes_mac() {
    arping(Kind::Model);
}

#[test]
fn client_mode_resolves_the_kernels_mac() {
    client_mode(Kind::Model);
}

#[test]
fn fixed_mac_mode_sends_no_arp_and_answers_ping() {
    fixed_mac_mode(Kind::Model);
}

#[test]
fn bad_frames_are_dropped_counted_and_not_answered() {
    bad_frames_dropped(Kind::Model);
}

#[test]
fn rtl_at_64_bits_answers_a_thousand_random_echoes() {
    random_echoes(Kind::Rtl(64), 1500, 1000);
}

#[test]
fn rtl_at_1024_bits_answers_a_thousand_random_echoes() {
    random_echoes(Kind::Rtl(1024), 1500, 1000);
}

/// The widths between: the same thousand echoes, so every width meets the
/// kernel (the lockstep tests hold each to the model frame for frame).
#[test]
fn rtl_at_128_bits_answers_a_thousand_random_echoes() {
    random_echoes(Kind::Rtl(128), 1500, 1000);
}

#[test]
fn rtl_at_256_bits_answers_a_thousand_random_echoes() {
    random_echoes(Kind::Rtl(256), 1500, 1000);
}

#[test]
fn rtl_at_512_bits_answers_a_thousand_random_echoes() {
    random_echoes(Kind::Rtl(512), 1500, 1000);
}

#[test]
fn rtl_at_64_bits_loses_nothing_in_a_ping_flood() {
    ping_flood(Kind::Rtl(64));
}

#[test]
fn rtl_at_1024_bits_loses_nothing_in_a_ping_flood() {
    ping_flood(Kind::Rtl(1024));
}

#[test]
fn rtl_answers_arping_and_the_kernel_learns_its_mac() {
    arping(Kind::Rtl(64));
}

#[test]
fn rtl_in_client_mode_resolves_the_kernels_mac() {
    client_mode(Kind::Rtl(1024));
}

#[test]
fn rtl_in_fixed_mac_mode_sends_no_arp_and_answers_ping() {
    fixed_mac_mode(Kind::Rtl(64));
}

#[test]
fn rtl_drops_and_counts_bad_frames_and_answers_none() {
    bad_frames_dropped(Kind::Rtl(1024));
}
