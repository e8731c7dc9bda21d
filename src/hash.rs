//! The crate's hash tables, of two kinds: [`TextMap`] and [`TextSet`] for text a tool chose
//! (keys and values of a result, labels, pointer tokens, detected credentials, and a schema's
//! names, which a page chose and an extension must not trust either), and [`IdMap`] and
//! [`IdSet`] for ids the crate assigns itself.
//!
//! A tool that knows how such a table hashes can send thousands of keys that land in one
//! bucket, and every insert then walks all of them: a 1 MB result costs seconds, past the work
//! limit, which counts steps, not probes. std's `RandomState` would be the usual answer, but on
//! `wasm32-unknown-unknown` it has no entropy: its keys are the addresses of a stack and a heap
//! variable, the same in every instance of the module (measured: two fresh instances hash a
//! string alike). So these tables use foldhash (the hasher hashbrown itself defaults to;
//! faster than SipHash, and as strong as its secret seed) under a seed the core does not
//! choose: natively from std's `RandomState` (the OS's entropy), in the module from Web Crypto,
//! drawn by the door (`src/wasm/crypto.rs`) before anything else runs.
//!
//! Each table gets its own per-table seed as well, so that copying one table into another in
//! iteration order does not pile keys up either.
//!
//! What this does not reach: serde_json's maps (the DOM engine's objects) use std's
//! `RandomState`, which cannot be swapped; the door makes its keys unpredictable instead
//! (`src/wasm/crypto.rs`, `seed_hashing`).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use foldhash::fast::FoldHasher;
use foldhash::SharedSeed;

/// A hash map keyed by text a tool chose.
pub(crate) type TextMap<K, V> = HashMap<K, V, Keyed>;
/// A hash set of text a tool chose.
pub(crate) type TextSet<K> = HashSet<K, Keyed>;

struct Seeds {
    shared: SharedSeed,
    /// Mixed into every table's own seed.
    table: u64,
}

static SEEDS: OnceLock<Seeds> = OnceLock::new();
static TABLES: AtomicU64 = AtomicU64::new(0);

/// Seeds the hashing with 16 bytes of entropy; the first seed stays. The door calls this
/// before any table is made.
#[cfg(target_arch = "wasm32")]
pub(crate) fn seed(entropy: [u8; 16]) {
    let _ = SEEDS.set(Seeds::new(entropy));
}

/// Has the hashing been seeded?
#[cfg(target_arch = "wasm32")]
pub(crate) fn is_seeded() -> bool {
    SEEDS.get().is_some()
}

fn seeds() -> &'static Seeds {
    SEEDS.get_or_init(Seeds::from_entropy)
}

impl Seeds {
    fn new(entropy: [u8; 16]) -> Seeds {
        let entropy = u128::from_le_bytes(entropy); // its first eight bytes are the low half
        Seeds { shared: SharedSeed::from_u64(entropy as u64), table: (entropy >> 64) as u64 }
    }

    /// Natively std's `RandomState` is seeded by the OS.
    #[cfg(not(target_arch = "wasm32"))]
    fn from_entropy() -> Seeds {
        let os = std::hash::RandomState::new();
        let [a, b] = [os.hash_one(0u8), os.hash_one(1u8)].map(u64::to_le_bytes);
        Seeds::new(std::array::from_fn(|i| if i < 8 { a[i] } else { b[i - 8] }))
    }

    /// In the module there is no entropy but Web Crypto, which only the door reaches: a table
    /// made before it seeded would hash predictably, so this traps instead (the result is then
    /// withheld and the instance replaced, `js/engine.js`).
    #[cfg(target_arch = "wasm32")]
    fn from_entropy() -> Seeds {
        panic!("a hash table was made before the door seeded the hashing");
    }
}

/// The hasher of [`TextMap`] and [`TextSet`]: foldhash, under the seed and a per-table seed.
#[derive(Clone)]
pub(crate) struct Keyed {
    table: u64,
    shared: &'static SharedSeed,
}

