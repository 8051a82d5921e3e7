//! The checked TOML reader behind the configuration and the board files.
//!
//! A [`Section`] is a table being read: each read removes its key and checks
//! the value's type and range, [`Section::finish`] rejects the keys nobody
//! read. Every rejection is a [`ConfigError`] naming the dotted key and the
//! form the value must take. The few phrases that differ between the files
//! (where the keys are documented, what a missing key's message says, the
//! punctuation before "found <type>") come from the caller's [`Wording`], so
//! each file keeps its own messages.
//!
//! ```
//! use config::toml_reader::{Missing, Section, Wording};
//! const WORDING: Wording =
//!     Wording { key_list: "the manual for every key", missing: Missing::SeeKeyList, found_separator: ", " };
//! let mut root = Section::new(WORDING, "[clock]\nfreq_mhz = 2000".parse().unwrap());
//! let mut clock = root.table("clock").unwrap();
//! let e = clock.float("freq_mhz", 1.0, 1000.0, "").unwrap_err();
//! assert_eq!(e.to_string(), "`clock.freq_mhz`: 2000 is out of range: must be a number in 1..=1000");
//! ```

use toml::{Table, Value};

use crate::ConfigError;

/// How a missing key is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// "missing (see <key_list>)": the key list shows every key's form.
    SeeKeyList,
    /// "missing: must be <form>": the message itself gives the form.
    NameForm,
}

/// The phrases a file's messages word its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wording {
    /// Where every key is documented, as "see …" quotes it.
    pub key_list: &'static str,
    pub missing: Missing,
    /// What comes between the form and "found <type>": `", "` or `"; "`.
    pub found_separator: &'static str,
}

/// A table being read: each read removes its key, `finish` rejects the rest.
#[derive(Clone, Debug)]
pub struct Section {
    wording: Wording,
    /// Dotted path of the table, empty at the root.
    path: String,
    table: Table,
}

impl Section {
    /// The root table of a file.
    pub fn new(wording: Wording, table: Table) -> Self {
        Section { wording, path: String::new(), table }
    }

    /// The dotted path of `key` in this table, as messages name it.
    pub fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Whether the table still holds `key`: for optional keys.
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Rejects `key` (a key of this table, or `key[i]`) with `message`.
    pub fn fail<T>(&self, key: &str, message: impl Into<String>) -> Result<T, ConfigError> {
        Err(ConfigError { key: self.key(key), message: message.into() })
    }

    /// Rejects `key` because its value is not `form` ("a string", "an
    /// integer in 1..=4").
    pub fn wrong_type<T>(&self, key: &str, form: &str, found: &Value) -> Result<T, ConfigError> {
        self.fail(key, format!("must be {form}{}found {}", self.wording.found_separator, found.type_str()))
    }

    /// Removes `key`'s value; a missing key is an error that (by the
    /// wording) gives `form`.
    pub fn take(&mut self, key: &str, form: &str) -> Result<Value, ConfigError> {
        match self.table.remove(key) {
            Some(v) => Ok(v),
            None => match self.wording.missing {
                Missing::SeeKeyList => self.fail(key, format!("missing (see {})", self.wording.key_list)),
                Missing::NameForm => self.fail(key, format!("missing: must be {form}")),
            },
        }
    }

    /// The sub-table `[key]`, read with the same wording.
    pub fn table(&mut self, key: &str) -> Result<Section, ConfigError> {
        let form = format!("a table `[{}]`", self.key(key));
        match self.take(key, &form)? {
            Value::Table(table) => Ok(Section { wording: self.wording, path: self.key(key), table }),
            other => self.wrong_type(key, &form, &other),
        }
    }

