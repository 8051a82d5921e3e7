//! Each validation rule, broken once on the default map, with its exact message.

use regmap::{Access, EnumValue, RegisterMap, RegmapError, Repeat, Reset};

fn default_map() -> RegisterMap {
    let design = config::parse(config::DEFAULT_TOML).unwrap();
    RegisterMap::for_design(&design)
}

/// The message of the error `edit` causes on the default map.
fn broken(edit: impl FnOnce(&mut RegisterMap)) -> String {
    let mut map = default_map();
    assert_eq!(map.validate(), Ok(()), "the default map is valid before the edit");
    edit(&mut map);
    map.validate().expect_err("the edited map must be rejected").to_string()
}

fn reg<'a>(map: &'a mut RegisterMap, block: &str, name: &str) -> &'a mut regmap::Register {
    map.block_mut(block).unwrap().register_mut(name).unwrap()
}

fn field<'a>(map: &'a mut RegisterMap, block: &str, register: &str, name: &str) -> &'a mut regmap::Field {
    reg(map, block, register).field_mut(name).unwrap()
}

#[test]
fn overlapping_registers() {
    let message = broken(|m| reg(m, "session", "status").offset = 0x000);
    assert_eq!(message, "registers `session.ctrl` and `session.status` overlap at offset 0x000");
}

#[test]
fn misaligned_register() {
    let message = broken(|m| reg(m, "session", "status").offset = 0x006);
    assert_eq!(message, "register `session.status` at offset 0x006 is not 4-byte aligned");
}

#[test]
fn register_outside_its_block() {
    let message = broken(|m| reg(m, "info", "reg_clock_khz").offset = 0x040);
    assert_eq!(message, "register `info.reg_clock_khz` at offset 0x040 lies outside its block (size 0x040)");
}

#[test]
fn field_past_bit_31() {
    let message = broken(|m| field(m, "toe", "toe_config", "window_update_gap").lsb = 24);
    assert_eq!(message, "field `toe.toe_config.window_update_gap` (lsb 24, width 10) extends past bit 31 to bit 33");
}

#[test]
fn overlapping_fields() {
    let message = broken(|m| field(m, "session", "status", "error_cause").lsb = 4);
    assert_eq!(message, "fields `session.status.error` and `session.status.error_cause` overlap at bit 4");
}

#[test]
fn a_claim_shares_its_register_with_no_other_field() {
    let message = broken(|m| {
        let owner = field(m, "session", "claim", "owner").clone();
        let r = reg(m, "session", "claim");
        r.fields[0].width = 16;
        r.fields.push(regmap::Field { name: "extra".into(), lsb: 16, width: 16, access: Access::Rw, ..owner });
    });
    assert_eq!(message, "claim field `session.claim.owner` must be the only field of its register");
}

#[test]
fn a_claim_resets_free() {
    let message = broken(|m| field(m, "session", "claim", "owner").reset = Reset::Fixed(7));
    assert_eq!(message, "claim field `session.claim.owner` must reset to 0 (free)");
}

#[test]
fn empty_field() {
    let message = broken(|m| field(m, "session", "ctrl", "abort").width = 0);
    assert_eq!(message, "field `session.ctrl.abort` has width 0");
}

#[test]
fn duplicate_register_name_across_blocks() {
    let message = broken(|m| reg(m, "session", "peer_mss").name = "fpga_ip".into());
    assert_eq!(message, "duplicate register name `fpga_ip`: `toe.fpga_ip` and `session.fpga_ip` (register names are unique across blocks)");
}

#[test]
fn duplicate_field_name() {
    let message = broken(|m| field(m, "session", "status", "closed").name = "busy".into());
    assert_eq!(message, "duplicate field name `busy` in register `session.status`");
}

#[test]
fn duplicate_block_name() {
    let message = broken(|m| m.block_mut("toe").unwrap().name = "info".into());
    assert_eq!(message, "duplicate block name `info`");
}

#[test]
fn reset_wider_than_its_field() {
    let message = broken(|m| field(m, "session", "speed", "tx_percent").reset = Reset::Fixed(200));
    assert_eq!(message, "reset value 0xC8 of field `session.speed.tx_percent` does not fit in its 7 bit(s)");
}

#[test]
fn per_instance_reset_wider_than_its_field() {
    let message =
        broken(|m| field(m, "session", "fpga_port", "port").reset = Reset::PerInstance(vec![1, 2, 0x1_0000, 3]));
    assert_eq!(message, "reset value 0x10000 of field `session.fpga_port.port` does not fit in its 16 bit(s)");
}

#[test]
fn per_instance_reset_count() {
    let message = broken(|m| field(m, "session", "target_port", "port").reset = Reset::PerInstance(vec![1, 2, 3]));
    assert_eq!(
        message,
        "field `session.target_port.port` has 3 per-instance reset value(s) but its block has 4 instance(s)"
    );
}

#[test]
fn enum_value_out_of_range() {
    let message = broken(|m| {
        let values = &mut field(m, "session", "test_config", "test_mode").enum_values;
        values.push(EnumValue { name: "loopback".into(), value: 8, description: String::new() });
    });
    assert_eq!(
        message,
        "enum value `loopback` = 8 of field `session.test_config.test_mode` does not fit in its 3 bit(s)"
    );
}

#[test]
fn enum_value_numbers_are_distinct() {
    let message = broken(|m| field(m, "toe", "toe_config", "mode").enum_values[2].value = 1);
    assert_eq!(message, "field `toe.toe_config.mode` has two enum values equal to 1");
}

