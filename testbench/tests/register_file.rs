//! The register file on its own (models `regfile`: the default design, and
//! `regfile_alt`: two sessions with `toe.target_ip` moved in the map), driven
//! by the AXI4-Lite master of `testbench::axil` with random channel order and
//! delays, the register clock and the user clock at unrelated periods, and
//! checked against the register model built from the `regmap` definition
//! (`testbench::register_model`) on the bench of `testbench::register_bench`.
//! The bus address is the full 32 bits; addresses beyond the map's span are
//! unmapped like any other.
//! No address is written in this file: every one comes from the map.

use std::collections::HashMap;

use config::ports::Group;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use regmap::{Access, RegisterMap};
use testbench::axil::{Completion, Master, Timing, OKAY, SLVERR};
use testbench::models;
use testbench::register_bench::{alt_design, alt_map, default_bench, default_design, Bench, BUS_PS, USER_PS};
use testbench::seed;
use testbench::verilated::{Model, ModelFns};

#[test]
fn every_register_reads_its_reset_value_and_every_output_port_shows_it() {
    let mut b = default_bench("reset values");
    b.check_outputs();
    for addr in b.all_addrs() {
        let r = b.expect.reg(addr).unwrap();
        let (want, counter, id) = (r.reset, r.counter, r.id.clone());
        let (data, resp) = b.read(addr);
        assert_eq!(resp, OKAY, "{id}");
        if counter {
            continue; // the cycle counter runs from reset: its own test
        }
        // Write-only and write-pulse bits read 0; every other bit reads its reset.
        let map_reg = b
            .map
            .instances()
            .into_iter()
            .find(|l| l.block.address(l.instance, l.register) == Some(addr))
            .unwrap()
            .register;
        let readable = map_reg.fields.iter().filter(|f| f.access.readable()).fold(0, |m, f| m | f.mask());
        assert_eq!(data, want & readable, "{id} at {addr:#x}: {data:#010x}");
    }
    let id = b.addr("info", 0, "id");
    assert_eq!(b.read(id).0, regmap::ID_MAGIC);
}

#[test]
fn read_only_fields_ignore_writes() {
    let mut b = default_bench("read-only");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let statuses: Vec<String> =
        b.ports.iter().filter(|(_, p)| !p.output).map(|(n, _)| n.clone()).filter(|n| !n.ends_with("_set")).collect();
    for s in &statuses {
        let v = rng.gen();
        b.set_status(s, v);
    }
    let ro: Vec<u32> = b
        .expect
        .regs
        .iter()
        .filter(|r| !r.counter && r.fields.iter().all(|f| f.access == Access::Ro))
        .map(|r| r.addr)
        .collect();
    assert!(ro.len() > 20, "{} read-only registers", ro.len());
    for &addr in &ro {
        b.check_read(addr);
        b.check_write(addr, rng.gen(), 0xF);
        b.check_read(addr);
    }
    b.check_outputs();
}

#[test]
fn w1c_bits_are_set_by_the_user_logic_and_cleared_only_by_writing_one() {
    let mut b = default_bench("w1c");
    for s in 0..4 {
        let status = b.addr("session", s, "status");
        let reg = b.map.find_register("status").unwrap().1.clone();
        let done = reg.field("done").unwrap().mask();
        let error = reg.field("error").unwrap().mask();
        let name = |f: &str| Group::RegisterSession(s).top_name(f);
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), 0);
        b.pulse_set(&name("done"));
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), done, "session {s}: done set");
        assert!(b.m.bit(b.p(&name("done"))), "sticky output s{s}_done");
        b.check_write(status, !done, 0xF); // ones everywhere but done: done stays
        b.check_read(status);
        b.pulse_set(&name("error"));
        b.check_write(status, done, 0xE); // done's byte not enabled: nothing clears
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), done | error);
        b.check_write(status, done, 0xF);
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), error, "session {s}: only done cleared");
        b.check_outputs();
        b.check_write(status, error, 0xF);
        assert_eq!(b.read(status).0 & (done | error), 0);
        b.check_outputs();
        // A set held high wins over a clearing write in the same cycle.
        let set = b.p(&name("error_set"));
        b.m.set(set, 1);
        b.idle(3);
        b.write(status, error, 0xF);
        assert_eq!(b.read(status).0 & error, error, "session {s}: set held high, clear lost");
        b.m.set(set, 0);
        b.idle(3);
        b.write(status, error, 0xF);
        assert_eq!(b.read(status).0 & error, 0, "session {s}: set released, clear works");
    }
}