    /// The array of tables `[[key]]`, `min..=max` of them; entry `i` is
    /// named `key[i]`.
    pub fn tables(&mut self, key: &str, min: usize, max: usize) -> Result<Vec<Section>, ConfigError> {
        let form = format!("an array of tables `[[{}]]` with {min}..={max} entries", self.key(key));
        let items = self.array(key, &form)?;
        if !(min..=max).contains(&items.len()) {
            return self.fail(key, format!("has {} entries: must be {form}", items.len()));
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Value::Table(table) => {
                    out.push(Section { wording: self.wording, path: format!("{}[{i}]", self.key(key)), table })
                }
                other => return self.wrong_type(&format!("{key}[{i}]"), "a table", &other),
            }
        }
        Ok(out)
    }

    /// An array of any values; `form` describes the whole list.
    pub fn array(&mut self, key: &str, form: &str) -> Result<Vec<Value>, ConfigError> {
        match self.take(key, form)? {
            Value::Array(items) => Ok(items),
            other => self.wrong_type(key, form, &other),
        }
    }

    /// A string; `about` (may be empty) says what it holds: "a string,
    /// <about>".
    pub fn string(&mut self, key: &str, about: &str) -> Result<String, ConfigError> {
        let form = if about.is_empty() { "a string".to_string() } else { format!("a string, {about}") };
        match self.take(key, &form)? {
            Value::String(s) => Ok(s),
            other => self.wrong_type(key, &form, &other),
        }
    }

    /// A list of strings; `form` describes the whole list.
    pub fn strings(&mut self, key: &str, form: &str) -> Result<Vec<String>, ConfigError> {
        let mut out = Vec::new();
        for (i, item) in self.array(key, form)?.into_iter().enumerate() {
            match item {
                Value::String(s) => out.push(s),
                other => return self.wrong_type(&format!("{key}[{i}]"), "a string", &other),
            }
        }
        Ok(out)
    }

    /// An integer in `min..=max`.
    pub fn integer(&mut self, key: &str, min: i64, max: i64) -> Result<i64, ConfigError> {
        let form = format!("an integer in {min}..={max}");
        match self.take(key, &form)? {
            Value::Integer(i) if (min..=max).contains(&i) => Ok(i),
            Value::Integer(i) => self.fail(key, format!("{i} is out of range: must be {form}")),
            other => self.wrong_type(key, &form, &other),
        }
    }

    /// An integer from `allowed`.
    pub fn one_of(&mut self, key: &str, allowed: &[i64]) -> Result<i64, ConfigError> {
        let list = allowed.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        match self.take(key, &format!("one of {list}"))? {
            Value::Integer(i) if allowed.contains(&i) => Ok(i),
            Value::Integer(i) => self.fail(key, format!("{i} is not allowed: must be one of {list}")),
            other => self.wrong_type(key, &format!("an integer, one of {list}"), &other),
        }
    }

    /// A finite number in `min..=max` (an integer is taken as a number);
    /// `quantity` (may be empty) names it: "<quantity>, a number in …".
    pub fn float(&mut self, key: &str, min: f64, max: f64, quantity: &str) -> Result<f64, ConfigError> {
        let range = format!("a number in {min}..={max}");
        let form = if quantity.is_empty() { range } else { format!("{quantity}, {range}") };
        let v = match self.take(key, &form)? {
            Value::Float(f) => f,
            Value::Integer(i) => i as f64,
            other => return self.wrong_type(key, &form, &other),
        };
        if v.is_finite() && (min..=max).contains(&v) {
            Ok(v)
        } else {
            self.fail(key, format!("{v} is out of range: must be {form}"))
        }
    }

    /// Ends the table: a key nobody read is an error.
    pub fn finish(self) -> Result<(), ConfigError> {
        match self.table.keys().next() {
            None => Ok(()),
            Some(extra) => self.fail(extra, format!("unknown key (see {})", self.wording.key_list)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEE_LIST: Wording = Wording { key_list: "the list", missing: Missing::SeeKeyList, found_separator: ", " };
    const NAME_FORM: Wording = Wording { key_list: "the manual", missing: Missing::NameForm, found_separator: "; " };

    /// The table `[t]` of `text`, read with `wording`.
    fn section(wording: Wording, text: &str) -> Section {
        Section::new(wording, text.parse().expect("test TOML parses")).table("t").expect("test TOML has [t]")
    }

    fn message<T: std::fmt::Debug>(result: Result<T, ConfigError>) -> String {
        result.expect_err("the read must be rejected").to_string()
    }

    #[test]
    fn a_missing_key_is_worded_by_the_caller() {
        let mut s = section(SEE_LIST, "[t]\n");
        assert_eq!(message(s.string("name", "")), "`t.name`: missing (see the list)");
        let mut s = section(NAME_FORM, "[t]\n");
        assert_eq!(message(s.string("name", "a label")), "`t.name`: missing: must be a string, a label");
        assert_eq!(message(s.one_of("lanes", &[1, 2])), "`t.lanes`: missing: must be one of 1, 2");
        assert_eq!(message(s.table("sub")), "`t.sub`: missing: must be a table `[t.sub]`");
        let mut root = Section::new(SEE_LIST, Table::new());
        assert_eq!(message(root.table("design")), "`design`: missing (see the list)");
    }

    #[test]
    fn a_wrong_type_names_the_form_and_the_type_found() {
        let text = "[t]\na = 1\nb = \"x\"\nc = [1]\nd = [\"x\", 2]\ne = \"161\"\nf = [{ g = 1 }, 5]\n";
        let mut s = section(SEE_LIST, text);
        assert_eq!(message(s.string("a", "")), "`t.a`: must be a string, found integer");
        assert_eq!(message(s.integer("b", 1, 4)), "`t.b`: must be an integer in 1..=4, found string");
        assert_eq!(message(s.float("c", 1.0, 1000.0, "")), "`t.c`: must be a number in 1..=1000, found array");
        let mut s = section(NAME_FORM, text);
        assert_eq!(message(s.string("a", "a label")), "`t.a`: must be a string, a label; found integer");
        assert_eq!(message(s.one_of("b", &[1, 2])), "`t.b`: must be an integer, one of 1, 2; found string");
        assert_eq!(message(s.table("c")), "`t.c`: must be a table `[t.c]`; found array");
        assert_eq!(message(s.strings("d", "a list")), "`t.d[1]`: must be a string; found integer");
        assert_eq!(
            message(s.float("e", 1.0, 10.0, "a frequency")),
            "`t.e`: must be a frequency, a number in 1..=10; found string"
        );
        assert_eq!(message(s.tables("f", 1, 2)), "`t.f[1]`: must be a table; found integer");
    }

    #[test]
    fn an_out_of_range_value_names_the_range() {
        let mut s = section(SEE_LIST, "[t]\nn = 5\nm = 0\np = 5\nf = 0.5\ng = nan\nh = 3\nl = [{}, {}, {}]\n");
        assert_eq!(message(s.integer("n", 1, 4)), "`t.n`: 5 is out of range: must be an integer in 1..=4");
        assert_eq!(message(s.integer("m", 1, 4)), "`t.m`: 0 is out of range: must be an integer in 1..=4");
        assert_eq!(message(s.float("f", 1.0, 1000.0, "")), "`t.f`: 0.5 is out of range: must be a number in 1..=1000");
        assert_eq!(message(s.float("g", 1.0, 1000.0, "")), "`t.g`: NaN is out of range: must be a number in 1..=1000");
        assert_eq!(
            message(s.float("p", 1.0, 4.0, "a frequency in MHz")),
            "`t.p`: 5 is out of range: must be a frequency in MHz, a number in 1..=4"
        );
        assert_eq!(message(s.one_of("h", &[1, 2, 4])), "`t.h`: 3 is not allowed: must be one of 1, 2, 4");
        assert_eq!(
            message(s.tables("l", 1, 2)),
            "`t.l`: has 3 entries: must be an array of tables `[[t.l]]` with 1..=2 entries"
        );
    }

    #[test]
    fn an_unknown_key_is_named_after_the_known_ones_are_read() {
        let mut s = section(SEE_LIST, "[t]\nsessions = 4\nsesions = 4\n");
        assert_eq!(s.integer("sessions", 1, 4), Ok(4));
        assert_eq!(message(s.finish()), "`t.sesions`: unknown key (see the list)");
        let mut s = section(NAME_FORM, "[t]\n[[t.lanes]]\ngt = \"a\"\ngtt = \"b\"\n");
        let mut lanes = s.tables("lanes", 1, 8).unwrap();
        assert_eq!(lanes[0].string("gt", "a site").as_deref(), Ok("a"));
        assert_eq!(message(lanes.remove(0).finish()), "`t.lanes[0].gtt`: unknown key (see the manual)");
        assert_eq!(s.finish(), Ok(()));
    }

    #[test]
    fn good_values_are_read_and_removed() {
        let mut s = section(SEE_LIST, "[t]\ns = \"x\"\ni = 2\nf = 250\nl = [\"a\", \"b\"]\no = 4\n");
        assert_eq!(s.string("s", "").as_deref(), Ok("x"));
        assert_eq!(s.integer("i", 1, 4), Ok(2));
        assert_eq!(s.float("f", 1.0, 1000.0, ""), Ok(250.0));
        assert_eq!(s.strings("l", "a list"), Ok(vec!["a".to_string(), "b".to_string()]));
        assert!(s.has("o") && !s.has("s"));
        assert_eq!(s.one_of("o", &[1, 2, 4]), Ok(4));
        assert_eq!(s.finish(), Ok(()));
    }
}
