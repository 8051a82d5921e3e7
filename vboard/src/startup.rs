//! What the virtual board writes into its own registers at start, through
//! its AXI4-Lite bus and before any Etherbone request runs, as a board's
//! firmware would: the sessions' stall timeout in simulated milliseconds
//! that pass within seconds of wall time here, the loopback addresses the
//! sessions really use, and moved session ports. Every address, field and
//! reset value comes from the design's register map.

use std::net::Ipv4Addr;

use regmap::RegisterMap;

/// One register write of the start-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    /// `session2.fpga_port`, `toe.fpga_ip`: as `REGISTERS.md` names it.
    pub name: String,
    pub addr: u32,
    pub value: u32,
}

/// The start-up of one board: its writes and the lines that say what they did.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub writes: Vec<Write>,
    pub lines: Vec<String>,
}

/// What to set at start.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Every session's `stall_timeout`, simulated ms; 0 = the design's reset value.
    pub stall_timeout_ms: u32,
    /// `fpga_ip` and `target_ip`; `None` = the reset values (the pair, whose link has no addresses).
    pub addresses: Option<(Ipv4Addr, Ipv4Addr)>,
    /// New `fpga_port0`; every session's FPGA and target port moves by the same amount.
    pub session_ports: Option<u16>,
}

/// The register `name` of block instance `instance` with field `field` set to
/// `value` (the other fields at their reset values).
fn field_write(map: &RegisterMap, name: &str, instance: usize, field: &str, value: u32) -> Result<Write, String> {
    let (block, reg) = map.find_register(name).ok_or_else(|| format!("the register map has no `{name}`"))?;
    let addr = block.address(instance, reg).ok_or_else(|| format!("the register map has no `{name}` {instance}"))?;
    let f = reg.field(field).ok_or_else(|| format!("register `{name}` has no field `{field}`"))?;
    let value_bits = (u64::from(value) << f.lsb) & u64::from(f.mask());
    let value_word = (reg.reset_for(instance) & !f.mask()) | value_bits as u32;
    let region = if block.repeat.is_some() { format!("{}{instance}", block.name) } else { block.name.clone() };
    Ok(Write { name: format!("{region}.{name}"), addr, value: value_word })
}

/// The reset value of field `field` of register `name` in `instance`.
fn reset_of(map: &RegisterMap, name: &str, instance: usize, field: &str) -> Result<u32, String> {
    let (_, reg) = map.find_register(name).ok_or_else(|| format!("the register map has no `{name}`"))?;
    let f = reg.field(field).ok_or_else(|| format!("register `{name}` has no field `{field}`"))?;
    Ok(f.reset.for_instance(instance))
}

/// The valid values of `--stall-timeout` for `map`: 0 (keep) or 1..=the field's maximum.
pub fn stall_timeout_range(map: &RegisterMap) -> Result<(u32, u32), String> {
    let (_, reg) = map.find_register("stall_timeout").ok_or("the register map has no `stall_timeout`")?;
    let f = reg.field("ms").ok_or("register `stall_timeout` has no field `ms`")?;
    Ok((1, f.valid_range().1))
}