#[test]
fn write_pulses_fire_exactly_once_in_the_user_domain() {
    let mut b = default_bench("write pulses");
    let pulse_regs: Vec<(u32, Vec<u32>)> = b
        .expect
        .regs
        .iter()
        .filter(|r| r.fields.iter().any(|f| f.access == Access::WPulse))
        .map(|r| (r.addr, r.fields.iter().filter(|f| f.access == Access::WPulse).map(|f| f.mask).collect()))
        .collect();
    assert_eq!(pulse_regs.len(), 5, "toe_ctrl and four session ctrl");
    for (addr, masks) in &pulse_regs {
        for &m in masks {
            b.check_write(*addr, m, 0xF);
            b.check_write(*addr, 0, 0xF); // 0: nothing
            b.check_write(*addr, m, 0x0); // no byte enabled: nothing
            b.check_read(*addr); // reads 0
            b.idle(8);
            b.check_pulses();
        }
        let all = masks.iter().fold(0, |a, m| a | m);
        b.check_write(*addr, all, 0xF); // several commands in one write: one pulse each
        b.idle(8);
        b.check_pulses();
    }
    assert!(b.pulses.values().sum::<u64>() >= 2 * 13, "{:?}", b.pulses);
}

/// Issue 51, item 3: `session.claim` is taken by the first nonzero write
/// while free, read back by its holder, kept against any other master's
/// tag (OKAY, nothing changes) and freed only by 0, in every session; then
/// random writes and byte strobes against the model's claim rule.
#[test]
fn a_claim_is_taken_by_the_first_writer_and_freed_only_by_zero() {
    let mut b = default_bench("claim");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let sessions = b.map.block("session").unwrap().instances();
    let claims: Vec<u32> = (0..sessions).map(|s| b.addr("session", s, "claim")).collect();
    for &c in &claims {
        assert_eq!(b.read(c), (0, OKAY), "free after reset");
        assert_eq!(b.write(c, 0x1111_0001, 0xF), OKAY);
        assert_eq!(b.write(c, 0x2222_0002, 0xF), OKAY, "a losing claim is not an error");
        assert_eq!(b.read(c).0, 0x1111_0001, "the first claim holds");
        assert_eq!(b.write(c, 0x0000_00FF, 0x1), OKAY);
        assert_eq!(b.read(c).0, 0x1111_0001, "a byte cannot change a held claim");
        assert_eq!(b.write(c, 0, 0xF), OKAY);
        assert_eq!(b.read(c).0, 0, "0 frees it");
        assert_eq!(b.write(c, 0x2222_0002, 0xF), OKAY);
        assert_eq!(b.read(c).0, 0x2222_0002, "then the next claim takes it");
        b.check_write(c, 0, 0xF);
    }
    for _ in 0..400 {
        let c = claims[rng.gen_range(0..claims.len())];
        let data = match rng.gen_range(0..3) {
            0 => 0,
            1 => rng.gen_range(1..4),
            _ => rng.gen(),
        };
        b.check_write(c, data, rng.gen_range(0..16));
        b.check_read(c);
    }
    b.check_outputs();
}

#[test]
fn byte_strobes_write_only_the_enabled_bytes() {
    let mut b = default_bench("byte strobes");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let rw: Vec<u32> =
        b.expect.regs.iter().filter(|r| r.fields.iter().any(|f| f.access == Access::Rw)).map(|r| r.addr).collect();
    for _ in 0..300 {
        let addr = rw[rng.gen_range(0..rw.len())];
        b.check_write(addr, rng.gen(), rng.gen_range(0..16));
        b.check_read(addr);
    }
    b.check_outputs();
}

#[test]
fn unmapped_addresses_answer_slverr_and_change_nothing() {
    for (fns, map, what) in [
        (&models::regfile::FNS, RegisterMap::for_design(&default_design()), "slverr default"),
        (&models::regfile_alt::FNS, alt_map(), "slverr two sessions"),
    ] {
        let mut b = Bench::new(fns, map, what, BUS_PS, USER_PS, Timing { max_delay: 1, ready_probability: 0.9 });
        let bits = b.map.address_bits();
        let mut unmapped = 0;
        for addr in 0..(1u32 << bits) {
            let aligned = addr % 4 == 0;
            if b.map.lookup(addr).is_some() || (!aligned && addr % 7 != 1) {
                continue;
            }
            b.check_write(addr, 0xFFFF_FFFF, 0xF);
            b.check_read(addr);
            unmapped += 1;
        }
        assert!(unmapped > 100, "{unmapped} unmapped addresses tried");
        // Session blocks past design.sessions are unmapped.
        let s = b.map.block("session").unwrap().clone();
        let past = s.base + s.instances() as u32 * s.stride();
        if past < 1 << bits {
            assert_eq!(b.read(past + s.registers[0].offset).1, SLVERR);
        }
        for addr in b.all_addrs() {
            b.check_read(addr);
        }
        b.check_outputs();
        b.check_pulses();
    }
}

/// Every mapped register's value, read in map order (the cycle counter,
/// which runs on its own, left out): what the bus shows of the whole map.
fn map_contents(b: &mut Bench) -> Vec<(u32, (u32, u8))> {
    let addrs: Vec<u32> = b.expect.regs.iter().filter(|r| !r.counter).map(|r| r.addr).collect();
    addrs.into_iter().map(|a| (a, b.read(a))).collect()
}

