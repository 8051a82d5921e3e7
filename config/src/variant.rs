//! Variants of the default configuration, edited as TOML data.
//!
//! Tests, build scripts and examples need "the default, but with two
//! sessions of 64 bits". [`Variant`] holds just the keys that change, as a
//! TOML table; [`crate::parse`] lays it over the default like any
//! configuration file ([`crate::resolve`]), so the values that follow
//! another key (the per-session port lists follow `sessions`) follow it by
//! the same rule, and nobody edits the configuration's text with search and
//! replace.
//!
//! ```
//! let text = config::Variant::default().sessions(2).data_width(64).to_toml();
//! let design = config::parse(&text).unwrap();
//! assert_eq!((design.sessions, design.data_width), (2, 64));
//! assert_eq!(design.defaults.fpga_ports, [60000, 60001]);
//! ```

use toml::{Table, Value};

/// The default configuration with some keys changed: only those keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variant {
    table: Table,
}

impl Variant {
    /// Sets `key` (dotted: `design.user_clock_mhz`) to `value`, creating the
    /// section if needed. No validation: [`crate::parse`] judges the result,
    /// so a test can build invalid configurations too.
    pub fn set(mut self, key: &str, value: impl Into<Value>) -> Self {
        let (path, leaf) = key.rsplit_once('.').unwrap_or(("", key));
        let mut table = &mut self.table;
        for section in path.split('.').filter(|s| !s.is_empty()) {
            let entry = table.entry(section.to_string()).or_insert_with(|| Value::Table(Table::new()));
            if !entry.is_table() {
                *entry = Value::Table(Table::new());
            }
            table = entry.as_table_mut().expect("made a table above");
        }
        table.insert(leaf.to_string(), value.into());
        self
    }

    /// `sessions` sessions; the port lists follow when the configuration is
    /// resolved.
    pub fn sessions(self, sessions: usize) -> Self {
        self.set("design.sessions", sessions as i64)
    }

    /// Data width in bits.
    pub fn data_width(self, bits: usize) -> Self {
        self.set("design.data_width", bits as i64)
    }

    /// The board the design targets.
    pub fn board(self, name: &str) -> Self {
        self.set("board.name", name)
    }

    /// The changed keys as TOML text: a configuration file.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.table).expect("a TOML table serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_variant_is_the_default_design() {
        let d = crate::parse(&Variant::default().to_toml()).unwrap();
        assert_eq!(d, crate::parse(crate::DEFAULT_TOML).unwrap());
    }

    #[test]
    fn port_lists_follow_sessions() {
        let d = crate::parse(&Variant::default().sessions(1).to_toml()).unwrap();
        assert_eq!(
            (d.sessions, d.defaults.fpga_ports.clone(), d.defaults.target_ports.clone()),
            (1, vec![60000], vec![61000])
        );
        let d = crate::parse(&Variant::default().sessions(3).data_width(256).board("alveo-u250").to_toml()).unwrap();
        assert_eq!((d.sessions, d.data_width, d.board.as_str()), (3, 256, "alveo-u250"));
        assert_eq!(d.defaults.target_ports, [61000, 61001, 61002]);
    }

    #[test]
    fn invalid_values_reach_the_validation() {
        let e = crate::parse(&Variant::default().set("design.sessions", 9).to_toml()).unwrap_err();
        assert_eq!(e.key, "design.sessions");
        let e = crate::parse(&Variant::default().set("design.bogus", true).to_toml()).unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
    }
}
