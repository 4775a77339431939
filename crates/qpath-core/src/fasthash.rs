//! A fast, unkeyed hasher for the parser's internal maps (option strings, roles, token indices): SipHash with
//! per-map random keys (std's default) was a tenth of a resolve's instructions, and none of these maps is keyed by
//! anything an attacker could grow (the option index is built from qpath's static table; the others are keyed by
//! enums and token positions). The multiply-rotate step is FxHash's (rustc's own hasher), restated.

use std::hash::{BuildHasherDefault, Hasher};

/// `HashMap<K, V, FastHash>` / `HashSet<T, FastHash>`; create with `::default()`.
pub(crate) type FastHash = BuildHasherDefault<FxHasher>;

#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn maps_keyed_by_strings_and_numbers_find_what_was_inserted() {
        let mut m: HashMap<String, usize, FastHash> = HashMap::default();
        let keys: Vec<String> = (0..500)
            .map(|i| format!("--option-{i}"))
            .chain(["".into(), "-O".into()])
            .collect();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.clone(), i);
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(m.get(k), Some(&i), "{k}");
        }
        assert_eq!(m.get("--option-500"), None);
        let mut n: HashMap<usize, u32, FastHash> = HashMap::default();
        n.extend((0..1000).map(|i| (i, i as u32 * 3)));
        assert!((0..1000).all(|i| n[&i] == i as u32 * 3));
    }
}
