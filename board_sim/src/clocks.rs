//! Two unrelated clocks driving one verilated model.
//!
//! [`TwoClocks`] keeps the time of the next edge of each clock in
//! picoseconds and steps the model from one edge to the next, so the clocks
//! drift against each other as real unrelated clocks do (periods such as
//! 4 ns and 10.3 ns never line up for long; when edges coincide both clocks
//! change before one `eval`).
//!
//! A test loop looks at [`TwoClocks::peek`] to learn which clocks rise next
//! (and sample what the design shows before that edge), calls
//! [`TwoClocks::advance`], then drives new inputs for the clocks that rose and
//! calls `eval`.

use crate::verilated::{Model, Port};

/// Which clocks rise at an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edges {
    pub a: bool,
    pub b: bool,
}

impl Edges {
    pub fn any(self) -> bool {
        self.a || self.b
    }
}

struct Gen {
    port: Port,
    period_ps: u64,
    level: bool,
    next_ps: u64,
    rises: u64,
    /// Stopped: the clock holds its level and has no edges.
    stopped: bool,
}

impl Gen {
    fn half(&self) -> u64 {
        // A high phase of half the period, rounded down; the low phase takes the rest.
        if self.level {
            self.period_ps - self.period_ps / 2
        } else {
            self.period_ps / 2
        }
    }
}

/// Clocks `a` and `b` of one model, each with its own period and phase.
pub struct TwoClocks {
    a: Gen,
    b: Gen,
    now_ps: u64,
}

impl TwoClocks {
    /// Both clocks start low; `a` first rises after half its period, `b`
    /// after half its period plus `b_phase_ps`.
    pub fn new(m: &mut Model, a: &str, a_period_ps: u64, b: &str, b_period_ps: u64, b_phase_ps: u64) -> Self {
        assert!(a_period_ps >= 2 && b_period_ps >= 2, "periods must be at least 2 ps");
        let a = Gen {
            port: m.port(a),
            period_ps: a_period_ps,
            level: false,
            next_ps: a_period_ps / 2,
            rises: 0,
            stopped: false,
        };
        let b = Gen {
            port: m.port(b),
            period_ps: b_period_ps,
            level: false,
            next_ps: b_period_ps / 2 + b_phase_ps,
            rises: 0,
            stopped: false,
        };
        m.set(a.port, 0);
        m.set(b.port, 0);
        m.eval();
        TwoClocks { a, b, now_ps: 0 }
    }

    /// The clocks that rise at the next event (none if it is a falling edge).
    pub fn peek(&self) -> Edges {
        let t = self.a.next_ps.min(self.b.next_ps);
        let rises = |g: &Gen| g.next_ps == t && !g.level && !g.stopped;
        Edges { a: rises(&self.a), b: rises(&self.b) }
    }

    /// Moves to the next event, changes the clocks that toggle there and
    /// evaluates the model. Returns the clocks that rose.
    pub fn advance(&mut self, m: &mut Model) -> Edges {
        let t = self.a.next_ps.min(self.b.next_ps);
        self.now_ps = t;
        let mut edges = Edges::default();
        // The clocks that fall at this event (at most both).
        let mut falling: [Option<Port>; 2] = [None, None];
        for ((g, rose), fell) in
            [(&mut self.a, &mut edges.a), (&mut self.b, &mut edges.b)].into_iter().zip(falling.iter_mut())
        {
            if g.next_ps == t && g.stopped {
                // Time passes; the clock stays where it stopped.
                g.next_ps = t + g.half();
            } else if g.next_ps == t {
                g.level = !g.level;
                *rose = g.level;
                if g.level {
                    g.rises += 1;
                    m.set(g.port, 1);
                } else {
                    *fell = Some(g.port);
                }
                g.next_ps = t + g.half();
            }
        }
        if edges.any() {
            for port in falling.into_iter().flatten() {
                m.set(port, 0);
            }
            m.eval();
        } else {
            // Only falling edges: `Model::fall` skips the eval when nothing
            // else changed since the last one and the design has no logic on
            // a falling edge.
            for port in falling.into_iter().flatten() {
                m.fall(port);
            }
        }
        edges
    }

    /// Stops clock `b` (it keeps its level; no edges until restarted) or
    /// restarts it, in its own phase: a clock source that stops and runs
    /// again, as a PLL losing lock or a gated clock does.
    pub fn stop_b(&mut self, stopped: bool) {
        self.b.stopped = stopped;
    }

    /// Time of the last event, ps.
    pub fn now_ps(&self) -> u64 {
        self.now_ps
    }

    /// Rising edges of `a` and of `b` so far.
    pub fn rises(&self) -> (u64, u64) {
        (self.a.rises, self.b.rises)
    }
}
