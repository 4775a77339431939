//! Sorting for the page's size. Core's `sort`/`sort_unstable` (driftsort, ipnsort) put 1.5–3 KB of wasm into the page
//! for every element type sorted, and BTreeMap's `collect` sorts too; the page sorted nine types. This stable insertion
//! sort (binary search, then one rotation) is a few hundred bytes per type, and the slices sorted here are short
//! (a command line's options, the GPU table's rows, a comparison's layer sets).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, like `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    for i in 1..v.len() {
        let (head, tail) = v.split_at(i);
        let pos = head.partition_point(|x| cmp(x, &tail[0]) != Ordering::Greater);
        v[pos..=i].rotate_right(1);
    }
}

/// Sorts `v` ascending and drops repeats, like `sort` then `dedup`.
pub fn sort_dedup<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, Ord::cmp);
    v.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_core_stable_sort() {
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        for len in 0..200 {
            let pairs: Vec<(usize, usize)> = (0..len).map(|i| (rng.below(7), i)).collect();
            let mut ours = pairs.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut core = pairs.clone();
            core.sort_by_key(|p| p.0);
            assert_eq!(ours, core, "stable order for {len} items");
            let mut keys: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            sort_dedup(&mut keys);
            let mut want: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(keys, want);
        }
    }
}