/// Issue 25, item 1: the bus address is 32 bits and every bit is decoded.
/// For every address bit from the map's span up to 31, a write to a mapped
/// register's address with that bit set (a storage register, a `w1c` status
/// with its sticky bits set, a write-pulse control, a checked field given a
/// valid value) answers SLVERR and changes nothing: the whole map reads the
/// same before and after, no output port moves, no pulse fires, no sticky
/// bit clears; a read of such an address answers SLVERR with data 0. Then
/// seeded random 32-bit addresses outside the map (`TB_SEED` replays).
/// Both models (the default map of 11 bits, the 2-session map with a moved
/// register).
#[test]
fn addresses_with_a_bit_above_the_map_answer_slverr_and_change_nothing() {
    for (fns, map, what) in [
        (&models::regfile::FNS, RegisterMap::for_design(&default_design()), "above the map default"),
        (&models::regfile_alt::FNS, alt_map(), "above the map two sessions"),
    ] {
        let mut b = Bench::new(fns, map, what, BUS_PS, USER_PS, Timing { max_delay: 1, ready_probability: 0.9 });
        let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
        for name in ["awaddr", "araddr"] {
            let port = b.m.port(&Group::Bus.top_name(name));
            assert_eq!(port.width, hdl::register_file::BUS_ADDRESS_BITS, "{what}: {name} is the 32-bit bus address");
        }
        let span = b.map.address_bits();
        assert!(span < 32);
        // Something for a stray write to destroy: sticky bits set, storage
        // away from its reset value.
        let s0 = Group::RegisterSession(0);
        b.pulse_set(&s0.top_name("done"));
        b.pulse_set(&s0.top_name("error"));
        let fpga_ip = b.addr("toe", 0, "fpga_ip");
        b.check_write(fpga_ip, 0x0A0B_0C0D, 0xF);
        let status = b.addr("session", 0, "status");
        let ctrl = b.addr("session", 0, "ctrl");
        let toe_config = b.addr("toe", 0, "toe_config");
        // Another valid `toe.mode` (0..=2), the other fields as they are.
        let mode = b.map.find_register("toe_config").unwrap().1.field("mode").unwrap().clone();
        let config_now = b.read(toe_config).0;
        let other_mode = ((config_now & mode.mask()) >> mode.lsb).wrapping_add(1) % 3;
        let config_new = (config_now & !mode.mask()) | other_mode << mode.lsb;
        let targets = [(fpga_ip, 0xF5F6_F7F8), (status, u32::MAX), (ctrl, u32::MAX), (toe_config, config_new)];
        let before = map_contents(&mut b);
        let mut tried = 0;
        for bit in span..32 {
            for &(addr, data) in &targets {
                let stray = addr | 1 << bit;
                assert_eq!(b.write(stray, data, 0xF), SLVERR, "{what}: write {stray:#010x} (bit {bit} over {addr:#x})");
                assert_eq!(b.read(stray), (0, SLVERR), "{what}: read {stray:#010x} (bit {bit} over {addr:#x})");
                tried += 1;
            }
        }
        assert_eq!(tried, 4 * (32 - span as usize));
        for _ in 0..300 {
            let addr = loop {
                let a = rng.gen::<u32>();
                if a >> span != 0 {
                    break a;
                }
            };
            if rng.gen_bool(0.5) {
                assert_eq!(b.write(addr, rng.gen(), rng.gen_range(0..16)), SLVERR, "{what}: write {addr:#010x}");
            } else {
                assert_eq!(b.read(addr), (0, SLVERR), "{what}: read {addr:#010x}");
            }
        }
        b.idle(8);
        assert_eq!(map_contents(&mut b), before, "{what}: a write outside the map changed a register");
        b.check_outputs();
        b.check_pulses();
        for addr in b.all_addrs() {
            b.check_read(addr);
        }
    }
}

