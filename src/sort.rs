//! The core's sorts of plain keys (integers and tuples of them): one small heapsort, and a
//! stable merge sort.
//!
//! `sort_unstable` is pattern-defeating quicksort, 3 to 4 KiB of the wasm module for each
//! element type it sorts, and the core sorts several; this is a few hundred bytes each. For keys
//! whose equal elements are identical (every call here sorts such keys by their natural order),
//! any correct sort leaves the same slice, so the outcome is the one `sort_unstable` gave. It
//! stays O(n log n) in the worst case; short slices, the common ones, go by insertion.

/// Sorts `v` ascending; equal elements in no particular order (see the module's comment).
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    let n = v.len();
    if n <= 16 {
        for i in 1..n {
            let mut j = i;
            while j > 0 && v[j] < v[j - 1] {
                v.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    for root in (0..n / 2).rev() {
        sift_down(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// Sorts `v` by `key`, keeping elements of equal keys in their order: `sort_by_key`'s outcome
/// (driftsort, another 4 KiB of the module) for elements that are plain data. Insertion within
/// runs of 16, then the runs merged pairwise through one buffer: O(n log n).
pub(crate) fn sort_by_key_stable<T: Copy, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    const RUN: usize = 16;
    let n = v.len();
    for run in v.chunks_mut(RUN) {
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && key(&run[j]) < key(&run[j - 1]) {
                run.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut merged: Vec<T> = v.to_vec();
    let mut width = RUN;
    while width < n {
        let mut start = 0;
        while start < n {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut a, mut b, mut out) = (start, mid, start);
            while a < mid && b < end {
                // The left run's element first on equal keys: that keeps the sort stable.
                if key(&v[b]) < key(&v[a]) {
                    merged[out] = v[b];
                    b += 1;
                } else {
                    merged[out] = v[a];
                    a += 1;
                }
                out += 1;
            }
            merged[out..out + (mid - a)].copy_from_slice(&v[a..mid]);
            out += mid - a;
            merged[out..end].copy_from_slice(&v[b..end]);
            start = end;
        }
        v.copy_from_slice(&merged);
        width *= 2;
    }
}

/// Moves `v[root]` down the max-heap `v[..end]` to where it belongs.
fn sift_down<T: Ord>(v: &mut [T], mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && v[child] < v[child + 1] {
            child += 1;
        }
        if v[root] >= v[child] {
            return;
        }
        v.swap(root, child);
        root = child;
    }
}

#[cfg(test)]
mod tests {
    use super::{sort, sort_by_key_stable};

    /// Against the standard library's sort, on seeded slices of every length up to 300 (both
    /// paths, and the heap's odd and even ends) drawn from small ranges (many equal keys) and
    /// wide ones, as integers and as pairs.
    #[test]
    fn sorts_as_the_standard_library_does() {
        let mut x: u64 = 36;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for len in 0..300 {
            for range in [3, 1000, u64::from(u32::MAX)] {
                let ints: Vec<u32> = (0..len).map(|_| next(range) as u32).collect();
                let (mut ours, mut std) = (ints.clone(), ints);
                sort(&mut ours);
                std.sort_unstable();
                assert_eq!(ours, std, "{len} integers below {range}");
                let pairs: Vec<(u32, usize)> = (0..len).map(|_| (next(range) as u32, next(4) as usize)).collect();
                let (mut ours, mut std) = (pairs.clone(), pairs);
                sort(&mut ours);
                std.sort_unstable();
                assert_eq!(ours, std, "{len} pairs below {range}");
            }
        }
    }

    /// The stable sort against `sort_by_key` on seeded quadruples keyed by their first two
    /// fields, many keys equal: the order of equal keys (the last two fields) must be std's.
    #[test]
    fn sorts_by_key_as_the_standard_library_does() {
        let mut x: u64 = 37;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for len in 0..300 {
            for range in [2, 5, 1000] {
                let v: Vec<(u32, u32, u32, bool)> =
                    (0..len).map(|i| (next(range) as u32, next(3) as u32, i as u32, next(2) == 0)).collect();
                let (mut ours, mut std) = (v.clone(), v);
                sort_by_key_stable(&mut ours, |h| (h.0, h.1));
                std.sort_by_key(|h| (h.0, h.1));
                assert_eq!(ours, std, "{len} quadruples below {range}");
            }
        }
    }
}
