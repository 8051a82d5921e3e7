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
//! ports, as the wrapper declares them, are [`bus_ports`]. These are parts of
//! the core block (`block.rs`).

use config::ports::{Direction, Group, Port};
use rust_hdl::prelude::*;

use super::block::part::Part;
use super::block::{RegisterFileCore, BUS_ADDRESS_BITS, DECODE_ADDRESS_BITS};

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

/// The channels: ready while the holding register is empty, take a beat
/// into it, and let B and R go when the master takes them.
pub(super) struct Channels;

impl Part<Channels> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        // Each channel has a one-entry holding register: ready while it is empty.
        self.s_axil_awready.next = !self.aw_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_wready.next = !self.w_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_arready.next = !self.ar_full.q.val() & self.s_axil_aresetn.val();
        self.s_axil_bvalid.next = self.b_valid.q.val();
        self.s_axil_bresp.next = self.b_resp.q.val();
        self.s_axil_rvalid.next = self.r_valid.q.val();
        self.s_axil_rdata.next = self.r_data.q.val();
        self.s_axil_rresp.next = self.r_resp.q.val();

        // The address as the core decodes it (`aw_addr` in `block.rs`).
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
    }
}

/// The transactions: answer on the crossing's acknowledge, issue the next
/// request into the crossing, and the bus reset.
pub(super) struct Transactions;

impl Part<Transactions> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        if self.ack_edge.val() {
            self.busy.d.next = false;
            self.drop_resp.d.next = false;
            if self.drop_resp.q.val() {
                // The request of before a bus reset: its answer goes nowhere.
            } else if self.req_write.q.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_okay.val();
                if self.resp_err.q.val() {
                    self.b_resp.d.next = self.resp_slverr.val();
                }
            } else {
                self.r_valid.d.next = true;
                self.r_data.d.next = self.resp_data.q.val();
                self.r_resp.d.next = self.resp_okay.val();
                if self.resp_err.q.val() {
                    self.r_resp.d.next = self.resp_slverr.val();
                }
            }
        }

        // A write that would put an invalid value in a checked field, or that
        // covers only some bytes of one, is refused here: it never crosses.
        // Each field's part of the verdict is taken with its beat: whether
        // the AW beat addresses the field (`check_hit`), and whether the W
        // beat writes some of its bytes with a value out of range or only
        // some of them (`check_fault`). `value - min > max - min` (32-bit,
        // wrapping) is one compare for both bounds, and no constant compare
        // when `min` is 0. The verdict on the held AW and W is their OR,
        // registered (`w_refused_q`), and a write issues one cycle after both
        // are held (`w_checked`): the compares add no logic level to the
        // issue path, and the verdict is one OR over the fields deep. The
        // address compare is of the span's bits alone: a write outside the
        // map that aliases a checked field is answered SLVERR either way
        // (refused here, or missing every slot), and changes nothing.
        self.w_refused.next = false;
        for j in 0..self.check_addr.len() {
            self.check_hit[j].clock.next = self.s_axil_aclk.val();
            self.check_fault[j].clock.next = self.s_axil_aclk.val();
            self.check_hit[j].d.next = self.check_hit[j].q.val();
            self.check_fault[j].d.next = self.check_fault[j].q.val();
            if self.s_axil_awvalid.val() & !self.aw_full.q.val() {
                self.check_hit[j].d.next = (self.s_axil_awaddr.val().get_bits::<DECODE_ADDRESS_BITS>(0)
                    & self.span_low.val())
                    == self.check_addr[j].val();
            }
            if self.s_axil_wvalid.val() & !self.w_full.q.val() {
                self.check_fault[j].d.next = ((self.s_axil_wstrb.val() & self.check_bytes[j].val())
                    != self.zero4.val())
                    & (((self.s_axil_wstrb.val() & self.check_bytes[j].val()) != self.check_bytes[j].val())
                        | (((self.s_axil_wdata.val() & self.check_mask[j].val()) - self.check_min[j].val())
                            > self.check_span[j].val()));
            }
            if self.check_hit[j].q.val() & self.check_fault[j].q.val() {
                self.w_refused.next = true;
            }
        }
        self.w_refused_q.d.next = self.w_refused.val();
        // `w_checked` implies that both are held: every branch below that
        // takes them out clears it too.
        self.w_checked.d.next = self.aw_full.q.val() & self.w_full.q.val();

        // One request at a time, issued when the previous response has left;
        // a write and a read both waiting take turns.
        if self.s_axil_aresetn.val() & !self.busy.q.val() & !self.b_valid.q.val() & !self.r_valid.q.val() {
            if self.w_checked.q.val() & (!self.ar_full.q.val() | !self.last_write.q.val()) & self.w_refused_q.q.val() {
                self.b_valid.d.next = true;
                self.b_resp.d.next = self.resp_slverr.val();
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
                self.w_checked.d.next = false;
            } else if self.w_checked.q.val() & (!self.ar_full.q.val() | !self.last_write.q.val()) {
                self.req_write.d.next = true;
                self.req_addr.d.next = self.aw_addr.q.val();
                self.req_wdata.d.next = self.w_data.q.val();
                self.req_wstrb.d.next = self.w_strb.q.val();
                self.req_tog.d.next = !self.req_tog.q.val();
                self.busy.d.next = true;
                self.last_write.d.next = true;
                self.aw_full.d.next = false;
                self.w_full.d.next = false;
                self.w_checked.d.next = false;
            } else if self.ar_full.q.val() {
                self.req_write.d.next = false;
                self.req_addr.d.next = self.ar_addr.q.val();
                self.req_tog.d.next = !self.req_tog.q.val();
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
                if self.req_write.q.val() {
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

        // The toggles and the request they announce are not reset: a reset of
        // one domain alone must not make an edge the other side would take
        // for a request or an acknowledge. A request in flight at a bus reset
        // still completes its handshake (so request and acknowledge toggles
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
        let text = block_verilog(&mut RegisterFileCore::new(&layout), "core").unwrap();
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