/// A write that would put a value outside a field's valid values (a range
/// such as `tx_percent` 1..=100, or a code table with unused codes such as
/// `toe.mode`), or that covers only some bytes of such a field, answers
/// SLVERR and changes nothing, not even the other fields of the register;
/// the valid values at both ends are taken. Every field the map restricts is
/// tried, on both models.
#[test]
fn writes_outside_a_fields_valid_values_are_refused_and_change_nothing() {
    for (fns, map, what) in [
        (&models::regfile::FNS, RegisterMap::for_design(&default_design()), "refused default"),
        (&models::regfile_alt::FNS, alt_map(), "refused two sessions"),
    ] {
        let mut b = Bench::new(fns, map, what, BUS_PS, USER_PS, Timing { max_delay: 2, ready_probability: 0.8 });
        let checked: Vec<(u32, u32, u32, (u32, u32))> = b
            .expect
            .regs
            .iter()
            .flat_map(|r| r.fields.iter().filter_map(move |f| f.valid.map(|v| (r.addr, f.lsb, f.mask, v))))
            .collect();
        let sessions = b.map.block("session").unwrap().instances();
        assert_eq!(
            checked.len(),
            9 * sessions + 2,
            "per session tx/rx_percent, prefix_length, test_mode (codes 6 and 7 unused), outstanding, \
             the request and response sizes, request_count and hist_index; toe.mode and toe.last_packet_mode"
        );
        let (mut refused, mut taken) = (0, 0);
        for &(addr, lsb, mask, (min, max)) in &checked {
            // The other fields of the register keep what they hold.
            let before = b.read(addr).0;
            let width_max = mask >> lsb;
            let mut tries = vec![(min, 0xF), (max, 0xF)];
            if min > 0 {
                tries.push((min - 1, 0xF));
            }
            if max < width_max {
                tries.push((max + 1, 0xF));
                tries.push((width_max, 0xF));
            }
            for (value, strb) in tries {
                let word = (before & !mask) | (value << lsb);
                let resp = b.write(addr, word, strb);
                let valid = (min..=max).contains(&value);
                assert_eq!(resp, if valid { OKAY } else { SLVERR }, "{what}: {value} into {addr:#x} bits {lsb}+");
                assert!(b.expect.write(addr, word, strb) == valid, "the model agrees on {value} at {addr:#x}");
                let want = if valid { word } else { before };
                assert_eq!(b.read(addr).0 & b.expect.reg(addr).unwrap().fields.iter().fold(0, |m, f| m | f.mask), want);
                if valid {
                    taken += 1;
                    b.write(addr, before, 0xF);
                    b.expect.write(addr, before, 0xF);
                } else {
                    refused += 1;
                }
            }
            // A write whose strobes leave out the field's byte does not touch it and is taken.
            let other_bytes = !(0..4).filter(|k| mask >> (8 * k) & 0xFF != 0).fold(0u8, |m, k| m | 1 << k) & 0xF;
            if other_bytes != 0 {
                b.check_write(addr, before & !mask, other_bytes);
                b.check_read(addr);
            }
        }
        b.check_outputs();
        b.check_pulses();
        eprintln!("{what}: {} checked fields, {refused} writes refused, {taken} taken", checked.len());
    }
}

/// Random reads and writes of mapped and unmapped addresses, one at a time,
/// with status inputs and sticky sets changing between them.
fn random_against_model(fns: &'static ModelFns, map: RegisterMap, what: &str, n: usize) {
    let mut seed_rng = seed::rng(what);
    let bus_ps = seed_rng.gen_range(2_000..15_000);
    let user_ps = seed_rng.gen_range(2_000..15_000);
    let timing = Timing { max_delay: seed_rng.gen_range(0..6), ready_probability: seed_rng.gen_range(0.3..1.0) };
    let mut b = Bench::new(fns, map, what, bus_ps, user_ps, timing);
    let mut rng = ChaCha8Rng::seed_from_u64(seed_rng.gen());
    let addrs = b.all_addrs();
    let inputs: Vec<String> = b.ports.iter().filter(|(_, p)| !p.output).map(|(n, _)| n.clone()).collect();
    let bits = b.map.address_bits();
    let (mut reads, mut writes) = (0, 0);
    for _ in 0..n {
        match rng.gen_range(0..10) {
            0 => {
                let name = &inputs[rng.gen_range(0..inputs.len())];
                match name.strip_suffix("_set") {
                    Some(sticky) => b.pulse_set(sticky),
                    None => {
                        let name = name.clone();
                        b.set_status(&name, rng.gen());
                    }
                }
            }
            k => {
                let addr = if rng.gen_bool(0.03) {
                    rng.gen_range(0..1u32 << bits)
                } else if rng.gen_bool(0.02) {
                    rng.gen() // any of the 32 bits: outside the map's span nearly always
                } else {
                    addrs[rng.gen_range(0..addrs.len())]
                };
                if k <= 5 {
                    b.check_read(addr);
                    reads += 1;
                } else {
                    let strb = if rng.gen_bool(0.7) { 0xF } else { rng.gen_range(0..16) };
                    b.check_write(addr, rng.gen(), strb);
                    writes += 1;
                }
            }
        }
    }
    b.idle(8);
    b.check_outputs();
    b.check_pulses();
    eprintln!("{what}: {reads} reads, {writes} writes checked");
}

#[test]
fn thousands_of_random_transactions_match_the_register_model() {
    random_against_model(&models::regfile::FNS, RegisterMap::for_design(&default_design()), "random default", 12_000);
}

#[test]
fn random_transactions_on_two_sessions_with_a_moved_register() {
    random_against_model(&models::regfile_alt::FNS, alt_map(), "random alt", 3000);
}

