//! The yardstick loopback wrapper (issue 14): a testbench artefact, not a
//! product output (`cargo run -p gen` does not write it).
//!
//! `../shared/yardstick/compare.sh` measures the generated datapath beside a
//! small hand-written design of the same job. It needs a module `top` with
//! the yardstick's own port list ([`contract`]) around the project's design.
//! [`yardstick`] builds one from the typed port list of the session datapath
//! ([`hdl::verilog::datapath_ports`]), never from its Verilog:
//!
//! ```text
//!   en --rising edge--> tx_start, rx_start (one pulse)
//!   rst, pct --register--------> reset, tx_percent    rx_percent = 100
//!           +---------------------------------------------------------+
//!           | datapath: generator -> tx_limiter  rx_limiter -> verifier |
//!           +---------------|------------------------^----------------+
//!                      tx_t* |                        | rx_t*
//!                            +--> link register ------+
//!                                 (data bit XOR inject)
//!   err = rx_error      err_cnt = rx_err_count ^ every other status output
//!   tx_beats, rx_beats = tx_bytes, rx_bytes / bytes per beat
//! ```
//!
//! Every datapath input is driven by [`input_net`]; an input it does not
//! know is an error naming the port, so a new datapath port cannot be left
//! floating. Every datapath output other than the looped stream and the
//! sticky error is folded into `err_cnt`, so a new status output is kept live
//! without anyone listing it.

use askama::Template;
use config::ports::{range, Direction, Group, Port};

use crate::rtl::{Conn, Wire};
use crate::{GenError, GeneratedFile};

/// The wrapper's module name, as `compare.sh` and the yardstick's drivers expect.
pub const WRAPPER_MODULE: &str = "top";

/// Bytes of each packet: 8 KiB.
pub const PACKET_BYTES: u64 = 8192;

/// Bytes of the endless transfer: the largest whole number of packets below
/// 2^48 (the transfer size is a 48-bit field), so every beat is full at every
/// data width and the transfer never ends in a measurement.
pub const TRANSFER_BYTES: u64 = (1 << 48) - PACKET_BYTES;

/// The data bit `inject` flips, as the yardstick's reference does (bit 160);
/// at widths of 160 bits or less, bit 160 modulo the width.
pub const INJECT_BIT: usize = 160;

/// The datapath's children that `compare.sh` synthesises alone: the fields
/// of [`hdl::Datapath`], instances of `<name>_traffic_generator` and
/// `<name>_data_verifier`.
pub const GENERATOR_FIELD: &str = "generator";
pub const VERIFIER_FIELD: &str = "verifier";

/// The yardstick's port list (`../shared/yardstick/README.md`), in its
/// order. The names are the yardstick's, not the user logic's, so each port
/// is in `Group::Pin` (named by whoever the design is plugged into).
pub fn contract() -> Vec<Port> {
    use Direction::{Input, Output};
    [
        ("clk", Input, 1),
        ("rst", Input, 1),
        ("en", Input, 1),
        ("seed", Input, 32),
        ("pct", Input, 7),
        ("inject", Input, 1),
        ("err", Output, 1),
        ("err_cnt", Output, 32),
        ("tx_beats", Output, 48),
        ("rx_beats", Output, 48),
    ]
    .into_iter()
    .map(|(name, direction, width)| Port::new(Group::Pin, name, direction, width))
    .collect()
}

/// The wrapper, the datapath it instantiates, and the names `compare.sh`
/// needs.
pub struct Yardstick {
    /// `top.v`: the wrapper.
    pub wrapper: GeneratedFile,
    /// The session datapath's modules, one a file, children first
    /// (`<module>.v`, as `gen` writes them).
    pub datapath: Vec<GeneratedFile>,
    /// The datapath's module name.
    pub datapath_module: String,
    /// The generator's module (`<name>_traffic_generator`).
    pub generator_module: String,
    /// The verifier's module (`<name>_data_verifier`).
    pub verifier_module: String,
    /// The wrapper's ports: [`contract`].
    pub ports: Vec<Port>,
}

impl Yardstick {
    /// Every file, wrapper first (`compare.sh WRAPPER.v MORE.v...`).
    pub fn files(&self) -> Vec<&GeneratedFile> {
        std::iter::once(&self.wrapper).chain(&self.datapath).collect()
    }
}

/// The datapath's module name in the yardstick build.
pub fn datapath_module(design: &config::Design) -> String {
    format!("{}_datapath", design.name)
}

