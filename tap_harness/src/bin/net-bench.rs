//! `net-bench`: the open engine's network node (its RTL, verilated) measured
//! in its own clock cycles: ICMP echo requests back to back and the round
//! trip of one. See `--help`; `make bench` runs it.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use net_model::frames::{echo_request, Ends};
use net_model::{ArpMode, NodeConfig};
use tap_harness::rtl::{parse_width, BackToBack, RoundTrip, BACK_TO_BACK_MAX};
use tap_harness::{HarnessError, RtlNode};

/// Frame sizes measured: the smallest echo request most hosts send and the
/// largest at MTU 1500 (bytes without FCS).
const FRAME_SIZES: [usize; 2] = [64, 1514];
/// The user clock the figures are turned into time at.
const CLOCK_MHZ: u64 = 250;

const AFTER_HELP: &str = "\
What it measures, per width (cycles of the node's clock, counted by the model, never wall time):
  back to back   --frames identical echo requests of 64 and of 1,514 bytes, no idle beat
                 between them, m_tready = 1; cycles from the first request beat in to the
                 last reply beat out. Against the wire's limit: one frame per its beats
                 (ceil(bytes / (W/8))), the rate the requests came in at.
  round trip     one request on an idle node: first beat in to first beat out, last beat
                 in to last beat out, in cycles and in ns at 250 MHz.
Every reply is checked byte for byte against net_model's reply to the same request.

Exit status: 0; 1 when a reply is missing, extra or wrong (the reason is printed) or the
node cannot be built; 2 for bad arguments.";

/// The open engine's network node (Ethernet, ARP, IPv4, ICMP echo), its
/// Verilog verilated at each width, measured in its own clock cycles:
/// echo requests back to back against the wire's limit, and the round trip
/// of one request. Prints one Markdown table per width.
#[derive(Parser, Debug)]
#[command(name = "net-bench", version, after_help = AFTER_HELP)]
struct Args {
    /// Data widths to measure, comma-separated (64, 128, 256, 512, 1024).
    #[arg(long, value_delimiter = ',', value_name = "W,...", value_parser = parse_width,
          default_values_t = config::DATA_WIDTHS)]
    widths: Vec<usize>,

    /// Echo requests in each back-to-back run.
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u64).range(2..=BACK_TO_BACK_MAX))]
    frames: u64,

    /// Where the verilated node is kept between runs [default: $TAP_NODE_CACHE, else target/tap-node-cache].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
}

/// The node measured: server mode (it sends nothing unasked), MTU 1500.
fn node_config() -> NodeConfig {
    NodeConfig::new(
        [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02],
        Ipv4Addr::new(10, 0, 0, 2),
        Ipv4Addr::new(10, 0, 0, 1),
        ArpMode::Server,
    )
}

/// An echo request of `bytes` bytes (42 of headers, the rest data) to the node.
fn request(cfg: &NodeConfig, bytes: usize) -> Vec<u8> {
    let ends =
        Ends { src_mac: [0x02, 0, 0, 0, 0, 0x01], dst_mac: cfg.fpga_mac, src_ip: cfg.target_ip, dst_ip: cfg.fpga_ip };
    let data: Vec<u8> = (0..bytes - 42).map(|i| i as u8).collect();
    echo_request(ends, 0x4e42, 1, &data)
}

fn ns(cycles: u64) -> u64 {
    cycles * 1000 / CLOCK_MHZ
}

/// One width's table: a row per frame size.
fn table(width: usize, frames: u64, rows: &[(BackToBack, RoundTrip)]) -> String {
    let mut t = format!(
        "{width} bits ({} bytes a beat)\n\n\
         | frame | beats | {frames} back to back: cycles | frames/cycle | wire: 1/beats | of wire (run) | of wire (replies' own rate) | round trip first->first | last->last |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        width / 8
    );
    for (b, r) in rows {
        let steady = b.steady_of_wire().map_or("-".to_string(), |v| format!("{v:.3}"));
        t.push_str(&format!(
            "| {} B | {} | {} | {:.4} | {:.4} | {:.3} | {steady} | {} cycles ({} ns) | {} cycles ({} ns) |\n",
            b.frame_bytes,
            b.beats,
            b.cycles,
            b.frames_per_cycle(),
            b.wire_frames_per_cycle(),
            b.of_wire(),
            r.first_to_first,
            ns(r.first_to_first),
            r.last_to_last,
            ns(r.last_to_last),
        ));
    }
    t
}

fn run(args: &Args) -> Result<(), HarnessError> {
    let cache = args.cache.clone().unwrap_or_else(tap_harness::rtl::default_cache);
    let cfg = node_config();
    println!(
        "The open engine's network node (hdl::net), verilated, MTU {}: cycles of its clock; ns at {CLOCK_MHZ} MHz",
        cfg.mtu
    );
    let mut widths = args.widths.clone();
    widths.dedup();
    for width in widths {
        let node = RtlNode::build(width, &cfg, &cache, move |m| eprintln!("net-bench: {width} bits: {m}"))?;
        let mut rows = Vec::new();
        for bytes in FRAME_SIZES {
            let req = request(&cfg, bytes);
            let trip = node.round_trip(&req)?;
            let b2b = node.back_to_back(&req, args.frames)?;
            rows.push((b2b, trip));
        }
        println!("\n{}", table(width, args.frames, &rows));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("net-bench: {e}");
            ExitCode::from(1)
        }
    }
}