#[test]
fn overlapping_reads_and_writes_in_any_channel_order() {
    let mut b = Bench::new(
        &models::regfile::FNS,
        RegisterMap::for_design(&default_design()),
        "overlap",
        USER_PS,
        BUS_PS,
        Timing { max_delay: 6, ready_probability: 0.5 },
    );
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    // Writes go to storage, reads to constants: the order the slave picks
    // between them cannot change any answer.
    let storage: Vec<u32> =
        b.expect.regs.iter().filter(|r| r.fields.iter().all(|f| f.access == Access::Rw)).map(|r| r.addr).collect();
    let constant: Vec<u32> = b
        .expect
        .regs
        .iter()
        .filter(|r| r.fields.iter().all(|f| f.access == Access::Ro && !f.volatile))
        .map(|r| r.addr)
        .collect();
    let mut total = 0;
    for _ in 0..60 {
        let mut ids = HashMap::new();
        for _ in 0..rng.gen_range(1..12) {
            if rng.gen_bool(0.5) {
                let (addr, data) = (storage[rng.gen_range(0..storage.len())], rng.gen());
                let id = b.master.write(addr, data, 0xF);
                ids.insert(id, (addr, Some(data)));
            } else {
                let addr = constant[rng.gen_range(0..constant.len())];
                ids.insert(b.master.read(addr), (addr, None));
            }
        }
        let done = b.run_until_idle();
        assert_eq!(done.len(), ids.len());
        // Writes complete in issue order (one B channel), so the model takes them in that order.
        let mut writes: Vec<&Completion> = done.iter().filter(|c| c.write).collect();
        writes.sort_by_key(|c| c.id);
        for c in writes {
            let (addr, data) = ids[&c.id];
            let taken = b.expect.write(addr, data.unwrap(), 0xF);
            assert_eq!(c.resp, if taken { OKAY } else { SLVERR }, "write {addr:#x} of {:#x}", data.unwrap());
        }
        for c in done.iter().filter(|c| !c.write) {
            assert_eq!(c.resp, OKAY);
            let want = b.expect.read(c.addr).unwrap().0;
            assert_eq!(c.data, want, "read {:#x}", c.addr);
        }
        total += done.len();
    }
    for addr in b.all_addrs() {
        b.check_read(addr);
    }
    b.check_outputs();
    eprintln!("overlap: {total} transactions");
}

#[test]
fn a_wide_value_read_is_one_sample_while_it_changes_every_cycle() {
    let mut b = default_bench("coherent 64-bit");
    // s1_tx_bytes steps by a large odd amount each user cycle, so the low
    // half wraps every few cycles: a torn pair (lo of one cycle, hi of
    // another) is not a value the input ever had.
    const STEP: u64 = 0x0000_0001_9E37_79B9;
    let port = b.p(&Group::RegisterSession(1).top_name("tx_bytes"));
    b.user_hook = Some(Box::new(move |m: &mut Model, cycle: u64| m.set(port, cycle.wrapping_mul(STEP))));
    let (lo, hi) = (b.addr("session", 1, "tx_bytes_lo"), b.addr("session", 1, "tx_bytes_hi"));
    let mut last = 0u64;
    for _ in 0..300 {
        let before = b.user_cycles;
        let l = b.read(lo).0;
        let after = b.user_cycles;
        let gap = b.rng.gen_range(0..5);
        b.idle(gap);
        let h = b.read(hi).0;
        let value = u64::from(h) << 32 | u64::from(l);
        let found = (before..=after).any(|c| c.wrapping_mul(STEP) == value);
        assert!(found, "torn read {value:#018x}: no user cycle in {before}..={after} had it");
        assert!(value >= last, "not monotonic: {value:#x} after {last:#x}");
        last = value;
    }
}

#[test]
fn the_cycle_counter_runs_in_the_user_clock_and_reads_coherently() {
    let mut b = default_bench("cycle counter");
    let (lo, hi) = (b.addr("info", 0, "cycle_count_lo"), b.addr("info", 0, "cycle_count_hi"));
    let counter = b.p(&Group::Info.top_name("cycle_count"));
    let mut last = 0;
    for _ in 0..200 {
        let before = b.user_cycles;
        let l = b.read(lo).0;
        let after = b.user_cycles;
        let h = b.read(hi).0;
        let value = u64::from(h) << 32 | u64::from(l);
        // The counter started with user_rst released (user_cycles = 0 then).
        assert!(
            (before..=after).contains(&value),
            "count {value} outside the user cycles {before}..={after} of the read"
        );
        assert!(value > last || last == 0, "not increasing: {value} after {last}");
        last = value;
        assert_eq!(b.m.get(counter), b.user_cycles, "info_cycle_count port");
    }
}