#[test]
fn reset_of_an_enum_field_is_a_named_value() {
    let message = broken(|m| field(m, "toe", "toe_config", "last_packet_mode").reset = Reset::Fixed(3));
    assert_eq!(message, "reset value 3 of field `toe.toe_config.last_packet_mode` is not one of its enum values");
}

#[test]
fn reset_outside_the_valid_range() {
    let message = broken(|m| field(m, "session", "speed", "rx_percent").reset = Reset::Fixed(0));
    assert_eq!(message, "reset value 0 of field `session.speed.rx_percent` is outside its valid range 1..=100");
}

#[test]
fn valid_range_wider_than_the_field() {
    let message = broken(|m| field(m, "session", "speed", "rx_percent").range = Some((1, 200)));
    assert_eq!(
        message,
        "valid range 1..=200 of field `session.speed.rx_percent` is empty or does not fit in its 7 bit(s)"
    );
}

#[test]
fn invalid_names() {
    let message = broken(|m| field(m, "session", "ctrl", "start").name = "Start".into());
    assert_eq!(
        message,
        "field name `Start` is invalid: use lower-case letters, digits and `_`, starting with a letter"
    );
    let message = broken(|m| reg(m, "session", "speed").name = "type".into());
    assert_eq!(message, "register name `type` is invalid: it is a Rust or C keyword");
    let message = broken(|m| reg(m, "session", "speed").name = "tx__speed".into());
    assert_eq!(message, "register name `tx__speed` is invalid: `_` must separate words (no trailing or doubled `_`)");
}

#[test]
fn generated_c_names_collide() {
    // Register `toe_config_mode` gives TOE_CONFIG_MODE_RESET, as does field
    // `mode` of register `toe_config`.
    let message = broken(|m| reg(m, "toe", "fpga_ip").name = "toe_config_mode".into());
    assert_eq!(
        message,
        "generated name `TOE_CONFIG_MODE_RESET` is produced by both field `toe.toe_config.mode` and register `toe.toe_config_mode`: rename one of them"
    );
}

#[test]
fn generated_rust_names_collide() {
    // A field named `offset` would shadow the register module's OFFSET.
    let message = broken(|m| field(m, "session", "peer_mss", "bytes").name = "offset".into());
    assert_eq!(
        message,
        "generated name `regs::session::peer_mss/value::OFFSET` is produced by both register `session.peer_mss` and field `session.peer_mss.offset`: rename one of them"
    );
}

#[test]
fn generated_litex_csv_names_collide() {
    // csr.csv names a register `<block>_<register>`: register `toe_fpga_ip`
    // of block `info` and register `fpga_ip` of a block `info_toe` both give
    // `info_toe_fpga_ip`.
    let message = broken(|m| {
        reg(m, "info", "reg_clock_khz").name = "toe_fpga_ip".into();
        m.block_mut("toe").unwrap().name = "info_toe".into();
    });
    assert_eq!(
        message,
        "generated name `csr.csv csr_register info_toe_fpga_ip` is produced by both register `info.toe_fpga_ip` and register `info_toe.fpga_ip`: rename one of them"
    );
}

#[test]
fn misaligned_block_base() {
    let message = broken(|m| m.block_mut("toe").unwrap().base = 0x042);
    assert_eq!(message, "block `toe`: base 0x042 is not a multiple of 4 bytes");
}

#[test]
fn overlapping_blocks() {
    let message = broken(|m| m.block_mut("toe").unwrap().base = 0x020);
    assert_eq!(message, "blocks `info` and `toe` overlap at address 0x020");
}

#[test]
fn stride_smaller_than_the_block() {
    let message = broken(|m| m.block_mut("session").unwrap().repeat = Some(Repeat { count: 4, stride: 0x080 }));
    assert_eq!(message, "block `session`: stride 0x080 is smaller than its size 0x100, so instances would overlap");
}

#[test]
fn repeated_block_past_the_next_block() {
    let message = broken(|m| {
        let mut extra = m.block("info").unwrap().clone();
        extra.name = "trace".into();
        extra.base = 0x480;
        extra.registers.clear();
        extra.wides.clear();
        m.blocks.push(extra);
    });
    assert_eq!(message, "blocks `session` and `trace` overlap at address 0x480");
}

#[test]
fn wide_value_halves_not_adjacent() {
    let message = broken(|m| {
        reg(m, "session", "tx_bytes_hi").offset = 0x0F8;
    });
    assert_eq!(
        message,
        "wide value `session.tx_bytes`: high register `tx_bytes_hi` must be at the low register's offset + 4"
    );
}

#[test]
fn wide_value_high_half_width() {
    let message = broken(|m| field(m, "session", "transfer_size_hi", "value").width = 20);
    assert_eq!(message, "wide value `session.transfer_size`: high register `transfer_size_hi` must hold exactly one field of 16 bits at bit 0");
}

#[test]
fn wide_value_halves_agree_on_access() {
    let message = broken(|m| field(m, "session", "rx_bytes_hi", "value").access = Access::Rw);
    assert_eq!(message, "wide value `session.rx_bytes`: both halves must have the same access and volatility");
}

#[test]
fn a_hand_built_design_with_short_port_lists_is_an_error_not_a_panic() {
    let mut design = config::parse(config::DEFAULT_TOML).unwrap();
    design.defaults.fpga_ports.pop();
    let error = RegisterMap::try_for_design(&design).unwrap_err();
    assert_eq!(error, RegmapError::ResetCount { field: "session.fpga_port.port".into(), values: 3, instances: 4 });
}