/// The writes of one board with `sessions` sessions; `Err` names the option
/// and its valid range.
pub fn plan(map: &RegisterMap, sessions: usize, s: &Settings) -> Result<Plan, String> {
    let mut p = Plan::default();
    if s.stall_timeout_ms != 0 {
        let (min, max) = stall_timeout_range(map)?;
        if !(min..=max).contains(&s.stall_timeout_ms) {
            return Err(format!(
                "--stall-timeout {}: valid range is {min}..={max} simulated ms, or 0 to keep the design's reset value ({} ms)",
                s.stall_timeout_ms,
                reset_of(map, "stall_timeout", 0, "ms")?
            ));
        }
        for i in 0..sessions {
            p.writes.push(field_write(map, "stall_timeout", i, "ms", s.stall_timeout_ms)?);
        }
    }
    if let Some((fpga, target)) = s.addresses {
        p.writes.push(field_write(map, "fpga_ip", 0, "value", u32::from(fpga))?);
        p.writes.push(field_write(map, "target_ip", 0, "value", u32::from(target))?);
        p.lines.push(format!(
            "start-up: fpga_ip = {fpga}, target_ip = {target} (the sessions' --bind and --target addresses), so the console recommends PC commands on loopback"
        ));
    }
    if let Some(base) = s.session_ports {
        let mut ports = Vec::new();
        for i in 0..sessions {
            ports.push(("fpga_port", i, reset_of(map, "fpga_port", i, "port")?));
            ports.push(("target_port", i, reset_of(map, "target_port", i, "port")?));
        }
        let first = i64::from(reset_of(map, "fpga_port", 0, "port")?);
        let lowest = ports.iter().map(|p| i64::from(p.2)).min().unwrap_or(first);
        let highest = ports.iter().map(|p| i64::from(p.2)).max().unwrap_or(first);
        let (min, max) = (first - lowest + 1, first + 65_535 - highest);
        if !(min..=max).contains(&i64::from(base)) {
            return Err(format!(
                "--session-ports {base}: valid range is {min}..={max} (fpga_port0 = BASE; every session's FPGA and target port moves by BASE - {first}, and each must stay in 1..=65535)"
            ));
        }
        let shift = i64::from(base) - first;
        let mut moved = Vec::new();
        for (name, i, reset) in ports {
            let port = (i64::from(reset) + shift) as u32;
            let w = field_write(map, name, i, "port", port)?;
            moved.push(format!("{} = {port}", w.name));
            p.writes.push(w);
        }
        p.lines.push(format!("start-up: session ports moved (--session-ports {base}): {}", moved.join(", ")));
    }
    Ok(p)
}

/// The fpga ports of `plan` or, where it does not move them, the reset values.
pub fn fpga_ports(map: &RegisterMap, sessions: usize, plan: &Plan) -> Vec<u16> {
    (0..sessions)
        .map(|i| {
            let name = format!("session{i}.fpga_port");
            match plan.writes.iter().find(|w| w.name == name) {
                Some(w) => (w.value & 0xffff) as u16,
                None => reset_of(map, "fpga_port", i, "port").unwrap_or(0) as u16,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> RegisterMap {
        RegisterMap::for_design(&crate::load_design(None).unwrap())
    }

    #[test]
    fn session_ports_move_together_and_stay_in_range() {
        let m = map();
        let s = Settings { stall_timeout_ms: 0, addresses: None, session_ports: Some(62_000) };
        let p = plan(&m, 4, &s).unwrap();
        assert_eq!(fpga_ports(&m, 4, &p), vec![62_000, 62_001, 62_002, 62_003]);
        let t3 = p.writes.iter().find(|w| w.name == "session3.target_port").unwrap();
        assert_eq!(t3.value, 63_003);
        let e = plan(&m, 4, &Settings { session_ports: Some(64_533), ..s.clone() }).unwrap_err();
        assert_eq!(
            e,
            "--session-ports 64533: valid range is 1..=64532 (fpga_port0 = BASE; every session's FPGA and target port moves by BASE - 60000, and each must stay in 1..=65535)"
        );
        assert!(plan(&m, 4, &Settings { session_ports: Some(64_532), ..s.clone() }).is_ok());
        assert!(plan(&m, 4, &Settings { session_ports: Some(1), ..s }).is_ok());
    }

    #[test]
    fn stall_timeout_range_comes_from_the_field() {
        let m = map();
        let s = Settings { stall_timeout_ms: 65_536, addresses: None, session_ports: None };
        assert_eq!(
            plan(&m, 4, &s).unwrap_err(),
            "--stall-timeout 65536: valid range is 1..=65535 simulated ms, or 0 to keep the design's reset value (1000 ms)"
        );
        let p = plan(&m, 2, &Settings { stall_timeout_ms: 7, ..s }).unwrap();
        assert_eq!(
            p.writes.iter().map(|w| (w.name.as_str(), w.value)).collect::<Vec<_>>(),
            [("session0.stall_timeout", 7), ("session1.stall_timeout", 7)]
        );
    }
}