#[test]
fn wide_parameters_written_in_halves_reach_the_command_whole() {
    let mut b = default_bench("48-bit writes");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let start = b.map.find_register("ctrl").unwrap().1.field("start").unwrap().mask();
    for i in 0..60 {
        let s = i % 4;
        let size: u64 = rng.gen_range(1..1u64 << 48);
        let packet: u64 = rng.gen_range(1..1u64 << 48);
        // Halves in random order, with random channel timing.
        let mut halves = vec![
            (b.addr("session", s, "transfer_size_lo"), size as u32),
            (b.addr("session", s, "transfer_size_hi"), (size >> 32) as u32),
            (b.addr("session", s, "packet_size_lo"), packet as u32),
            (b.addr("session", s, "packet_size_hi"), (packet >> 32) as u32),
        ];
        for k in (1..halves.len()).rev() {
            halves.swap(k, rng.gen_range(0..=k));
        }
        for (addr, v) in halves {
            b.check_write(addr, v, 0xF);
        }
        b.check_write(b.addr("session", s, "ctrl"), start, 0xF);
        b.idle(8);
        let (name, _, values) = b.pulse_log.last().unwrap().clone();
        let session = Group::RegisterSession(s);
        assert_eq!(name, session.top_name("start"));
        assert_eq!(values[&session.top_name("transfer_size")], size, "transfer size at start");
        assert_eq!(values[&session.top_name("packet_size")], packet, "packet size at start");
    }
    b.check_pulses();
}

#[test]
fn moving_a_register_in_the_map_moves_it_in_the_hardware() {
    let default = RegisterMap::for_design(&alt_design());
    let moved = alt_map();
    let mut b = Bench::new(&models::regfile_alt::FNS, moved, "moved", BUS_PS, USER_PS, Timing::default());
    let (old_block, old_reg) = default.find_register("target_ip").unwrap();
    let old = old_block.address(0, old_reg).unwrap();
    let new = b.addr("toe", 0, "target_ip");
    assert_ne!(old, new);
    assert_eq!(b.read(old).1, SLVERR, "the old address is unmapped now");
    assert_eq!(b.read(new), (old_reg.reset_for(0), OKAY), "target_ip reads its reset at the new address");
    b.check_write(new, 0x0A00_0001, 0xF);
    b.check_read(new);
    b.check_outputs();
    assert_eq!(b.m.get(b.p(&Group::ToeGlobal.top_name("target_ip"))), 0x0A00_0001);
    // Exactly two session groups.
    let start = |s| Group::RegisterSession(s).top_name("start");
    assert!(b.m.try_port(&start(1)).is_some() && b.m.try_port(&start(2)).is_none());
}

#[test]
fn crossing_latency_is_within_the_documented_bound() {
    for (bus_ps, user_ps) in [(BUS_PS, USER_PS), (USER_PS, BUS_PS), (5_000, 5_000), (3_000, 13_700)] {
        let mut b = Bench::new(
            &models::regfile::FNS,
            RegisterMap::for_design(&default_design()),
            "latency",
            bus_ps,
            user_ps,
            Timing { max_delay: 0, ready_probability: 1.0 },
        );
        let addr = b.addr("toe", 0, "fpga_ip");
        let r = user_ps as f64 / bus_ps as f64;
        let mut seen = Vec::new();
        for _ in 0..50 {
            let gap = b.rng.gen_range(0..4);
            b.idle(gap);
            b.master.write(addr, 1, 0xF);
            let w = b.run_until_idle()[0];
            b.master.read(addr);
            let rd = b.run_until_idle()[0];
            // `cycles` counts bus edges from the acceptance edge E0 to the
            // response handshake: VALID rises (3 + 2r, 4 + 3r] cycles after
            // E0 for a read and one bus cycle later for a write (its value
            // check, docs/register_file.md), and READY is always high, so the
            // handshake is one edge later.
            for (c, check) in [(w, 1.0), (rd, 0.0)] {
                let n = c.cycles as f64 - check;
                assert!(
                    n > 4.0 + 2.0 * r - 1e-9 && n <= 5.0 + 3.0 * r + 1e-9,
                    "{bus_ps}/{user_ps} ps: {} cycles (write: {}), r = {r}",
                    c.cycles,
                    c.write
                );
                seen.push(c.cycles);
            }
        }
        // A refused write (toe.mode code 3) never crosses: SLVERR 2 bus cycles
        // after acceptance, the handshake one edge later, whatever the user clock.
        let config = b.addr("toe", 0, "toe_config");
        for _ in 0..5 {
            b.master.write(config, 3, 0xF);
            let c = b.run_until_idle()[0];
            assert_eq!((c.resp, c.cycles), (SLVERR, 3), "{bus_ps}/{user_ps} ps: refused write");
        }
        seen.sort();
        eprintln!(
            "latency {bus_ps}/{user_ps} ps: {}..={} bus cycles from acceptance to handshake",
            seen[0],
            seen[seen.len() - 1]
        );
    }
}

