//! The node's ARP state: the mode (`toe_mode`), client-mode resolution of
//! target_ip (a request at `init`, then one every `retry_cycles` after the
//! last, `attempts` in all, then `arp_failed`), `init_done` and the target's
//! MAC (resolved, learnt from its request in server mode, or fixed).
//!
//! ```text
//!  init --> client: resolving (sent 0, due now)   server, fixed: done at once
//!  resolving, due: sent < attempts -> request (into the FIFO: req_taken)
//!                  -> sent += 1, due again retry_cycles later
//!                  sent = attempts -> failed
//!  resolved (the receiver took the awaited reply) -> init_done, target_mac
//!  learn (server: target_ip's request for fpga_ip) -> target_mac
//! ```
//!
//! `init` forgets the target's MAC and any resolution in progress (the
//! counters are elsewhere and stay); before the first `init` the node
//! answers ARP and echo requests but `init_done` is low. The mode and the
//! retry settings are read as they are (the register file holds them).
//! A leaf, as the node's other parts, with `update` its simulation model.

use rust_hdl::prelude::*;

const IDLE: u64 = 0;
const RESOLVING: u64 = 1;
const RESOLVED: u64 = 2;
const FAILED: u64 = 3;

#[derive(LogicBlock, Default)]
pub struct ArpClient {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: as before the first `init` (no target MAC, idle).
    pub reset: Signal<In, Bit>,
    // ---- Configuration.
    /// `toe_init` (one-cycle pulse): forget the target, client mode starts resolving.
    pub init: Signal<In, Bit>,
    /// ARP mode (`toe_mode`): 0 client, 1 server, 2 fixed MAC.
    pub mode: Signal<In, Bits<2>>,
    /// Cycles between two client-mode requests, 1 or more.
    pub retry_cycles: Signal<In, Bits<32>>,
    /// Client-mode requests before `arp_failed`, 1 .. 255.
    pub attempts: Signal<In, Bits<8>>,
    /// The target's MAC in fixed-MAC mode.
    pub fixed_mac: Signal<In, Bits<48>>,
    // ---- From the receiver.
    /// Server mode: target_ip's request teaches `learn_mac` (pulse).
    pub learn: Signal<In, Bit>,
    /// Client mode: the awaited reply came with `learn_mac` (pulse).
    pub resolved: Signal<In, Bit>,
    /// The MAC learnt.
    pub learn_mac: Signal<In, Bits<48>>,
    // ---- Requests.
    /// A client-mode request is due (level, until taken).
    pub request: Signal<Out, Bit>,
    /// The request went into the descriptor FIFO this cycle.
    pub req_taken: Signal<In, Bit>,
    /// A request was sent (pulse, for the counter).
    pub requests_sent: Signal<Out, Bit>,
    // ---- Status.
    /// Client mode is resolving: a reply from target_ip is awaited.
    pub awaiting: Signal<Out, Bit>,
    /// `toe_init_done`: client mode once resolved, the others after `init`.
    pub init_done: Signal<Out, Bit>,
    /// Client mode: every attempt went unanswered (until the next `init`).
    pub arp_failed: Signal<Out, Bit>,
    /// The target's MAC (valid with `target_known`).
    pub target_mac: Signal<Out, Bits<48>>,
    /// The target's MAC is known.
    pub target_known: Signal<Out, Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _s: ArpState,
}

/// The model's registers.
#[derive(Clone, Copy, Debug, Default)]
struct ArpState {
    initialised: bool,
    st: u64,
    sent: u64,
    timer: u64,
    mac: u64,
    known: bool,
}

impl ArpClient {
    fn due(&self) -> bool {
        self._s.st == RESOLVING && self._s.timer == 0
    }
}

