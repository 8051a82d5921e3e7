//! The per-kind field logic of the register file, in `user_clk`: the decode
//! of the request's address against every slot, registered a cycle ahead
//! (the request is held still while its toggle crosses); in the one cycle
//! the crossing announces the request (`strobe`), the write of storage (`rw`/`wo`), pulse
//! (`wpulse`) and sticky (`w1c`) slots under the byte strobes, the sampling
//! of status and latch slots (volatile `ro`), the constants, and the read
//! data of each kind for the crossing's answer; plus the free-running cycle
//! counter. A part of the core block (`block.rs`).

use rust_hdl::prelude::*;

use super::block::part::Part;
use super::block::RegisterFileCore;

/// The access of one request to the slots, and the cycle counter.
pub(super) struct Access;

impl Part<Access> for RegisterFileCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.do_write.next = self.strobe.val() & self.req_write.q.val();
        self.do_read.next = self.strobe.val() & !self.req_write.q.val();
        self.wmask.next = 0.into();
        for s in 0..16 {
            if self.req_wstrb.q.val().index() == s {
                self.wmask.next = self.strobe_mask[s].val();
            }
        }

        self.counter.d.next = self.counter.q.val() + self.one64.val();
        if self.user_rst.val() {
            self.counter.d.next = self.zero64.val();
        }
        self.cycle_count.next = self.counter.q.val();

        // The decode, one cycle ahead (`storage_sel` in `block.rs`); the
        // request hits when any select is high.
        self.hit.next = false;
        for k in 0..self.storage_sel.len() {
            self.storage_sel[k].clock.next = self.user_clk.val();
            self.storage_sel[k].d.next = self.req_addr.q.val() == self.storage_addr[k].val();
            if self.storage_sel[k].q.val() {
                self.hit.next = true;
            }
        }
        for k in 0..self.pulse_sel.len() {
            self.pulse_sel[k].clock.next = self.user_clk.val();
            self.pulse_sel[k].d.next = self.req_addr.q.val() == self.pulse_addr[k].val();
            if self.pulse_sel[k].q.val() {
                self.hit.next = true;
            }
        }
        for k in 0..self.sticky_sel.len() {
            self.sticky_sel[k].clock.next = self.user_clk.val();
            self.sticky_sel[k].d.next = self.req_addr.q.val() == self.sticky_addr[k].val();
            if self.sticky_sel[k].q.val() {
                self.hit.next = true;
            }
        }
        for k in 0..self.status_sel.len() {
            self.status_sel[k].clock.next = self.user_clk.val();
            self.status_sel[k].d.next = self.req_addr.q.val() == self.status_addr[k].val();
            if self.status_sel[k].q.val() {
                self.hit.next = true;
            }
        }
        for k in 0..self.latch_lo_sel.len() {
            self.latch_lo_sel[k].clock.next = self.user_clk.val();
            self.latch_lo_sel[k].d.next = self.req_addr.q.val() == self.latch_lo_addr[k].val();
            self.latch_hi_sel[k].clock.next = self.user_clk.val();
            self.latch_hi_sel[k].d.next = self.req_addr.q.val() == self.latch_hi_addr[k].val();
            if self.latch_lo_sel[k].q.val() | self.latch_hi_sel[k].q.val() {
                self.hit.next = true;
            }
        }
        for k in 0..self.const_sel.len() {
            self.const_sel[k].clock.next = self.user_clk.val();
            self.const_sel[k].d.next = self.req_addr.q.val() == self.const_addr[k].val();
            if self.const_sel[k].q.val() {
                self.hit.next = true;
            }
        }

        self.rd_storage.next = 0.into();
        for k in 0..self.storage_q.len() {
            self.storage_q[k].clock.next = self.user_clk.val();
            self.storage_q[k].d.next = self.storage_q[k].q.val();
            if self.storage_sel[k].q.val() {
                self.rd_storage.next =
                    self.rd_storage.val() | (self.storage_q[k].q.val() & self.storage_rmask[k].val());
                if self.do_write.val() {
                    self.storage_q[k].d.next = (self.storage_q[k].q.val()
                        & !(self.wmask.val() & self.storage_mask[k].val()))
                        | (self.req_wdata.q.val() & self.wmask.val() & self.storage_mask[k].val());
                }
            }
            if self.user_rst.val() {
                self.storage_q[k].d.next = self.storage_reset[k].val();
            }
            self.value[k].next = self.storage_q[k].q.val();
        }

        for k in 0..self.pulse_q.len() {
            self.pulse_q[k].clock.next = self.user_clk.val();
            self.pulse_q[k].d.next = 0.into();
            if self.do_write.val() & self.pulse_sel[k].q.val() {
                self.pulse_q[k].d.next = self.req_wdata.q.val() & self.wmask.val() & self.pulse_mask[k].val();
            }
            if self.user_rst.val() {
                self.pulse_q[k].d.next = 0.into();
            }
            self.pulse[k].next = self.pulse_q[k].q.val();
        }

        // A set in the cycle of a clearing write wins: no event is lost.
        self.rd_sticky.next = 0.into();
        for k in 0..self.sticky_q.len() {
            self.sticky_q[k].clock.next = self.user_clk.val();
            self.sticky_q[k].d.next = self.sticky_q[k].q.val() | (self.set[k].val() & self.sticky_mask[k].val());
            if self.sticky_sel[k].q.val() {
                self.rd_sticky.next = self.rd_sticky.val() | self.sticky_q[k].q.val();
                if self.do_write.val() {
                    self.sticky_q[k].d.next = (self.sticky_q[k].q.val() & !(self.req_wdata.q.val() & self.wmask.val()))
                        | (self.set[k].val() & self.sticky_mask[k].val());
                }
            }
            if self.user_rst.val() {
                self.sticky_q[k].d.next = self.sticky_reset[k].val();
            }
            self.sticky[k].next = self.sticky_q[k].q.val();
        }

        self.rd_status.next = 0.into();
        for k in 0..self.status_addr.len() {
            if self.status_sel[k].q.val() {
                self.rd_status.next = self.rd_status.val() | (self.status[k].val() & self.status_mask[k].val());
            }
        }

        // The high half of a volatile wide value is loaded in the cycle its
        // low half is read, so the pair is one sample.
        self.rd_latch.next = 0.into();
        for k in 0..self.latch_q.len() {
            self.latch_q[k].clock.next = self.user_clk.val();
            self.latch_q[k].d.next = self.latch_q[k].q.val();
            if self.do_read.val() & self.latch_lo_sel[k].q.val() {
                self.latch_q[k].d.next = self.latch_in[k].val() & self.latch_mask[k].val();
            }
            if self.latch_hi_sel[k].q.val() {
                self.rd_latch.next = self.rd_latch.val() | self.latch_q[k].q.val();
            }
            if self.user_rst.val() {
                self.latch_q[k].d.next = self.latch_reset[k].val();
            }
        }

        self.rd_const.next = 0.into();
        for k in 0..self.const_addr.len() {
            if self.const_sel[k].q.val() {
                self.rd_const.next = self.rd_const.val() | self.const_value[k].val();
            }
        }
    }
}