#[test]
fn a_reset_of_either_domain_alone_never_hangs_the_bus() {
    let mut b = default_bench("lone resets");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let addrs = b.all_addrs();
    let (rst, arstn) = (b.m.port(&Group::Clock.top_name("user_rst")), b.m.port(&Group::Bus.top_name("aresetn")));
    for round in 0..40 {
        for _ in 0..rng.gen_range(1..6) {
            let addr = addrs[rng.gen_range(0..addrs.len())];
            if rng.gen_bool(0.5) {
                b.master.read(addr);
            } else {
                b.master.write(addr, rng.gen(), 0xF);
            }
        }
        for _ in 0..rng.gen_range(0..200) {
            b.step();
        }
        if round % 2 == 0 {
            // The user domain alone: the bus keeps its transactions and they finish.
            b.m.set(rst, 1);
            b.idle(rng.gen_range(1..6));
            b.m.set(rst, 0);
            b.run_until_idle();
        } else {
            // The bus alone: what was in flight is dropped; the master starts over.
            b.m.set(arstn, 0);
            b.idle(rng.gen_range(2..6));
            b.master = Master::new(&mut b.m, ChaCha8Rng::seed_from_u64(rng.gen()), Timing::default());
            b.checker.reset();
            b.m.set(arstn, 1);
            b.m.eval();
            b.idle(2);
        }
        // Whatever happened, a fresh read answers.
        let id = b.addr("info", 0, "id");
        assert_eq!(b.read(id), (regmap::ID_MAGIC, OKAY), "round {round}");
    }
}

/// A bus reset of one bus cycle while a complete write waits in the AW and W
/// registers (its check done, held only by the previous write's B that the
/// master does not take) drops that write: it is never performed, and the
/// bus answers the next accesses as before. The write before it, already
/// answered, was performed.
#[test]
fn a_one_cycle_bus_reset_drops_a_checked_write_waiting_to_issue() {
    let mut b = default_bench("one-cycle bus reset");
    let first = b.addr("toe", 0, "target_ip");
    let second = b.addr("toe", 0, "fpga_ip");
    let before = b.read(second);
    assert_eq!(before.1, OKAY);
    let port = |b: &Bench, name: &str| b.m.port(&Group::Bus.top_name(name));
    let (arstn, bvalid, awready, wready) =
        (port(&b, "aresetn"), port(&b, "bvalid"), port(&b, "awready"), port(&b, "wready"));

    // BREADY stays low: the first write's B waits, the second write's AW and
    // W wait behind it, held.
    b.master.timing = Timing { max_delay: 0, ready_probability: 0.0 };
    b.master.write(first, 0x1111_2222, 0xF);
    b.master.write(second, before.0 ^ 0xFFFF_FFFF, 0xF);
    bus_idle(&mut b, 60);
    assert!(b.m.bit(bvalid), "the first write's B waits");
    assert!(!b.m.bit(awready) && !b.m.bit(wready), "the second write's AW and W are held");

    // One bus cycle of reset; the master starts over.
    b.m.set(arstn, 0);
    b.m.eval();
    bus_idle(&mut b, 1);
    b.master = Master::new(&mut b.m, ChaCha8Rng::seed_from_u64(b.rng.gen()), Timing::default());
    b.checker.reset();
    b.m.set(arstn, 1);
    b.m.eval();
    bus_idle(&mut b, 60);

    assert!(!b.m.bit(bvalid), "no answer for a write the reset dropped");
    assert_eq!(b.read(second), before, "the held write was dropped, not performed");
    assert_eq!(b.read(first), (0x1111_2222, OKAY), "the answered write was performed");
}

/// Steps `bus_cycles` register-bus clock cycles (the user clock may be stopped).
fn bus_idle(b: &mut Bench, bus_cycles: u64) {
    let a0 = b.clocks.rises().0;
    while b.clocks.rises().0 < a0 + bus_cycles {
        b.step();
    }
}

