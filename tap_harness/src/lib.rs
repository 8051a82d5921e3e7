//! A network node on a TAP device in a private network namespace, met by the
//! real Linux kernel: the kernel's `ping`, `arping`, raw sockets and ARP
//! table talk to the node as to a host on an Ethernet, and every frame both
//! ways lands in a pcap file that `tcpdump -r` reads.
//!
//! The node is anything that implements [`FrameNode`]: the plain-Rust model
//! `net_model::NetNode`, the model with receiving TCP sessions in front of
//! it ([`Receiver`], `tap-node --tcp N`: the kernel's TCP stack sends into
//! it, every byte checked against the incremental pattern), or the node's
//! RTL verilated at a data width ([`RtlNode`], `tap-node --rtl WIDTH`). The
//! pump can lose, reorder, duplicate and corrupt the kernel's frames from a
//! seed ([`pump::Faults`]), as netem would.
//!
//! ```text
//!  host namespace: never touched
//!  +-----------------------------------------------------------------------+
//!  | calling thread --- in_private_namespace(f) ---+                       |
//!  |                                               | new thread:           |
//!  |  private namespace (dies with the thread)     v unshare(CLONE_NEWNET) |
//!  |  +-----------------------------------------------------------------+  |
//!  |  | lo up; f() runs here: ping, arping, ip, raw and packet sockets  |  |
//!  |  |                                                                 |  |
//!  |  | kernel IPv4 stack: 10.0.0.1/24 on tap0 (IPv6 off on tap0)       |  |
//!  |  |      | frames the kernel sends        ^ frames it receives      |  |
//!  |  |  +---v--------------------------------+----------------------+  |  |
//!  |  |  | tap0: /dev/net/tun, IFF_TAP | IFF_NO_PI, non-blocking fd  |  |  |
//!  |  |  +---+--------------------------------^----------------------+  |  |
//!  |  |      | read (poll, at most 1 ms)      | write                   |  |
//!  |  |  +---v--------------------------------+----------------------+  |  |
//!  |  |  | Pump thread (stop flag, frame log)                        |  |  |
//!  |  |  |  pad to 60 bytes    inject() (below the padding: runts)   |  |  |
//!  |  |  |      |                  |                                 |  |  |
//!  |  |  |      +-------+----------+        pcap <-- every frame     |  |  |
//!  |  |  |              v                   both ways                |  |  |
//!  |  |  |  node.receive(frame, now)    node.transmit(now)           |  |  |
//!  |  |  +--------------+-----------------------^--------------------+  |  |
//!  |  |  +--------------v-----------------------+--------------------+  |  |
//!  |  |  | FrameNode: net_model::NetNode, or RtlNode (verilated RTL) |  |  |
//!  |  |  | 10.0.0.2, 02:00:5e:10:00:02; now = 250 MHz cycles         |  |  |
//!  |  |  +-----------------------------------------------------------+  |  |
//!  |  +-----------------------------------------------------------------+  |
//!  +-----------------------------------------------------------------------+
//! ```
//!
//! - [`in_private_namespace`] runs a closure on a new thread that has
//!   `unshare(CLONE_NEWNET)`: a network namespace belongs to a thread, so
//!   the caller and the host keep theirs; sockets, threads and processes
//!   made on that thread live in the new one, and it goes when they do.
//!   Without root, `/dev/net/tun` or `unshare` the error is one line, e.g.
//!   `tap_harness: cannot create a private network namespace:
//!   unshare(CLONE_NEWNET): Operation not permitted (run as root)`.
//! - [`Tap::create`] makes the TAP with a name and MTU, brings it up and gives
//!   the kernel its address by running `ip` (a failing command is an error
//!   that names it); [`Tap::attach`] opens a TAP someone else made.
//! - [`Pump`] is the wire: frames the kernel sends are padded with zeros to
//!   60 bytes as a NIC pads them, recorded, and given to the node; after
//!   each, the node's frames go to the TAP (so a transmit buffer sized for
//!   two frames is never flooded by a burst the kernel queued at once); when
//!   nothing moves it waits at most 1 ms, so the node's timers (client-mode
//!   ARP retries) run. `now` is wall time since the pump started, in cycles
//!   of the 250 MHz user clock ([`pump::DEFAULT_CLOCK_HZ`]). [`Pump::inject`]
//!   hands a frame to the node below the padding (runts); [`Pump::frames`]
//!   is the log of what went each way, for tests.
//! - [`PcapWriter`] writes classic libpcap files (magic `a1b2c3d4`, version
//!   2.4, snaplen 65535, link type 1 Ethernet), one record per frame each way.
//!
//! # Commands
//!
//! The binary `tap-node` does it all for a person (run as root):
//!
//! ```sh
//! cargo run -p tap_harness --bin tap-node -- -- ping -c 3 10.0.0.2          # ping the model node
//! cargo run -p tap_harness --bin tap-node -- --pcap run.pcap -- ping -c 3 10.0.0.2
//! tcpdump -n -e -r run.pcap                                                  # every frame, both ways
//! cargo run -p tap_harness --bin tap-node -- -- arping -c 3 -i tap0 10.0.0.2
//! cargo run -p tap_harness --bin tap-node -- -- ping -f -c 10000 10.0.0.2   # flood
//! cargo run -p tap_harness --bin tap-node -- --mtu 9000 -- ping -c 3 -s 8972 -M do 10.0.0.2
//! cargo run -p tap_harness --bin tap-node -- --mode client -- bash          # a shell in the namespace
//! cargo run -p tap_harness --bin tap-node -- --mode fixed -- ping -c 3 10.0.0.2
//! ```
//!
//! It makes the namespace and `tap0` (the kernel at `--target-ip`
//! 10.0.0.1/24), runs the node (`--fpga-ip` 10.0.0.2, `--fpga-mac`
//! 02:00:5e:10:00:02, `--mode server` by default, `--mtu 1500`), runs the
//! command in the namespace, prints the node's nonzero counters on stderr
//! and exits with the command's status. In fixed-MAC mode the node takes no
//! ARP, so it first gives the kernel a permanent neighbour entry for the
//! node (`ip neigh replace 10.0.0.2 lladdr <fpga mac> dev tap0 nud
//! permanent`); the node's target MAC is the TAP's unless `--target-mac`
//! says otherwise.
//!
//! To serve a TAP in a namespace you made yourself (it runs until Ctrl-C or
//! SIGTERM, then prints the counters):
//!
//! ```sh
//! ip netns add tn
//! ip netns exec tn ip link set lo up
//! ip netns exec tn ip tuntap add tap0 mode tap
//! ip netns exec tn ip link set tap0 up
//! ip netns exec tn ip addr add 10.0.0.1/24 dev tap0
//! cargo build -p tap_harness --bin tap-node
//! ip netns exec tn target/debug/tap-node --attach tap0 &
//! ip netns exec tn ping -c 3 10.0.0.2
//! kill %1                      # the node prints its counters
//! ip netns del tn
//! ```
//!
//! The tests (`cargo test -p tap_harness`, as root) run the kernel against
//! the model this way: `tests/kernel.rs` (random echoes at MTU 1500 and 9000,
//! `ping -f`, `arping`, client and fixed-MAC ARP, bad frames, the pcap read
//! by `tcpdump`), `tests/tcp_kernel.rs` (`tcpdatatest`, iperf 2 and plain
//! sockets through faults into TCP sessions) and `tests/tap_node.rs` (the
//! binary).
//!
//! # In code
//!
//! ```
//! use std::net::Ipv4Addr;
//! use net_model::{ArpMode, Counter, NetNode, NodeConfig};
//! use tap_harness::{in_private_namespace, run_bounded, Pump, PumpOptions, Tap, TapConfig};
//!
//! let answered = in_private_namespace(|| {
//!     let tap = Tap::create(&TapConfig::new("tap0", Ipv4Addr::new(10, 0, 0, 1)))?;
//!     let cfg = NodeConfig::new([2, 0, 0x5e, 0x10, 0, 2], Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1), ArpMode::Server);
//!     let mut node = NetNode::new(cfg).expect("a valid configuration");
//!     node.init(0);
//!     let pump = Pump::start(tap, node, PumpOptions::default())?;
//!     run_bounded("ping", &["-c", "3", "10.0.0.2"], std::time::Duration::from_secs(10))?.checked()?;
//!     Ok::<_, tap_harness::HarnessError>(pump.with_node(|n, _| n.count(Counter::IcmpEchoesAnswered)))
//! })??;
//! assert_eq!(answered, 3);
//! # Ok::<(), tap_harness::HarnessError>(())
//! ```

mod error;
pub mod namespace;
pub mod pcap;
pub mod pump;
pub mod receiver;
pub mod rtl;
mod sys;
pub mod tap;

pub use error::HarnessError;
pub use namespace::{in_private_namespace, ip, kernel_counter, run_bounded, workspace_binary, CommandOutput};
pub use pcap::PcapWriter;
pub use pump::{Direction, FrameNode, LoggedFrame, Pump, PumpOptions, PumpStats, Stopped};
pub use receiver::{Received, Receiver, ReceiverOptions};
pub use rtl::{AnyNode, RtlNode};
pub use tap::{Tap, TapConfig};
