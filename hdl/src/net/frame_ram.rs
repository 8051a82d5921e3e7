//! The node's frame RAM: received frames, one beat a word, a circular
//! buffer in beats (block RAM), written by the receiver and read by the
//! transmitter.
//!
//! ```text
//!   write, write_addr, write_data --(clock)--> word[write_addr]
//!   read_addr --(clock)--> read_data = word[read_addr]   (one cycle later)
//! ```
//!
//! The read is registered every cycle (a block RAM's output register);
//! a word read in the cycle it is written reads its old value. The depth
//! (`crate::net::ram_depth`: two frames of 14 + mtu bytes, a power of two)
//! is fixed when the block is built. A leaf because rust-hdl's kernel
//! language has no memories; `update` is its simulation model.

use rust_hdl::prelude::*;

use super::ADDR_BITS;

#[derive(LogicBlock)]
pub struct FrameRam<const W: usize> {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Write port.
    /// Store `write_data` at `write_addr` at this edge.
    pub write: Signal<In, Bit>,
    /// The word written (below the depth).
    pub write_addr: Signal<In, Bits<ADDR_BITS>>,
    /// The beat written.
    pub write_data: Signal<In, Bits<W>>,
    // ---- Read port (registered).
    /// The word read (below the depth).
    pub read_addr: Signal<In, Bits<ADDR_BITS>>,
    /// The word at the `read_addr` of the cycle before.
    pub read_data: Signal<Out, Bits<W>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _words: Vec<Bits<W>>,
    _out: Bits<W>,
}

impl<const W: usize> FrameRam<W> {
    /// A RAM of `depth` beats, a power of two up to 2^14.
    pub fn new(depth: usize) -> Self {
        assert!(depth.is_power_of_two() && depth <= 1 << ADDR_BITS, "FrameRam: depth = {depth}");
        FrameRam {
            clock: Default::default(),
            write: Default::default(),
            write_addr: Default::default(),
            write_data: Default::default(),
            read_addr: Default::default(),
            read_data: Default::default(),
            verilog_name: Default::default(),
            _words: vec![Bits::default(); depth],
            _out: Bits::default(),
        }
    }
}

impl<const W: usize> Logic for FrameRam<W> {
    fn update(&mut self) {
        let mask = self._words.len() - 1;
        if self.clock.pos_edge() {
            self._out = self._words[self.read_addr.val().index() & mask];
            if self.write.val() {
                self._words[self.write_addr.val().index() & mask] = self.write_data.val();
            }
        }
        self.read_data.next = self._out;
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = self._words.len();
        let aw = depth.trailing_zeros().max(1) as usize;
        let unused = if aw < ADDR_BITS {
            format!(
                "// Address bits above the depth are not used.\nwire unused_addr = &{{1'b0, write_addr[{top}:{aw}], read_addr[{top}:{aw}]}};\n",
                top = ADDR_BITS - 1
            )
        } else {
            String::new()
        };
        Verilog::Custom(format!(
            "reg [{wm}:0] word [0:{dm}];\n\
             {unused}\
             initial read_data = {W}'d0;\n\
             always @(posedge clock) begin\n    \
                 read_data <= word[read_addr[{am}:0]];\n    \
                 if (write) word[write_addr[{am}:0]] <= write_data;\n\
             end",
            wm = W - 1,
            dm = depth - 1,
            am = aw - 1,
        ))
    }
}