/// The user clock stops (a PCIe host reads the BAR of a board whose user
/// clock lost lock): no access hangs. The one in flight answers SLVERR
/// `info.bus_timeout` bus cycles after it issued, each access queued behind
/// it answers SLVERR one timeout after the previous answer and never
/// reaches the user domain; when the clock runs again, the request that was
/// in flight is performed (a timed-out write may still land, as documented)
/// and the bus works as before. Then the user domain held in reset with its
/// clock running: every access answers SLVERR at once and changes nothing.
/// The protocol checker's hang bound is the timeout plus a few cycles, so
/// any wait longer than documented fails here.
#[test]
fn a_stopped_user_clock_times_out_and_the_bus_recovers() {
    let design = default_design();
    let timeout = regmap::bus_timeout_cycles(&design);
    // Acceptance to the SLVERR handshake of the access in flight: the value
    // check (1), the issue (1), `timeout` cycles blocked, the registered
    // verdict (1), BVALID/RVALID (1) and the handshake edge.
    const MARGIN: u64 = 6;
    for (round, timing) in [Timing { max_delay: 0, ready_probability: 1.0 }, Timing::default()].into_iter().enumerate()
    {
        let mut b = Bench::new(
            &models::regfile::FNS,
            RegisterMap::for_design(&design),
            &format!("bus timeout {round}"),
            BUS_PS,
            USER_PS,
            timing,
        );
        // Round 1's master takes B and R after a random wait (READY high
        // with probability 0.6 each cycle), which the checker, counting from
        // the previous handshake, sees on top of the timeout: 16 cycles more
        // (a longer wait has odds of 0.4^16). Round 0 takes them at once.
        let ready_wait = if timing.ready_probability < 1.0 { 16 } else { 0 };
        b.checker.hang_limit = u64::from(timeout) + MARGIN + ready_wait;
        let bus_timeout = b.addr("info", 0, "bus_timeout");
        assert_eq!(b.read(bus_timeout), (timeout, OKAY), "info.bus_timeout is the map's constant");
        let (landed, dropped) = (b.addr("toe", 0, "fpga_ip"), b.addr("toe", 0, "target_ip"));
        let dropped_before = b.read(dropped).0;
        let id = b.addr("info", 0, "id");

        b.clocks.stop_b(true);
        bus_idle(&mut b, 3);
        b.master.write(landed, 0x0A0B_0C0D, 0xF);
        // Long enough for the first write to issue whatever the channel delays.
        bus_idle(&mut b, 20);
        b.master.write(dropped, 0x1234_5678, 0xF);
        b.master.read(id);
        let done = b.run_until_idle();
        assert_eq!(done.len(), 3);
        for c in &done {
            assert_eq!((c.resp, c.data), (SLVERR, 0), "round {round}: {c:?} while the user clock is stopped");
        }
        let first = done.iter().find(|c| c.write && c.addr == landed).unwrap();
        if round == 0 {
            assert!(
                (u64::from(timeout)..=u64::from(timeout) + MARGIN).contains(&first.cycles),
                "the access in flight answered {} bus cycles after acceptance, timeout {timeout}",
                first.cycles
            );
        }
        eprintln!(
            "round {round}: timeout {timeout} bus cycles; SLVERR after {:?} bus cycles from acceptance",
            done.iter().map(|c| c.cycles).collect::<Vec<_>>()
        );

        b.clocks.stop_b(false);
        b.idle(8);
        assert_eq!(b.read(id), (regmap::ID_MAGIC, OKAY), "round {round}: the bus works once the clock runs");
        assert_eq!(b.read(landed), (0x0A0B_0C0D, OKAY), "the write in flight landed when the clock ran again");
        assert_eq!(b.read(dropped), (dropped_before, OKAY), "a write queued behind it never reached the registers");
        assert_eq!(b.write(dropped, 0x1234_5678, 0xF), OKAY);
        assert_eq!(b.read(dropped), (0x1234_5678, OKAY));

        // The user domain in reset, its clock running: refused at once.
        b.checker.hang_limit = 400;
        let rst = b.m.port(&Group::Clock.top_name("user_rst"));
        b.m.set(rst, 1);
        b.m.eval();
        b.idle(4);
        assert_eq!(b.write(dropped, 0x5555_AAAA, 0xF), SLVERR, "a write in reset");
        assert_eq!(b.read(id), (0, SLVERR), "a read in reset");
        b.m.set(rst, 0);
        b.m.eval();
        b.idle(4);
        let reset_value = b.expect.read(dropped).unwrap().0;
        assert_eq!(b.read(dropped), (reset_value, OKAY), "the reset value: the write in reset did nothing");
    }
}

/// Random traffic from the randomising master while the user clock stops
/// and starts at random moments: every access completes (OKAY, or SLVERR
/// while the clock is stopped) within the checker's bound of the timeout
/// plus the master's own delays, and a read after each restart answers.
#[test]
fn random_traffic_across_user_clock_stops_never_hangs() {
    let mut b = default_bench("clock stops");
    let timeout = regmap::bus_timeout_cycles(&default_design());
    // The checker counts from the last response; the master's own channel
    // delays (up to 4 cycles on B, R and W) come on top of the timeout.
    b.checker.hang_limit = u64::from(timeout) + 16;
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let addrs = b.all_addrs();
    let id = b.addr("info", 0, "id");
    let (mut okay, mut refused) = (0, 0);
    for round in 0..12 {
        for _ in 0..rng.gen_range(1..8) {
            let addr = addrs[rng.gen_range(0..addrs.len())];
            if rng.gen_bool(0.5) {
                b.master.read(addr);
            } else {
                b.master.write(addr, rng.gen(), rng.gen_range(1..16));
            }
        }
        bus_idle(&mut b, rng.gen_range(0..20));
        b.clocks.stop_b(true);
        bus_idle(&mut b, rng.gen_range(0..3 * u64::from(timeout)));
        b.clocks.stop_b(false);
        for c in b.run_until_idle() {
            match c.resp {
                OKAY => okay += 1,
                SLVERR => refused += 1,
                other => panic!("round {round}: response {other}"),
            }
        }
        assert_eq!(b.read(id), (regmap::ID_MAGIC, OKAY), "round {round}");
    }
    eprintln!("clock stops: {okay} accesses answered OKAY, {refused} SLVERR (stopped clock or refused value)");
    assert!(refused > 0, "no access ever met a stopped clock: the test tests nothing");
}
