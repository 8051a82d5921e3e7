//! The pattern at any byte (`PatternAt`, issue 29's message beats), as the
//! project's writer emits it and Verilator builds it, against the `pattern`
//! crate at every data width: every offset of the first 4 KiB, every lane
//! and byte position across the 2^34 wrap, and seeded random offsets
//! (`TB_SEED=<n>` replays a run). Also `verilator --lint-only -Wall`.

mod common;

use rand::Rng;
use verilate::Model;

const BLOCK: common::WidthBlock = common::WidthBlock { name: "pattern_at", modules: hdl::verilog::pattern_at_modules };

#[test]
fn verilator_lint_is_clean_at_every_width() {
    BLOCK.lint_every_width();
}

/// Offsets to check at `width` bits: the first 4 KiB byte by byte, every
/// lane and byte of the last beats before 2^34 and the first after it
/// (the words wrap there), and 20,000 random ones.
fn offsets(width: usize, rng: &mut impl Rng) -> Vec<u64> {
    let beat = (width / 8) as u64;
    let wrap = 1u64 << 34;
    (0..4096).chain(wrap - 3 * beat..wrap + 2 * beat).chain((0..20_000).map(|_| rng.gen::<u64>() % wrap)).collect()
}

#[test]
fn every_byte_is_the_pattern_at_every_width_and_offset() {
    let mut rng = seeded_inputs::seed::rng("every_byte_is_the_pattern_at_every_width_and_offset");
    for width in config::DATA_WIDTHS {
        let mut m = Model::new(BLOCK.model(width));
        let (offset, data) = (m.port("offset"), m.port("data"));
        let mut words = vec![0u32; width / 32];
        let mut want = vec![0u8; width / 8];
        for o in offsets(width, &mut rng) {
            m.set(offset, o % (1 << 34));
            m.eval();
            m.get_wide(data, &mut words);
            let got: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            pattern::fill(&mut want, o);
            assert_eq!(got, want, "{width} bits, offset {o}");
            // The block's simulation model says the same.
            assert_eq!(words, hdl::pattern_at::lanes_at(o, width / 32), "model, {width} bits, offset {o}");
        }
    }
}
