//! Same map in, same bytes out; one offset changed in the definition changes
//! every output, and only where that register appears.

use regmap::RegisterMap;

fn design() -> config::Design {
    config::parse(config::DEFAULT_TOML).unwrap()
}

#[test]
fn rendering_twice_gives_identical_bytes() {
    let d = design();
    let (a, b) = (RegisterMap::for_design(&d), RegisterMap::for_design(&d));
    let first = regmap::outputs(&a, &d);
    let second = regmap::outputs(&b, &d);
    assert_eq!(first.len(), 6);
    for (x, y) in first.iter().zip(&second) {
        assert_eq!(x.file_name, y.file_name);
        assert!(x.contents == y.contents, "{} differs between two renders", x.file_name);
        assert!(!x.contents.is_empty(), "{} is empty", x.file_name);
    }
    assert_eq!(regmap::json(&a, &d), regmap::json(&a, &d));
}

/// Lines that differ between two texts of the same line count.
fn changed_lines(before: &str, after: &str) -> Vec<(String, String)> {
    assert_eq!(before.lines().count(), after.lines().count(), "an offset change must not add or remove lines");
    before.lines().zip(after.lines()).filter(|(b, a)| b != a).map(|(b, a)| (b.to_string(), a.to_string())).collect()
}

#[test]
fn one_offset_change_reaches_every_output() {
    let d = design();
    let original = RegisterMap::for_design(&d);
    let mut moved = original.clone();
    let reg = moved.block_mut("session").unwrap().register_mut("peer_window_scale").unwrap();
    let old = reg.offset;
    reg.offset = old + 4;
    let new = reg.offset;
    assert_eq!(moved.validate(), Ok(()), "the moved register is still a valid map");
    let old_hex = format!("0x{old:03X}");
    let new_hex = format!("0x{new:03X}");

    // C header: only the offset line of that register changes.
    let changed = changed_lines(&regmap::c_header(&original, &d), &regmap::c_header(&moved, &d));
    assert_eq!(changed.len(), 2, "offset define and the register's comment: {changed:#?}");
    for (before, after) in &changed {
        assert!(after.contains("PEER_WINDOW_SCALE") || after.contains("peer_window_scale"), "{after}");
        assert!(before.contains(&old_hex) && after.contains(&new_hex), "{before} -> {after}");
    }
    assert!(regmap::c_header(&moved, &d)
        .contains(&format!("#define TOE_USER_LOGIC_SESSION_PEER_WINDOW_SCALE_OFFSET {new_hex}u\n")));

    // The static asserts freeze the new offset.
    let asserts = regmap::c_static_asserts(&moved, &d);
    assert!(asserts.contains(&format!("TOE_USER_LOGIC_SESSION_PEER_WINDOW_SCALE_OFFSET == {new_hex}u")));
    assert_ne!(asserts, regmap::c_static_asserts(&original, &d));

    // Markdown: the row of the register table and the field heading.
    let changed = changed_lines(&regmap::markdown(&original, &d), &regmap::markdown(&moved, &d));
    assert_eq!(changed.len(), 2, "{changed:#?}");
    assert!(
        changed.iter().all(|(_, after)| after.contains("peer_window_scale") && after.contains(&new_hex)),
        "{changed:#?}"
    );

    // JSON: the register's offset and the four instance addresses.
    let json: serde_json::Value = serde_json::from_str(&regmap::json(&moved, &d)).unwrap();
    let session = json["blocks"].as_array().unwrap().iter().find(|b| b["name"] == "session").unwrap();
    let entry = session["registers"].as_array().unwrap().iter().find(|r| r["name"] == "peer_window_scale").unwrap();
    assert_eq!(entry["offset"], new);
    let block = moved.block("session").unwrap();
    let addresses: Vec<u32> = (0..4).map(|s| block.instance_base(s).unwrap() + new).collect();
    assert_eq!(entry["addresses"], serde_json::json!(addresses));
    assert_ne!(regmap::json(&original, &d), regmap::json(&moved, &d));

    // Rust accessors: the register module's OFFSET.
    let changed = changed_lines(&regmap::rust_accessors(&original, &d), &regmap::rust_accessors(&moved, &d));
    assert_eq!(
        changed,
        vec![(
            format!("            pub const OFFSET: u32 = {old_hex};"),
            format!("            pub const OFFSET: u32 = {new_hex};")
        )]
    );

    // csr.csv: the register's row in each instance, nothing else (it stays
    // the last register of its block, so the address order is unchanged).
    let changed = changed_lines(&regmap::csr_csv(&original, &d), &regmap::csr_csv(&moved, &d));
    let rows: Vec<(String, String)> = addresses
        .iter()
        .enumerate()
        .map(|(s, a)| {
            (
                format!("csr_register,session{s}_peer_window_scale,0x{:08x},1,ro", a - 4),
                format!("csr_register,session{s}_peer_window_scale,0x{a:08x},1,ro"),
            )
        })
        .collect();
    assert_eq!(changed, rows);
}
