//! What the property runs share (each `tests/*.rs` file is its own crate and includes this module): the case count
//! (`QPATH_FUZZ_CASES`, default 20,000), the seed (`QPATH_FUZZ_SEED`, else the run's own default) and the generator.
#![allow(dead_code)]

/// How many cases a property run makes: `QPATH_FUZZ_CASES`, else 20,000.
pub fn cases() -> u64 {
    std::env::var("QPATH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// The run's seed: `QPATH_FUZZ_SEED`, else `default` (each property run has its own).
pub fn seed_or(default: u64) -> u64 {
    std::env::var("QPATH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: small, deterministic, good enough to spread inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}
