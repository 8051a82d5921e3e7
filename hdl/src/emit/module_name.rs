//! The field that names a block's Verilog module after its Rust type.
//!
//! rust-hdl's walk over a block (`Block::accept`) hands a probe each child
//! as `&dyn Block`, which does not say what type it is. Every block of this
//! crate therefore holds a `verilog_name: ModuleName<Self>` field: in the walk it
//! announces the type (an empty namespace whose name carries
//! [`MARK`] and the type's name), which the emitter reads and every other
//! probe (rust-hdl's checks, its Verilog writer, the port probes) passes
//! over, since it holds no signal. In simulation it does nothing.

use std::marker::PhantomData;

use rust_hdl::prelude::*;

/// Prefix of the namespace name a [`ModuleName`] announces.
pub const MARK: &str = "rust_type:";

/// Names the Verilog module of the block that holds it after the block's
/// type `T` (`RateLimiter<256, 32>` -> `rate_limiter`).
pub struct ModuleName<T>(PhantomData<fn() -> T>);

impl<T> Default for ModuleName<T> {
    fn default() -> Self {
        ModuleName(PhantomData)
    }
}

impl<T> Clone for ModuleName<T> {
    fn clone(&self) -> Self {
        ModuleName(PhantomData)
    }
}

impl<T> std::fmt::Debug for ModuleName<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModuleName({})", rust_type_name::<T>())
    }
}

/// `T`'s name without its module path and generic arguments.
pub fn rust_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    let bare = full.split('<').next().unwrap_or(full);
    bare.rsplit("::").next().unwrap_or(bare)
}

impl<T> Logic for ModuleName<T> {
    fn update(&mut self) {}
}

impl<T> Block for ModuleName<T> {
    fn connect_all(&mut self) {}

    fn update_all(&mut self) {}

    fn has_changed(&self) -> bool {
        false
    }

    fn accept(&self, _name: &str, probe: &mut dyn Probe) {
        let name = format!("{MARK}{}", rust_type_name::<T>());
        probe.visit_start_namespace(&name, self);
        probe.visit_end_namespace(&name, self);
    }
}

/// `RateLimiter` -> `rate_limiter`.
pub fn snake_case(rust_name: &str) -> String {
    let mut out = String::new();
    for (i, c) in rust_name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_name_loses_its_path_and_generics() {
        assert_eq!(rust_type_name::<crate::RateLimiter<256, 32>>(), "RateLimiter");
        assert_eq!(snake_case("RateLimiter"), "rate_limiter");
        assert_eq!(snake_case("SyncBit"), "sync_bit");
    }
}
