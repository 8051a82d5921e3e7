//! A user's configuration over the embedded default.
//!
//! A configuration file needs only the keys it changes: [`resolve`] lays the
//! file's keys over the default configuration and records where every value
//! came from ([`Origin`]), which `gen --print-config` shows. Values that depend
//! on another key follow it when the file did not set them: with
//! `design.sessions` set and no port lists, the ports are the default's first
//! ones (a list the file gives must still match `sessions`, as validation
//! checks). Keys the default does not have stay in the result, so validation
//! names them as unknown.

use std::collections::BTreeMap;

use toml::{Table, Value};

use crate::{ConfigError, DEFAULT_TOML};

/// Where a resolved key's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The configuration file set it.
    File,
    /// The embedded default, as it is.
    Default,
    /// The default, cut to the file's `design.sessions`.
    DefaultForSessions,
}

impl Origin {
    /// How `gen --print-config` names the origin.
    pub fn describe(self) -> &'static str {
        match self {
            Origin::File => "file",
            Origin::Default => "default",
            Origin::DefaultForSessions => "default, one per session",
        }
    }
}

/// The configuration after the file was laid over the default: the TOML
/// table validation reads, and each key's origin (`section.key`).
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub table: Table,
    pub origins: BTreeMap<String, Origin>,
}

/// Reads configuration text: a malformed file is an error naming its line.
pub(crate) fn read_toml(text: &str) -> Result<Table, ConfigError> {
    text.parse().map_err(|e: toml::de::Error| {
        let at = match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!(" at line {line}")
            }
            None => String::new(),
        };
        ConfigError {
            key: String::new(),
            message: format!("malformed TOML{at}: {}", e.message().trim_end().replace('\n', "; ")),
        }
    })
}

/// The per-session lists that follow `design.sessions`.
const PER_SESSION: [(&str, &str); 2] = [("defaults", "fpga_ports"), ("defaults", "target_ports")];

/// Lays the configuration `text` over the embedded default.
pub fn resolve(text: &str) -> Result<Resolved, ConfigError> {
    let file = read_toml(text)?;
    let mut table = read_toml(DEFAULT_TOML).expect("the embedded default configuration is valid TOML");
    let mut origins = BTreeMap::new();
    for (section, keys) in &table {
        for key in keys.as_table().into_iter().flat_map(|t| t.keys()) {
            origins.insert(format!("{section}.{key}"), Origin::Default);
        }
    }
    for (section, value) in file {
        match (table.get_mut(&section), value) {
            (Some(Value::Table(base)), Value::Table(keys)) => {
                for (key, value) in keys {
                    origins.insert(format!("{section}.{key}"), Origin::File);
                    base.insert(key, value);
                }
            }
            // A section the default lacks, or a section given as a plain
            // value: kept as the file has it, so validation names it.
            (_, value) => {
                table.insert(section, value);
            }
        }
    }
    if origins.get("design.sessions") == Some(&Origin::File) {
        if let Some(sessions) = table.get("design").and_then(|d| d.get("sessions")).and_then(Value::as_integer) {
            for (section, key) in PER_SESSION {
                let id = format!("{section}.{key}");
                if origins.get(&id) != Some(&Origin::Default) {
                    continue;
                }
                if let Some(Value::Array(list)) = table.get_mut(section).and_then(|s| s.get_mut(key)) {
                    if sessions >= 0 && (sessions as usize) <= list.len() {
                        list.truncate(sessions as usize);
                        origins.insert(id, Origin::DefaultForSessions);
                    }
                }
            }
        }
    }
    Ok(Resolved { table, origins })
}

impl Resolved {
    /// The resolved configuration as TOML, every key followed by a comment
    /// saying where its value came from.
    pub fn annotated(&self) -> String {
        let mut out = String::new();
        for (section, keys) in &self.table {
            let Some(keys) = keys.as_table() else { continue };
            out.push_str(&format!("[{section}]\n"));
            for (key, value) in keys {
                let line = format!("{key} = {value}");
                let origin = self.origins.get(&format!("{section}.{key}")).map_or("file", |o| o.describe());
                out.push_str(&format!("{line:<48} # {origin}\n"));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_override_and_the_rest_is_default() {
        let r = resolve("[design]\nsessions = 2\n[defaults]\nfpga_ip = \"10.0.0.1\"\n").unwrap();
        assert_eq!(r.table["design"]["sessions"].as_integer(), Some(2));
        assert_eq!(r.table["design"]["data_width"].as_integer(), Some(1024));
        assert_eq!(r.origins["design.sessions"], Origin::File);
        assert_eq!(r.origins["defaults.fpga_ip"], Origin::File);
        assert_eq!(r.origins["design.data_width"], Origin::Default);
        assert_eq!(r.origins["defaults.fpga_ports"], Origin::DefaultForSessions);
        let ports: Vec<i64> =
            r.table["defaults"]["target_ports"].as_array().unwrap().iter().map(|v| v.as_integer().unwrap()).collect();
        assert_eq!(ports, [61000, 61001]);
    }

    #[test]
    fn a_port_list_the_file_gives_is_kept_as_given() {
        let r = resolve("[design]\nsessions = 2\n[defaults]\nfpga_ports = [1, 2, 3]\n").unwrap();
        assert_eq!(r.table["defaults"]["fpga_ports"].as_array().unwrap().len(), 3);
        assert_eq!(r.origins["defaults.fpga_ports"], Origin::File);
        assert_eq!(r.origins["defaults.target_ports"], Origin::DefaultForSessions);
    }

    #[test]
    fn the_annotated_form_names_every_origin_and_reads_back() {
        let r = resolve("[design]\nsessions = 1\n").unwrap();
        let text = r.annotated();
        assert!(text.lines().any(|l| l.starts_with("sessions = 1") && l.ends_with("# file")), "{text}");
        assert!(text.lines().any(|l| l.starts_with("data_width = 1024") && l.ends_with("# default")), "{text}");
        assert!(text
            .lines()
            .any(|l| l.starts_with("fpga_ports = [60000]") && l.ends_with("# default, one per session")));
        assert_eq!(resolve(&text).unwrap().table, r.table);
    }

    #[test]
    fn malformed_text_names_its_line() {
        let e = resolve("[design]\nsessions = = 2\n").unwrap_err();
        assert!(e.message.starts_with("malformed TOML at line 2"), "{e}");
    }
}
