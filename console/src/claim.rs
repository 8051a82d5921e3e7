//! One console at a time per session: before a test programs a session, the
//! console claims it in the register file (`session.claim`, which the
//! hardware arbitrates: of two claims written at once, the first holds and
//! the second reads the first's tag back), and it frees it when the test is
//! over, whatever the outcome. A second console that finds a session claimed
//! is refused by name before it writes anything, so the check and the start
//! cannot be split by another master the way a read of `status.busy`
//! followed by a start can.
//!
//! A console killed with SIGKILL leaves its claim held: `toe-console ...
//! abort --session N` frees it (and ends whatever test runs there).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use etherbone::RegisterBus;

use crate::ops::{self, OpError};

/// A tag for this console's claims: nonzero, and different from any other
/// console's with near certainty (the process id and the standard library's
/// per-process random hash keys).
pub fn new_tag() -> u32 {
    let mut h = RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    let v = h.finish();
    match (v as u32) ^ ((v >> 32) as u32) {
        0 => 1,
        t => t,
    }
}

/// Why a session could not be claimed, in the words the console prints.
pub fn claimed_message(session: usize, owner: u32, bus_args: &str) -> String {
    let bus = crate::run::shown_bus(bus_args);
    format!(
        "session {session} is claimed by another console (session{session}.claim = {owner:#010x}): it is \
         preparing or running a test; if no console is using it (one was killed), \
         `toe-console {bus} abort --session {session}` ends its test and frees it; nothing was written"
    )
}

/// Claims every one of `sessions` for `tag`, in order; when one is held by
/// another, frees those this call took and returns the refusal
/// ([`claimed_message`]).
pub fn claim_all(
    bus: &mut (impl RegisterBus + ?Sized),
    sessions: &[usize],
    tag: u32,
    bus_args: &str,
) -> Result<(), OpError> {
    for (i, &s) in sessions.iter().enumerate() {
        if let Err(owner) = ops::claim(bus, s, tag)? {
            release_all(bus, &sessions[..i], tag)?;
            return Err(OpError(claimed_message(s, owner, bus_args)));
        }
    }
    Ok(())
}

/// Frees those of `sessions` that `tag` still holds (a claim another
/// console took after an `abort` freed ours is left alone).
pub fn release_all(bus: &mut (impl RegisterBus + ?Sized), sessions: &[usize], tag: u32) -> Result<(), OpError> {
    for &s in sessions {
        if ops::claim_owner(bus, s)? == tag {
            ops::free_claim(bus, s)?;
        }
    }
    Ok(())
}

/// Runs `f` with `sessions` claimed for a fresh tag and frees them after,
/// also when `f` fails; `f`'s error comes first, a failure to free after a
/// success is the error.
pub fn with_claims<B: RegisterBus + ?Sized, T>(
    bus: &mut B,
    sessions: &[usize],
    bus_args: &str,
    f: impl FnOnce(&mut B) -> Result<T, OpError>,
) -> Result<T, OpError> {
    let tag = new_tag();
    claim_all(bus, sessions, tag, bus_args)?;
    let out = f(bus);
    let freed = release_all(bus, sessions, tag);
    match (out, freed) {
        (Err(e), _) => Err(e),
        (Ok(_), Err(e)) => Err(OpError(format!("the test ended, but freeing its sessions' claims failed: {e}"))),
        (Ok(v), Ok(())) => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherbone::BusError;
    use std::collections::HashMap;

    /// Registers as plain words, with the claim rule of `claim.owner` on
    /// every session's claim address: the register file's behaviour, from
    /// the map.
    #[derive(Default)]
    struct Regs(HashMap<u32, u32>);

    fn claim_addr(s: usize) -> u32 {
        crate::regs::session(s).unwrap().claim().addr
    }

    impl RegisterBus for Regs {
        fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
            Ok(self.0.get(&addr).copied().unwrap_or(0))
        }
        fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
            let old = self.0.get(&addr).copied().unwrap_or(0);
            let is_claim = (0..crate::regs::session::COUNT).any(|s| claim_addr(s) == addr);
            if !is_claim || old == 0 || value == 0 {
                self.0.insert(addr, value);
            }
            Ok(())
        }
    }

    #[test]
    fn a_second_console_is_refused_by_name_and_the_first_keeps_its_sessions() {
        let mut bus = Regs::default();
        claim_all(&mut bus, &[0, 1], 0xAAAA, "--connect 127.0.0.1:1234").unwrap();
        let e = claim_all(&mut bus, &[2, 1], 0xBBBB, "--connect 127.0.0.1:1234").unwrap_err();
        assert!(e.0.starts_with("session 1 is claimed by another console (session1.claim = 0x0000aaaa)"), "{e}");
        assert!(e.0.contains("`toe-console --connect 127.0.0.1:1234 abort --session 1`"), "{e}");
        assert_eq!(ops::claim_owner(&mut bus, 2).unwrap(), 0, "the loser frees what it took before the refusal");
        assert_eq!(ops::claim_owner(&mut bus, 1).unwrap(), 0xAAAA);
        release_all(&mut bus, &[0, 1], 0xAAAA).unwrap();
        assert_eq!(ops::claim_owner(&mut bus, 0).unwrap(), 0);
        assert_eq!(ops::claim_owner(&mut bus, 1).unwrap(), 0);
    }

    #[test]
    fn claims_are_freed_after_a_failed_test_and_a_foreign_claim_is_left_alone() {
        let mut bus = Regs::default();
        let e = with_claims(&mut bus, &[0, 3], "", |bus| {
            assert_ne!(ops::claim_owner(bus, 0).unwrap(), 0, "claimed while the test runs");
            Err::<(), _>(OpError("the test failed".into()))
        })
        .unwrap_err();
        assert_eq!(e.0, "the test failed");
        assert_eq!((ops::claim_owner(&mut bus, 0).unwrap(), ops::claim_owner(&mut bus, 3).unwrap()), (0, 0));
        // An `abort` freed session 0 mid-test and another console took it.
        with_claims(&mut bus, &[0], "", |bus| {
            ops::free_claim(bus, 0)?;
            assert_eq!(ops::claim(bus, 0, 0x5555)?, Ok(()));
            Ok(())
        })
        .unwrap();
        assert_eq!(ops::claim_owner(&mut bus, 0).unwrap(), 0x5555, "the other console's claim stays");
    }

    #[test]
    fn tags_are_never_zero() {
        for _ in 0..1000 {
            assert_ne!(new_tag(), 0);
        }
    }
}
