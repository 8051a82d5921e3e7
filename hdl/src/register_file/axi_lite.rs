//! The AXI4-Lite slave of the register file, in `s_axil_aclk`: one holding
//! register per channel (AW, W, AR) that is ready while empty, the arbiter
//! that issues one request at a time into the clock crossing (a write and a
//! read both waiting take turns), the refusal of a write that would put an
//! invalid value in a checked field (answered SLVERR at once, it never
//! crosses), the B and R responses when the crossing acknowledges, the
//! timeout that answers SLVERR when it does not (the user clock stopped),
//! and the bus reset. Every bit of the 32-bit address is decoded: an
//! address with a bit set at or above the map's span is held as
//! [`OUT_OF_MAP`](super::OUT_OF_MAP), which no register has, so it is
//! answered SLVERR and changes nothing, like any other unmapped address. Its
//! ports, as the wrapper declares them, are [`bus_ports`].
//!
//! ```text
//!   AW --> [aw]--+-- field checks (check.rs) --> refused: B = SLVERR
//!   W  --> [w ]--+
//!   AR --> [ar]--+--> arbiter --> issue --> crossing (crossing.rs)
//!   B  <-- [b ]<--+
//!   R  <-- [r ]<--+-- ack / timeout <------ crossing
//! ```

use config::ports::{Direction, Group, Port};
use rust_hdl::prelude::*;

use super::block::{BUS_ADDRESS_BITS, BUS_TIMEOUT_BITS, DECODE_ADDRESS_BITS, OUT_OF_MAP};
use super::check::RegsCheck;
use super::layout::Layout;

/// The AXI4-Lite slave's ports ([`Group::Bus`], local names) in declaration
/// order, the address ports [`BUS_ADDRESS_BITS`] wide whatever the map's
/// span: the same names and widths as the core's `s_axil_*` signals.
pub fn bus_ports() -> Vec<Port> {
    use Direction::{Input, Output};
    let address_bits = BUS_ADDRESS_BITS;
    [
        ("aclk", Input, 1),
        ("aresetn", Input, 1),
        ("awaddr", Input, address_bits),
        ("awvalid", Input, 1),
        ("awready", Output, 1),
        ("wdata", Input, 32),
        ("wstrb", Input, 4),
        ("wvalid", Input, 1),
        ("wready", Output, 1),
        ("bresp", Output, 2),
        ("bvalid", Output, 1),
        ("bready", Input, 1),
        ("araddr", Input, address_bits),
        ("arvalid", Input, 1),
        ("arready", Output, 1),
        ("rdata", Output, 32),
        ("rresp", Output, 2),
        ("rvalid", Output, 1),
        ("rready", Input, 1),
    ]
    .into_iter()
    .map(|(local, direction, width)| Port::new(Group::Bus, local, direction, width))
    .collect()
}

