//! A verilated model driven from Rust through its shim's C entry points,
//! whether the testbench's build script linked it in or [`crate::load_cached`]
//! loaded it at run time: [`Model::new`] takes either's [`ModelFns`].
//!
//! Ports are looked up by name once ([`Model::port`]) and then read and
//! written through a pointer into the model's own storage, so a cycle costs
//! little more than the model's `eval`. A model is not `Send`: it stays on the
//! thread that made it, and each has its own `VerilatedContext`.
//!
//! # One `eval()` per edge
//!
//! Every read shows what an `eval()` would show, but the model runs one only
//! when it must. Verilator 5 recomputes the logic that depends on inputs at
//! the start of every `eval()`, so after a change to inputs that only feed
//! logic (the port table's `edge_only` inputs, `VerilatedCode::mark_edge_only`),
//! [`Model::eval`] leaves the work for later: the next clock edge's
//! `eval()` settles those inputs first and then takes the edge, as the
//! hardware would. Until then, a read of an output that such inputs can
//! move (not `edge_only`) runs the `eval()` first; an `edge_only` output is
//! set only at clock edges and reads right as it is. A change to a clock
//! (an input some event is taken from) always makes the next `eval()` run.
//! A traced model marks no port, so it evaluates at every call.

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::path::Path;

use crate::{ModelFns, PortInfo};

/// A resolved port of one model.
#[derive(Clone, Copy, Debug)]
pub struct Port {
    index: usize,
    model: *const c_void,
    /// The port's storage inside the model (the shim's `port` entry point),
    /// so that a read or write is one load or store: valid while the model
    /// lives, and used only after [`Model::owns`] checked the port is its.
    storage: *mut c_void,
    pub width: usize,
    pub words: usize,
    /// The storage kind (8, 16, 32, 64; 0 for wide), direction and
    /// `edge_only`, copied from the port table so that a read or write needs
    /// no lookup.
    kind: u32,
    output: bool,
    edge_only: bool,
}

/// A live verilated model.
pub struct Model {
    fns: &'static ModelFns,
    handle: *mut c_void,
    time: u64,
    clock: Option<Port>,
    /// An input changed since the last `eval()` ran (or none ran yet).
    dirty: Cell<bool>,
    /// An input that is not `edge_only` (a clock) changed since the last
    /// `eval()` ran, or none ran yet: the next [`Model::eval`] must run.
    edge: Cell<bool>,
}

impl Model {
    /// Builds a model of kind `fns`.
    pub fn new(fns: &'static ModelFns) -> Self {
        // SAFETY: the shim's constructor has no preconditions.
        let handle = unsafe { (fns.new)() };
        assert!(!handle.is_null(), "model {} could not be created", fns.name);
        Model { fns, handle, time: 0, clock: None, dirty: Cell::new(true), edge: Cell::new(true) }
    }

    /// Starts an FST trace into `path` (a no-op for a model verilated without
    /// `--trace-fst`): every edge of [`Model::cycle`] is dumped.
    pub fn open_trace(&mut self, path: &Path) {
        let c = CString::new(path.to_string_lossy().as_bytes()).expect("a trace path without NUL");
        // SAFETY: handle is live; the path outlives the call.
        unsafe { (self.fns.trace_open)(self.handle, c.as_ptr()) };
    }

    /// The port `name`; panics naming the model and the port if it does not exist.
    pub fn port(&self, name: &str) -> Port {
        self.try_port(name).unwrap_or_else(|| panic!("model {} has no port {name}", self.fns.name))
    }

    pub fn try_port(&self, name: &str) -> Option<Port> {
        let index = self.fns.ports.iter().position(|p| p.name == name)?;
        let info = self.fns.ports[index];
        Some(Port {
            index,
            model: self.handle,
            // SAFETY: index < number of ports, handle is live.
            storage: unsafe { (self.fns.port)(self.handle, index as u32) },
            width: info.width,
            words: info.words,
            kind: info.kind,
            output: info.output,
            edge_only: info.edge_only,
        })
    }

    /// Panics unless `port` was resolved on this model.
    #[inline]
    fn owns(&self, port: Port) {
        if !std::ptr::eq(port.model, self.handle as *const c_void) {
            misuse("a port of another model");
        }
    }

    /// Panics naming `port` and what was wrong with its use.
    #[cold]
    #[inline(never)]
    fn misused(&self, port: Port, what: &str) -> ! {
        misuse(&format!("port {} ({} bits) {what}", self.info(port).name, port.width))
    }

    fn info(&self, port: Port) -> PortInfo {
        self.owns(port);
        self.fns.ports[port.index]
    }