fn hdl_error(message: String) -> GenError {
    GenError::Hdl(hdl::verilog::HdlError(message))
}

/// The module of the datapath's child `field` among `children` (field,
/// module), or an error naming it.
fn child(children: &[(String, String)], field: &str) -> Result<String, GenError> {
    match children.iter().find(|(f, _)| f == field) {
        Some((_, module)) => Ok(module.clone()),
        None => {
            let fields: Vec<&str> = children.iter().map(|(f, _)| f.as_str()).collect();
            Err(hdl_error(format!("the datapath has no child `{field}` (children: {})", fields.join(", "))))
        }
    }
}

/// The wrapper's net for each datapath input. The start pulse, the loop
/// register and the constants are the wrapper's; `rst` and `pct` reach the
/// datapath through a register each, as in the product, where the reset
/// comes from the platform's synchroniser and the percent from the session's
/// latched parameters (a top-level input read by next-state logic would put
/// that logic in Verilator's input-combinational region, evaluated on every
/// `eval()`).
fn input_net(port: &Port) -> Result<String, GenError> {
    let constant = |value: u64| format!("{}'d{value}", port.width);
    Ok(match port.local.as_str() {
        "clock" => "clk".into(),
        "reset" => "rst_reg".into(),
        "tx_start" | "rx_start" => "start_reg".into(),
        "tx_abort" | "tx_clear" | "tx_stop" | "open_ended" | "prefix_length" | "prefix_only" | "tx_prefix"
        | "rx_end" | "rx_clear" => constant(0),
        // The latency modes (issue 29) stay off: the yardstick is a throughput loop.
        "messages" | "msg_start" | "msg_go" | "msg_initiator" | "msg_request_size" | "msg_response_size"
        | "msg_request_count" | "msg_outstanding" | "hist_index" => constant(0),
        "transfer_size" => constant(TRANSFER_BYTES),
        "packet_size" => constant(PACKET_BYTES),
        "pattern" | "verify" => constant(1),
        "tx_percent" => "pct_reg".into(),
        "rx_percent" => constant(100),
        "tx_tready" => "link_ready".into(),
        "rx_tdata" => "link_data_reg".into(),
        "rx_tkeep" => "link_keep_reg".into(),
        "rx_tlast" => "link_last_reg".into(),
        "rx_tvalid" => "link_valid_reg".into(),
        other => {
            return Err(hdl_error(format!("the yardstick wrapper does not know how to drive datapath input `{other}`")))
        }
    })
}

/// Whether `err_cnt` folds the first-error record in (`Live`, as the
/// yardstick's table measures by default) or leaves it unconnected, so
/// Verilator and yosys prune the record's logic (`Pruned`, the issue's
/// second simulation figure).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Record {
    /// Folded into `err_cnt`, as in the product.
    Live,
    /// Left unconnected: Verilator and yosys prune its logic.
    Pruned,
}

/// The datapath outputs that carry the first-error record (not its count).
pub const RECORD_OUTPUTS: [&str; 5] =
    ["rx_err_valid", "rx_err_cause", "rx_err_offset", "rx_err_expected", "rx_err_received"];

/// Datapath outputs the wrapper consumes itself (the looped stream, the
/// sticky error and the error count); every other output is folded.
const NOT_FOLDED: [&str; 7] =
    ["tx_tdata", "tx_tkeep", "tx_tlast", "tx_tvalid", "rx_tready", "rx_error", "rx_err_count"];

/// The net of datapath output `name` in the wrapper.
fn output_net(name: &str) -> String {
    format!("dp_{name}")
}

/// `net` (of `width` bits) as 32-bit terms to XOR together, zero-extended.
fn fold_terms(net: &str, width: usize) -> Vec<String> {
    (0..width.div_ceil(32))
        .map(|i| {
            let (lo, hi) = (32 * i, (32 * i + 31).min(width - 1));
            let slice = match (width, hi - lo + 1) {
                (w, n) if w == n => net.to_string(),
                (_, 1) => format!("{net}[{lo}]"),
                _ => format!("{net}[{hi}:{lo}]"),
            };
            match 31 - (hi - lo) {
                0 => slice,
                pad => format!("{{{pad}'d0, {slice}}}"),
            }
        })
        .collect()
}

struct Fold {
    /// The datapath output folded in.
    output: String,
    terms: Vec<String>,
}