/// The AXI4-Lite slave: holding registers, the field checks, the arbiter
/// that issues requests into the crossing, the responses and the timeout.
#[derive(LogicBlock)]
pub struct RegsAxiLite {
    // ---- AXI4-Lite slave, s_axil_aclk domain.
    /// Register-bus clock.
    pub s_axil_aclk: Signal<In, Clock>,
    /// Register-bus reset, active low, synchronous to `s_axil_aclk`.
    pub s_axil_aresetn: Signal<In, Bit>,
    /// Write address (every bit decoded).
    pub s_axil_awaddr: Signal<In, Bits<BUS_ADDRESS_BITS>>,
    /// Write address valid.
    pub s_axil_awvalid: Signal<In, Bit>,
    /// Write address taken.
    pub s_axil_awready: Signal<Out, Bit>,
    /// Write data.
    pub s_axil_wdata: Signal<In, Bits<32>>,
    /// Write byte strobes.
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    /// Write data valid.
    pub s_axil_wvalid: Signal<In, Bit>,
    /// Write data taken.
    pub s_axil_wready: Signal<Out, Bit>,
    /// Write response: OKAY, or SLVERR (unmapped, refused, timed out).
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    /// Write response valid.
    pub s_axil_bvalid: Signal<Out, Bit>,
    /// The master takes the write response.
    pub s_axil_bready: Signal<In, Bit>,
    /// Read address (every bit decoded).
    pub s_axil_araddr: Signal<In, Bits<BUS_ADDRESS_BITS>>,
    /// Read address valid.
    pub s_axil_arvalid: Signal<In, Bit>,
    /// Read address taken.
    pub s_axil_arready: Signal<Out, Bit>,
    /// Read data.
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    /// Read response: OKAY, or SLVERR (unmapped, timed out).
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    /// Read data valid.
    pub s_axil_rvalid: Signal<Out, Bit>,
    /// The master takes the read data.
    pub s_axil_rready: Signal<In, Bit>,
    // ---- Requests, to and from the crossing.
    /// Send a request this cycle.
    pub issue: Signal<Out, Bit>,
    /// The request is a write.
    pub issue_write: Signal<Out, Bit>,
    /// The request's address, as the core decodes it.
    pub issue_addr: Signal<Out, Bits<DECODE_ADDRESS_BITS>>,
    /// A write's data.
    pub issue_wdata: Signal<Out, Bits<32>>,
    /// A write's byte strobes.
    pub issue_wstrb: Signal<Out, Bits<4>>,
    /// The request in flight is a write.
    pub pending_write: Signal<In, Bit>,
    /// The acknowledge toggle's edge has arrived: the response is held.
    pub ack: Signal<In, Bit>,
    /// The response's read data, held.
    pub response_data: Signal<In, Bits<32>>,
    /// The response is an error, held.
    pub response_err: Signal<In, Bit>,
    /// One check per field with a valid range.
    pub(super) checks: Vec<RegsCheck>,
    // Holding registers of AW, W and AR. `aw_addr` and `ar_addr` hold the
    // beat's address as the core decodes it: its bits within the map's
    // span, or `OUT_OF_MAP` when a bit above the span is set.
    aw_full: DFF<Bit>,
    aw_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    w_full: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    ar_full: DFF<Bit>,
    ar_addr: DFF<Bits<DECODE_ADDRESS_BITS>>,
    // The request in flight (until the acknowledge) and the response.
    busy: DFF<Bit>,
    last_write: DFF<Bit>,
    ack_edge: Signal<Local, Bit>,
    /// The request in flight has been answered already (the bus was reset, or
    /// it timed out): wait for its acknowledge, answer nothing.
    drop_resp: DFF<Bit>,
    /// An access waits on the user domain alone: the one in flight, or one
    /// held behind a request that timed out.
    blocked: Signal<Local, Bit>,
    /// Bus cycles `blocked` has lasted.
    wait_q: DFF<Bits<BUS_TIMEOUT_BITS>>,
    /// `wait_q` reached the timeout in the cycle before.
    expired: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_resp: DFF<Bits<2>>,
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_resp: DFF<Bits<2>>,
    /// The write waiting in the AW and W registers is refused: it would put
    /// an invalid value in a checked field, or cover only part of one.
    w_refused: Signal<Local, Bit>,
    /// `w_refused` of the AW and W held in the cycle before.
    w_refused_q: DFF<Bit>,
    /// AW and W are held, were both held in the cycle before (so
    /// `w_refused_q` judges them), and did not leave: the write may issue.
    w_checked: DFF<Bit>,
    /// The last bus cycle of the timeout.
    timeout_last: Constant<Bits<BUS_TIMEOUT_BITS>>,
    wait_zero: Constant<Bits<BUS_TIMEOUT_BITS>>,
    wait_one: Constant<Bits<BUS_TIMEOUT_BITS>>,
    /// The bits of a held address within the map's span.
    span_low: Constant<Bits<DECODE_ADDRESS_BITS>>,
    /// The bus address bits at or above the map's span: any of them set is
    /// an address outside the map.
    span_high: Constant<Bits<BUS_ADDRESS_BITS>>,
    /// The held address of a request outside the map.
    out_of_map: Constant<Bits<DECODE_ADDRESS_BITS>>,
    zero_bus: Constant<Bits<BUS_ADDRESS_BITS>>,
    resp_okay: Constant<Bits<2>>,
    resp_slverr: Constant<Bits<2>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsAxiLite {
    pub fn new(layout: &Layout) -> Self {
        let span_low = (1u64 << layout.address_bits) - 1;
        Self {
            s_axil_aclk: Default::default(),
            s_axil_aresetn: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            issue: Default::default(),
            issue_write: Default::default(),
            issue_addr: Default::default(),
            issue_wdata: Default::default(),
            issue_wstrb: Default::default(),
            pending_write: Default::default(),
            ack: Default::default(),
            response_data: Default::default(),
            response_err: Default::default(),
            checks: layout.checks.iter().map(|c| RegsCheck::new(c, span_low)).collect(),
            aw_full: Default::default(),
            aw_addr: Default::default(),
            w_full: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            ar_full: Default::default(),
            ar_addr: Default::default(),
            busy: Default::default(),
            last_write: Default::default(),
            ack_edge: Default::default(),
            drop_resp: Default::default(),
            blocked: Default::default(),
            wait_q: Default::default(),
            expired: Default::default(),
            b_valid: Default::default(),
            b_resp: Default::default(),
            r_valid: Default::default(),
            r_data: Default::default(),
            r_resp: Default::default(),
            w_refused: Default::default(),
            w_refused_q: Default::default(),
            w_checked: Default::default(),
            timeout_last: Constant::new(bits(u64::from(layout.bus_timeout) - 1)),
            wait_zero: Constant::new(bits(0)),
            wait_one: Constant::new(bits(1)),
            span_low: Constant::new(bits(span_low)),
            span_high: Constant::new(bits(u64::from(!(span_low as u32)))),
            out_of_map: Constant::new(bits(u64::from(OUT_OF_MAP))),
            zero_bus: Constant::new(bits(0)),
            resp_okay: Constant::new(bits(0)),
            resp_slverr: Constant::new(bits(2)),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsAxiLite {
    #[hdl_gen]
    fn update(&mut self) {
        self.aw_full.clock.next = self.s_axil_aclk.val();
        self.aw_addr.clock.next = self.s_axil_aclk.val();
        self.w_full.clock.next = self.s_axil_aclk.val();
        self.w_data.clock.next = self.s_axil_aclk.val();
        self.w_strb.clock.next = self.s_axil_aclk.val();
        self.ar_full.clock.next = self.s_axil_aclk.val();
        self.ar_addr.clock.next = self.s_axil_aclk.val();
        self.busy.clock.next = self.s_axil_aclk.val();
        self.last_write.clock.next = self.s_axil_aclk.val();
        self.drop_resp.clock.next = self.s_axil_aclk.val();
        self.wait_q.clock.next = self.s_axil_aclk.val();
        self.expired.clock.next = self.s_axil_aclk.val();
        self.b_valid.clock.next = self.s_axil_aclk.val();
        self.b_resp.clock.next = self.s_axil_aclk.val();
        self.r_valid.clock.next = self.s_axil_aclk.val();
        self.r_data.clock.next = self.s_axil_aclk.val();
        self.r_resp.clock.next = self.s_axil_aclk.val();
        self.w_refused_q.clock.next = self.s_axil_aclk.val();
        self.w_checked.clock.next = self.s_axil_aclk.val();

        self.aw_full.d.next = self.aw_full.q.val();
        self.aw_addr.d.next = self.aw_addr.q.val();
        self.w_full.d.next = self.w_full.q.val();
        self.w_data.d.next = self.w_data.q.val();
        self.w_strb.d.next = self.w_strb.q.val();
        self.ar_full.d.next = self.ar_full.q.val();
        self.ar_addr.d.next = self.ar_addr.q.val();
        self.busy.d.next = self.busy.q.val();
        self.drop_resp.d.next = self.drop_resp.q.val();
        self.last_write.d.next = self.last_write.q.val();
        self.b_valid.d.next = self.b_valid.q.val();
        self.b_resp.d.next = self.b_resp.q.val();
        self.r_valid.d.next = self.r_valid.q.val();
        self.r_data.d.next = self.r_data.q.val();
        self.r_resp.d.next = self.r_resp.q.val();

        // Each channel has a one-entry holding register: ready while it is empty.
        self.s_axil_awready.next = !self.aw_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_wready.next = !self.w_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_arready.next = !self.ar_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_bvalid.next = self.b_valid.q.val();
        self.s_axil_bresp.next = self.b_resp.q.val();
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.r_resp.q.val();

        // The address as the core decodes it (`aw_addr` above).
        if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
            self.aw_full.d.next = true;
            self.aw_addr.d.next = self.s_axil_awaddr.val().get_bits::<DECODE_ADDRESS_BITS>(0) & self.span_low.val();
            if (self.s_axil_awaddr.val() & self.span_high.val()) != self.zero_bus.val() {
                self.aw_addr.d.next = self.out_of_map.val();
            }
        }
        if self.s_axil_wvalid.val() & !self.w_full.q.val() {
            self.w_full.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strb.d.next = self.s_axil_wstrb.val();
        }
        if self.s_axil_arvalid.val() & !self.ar_full.q.val() {
            self.ar_full.d.next = true;
            self.ar_addr.d.next = self.s_axil_araddr.val().get_bits::<DECODE_ADDRESS_BITS>(0) & self.span_low.val();
            if (self.s_axil_araddr.val() & self.span_high.val()) != self.zero_bus.val() {
                self.ar_addr.d.next = self.out_of_map.val();
            }
        }
        if self.b_valid.q.val() & self.s_axil_bready.val() {
            self.b_valid.d.next = false;
        }
        if self.r_valid.q.val() & self.s_axil_rready.val() {
            self.r_valid.d.next = false;
        }

        // The crossing's acknowledge answers the request in flight.
        self.ack_edge.next = self.busy.q.val() & self.ack.val();
        if self.ack_edge.val() {
            self.busy.d.next = false;
            self.drop_resp.d.next = false;
            if self.drop_resp.q.val() {
                // The request of before a bus reset: its answer goes nowhere.
            } else if self.pending_write.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_okay.val();
                if self.response_err.val() {
                    self.b_resp.d.next = self.resp_slverr.val();
                }
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = self.response_data.val();
                self.r_resp.d.next = self.resp_okay.val();
                if self.response_err.val() {
                    self.r_resp.d.next = self.resp_slverr.val();
                }
            }
        }

        // A write that would put an invalid value in a checked field, or that
        // covers only some bytes of one, is refused here: it never crosses.
        // Each field's check takes its verdict with the beats
        // (`check.rs`); the verdict on the held AW and W is their OR,
        // registered (`w_refused_q`), and a write issues one cycle after both
        // are held (`w_checked`): the compares add no logic level to the
        // issue path, and the verdict is one OR over the fields deep.
        self.w_refused.next = false;
        for j in 0..self.checks.len() {
            self.checks[j].clock.next = self.s_axil_aclk.val();
            self.checks[j].awaddr.next = self.s_axil_awaddr.val();
            self.checks[j].awvalid.next = self.s_axil_awvalid.val();
            self.checks[j].aw_full.next = self.aw_full.q.val();
            self.checks[j].wdata.next = self.s_axil_wdata.val();
            self.checks[j].wstrb.next = self.s_axil_wstrb.val();
            self.checks[j].wvalid.next = self.s_axil_wvalid.val();
            self.checks[j].w_full.next = self.w_full.q.val();
            self.w_refused.next = self.w_refused.val() | self.checks[j].refuse.val();
        }
        self.w_refused_q.d.next = self.w_refused.val();
        // `w_checked` implies that both are held: every branch below that
        // takes them out clears it too.
        self.w_checked.d.next = self.aw_full.q.val() & self.w_full.q.val();

        // One request at a time, issued when the previous response has left;
        // a write and a read both waiting take turns.
        self.issue.next = false;
        self.issue_write.next = false;
        self.issue_addr.next = self.aw_addr.q.val();
        self.issue_wdata.next = self.w_data.q.val();
        self.issue_wstrb.next = self.w_strb.q.val();
        if self.s_axil_aresetn.val() & !self.busy.q.val() & !self.b_valid.q.val() & !self.r_valid.q.val() {
            if self.w_checked.q.val() & (!self.ar_full.q.val() | !self.last_write.q.val()) & self.w_refused_q.q.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_slverr.val();
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
                self.w_checked.d.next = false;
            } else if self.w_checked.q.val() & (!self.ar_full.q.val() | !self.last_write.q.val()) {
                self.issue.next = true;
                self.issue_write.next = true;
                self.busy.d.next = true;
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
                self.w_checked.d.next = false;
            } else if self.ar_full.q.val() {
                self.issue.next = true;
                self.issue_addr.next = self.ar_addr.q.val();
                self.busy.d.next = true;
                self.last_write.d.next = false;
                self.ar_full.d.next = false;
            }
        }

        // The timeout. An access that waits on the user domain alone (its
        // clock stopped) for the map's `bus_timeout` cycles is answered
        // SLVERR: the request in flight, which stays held (the user side may
        // still take it when its clock runs again, and its acknowledge keeps
        // the toggles alternating) with its answer dropped; then, while that
        // acknowledge is awaited, each access held behind it, which never
        // issues. The compare is registered (`expired`), off the answer's path.
        self.blocked.next = self.s_axil_aresetn.val()
            & self.busy.q.val()
            & !self.ack_edge.val()
            & !self.b_valid.q.val()
            & !self.r_valid.q.val()
            & (!self.drop_resp.q.val() | self.w_checked.q.val() | self.ar_full.q.val());
        self.wait_q.d.next = self.wait_zero.val();
        if self.blocked.val() {
            self.wait_q.d.next = self.wait_q.q.val() + self.wait_one.val();
        }
        self.expired.d.next = self.blocked.val() & (self.wait_q.q.val() == self.timeout_last.val());
        // `expired` says the access was blocked in the cycle before, and
        // nothing but an acknowledge or a bus reset unblocks it from one
        // cycle to the next: while it waits nothing issues, no answer is
        // pending, the held beats stay and `drop_resp` keeps its value (nor
        // can `expired` fire twice in a row). So `expired & blocked` is
        // `expired & !ack_edge & aresetn`: a shallow enable for the many
        // registers the action sets.
        if self.expired.q.val() & !self.ack_edge.val() & self.s_axil_aresetn.val() {
            self.wait_q.d.next = self.wait_zero.val();
            if !self.drop_resp.q.val() {
                self.drop_resp.d.next = true;
                if self.pending_write.val() {
                    self.b_valid.d.next = true;
                    self.b_resp.d.next = self.resp_slverr.val();
                } else {
                    self.r_valid.d.next = true;
                    self.r_data.d.next = 0.into();
                    self.r_resp.d.next = self.resp_slverr.val();
                }
            } else if self.w_checked.q.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_slverr.val();
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
                self.w_checked.d.next = false;
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = 0.into();
                self.r_resp.d.next = self.resp_slverr.val();
                self.last_write.d.next = false;
                self.ar_full.d.next = false;
            }
        }

        // The bus reset. A request in flight at a bus reset still completes
        // its handshake in the crossing (so request and acknowledge toggles
        // keep alternating) and its response is dropped.
        if !self.s_axil_aresetn.val() {
            self.aw_full.d.next = false;
            self.w_full.d.next = false;
            self.w_checked.d.next = false;
            self.ar_full.d.next = false;
            if self.busy.q.val() & !self.ack_edge.val() {
                self.drop_resp.d.next = true;
            }
            self.b_valid.d.next = false;
            self.r_valid.d.next = false;
            self.last_write.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::register_file::Layout;
    use crate::verilog::{block_verilog, module_ports};

    #[test]
    fn the_bus_ports_are_the_cores() {
        let design = config::parse(&config::default_toml_with_sessions(1)).unwrap();
        let layout = Layout::new(&regmap::RegisterMap::for_design(&design)).unwrap();
        let text = block_verilog(&mut super::super::block::RegisterFileCore::new(&layout), "core").unwrap();
        let core: Vec<(String, &str, usize)> = module_ports(&text, "core")
            .unwrap()
            .into_iter()
            .filter(|p| p.0.starts_with("s_axil_"))
            .map(|(name, direction, width)| (name, direction.keyword(), width))
            .collect();
        let bus: Vec<(String, &str, usize)> =
            bus_ports().into_iter().map(|p| (p.name, p.direction.keyword(), p.width)).collect();
        assert_eq!(bus, core);
    }
}