    /// Value of a port of at most 64 bits.
    #[inline]
    pub fn get(&self, port: Port) -> u64 {
        self.owns(port);
        self.settle_for(port);
        let p = port.storage;
        // SAFETY: p points at the port's storage of the declared kind, live while self is.
        unsafe {
            match port.kind {
                8 => u64::from(*(p as *const u8)),
                16 => u64::from(*(p as *const u16)),
                32 => u64::from(*(p as *const u32)),
                64 => *(p as *const u64),
                _ => self.misused(port, "is wider than 64 bits: use get_wide"),
            }
        }
    }

    /// Boolean value of a one-bit port.
    #[inline]
    pub fn bit(&self, port: Port) -> bool {
        self.get(port) & 1 == 1
    }

    /// The words of a port, least significant first (any width).
    #[inline]
    pub fn get_wide(&self, port: Port, out: &mut [u32]) {
        self.owns(port);
        self.settle_for(port);
        if port.kind == 0 {
            assert_eq!(out.len(), port.words, "port {}: {} words", self.info(port).name, port.words);
            // SAFETY: a VlWide of `words` u32, live while self is.
            let src = unsafe { std::slice::from_raw_parts(port.storage as *const u32, port.words) };
            out.copy_from_slice(src);
        } else {
            let v = self.get(port);
            for (i, w) in out.iter_mut().enumerate() {
                *w = if i < 2 { (v >> (32 * i)) as u32 } else { 0 };
            }
        }
    }

    /// Drives an input of at most 64 bits; bits above its width are dropped.
    #[inline]
    pub fn set(&mut self, port: Port, value: u64) {
        self.owns(port);
        if port.output {
            self.misused(port, "is an output");
        }
        let value = if port.width >= 64 { value } else { value & ((1u64 << port.width) - 1) };
        self.changed(port);
        let p = port.storage;
        // SAFETY: as in `get`; the port is an input the model reads on eval.
        unsafe {
            match port.kind {
                8 => *(p as *mut u8) = value as u8,
                16 => *(p as *mut u16) = value as u16,
                32 => *(p as *mut u32) = value as u32,
                64 => *(p as *mut u64) = value,
                _ => self.misused(port, "is wider than 64 bits: use set_wide"),
            }
        }
    }

    /// Drives an input of any width from 32-bit words, least significant
    /// first; unused top bits are cleared.
    #[inline]
    pub fn set_wide(&mut self, port: Port, words: &[u32]) {
        self.owns(port);
        if port.kind != 0 {
            let value = words.iter().take(2).enumerate().fold(0u64, |v, (i, w)| v | (u64::from(*w) << (32 * i)));
            self.set(port, value);
            return;
        }
        assert!(!port.output, "port {} is an output", self.info(port).name);
        assert_eq!(words.len(), port.words, "port {}: {} words", self.info(port).name, port.words);
        self.changed(port);
        // SAFETY: a VlWide of `words` u32.
        let dst = unsafe { std::slice::from_raw_parts_mut(port.storage as *mut u32, port.words) };
        dst.copy_from_slice(words);
        clear_unused_bits(port, dst);
    }

    /// The low `out.len()` bytes of a port, byte 0 = bits 7:0: a stream's
    /// data as the bytes it carries, one copy of a wide port's words on a
    /// little-endian host. Panics for more bytes than the port's storage
    /// holds.
    #[inline]
    pub fn get_bytes(&self, port: Port, out: &mut [u8]) {
        self.owns(port);
        if port.kind != 0 {
            if out.len() > port.kind as usize / 8 {
                self.misused(port, &format!("read as {} bytes", out.len()));
            }
            out.copy_from_slice(&self.get(port).to_le_bytes()[..out.len()]);
            return;
        }
        self.settle_for(port);
        if out.len() > 4 * port.words {
            self.misused(port, &format!("read as {} bytes", out.len()));
        }
        // SAFETY: a VlWide of `words` u32, live while self is.
        let src = unsafe { std::slice::from_raw_parts(port.storage as *const u32, port.words) };
        if cfg!(target_endian = "little") {
            // SAFETY: the words' memory holds their little-endian bytes,
            // and out.len() <= 4 * words was checked.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr() as *const u8, out.as_mut_ptr(), out.len()) };
        } else {
            for (chunk, w) in out.chunks_mut(4).zip(src) {
                chunk.copy_from_slice(&w.to_le_bytes()[..chunk.len()]);
            }
        }
    }

