//! Helpers shared by `gen`'s integration tests.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Every file under `dir` with its bytes, by path relative to `dir`
/// ('/'-separated), in path order.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display())) {
            let p = e.unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display())).path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().components();
                let rel: Vec<String> = rel.map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                let bytes = fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
                out.insert(rel.join("/"), bytes);
            }
        }
    }
    out
}
