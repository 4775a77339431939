//! The deterministic PRNG of the core's unit tests and property runs (xorshift64*): no dependency, the same inputs on
//! every run. The integration tests cannot see `cfg(test)` items, so `tests/common/mod.rs` includes this file by path.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `items`, uniformly.
    #[allow(dead_code)] // the property runs use it; the unit tests may not
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}
