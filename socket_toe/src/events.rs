//! The bounded event log behind [`HostToe::take_events`](crate::HostToe::take_events).

use std::fmt;

/// At most this many events are kept between two
/// [`HostToe::take_events`](crate::HostToe::take_events) calls.
pub const MAX_EVENTS: usize = 10_000;

/// Bounded event log.
#[derive(Default)]
pub(crate) struct Log {
    pub(crate) events: Vec<String>,
    pub(crate) dropped: u64,
}

impl Log {
    pub(crate) fn push(&mut self, s: usize, msg: impl fmt::Display) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(format!("session {s}: {msg}"));
        } else {
            self.dropped += 1;
        }
    }
}
