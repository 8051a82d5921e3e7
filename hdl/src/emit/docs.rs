//! The blocks' documentation as the Verilog carries it, read from their Rust
//! doc comments by `hdl/build.rs`: one definition, in the Rust source.

/// One port of a block: its group banner (`// ---- <group>` in the struct)
/// and the first sentence of its doc comment.
#[derive(Debug)]
pub struct PortDoc {
    pub name: &'static str,
    pub group: &'static str,
    pub doc: &'static str,
}

/// One block: what its module's opening banner says, and its ports.
#[derive(Debug)]
pub struct BlockDoc {
    pub rust_name: &'static str,
    /// Its source file, from the workspace root.
    pub file: &'static str,
    pub banner: &'static [&'static str],
    pub ports: &'static [PortDoc],
}

include!(concat!(env!("OUT_DIR"), "/block_docs.rs"));

/// The documentation of the block type `rust_name`.
pub fn find(rust_name: &str) -> Option<&'static BlockDoc> {
    BLOCK_DOCS.iter().find(|b| b.rust_name == rust_name)
}
