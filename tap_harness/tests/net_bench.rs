//! The node's cycle measurements (`RtlNode::back_to_back`, `round_trip`)
//! held to the figures the design's pipeline implies (`tap_harness::rtl`'s
//! docs), and `net-bench`'s bad-option errors.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

mod common;

use net_model::frames::{echo_request, Ends};
use net_model::{ArpMode, NodeConfig};
use tap_harness::rtl::{ANSWER_CYCLES_AFTER_LAST, BACK_TO_BACK_MAX};
use tap_harness::RtlNode;

const BIN: &str = env!("CARGO_BIN_EXE_net-bench");

/// From a request's last beat taken (edge k) to its reply's first beat
/// taken, as `hdl::net` documents its pipeline: the receiver's ten stages
/// decide the frame and write its last beat with the descriptor (k + 10),
/// the descriptor FIFO writes it (k + 11), the transmitter loads it
/// (k + 12), the frame RAM's registered read returns the first beat
/// (k + 13), the out buffer holds it (k + 14), the MAC takes it (k + 15).
const ANSWER: u64 = 10 + 1 + 1 + 1 + 1 + 1;

fn cfg() -> NodeConfig {
    NodeConfig::new(
        [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02],
        Ipv4Addr::new(10, 0, 0, 2),
        Ipv4Addr::new(10, 0, 0, 1),
        ArpMode::Server,
    )
}

/// An echo request of `bytes` bytes to the node (`to` its IPv4 address).
fn request(bytes: usize, to: Ipv4Addr) -> Vec<u8> {
    let c = cfg();
    let ends = Ends { src_mac: [0x02, 0, 0, 0, 0, 0x01], dst_mac: c.fpga_mac, src_ip: c.target_ip, dst_ip: to };
    let data: Vec<u8> = (0..bytes - 42).map(|i| (i * 7) as u8).collect();
    let f = echo_request(ends, 0x1234, 9, &data);
    assert_eq!(f.len(), bytes);
    f
}

/// The node at `width` bits, in the cache the kernel tests share.
fn node(width: usize) -> RtlNode {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tap_rtl");
    RtlNode::build(width, &cfg(), &cache, move |m| eprintln!("RTL node at {width} bits: {m}"))
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_pipeline_constant_is_the_documented_one() {
    assert_eq!(ANSWER_CYCLES_AFTER_LAST, ANSWER);
}

#[test]
fn at_64_bits_the_node_answers_on_the_cycles_its_pipeline_implies() {
    let n = node(64);
    let ip = cfg().fpga_ip;
    // 64 bytes: 8 whole beats; 1514: 189 whole beats and one of 2 bytes.
    for (bytes, beats) in [(64, 8), (1514, 190)] {
        let r = n.round_trip(&request(bytes, ip)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.beats, beats);
        // The reply starts ANSWER cycles after the request's last beat and
        // is as long as the request: both spans are B - 1 + ANSWER.
        assert_eq!((r.first_to_first, r.last_to_last), (beats - 1 + ANSWER, beats - 1 + ANSWER), "{bytes} bytes");
    }
    for (bytes, beats, frames) in [(64, 8, 5), (1514, 190, 3)] {
        let b = n.back_to_back(&request(bytes, ip), frames).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.beats, beats);
        // The requests' beats, then the last one's round trip.
        assert_eq!(b.cycles, frames * beats + beats - 1 + ANSWER, "{frames} x {bytes} bytes");
        // Replies leave one per `beats` cycles, the wire's rate.
        assert_eq!(b.steady_cycles, (frames - 1) * beats, "{frames} x {bytes} bytes");
        assert_eq!(b.steady_of_wire(), Some(1.0));
    }
    // An idle node between runs: the same figures again.
    let again = n.back_to_back(&request(64, ip), 5).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.cycles, 5 * 8 + 8 - 1 + ANSWER);
}

#[test]
fn at_1024_bits_one_beat_frames_back_to_back_take_frames_plus_the_answer_cycles() {
    let n = node(1024);
    let req = request(64, cfg().fpga_ip);
    let b = n.back_to_back(&req, 50).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((b.beats, b.cycles, b.steady_cycles), (1, 50 + ANSWER, 49));
    assert_eq!(b.frames_per_cycle(), 50.0 / 65.0);
    assert_eq!(b.of_wire(), 50.0 / 65.0);
    let r = n.round_trip(&req).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((r.first_to_first, r.last_to_last), (ANSWER, ANSWER));
}

#[test]
fn bad_measurements_are_errors_that_say_why() {
    let n = node(64);
    let req = request(64, cfg().fpga_ip);
    for frames in [0, BACK_TO_BACK_MAX + 1] {
        let e = n.back_to_back(&req, frames).unwrap_err().to_string();
        assert_eq!(e, format!("tap_harness: back_to_back: frames = {frames} is out of range: 1 ..= 100000"));
    }
    let e = n.round_trip(&request(64, Ipv4Addr::new(10, 0, 0, 9))).unwrap_err().to_string();
    assert!(e.contains("net_model does not answer it (dropped as ipv4_not_for_us)"), "{e}");
    // The node still measures after the refusals.
    assert_eq!(n.round_trip(&req).unwrap_or_else(|e| panic!("{e}")).first_to_first, 7 + ANSWER);
}

/// Runs net-bench with `args`, at most 60 s.
fn net_bench(args: &[&str]) -> Output {
    common::run_bounded_bin(BIN, args, Duration::from_secs(60))
}

#[test]
fn bad_options_name_the_option_and_its_range_and_exit_2() {
    for (args, says) in [
        (&["--widths", "64,96"][..], ["--widths", "\"96\" is not a data width: use 64, 128, 256, 512 or 1024"]),
        (&["--frames", "1"][..], ["--frames", "1 is not in 2..=100000"]),
        (&["--frames", "many"][..], ["--frames", "invalid digit"]),
    ] {
        let out = net_bench(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for s in says {
            assert!(err.contains(s), "{args:?}: {err}");
        }
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let help = net_bench(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    for s in ["--widths", "--frames", "--cache", "TAP_NODE_CACHE", "back to back", "round trip"] {
        assert!(text.contains(s), "--help lacks {s}: {text}");
    }
}

#[test]
fn a_small_run_prints_a_table_per_width() {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tap_rtl");
    let out = net_bench(&["--widths", "1024", "--frames", "10", "--cache", cache.to_str().expect("utf-8 path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1024 bits (128 bytes a beat)"), "{text}");
    // 10 one-beat frames: 10 + 15 cycles; the round trip 15 cycles, 60 ns.
    assert!(
        text.contains("| 64 B | 1 | 25 | 0.4000 | 1.0000 | 0.400 | 1.000 | 15 cycles (60 ns) | 15 cycles (60 ns) |"),
        "{text}"
    );
    assert!(!text.contains("64 bits"), "{text}");
}