impl Logic for ArpClient {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let mode = self.mode.val().to_u64();
            let attempts = self.attempts.val().to_u64();
            let learn_mac = self.learn_mac.val().to_u64();
            if self.reset.val() {
                self._s = ArpState::default();
            } else if self.init.val() {
                self._s.initialised = true;
                self._s.known = mode == 2;
                self._s.mac = if mode == 2 { self.fixed_mac.val().to_u64() } else { 0 };
                self._s.st = if mode == 0 { RESOLVING } else { IDLE };
                self._s.sent = 0;
                self._s.timer = 0;
            } else {
                if self.due() && self._s.sent >= attempts {
                    self._s.st = FAILED;
                } else if self._s.st == RESOLVING && self.resolved.val() {
                    self._s.st = RESOLVED;
                    self._s.mac = learn_mac;
                    self._s.known = true;
                }
                if self.learn.val() {
                    self._s.mac = learn_mac;
                    self._s.known = true;
                }
                if self.req_taken.val() {
                    self._s.sent = (self._s.sent + 1) & 0xff;
                    self._s.timer = (self.retry_cycles.val().to_u64()).wrapping_sub(1) & 0xffff_ffff;
                } else if self._s.st == RESOLVING && self._s.timer != 0 {
                    self._s.timer -= 1;
                }
            }
        }
        let attempts = self.attempts.val().to_u64();
        self.request.next = self.due() && self._s.sent < attempts;
        self.requests_sent.next = self.req_taken.val();
        self.awaiting.next = self._s.st == RESOLVING;
        self.init_done.next = if self.mode.val().index() == 0 { self._s.st == RESOLVED } else { self._s.initialised };
        self.arp_failed.next = self._s.st == FAILED;
        self.target_mac.next = bits(self._s.mac);
        self.target_known.next = self._s.known;
    }

    fn connect(&mut self) {
        self.request.connect();
        self.requests_sent.connect();
        self.awaiting.connect();
        self.init_done.connect();
        self.arp_failed.connect();
        self.target_mac.connect();
        self.target_known.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "localparam IDLE = 2'd0;
localparam RESOLVING = 2'd1;
localparam RESOLVED = 2'd2;
localparam FAILED = 2'd3;
reg        initialised_reg = 1'b0;
reg  [1:0] st_reg = IDLE;
reg  [7:0] sent_reg = 8'd0;
reg [31:0] timer_reg = 32'd0;
reg [47:0] mac_reg = 48'd0;
reg        known_reg = 1'b0;
wire       due = st_reg == RESOLVING && timer_reg == 32'd0;
always @(posedge clock) begin
    if (reset) begin
        initialised_reg <= 1'b0;
        known_reg <= 1'b0;
        mac_reg <= 48'd0;
        st_reg <= IDLE;
        sent_reg <= 8'd0;
        timer_reg <= 32'd0;
    end else if (init) begin
        initialised_reg <= 1'b1;
        known_reg <= mode == 2'd2;
        mac_reg <= mode == 2'd2 ? fixed_mac : 48'd0;
        st_reg <= mode == 2'd0 ? RESOLVING : IDLE;
        sent_reg <= 8'd0;
        timer_reg <= 32'd0;
    end else begin
        if (due && sent_reg >= attempts) begin
            st_reg <= FAILED;
        end else if (st_reg == RESOLVING && resolved) begin
            st_reg <= RESOLVED;
            mac_reg <= learn_mac;
            known_reg <= 1'b1;
        end
        if (learn) begin
            mac_reg <= learn_mac;
            known_reg <= 1'b1;
        end
        if (req_taken) begin
            sent_reg <= sent_reg + 8'd1;
            timer_reg <= retry_cycles - 32'd1;
        end else if (st_reg == RESOLVING && timer_reg != 32'd0) begin
            timer_reg <= timer_reg - 32'd1;
        end
    end
end
always @(*) begin
    request = due && sent_reg < attempts;
    requests_sent = req_taken;
    awaiting = st_reg == RESOLVING;
    init_done = mode == 2'd0 ? st_reg == RESOLVED : initialised_reg;
    arp_failed = st_reg == FAILED;
    target_mac = mac_reg;
    target_known = known_reg;
end"
            .into(),
        )
    }
}