    /// Drives an input from bytes, byte 0 = bits 7:0; the bytes past
    /// `bytes.len()` are cleared, as are unused top bits. Panics for more
    /// bytes than the port's storage holds.
    #[inline]
    pub fn set_bytes(&mut self, port: Port, bytes: &[u8]) {
        self.owns(port);
        if port.kind != 0 {
            if bytes.len() > port.kind as usize / 8 {
                self.misused(port, &format!("driven with {} bytes", bytes.len()));
            }
            let mut b = [0u8; 8];
            b[..bytes.len()].copy_from_slice(bytes);
            self.set(port, u64::from_le_bytes(b));
            return;
        }
        if port.output || bytes.len() > 4 * port.words {
            self.misused(port, &format!("driven with {} bytes (an input of at most {})", bytes.len(), 4 * port.words));
        }
        self.changed(port);
        // SAFETY: a VlWide of `words` u32.
        let dst = unsafe { std::slice::from_raw_parts_mut(port.storage as *mut u32, port.words) };
        if cfg!(target_endian = "little") {
            // SAFETY: as in get_bytes; bytes.len() <= 4 * words was checked.
            unsafe {
                let to = dst.as_mut_ptr() as *mut u8;
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), to, bytes.len());
                std::ptr::write_bytes(to.add(bytes.len()), 0, 4 * port.words - bytes.len());
            }
        } else {
            let mut chunks = bytes.chunks(4);
            for w in dst.iter_mut() {
                *w = match chunks.next() {
                    Some(c) => {
                        let mut b = [0u8; 4];
                        b[..c.len()].copy_from_slice(c);
                        u32::from_le_bytes(b)
                    }
                    None => 0,
                };
            }
        }
        clear_unused_bits(port, dst);
    }

    /// Input `port` was written.
    #[inline]
    fn changed(&self, port: Port) {
        self.dirty.set(true);
        if !port.edge_only {
            self.edge.set(true);
        }
    }

    /// Runs the `eval()` left for later before output `port` is read, when
    /// inputs changed since the last one and the port may show it.
    #[inline]
    fn settle_for(&self, port: Port) {
        if port.output && !port.edge_only && self.dirty.get() {
            self.run_eval();
        }
    }

    fn run_eval(&self) {
        // SAFETY: handle is live. The model's state is behind the handle,
        // not in Rust-owned memory, and no reference into its storage
        // outlives a call of this type, so evaluating through `&self`
        // changes nothing Rust code holds a reference to.
        unsafe { (self.fns.eval)(self.handle) };
        self.dirty.set(false);
        self.edge.set(false);
    }

    /// Settles the model after inputs changed: runs `eval()` when a clock
    /// moved (or none ran yet); after a change to inputs that only feed
    /// logic it leaves the `eval()` for the next edge or the next read of an
    /// output they can move (see the module's docs). Either way, every
    /// read after it shows what an `eval()` would.
    pub fn eval(&mut self) {
        if self.edge.get() {
            self.run_eval();
        }
    }

    /// Lowers clock input `clock` and settles the model. When no clock moved
    /// since the last `eval()` and the model lets this clock fall without one
    /// (a clock with only rising-edge logic, model not traced:
    /// `verilate::render_shim`'s `fall`), no `eval()` runs: it would only
    /// recompute logic, which the next edge does anyway, and any output read
    /// before it that inputs can move still runs it first. Otherwise the
    /// clock is set low and the model evaluated. Either way, outputs read
    /// after it are what an `eval()` would show.
    pub fn fall(&mut self, clock: Port) {
        self.owns(clock);
        assert!(!clock.output && clock.width == 1, "port {} is not a one-bit input", self.info(clock).name);
        // SAFETY: handle is live; index is the port's.
        if !self.edge.get() && unsafe { (self.fns.fall)(self.handle, clock.index as u32) } == 1 {
            return;
        }
        self.set(clock, 0);
        self.run_eval();
    }

    /// Chooses the clock input that [`Model::cycle`] toggles.
    pub fn set_clock(&mut self, name: &str) {
        let port = self.port(name);
        self.clock = Some(port);
    }

    /// One clock cycle: rising edge, then falling edge. Inputs set before the
    /// call are sampled at the rising edge; outputs read after it show the
    /// state the edge produced.
    pub fn cycle(&mut self) {
        let clock = self.clock.expect("set_clock first");
        self.set(clock, 1);
        self.eval();
        self.dump();
        self.fall(clock);
        self.dump();
    }

    fn dump(&mut self) {
        self.time += 1;
        // SAFETY: handle is live; a no-op without a trace.
        unsafe { (self.fns.trace_dump)(self.handle, self.time) };
    }
}

/// Clears the bits of a wide port's last word above its width, which
/// Verilator's code assumes are zero.
#[inline]
fn clear_unused_bits(port: Port, words: &mut [u32]) {
    let spare = port.words * 32 - port.width;
    if spare > 0 {
        words[port.words - 1] &= u32::MAX >> spare;
    }
}

/// A driver's mistake (a port of another model, an output driven, a
/// width's wrong accessor): out of line, so that the accessors inline to a
/// load or store and a test.
#[cold]
#[inline(never)]
fn misuse(what: &str) -> ! {
    panic!("verilate::Model: {what}")
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: handle came from `new` and is deleted once.
        unsafe { (self.fns.delete)(self.handle) };
    }
}