impl Default for Keyed {
    fn default() -> Keyed {
        let seeds = seeds();
        // Odd multiplier: distinct tables get distinct seeds, spread over all 64 bits.
        let n = TABLES.fetch_add(1, Ordering::Relaxed);
        Keyed { table: seeds.table ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15), shared: &seeds.shared }
    }
}

impl BuildHasher for Keyed {
    type Hasher = KeyedHasher;

    fn build_hasher(&self) -> KeyedHasher {
        KeyedHasher(FoldHasher::with_seed(self.table, self.shared))
    }
}

/// foldhash's hasher behind calls that are not inlined: foldhash inlines all of itself, into
/// every method of every table type, which cost the module about 4 KiB; a call per key costs
/// next to nothing beside a probe.
pub(crate) struct KeyedHasher(FoldHasher<'static>);

impl Hasher for KeyedHasher {
    #[inline(never)]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    #[inline(never)]
    fn write_u8(&mut self, n: u8) {
        self.0.write_u8(n);
    }

    #[inline(never)]
    fn write_u32(&mut self, n: u32) {
        self.0.write_u32(n);
    }

    #[inline(never)]
    fn write_u64(&mut self, n: u64) {
        self.0.write_u64(n);
    }

    #[inline(never)]
    fn write_usize(&mut self, n: usize) {
        self.0.write_usize(n);
    }

    #[inline(never)]
    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// A hash map keyed by ids this crate assigns itself (node, set and state ids, session ids,
/// addresses of subschemas in the parsed document) or by digests under its own secret key,
/// hashed with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
pub(crate) type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

/// A multiply and a rotate per word: cheaper than any keyed hash, and ids need no key (no
/// key hashed with it is text a schema or a result chose; text takes [`Keyed`]).
/// (Hand-written: it is these few lines.)
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    /// A slice of ids arrives here as its bytes, whole.
    fn write(&mut self, mut rest: &[u8]) {
        while let Some((word, after)) = rest.split_first_chunk::<8>() {
            self.add(u64::from_le_bytes(*word));
            rest = after;
        }
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The product's well-mixed high bits moved down: the table picks buckets by the low bits,
    /// which for addresses (multiples of the value's size) the product leaves zero.
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_hash_alike_only_by_chance() {
        let (a, b) = (Keyed::default(), Keyed::default());
        let same = (0..64).filter(|i| a.hash_one(format!("key{i}")) == b.hash_one(format!("key{i}"))).count();
        assert_eq!(same, 0, "two tables hashed {same} of 64 keys alike");
    }

    /// Keys a tool picked to share their low bits under one seed spread out under another: what
    /// a tool can learn of one instance's hashing does not carry over.
    #[test]
    fn colliding_keys_under_one_seed_spread_under_another() {
        let known = |s: &str| foldhash::fast::FixedState::with_seed(7).hash_one(s);
        let picked: Vec<String> =
            (0..200_000).map(|i| format!("k{i}")).filter(|k| known(k) & 0xff == 0).take(256).collect();
        assert_eq!(picked.len(), 256);
        let ours = Keyed::default();
        let mut buckets: Vec<u64> = picked.iter().map(|k| ours.hash_one(k) & 0xff).collect();
        buckets.sort_unstable();
        buckets.dedup();
        // 256 keys over 256 buckets by chance fill about 162; all in one is the attack.
        assert!(buckets.len() > 100, "the picked keys fell into {} buckets", buckets.len());
    }

    /// Every table of the crate is one of the two kinds above: a std `HashMap` or `HashSet`
    /// would hash with std's `RandomState`, which on wasm32 every instance seeds alike.
    #[test]
    fn no_table_hashes_with_std_random_state() {
        let mut offenders = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("src/hash.rs") {
                    let text = std::fs::read_to_string(&path).expect("a source file");
                    let found =
                        ["HashMap<", "HashSet<", "HashMap::", "HashSet::", "collections::{Hash", "collections::Hash"];
                    if found.iter().any(|f| text.contains(f)) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(offenders.is_empty(), "use TextMap/TextSet or IdMap/IdSet (src/hash.rs) in {offenders:?}");
    }
}