#[derive(Template)]
#[template(path = "yardstick_top.v", escape = "none")]
struct WrapperTemplate<'a> {
    name: &'a str,
    datapath: &'a str,
    data_width: usize,
    ports: Vec<String>,
    transfer_bytes: u64,
    packet_bytes: u64,
    inject_bit: usize,
    beat_bytes: usize,
    data_range: String,
    keep_range: String,
    /// `dp_tx_tdata` with bit `inject_bit` XORed with `inject`.
    injected: String,
    outputs: Vec<Wire>,
    conns: Vec<Conn>,
    err_count: String,
    folds: Vec<Fold>,
    /// `err_cnt` folds the first-error record in.
    record_live: bool,
    tx_beats: String,
    rx_beats: String,
}

/// The yardstick build of `design`: one session datapath of the configured
/// width in the loopback wrapper `top`, the first-error record live.
pub fn yardstick(design: &config::Design) -> Result<Yardstick, GenError> {
    yardstick_with(design, Record::Live)
}

/// [`yardstick`], with the first-error record live or pruned.
pub fn yardstick_with(design: &config::Design, record: Record) -> Result<Yardstick, GenError> {
    let module = datapath_module(design);
    let modules = hdl::verilog::datapath_modules(design.data_width, &design.name)?;
    let ports = hdl::verilog::datapath_ports(design.data_width)?;
    let children = hdl::verilog::datapath_children(design.data_width, &design.name)?;
    let generator_module = child(&children, GENERATOR_FIELD)?;
    let verifier_module = child(&children, VERIFIER_FIELD)?;

    let find = |name: &str, direction: Direction| {
        ports
            .iter()
            .find(|p| p.name == name && p.direction == direction)
            .ok_or_else(|| hdl_error(format!("the datapath has no {} `{name}`", direction.keyword())))
    };
    let data = find("tx_tdata", Direction::Output)?;
    let keep = find("tx_tkeep", Direction::Output)?;
    for (tx, rx) in
        [("tx_tdata", "rx_tdata"), ("tx_tkeep", "rx_tkeep"), ("tx_tlast", "rx_tlast"), ("tx_tvalid", "rx_tvalid")]
    {
        let (tx, rx) = (find(tx, Direction::Output)?, find(rx, Direction::Input)?);
        if tx.width != rx.width {
            return Err(hdl_error(format!(
                "cannot loop `{}` ({} bits) into `{}` ({} bits)",
                tx.name, tx.width, rx.name, rx.width
            )));
        }
    }
    let beat_bytes = keep.width;
    if data.width != 8 * beat_bytes || !beat_bytes.is_power_of_two() {
        return Err(hdl_error(format!("{} bits of data with {beat_bytes} keep bits: not whole bytes", data.width)));
    }
    let shift = beat_bytes.trailing_zeros() as usize;
    let beats = |name: &str| -> Result<String, GenError> {
        let bytes = find(name, Direction::Output)?;
        if bytes.width < shift + 48 {
            return Err(hdl_error(format!("`{name}` ({} bits) is too narrow for a 48-bit beat count", bytes.width)));
        }
        Ok(format!("{}[{}:{shift}]", output_net(name), shift + 47))
    };
    let err_count = find("rx_err_count", Direction::Output)?;
    if err_count.width != 32 {
        return Err(hdl_error(format!("`rx_err_count` is {} bits, `err_cnt` 32", err_count.width)));
    }
    find("rx_error", Direction::Output)?;
    find("rx_tready", Direction::Output)?;

    let mut outputs = Vec::new();
    let mut conns = Vec::new();
    let mut folds = Vec::new();
    for p in &ports {
        let net = match p.direction {
            Direction::Input => input_net(p)?,
            Direction::Output => {
                let net = output_net(&p.name);
                outputs.push(Wire { range: range(p.width), name: net.clone() });
                let pruned = record == Record::Pruned && RECORD_OUTPUTS.contains(&p.name.as_str());
                if !NOT_FOLDED.contains(&p.name.as_str()) && !pruned {
                    folds.push(Fold { output: p.name.clone(), terms: fold_terms(&net, p.width) });
                }
                net
            }
        };
        conns.push(Conn { port: p.name.clone(), net });
    }

    let inject_bit = INJECT_BIT % data.width;
    let tdata = output_net(&data.name);
    let injected = match (data.width - 1 - inject_bit, inject_bit) {
        (0, lo) => format!("{tdata} ^ {{inject, {lo}'d0}}"),
        (hi, 0) => format!("{tdata} ^ {{{hi}'d0, inject}}"),
        (hi, lo) => format!("{tdata} ^ {{{hi}'d0, inject, {lo}'d0}}"),
    };
    let contract = contract();
    let wrapper = WrapperTemplate {
        name: WRAPPER_MODULE,
        datapath: &module,
        data_width: design.data_width,
        ports: contract.iter().map(Port::declaration).collect(),
        transfer_bytes: TRANSFER_BYTES,
        packet_bytes: PACKET_BYTES,
        inject_bit,
        beat_bytes,
        data_range: range(data.width),
        keep_range: range(keep.width),
        injected,
        outputs,
        conns,
        err_count: output_net("rx_err_count"),
        folds,
        record_live: record == Record::Live,
        tx_beats: beats("tx_bytes")?,
        rx_beats: beats("rx_bytes")?,
    }
    .render()
    .map_err(|e| GenError::Template(e.to_string()))?;
    Ok(Yardstick {
        wrapper: GeneratedFile { path: format!("{WRAPPER_MODULE}.v"), contents: design.verilog_file(&wrapper) },
        datapath: modules
            .iter()
            .map(|m| GeneratedFile { path: format!("{}.v", m.name), contents: design.verilog_file(&m.text) })
            .collect(),
        datapath_module: module,
        generator_module,
        verifier_module,
        ports: contract,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_design() -> config::Design {
        crate::parse_config(config::DEFAULT_TOML).unwrap()
    }

    fn at_width(width: usize) -> config::Design {
        config::Design { data_width: width, ..default_design() }
    }

    /// The port list of `../shared/yardstick/README.md`, written out once
    /// more so a change to [`contract`] has to change this too.
    #[test]
    fn the_contract_is_the_yardsticks_port_list() {
        let got: Vec<_> = contract().into_iter().map(|p| (p.name, p.direction, p.width)).collect();
        let want = [
            ("clk", Direction::Input, 1),
            ("rst", Direction::Input, 1),
            ("en", Direction::Input, 1),
            ("seed", Direction::Input, 32),
            ("pct", Direction::Input, 7),
            ("inject", Direction::Input, 1),
            ("err", Direction::Output, 1),
            ("err_cnt", Direction::Output, 32),
            ("tx_beats", Direction::Output, 48),
            ("rx_beats", Direction::Output, 48),
        ];
        assert_eq!(got, want.map(|(n, d, w)| (n.to_string(), d, w)));
    }

    /// At every width the wrapper declares exactly the contract's ports, the
    /// datapath file holds the module it instantiates, its generator and its
    /// verifier under the names handed to `compare.sh`, and every datapath
    /// port is connected once.
    #[test]
    fn the_wrapper_has_the_contract_and_wraps_the_datapath_at_every_width() {
        for &width in config::DATA_WIDTHS.iter() {
            let y = yardstick(&at_width(width)).unwrap();
            let typed: Vec<_> = y.ports.iter().map(|p| (p.name.clone(), p.direction, p.width)).collect();
            assert_eq!(hdl::verilog::module_ports(&y.wrapper.contents, WRAPPER_MODULE).unwrap(), typed, "{width} bits");
            assert_eq!(y.ports, contract());
            assert_eq!(y.wrapper.path, "top.v");
            assert_eq!(y.datapath.last().unwrap().path, "toe_user_logic_datapath.v");
            assert_eq!(y.generator_module, "toe_user_logic_traffic_generator");
            assert_eq!(y.verifier_module, "toe_user_logic_data_verifier");
            for module in [&y.datapath_module, &y.generator_module, &y.verifier_module] {
                let file = y.datapath.iter().find(|f| f.path == format!("{module}.v"));
                let file = file.unwrap_or_else(|| panic!("no file {module}.v at {width} bits"));
                assert!(file.contents.contains(&format!("module {module} (")), "{module} missing at {width} bits");
            }
            assert!(y.wrapper.contents.contains(&format!("    {} datapath (", y.datapath_module)), "{width} bits");
            for p in hdl::verilog::datapath_ports(width).unwrap() {
                let conn = format!("        .{}(", p.name);
                assert_eq!(y.wrapper.contents.matches(&conn).count(), 1, "{} at {width} bits", p.name);
            }
            let shift = (width / 8).trailing_zeros();
            let beats = format!("assign tx_beats = dp_tx_bytes[{}:{shift}];", shift + 47);
            assert!(y.wrapper.contents.contains(&beats), "{beats} at {width} bits");
        }
    }

    #[test]
    fn inject_flips_bit_160_or_160_modulo_a_narrower_width() {
        let y = yardstick(&default_design()).unwrap();
        assert!(y.wrapper.contents.contains("link_data_reg <= dp_tx_tdata ^ {863'd0, inject, 160'd0};"));
        let y = yardstick(&at_width(128)).unwrap();
        assert!(y.wrapper.contents.contains("link_data_reg <= dp_tx_tdata ^ {95'd0, inject, 32'd0};"));
    }

    /// Every status output of the datapath reaches `err_cnt` whole; the
    /// looped stream and the sticky error do not.
    #[test]
    fn err_cnt_folds_every_status_output_whole() {
        let y = yardstick(&default_design()).unwrap();
        let body = &y.wrapper.contents[y.wrapper.contents.find("assign err_cnt").unwrap()..];
        let body = &body[..body.find(';').unwrap()];
        assert!(body.starts_with("assign err_cnt = dp_rx_err_count\n"), "{body}");
        let mut folded = 0;
        let outputs: Vec<_> = hdl::verilog::datapath_ports(1024)
            .unwrap()
            .into_iter()
            .filter(|p| p.direction == Direction::Output)
            .collect();
        for p in &outputs {
            let bits: usize = fold_terms(&output_net(&p.name), p.width).len();
            let present =
                fold_terms(&output_net(&p.name), p.width).iter().filter(|t| body.contains(t.as_str())).count();
            if NOT_FOLDED.contains(&p.name.as_str()) {
                assert!(!body.contains(&format!("// {}\n", p.name)), "{} folded", p.name);
            } else {
                assert_eq!(present, bits, "{} not folded whole: {body}", p.name);
                folded += 1;
            }
        }
        // Every name left out is an output of the datapath.
        assert_eq!(folded, outputs.len() - NOT_FOLDED.len(), "{body}");
    }

    /// With the record pruned, exactly the record's outputs leave `err_cnt`;
    /// its error count and every counter stay.
    #[test]
    fn a_pruned_record_leaves_err_cnt_and_nothing_else_does() {
        let fold_body = |record| {
            let y = yardstick_with(&default_design(), record).unwrap();
            let text = &y.wrapper.contents[y.wrapper.contents.find("assign err_cnt").unwrap()..];
            text[..text.find(';').unwrap()].to_string()
        };
        let (live, pruned) = (fold_body(Record::Live), fold_body(Record::Pruned));
        let outputs = hdl::verilog::datapath_ports(1024).unwrap();
        for p in outputs.iter().filter(|p| p.direction == Direction::Output) {
            if NOT_FOLDED.contains(&p.name.as_str()) {
                continue;
            }
            let tag = format!("// {}\n", p.name);
            assert!(live.contains(&tag), "{} not folded when live", p.name);
            assert_eq!(pruned.contains(&tag), !RECORD_OUTPUTS.contains(&p.name.as_str()), "{} when pruned", p.name);
        }
        for name in RECORD_OUTPUTS {
            assert!(outputs.iter().any(|p| p.name == name && p.direction == Direction::Output), "{name}");
        }
    }

    #[test]
    fn fold_terms_cover_every_bit_in_32_bit_pieces() {
        assert_eq!(fold_terms("a", 1), ["{31'd0, a}"]);
        assert_eq!(fold_terms("a", 32), ["a"]);
        assert_eq!(fold_terms("a", 2), ["{30'd0, a}"]);
        assert_eq!(fold_terms("a", 33), ["a[31:0]", "{31'd0, a[32]}"]);
        assert_eq!(fold_terms("a", 48), ["a[31:0]", "{16'd0, a[47:32]}"]);
        assert_eq!(fold_terms("a", 64), ["a[31:0]", "a[63:32]"]);
    }

    #[test]
    fn an_input_the_wrapper_cannot_drive_is_an_error_naming_it() {
        let stray = Port::new(Group::Datapath(0), "tx_pause", Direction::Input, 1);
        let e = input_net(&stray).err().unwrap().to_string();
        assert!(e.contains("datapath input `tx_pause`"), "{e}");
        let e = child(&[("generator".to_string(), "d_traffic_generator".to_string())], VERIFIER_FIELD)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no child `verifier`") && e.contains("generator"), "{e}");
    }

    #[test]
    fn the_wrapper_is_deterministic() {
        let (a, b) = (yardstick(&default_design()).unwrap(), yardstick(&default_design()).unwrap());
        assert_eq!((&a.wrapper, &a.datapath), (&b.wrapper, &b.datapath));
    }
}
