//! The read-back of the register file, in `user_clk`: the answer to the
//! request in the access cycle, from every register word's select and read
//! value (`slots.rs`). The read data is the OR of the read values of the
//! words addressed (one, or none); a request no word hits is answered with
//! an error (the bus side then says SLVERR), and so is every request while
//! `user_rst` holds the registers at their reset values (the data then
//! reads 0). The crossing (`crossing.rs`) takes the answer in the access
//! cycle only, holds it and sends it back.
//!
//! The answer is formed only in the access cycle (`access`): outside it
//! the data reads 0 and the error is set. The crossing never looks then,
//! so in hardware this changes nothing but one gate at the end; in a
//! simulator it keeps the hundred-odd-word OR out of every other cycle, as
//! the `if` it sits under is skipped (issue 27).
//!
//! ```text
//!   <word>_hit   --> OR ----------------> ! --+--> error
//!   <word>_hit & <word>_rdata --> OR -------|--> data
//!   access, reset ------------------------>-+
//! ```

use rust_hdl::prelude::*;

use super::block::per_slot;
use super::layout::Layout;

/// The read multiplexer (an OR over words that read 0 unless addressed) and
/// the error of an unmapped address.
#[derive(LogicBlock)]
pub struct RegsReadBack {
    // ---- Access and reset.
    /// The one cycle of an access, read or write, from the crossing: the only cycle its answer is taken.
    pub access: Signal<In, Bit>,
    /// Synchronous reset of the registers, active high: every access is an error and reads 0.
    pub reset: Signal<In, Bit>,
    // ---- Register words.
    /// Writable words: addressed.
    pub storage_hit: Vec<Signal<In, Bit>>,
    /// Writable words: read value.
    pub storage_rdata: Vec<Signal<In, Bits<32>>>,
    /// Write-pulse words (read as 0): addressed.
    pub pulse_hit: Vec<Signal<In, Bit>>,
    /// Sticky words: addressed.
    pub sticky_hit: Vec<Signal<In, Bit>>,
    /// Sticky words: read value.
    pub sticky_rdata: Vec<Signal<In, Bits<32>>>,
    /// Status words: addressed.
    pub status_hit: Vec<Signal<In, Bit>>,
    /// Status words: read value.
    pub status_rdata: Vec<Signal<In, Bits<32>>>,
    /// Latched high halves: either half addressed.
    pub latch_hit: Vec<Signal<In, Bit>>,
    /// Latched high halves: read value, 0 while only the low half is addressed.
    pub latch_rdata: Vec<Signal<In, Bits<32>>>,
    /// Constant words: addressed.
    pub constant_hit: Vec<Signal<In, Bit>>,
    /// Constant words: read value.
    pub constant_rdata: Vec<Signal<In, Bits<32>>>,
    // ---- Answer, to the crossing.
    /// The read data.
    pub data: Signal<Out, Bits<32>>,
    /// The request is answered with an error: no word has its address, or the registers are in reset.
    pub error: Signal<Out, Bit>,
    any_hit: Signal<Local, Bit>,
    any_data: Signal<Local, Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl RegsReadBack {
    pub fn new(layout: &Layout) -> Self {
        Self {
            access: Default::default(),
            reset: Default::default(),
            storage_hit: per_slot(layout.storage.len()),
            storage_rdata: per_slot(layout.storage.len()),
            pulse_hit: per_slot(layout.pulse.len()),
            sticky_hit: per_slot(layout.sticky.len()),
            sticky_rdata: per_slot(layout.sticky.len()),
            status_hit: per_slot(layout.status.len()),
            status_rdata: per_slot(layout.status.len()),
            latch_hit: per_slot(layout.latch.len()),
            latch_rdata: per_slot(layout.latch.len()),
            constant_hit: per_slot(layout.constant.len()),
            constant_rdata: per_slot(layout.constant.len()),
            data: Default::default(),
            error: Default::default(),
            any_hit: Default::default(),
            any_data: Default::default(),
            verilog_name: Default::default(),
        }
    }
}

impl Logic for RegsReadBack {
    #[hdl_gen]
    fn update(&mut self) {
        self.any_hit.next = false;
        self.any_data.next = 0.into();
        if self.access.val() {
            for k in 0..self.storage_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.storage_hit[k].val();
                if self.storage_hit[k].val() {
                    self.any_data.next = self.any_data.val() | self.storage_rdata[k].val();
                }
            }
            for k in 0..self.pulse_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.pulse_hit[k].val();
            }
            for k in 0..self.sticky_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.sticky_hit[k].val();
                if self.sticky_hit[k].val() {
                    self.any_data.next = self.any_data.val() | self.sticky_rdata[k].val();
                }
            }
            for k in 0..self.status_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.status_hit[k].val();
                if self.status_hit[k].val() {
                    self.any_data.next = self.any_data.val() | self.status_rdata[k].val();
                }
            }
            for k in 0..self.latch_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.latch_hit[k].val();
                self.any_data.next = self.any_data.val() | self.latch_rdata[k].val();
            }
            for k in 0..self.constant_hit.len() {
                self.any_hit.next = self.any_hit.val() | self.constant_hit[k].val();
                if self.constant_hit[k].val() {
                    self.any_data.next = self.any_data.val() | self.constant_rdata[k].val();
                }
            }
        }
        self.error.next = !self.any_hit.val() | self.reset.val();
        self.data.next = 0.into();
        if !self.reset.val() {
            self.data.next = self.any_data.val();
        }
    }
}
