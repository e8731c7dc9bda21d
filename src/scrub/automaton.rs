//! A static Aho–Corasick automaton over bytes, written by hand: the aho-corasick crate was
//! measured at 84 KiB of the module. All of value matching (this automaton, the two-level set,
//! short tokens and the merge in `mod.rs`) is 8.5 KiB of the shipped `.wasm` (after
//! wasm-bindgen and wasm-opt -Oz: 364,546 bytes, 355,879 with matching stubbed out), 3.8 KiB
//! gzipped.
//!
//! It answers one question per position of a text: which is the longest live needle that ends
//! here? That is all value matching needs: every shorter needle ending at the same place lies
//! inside it, so the union of the matches, and the leftmost-longest match of each overlapping
//! group, are the same as with every match listed.
//!
//! Build: O(total needle bytes) (the trie, then failure links in breadth-first order; a state's
//! children are scanned or binary-searched, at most 256 of them). Scan: O(text bytes): each
//! byte is one transition, and failure hops never outnumber transitions (the depth of the
//! state rises by one per byte and falls by at least one per hop). At the root, bytes whose
//! pair with the next byte begins no needle are passed over with one bit lookup each, as the
//! matcher before this one did: text that holds no secret costs little more than reading it. A removed needle stays in
//! the automaton as a tombstone: the first time a scan meets it as the longest needle of a
//! state, the state (and every dead needle on the way) is pointed past it to the next live
//! one, so each tombstone is walked over a bounded number of times, not once per position.

/// No state, no needle.
pub(super) const NONE: u32 = u32::MAX;

/// Steps of work, counted for the tests that bound them (`Needles::work`); outside tests it
/// holds nothing and counting compiles to nothing.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Steps(#[cfg(test)] pub u64);

impl std::ops::AddAssign<u64> for Steps {
    #[inline(always)]
    fn add_assign(&mut self, _n: u64) {
        #[cfg(test)]
        {
            self.0 += _n;
        }
    }
}

impl std::ops::AddAssign for Steps {
    #[inline(always)]
    fn add_assign(&mut self, _other: Steps) {
        #[cfg(test)]
        {
            self.0 += _other.0;
        }
    }
}

/// States are numbered in breadth-first order, the root is 0.
#[derive(Default)]
pub(super) struct Automaton {
    /// Transitions from the root, dense (0: stay at the root).
    root: Vec<u32>,
    /// The edges of state `s` are `first[s]..first[s + 1]`, sorted by byte.
    first: Vec<u32>,
    edge_byte: Vec<u8>,
    edge_to: Vec<u32>,
    fail: Vec<u32>,
    /// The longest live needle that is a suffix of the state's string, or NONE.
    out: Vec<u32>,
    /// Per needle: its slot in the set, its length, and the longest needle that is a proper
    /// suffix of it (skipping known tombstones), or NONE.
    slot: Vec<u32>,
    len: Vec<u32>,
    shorter: Vec<u32>,
    /// Needle bytes in this automaton, live or not.
    bytes: usize,
    /// A bit per pair of bytes that begins a needle: at the root, a position whose pair is not
    /// one cannot start a match, and is passed over with one lookup (most of a text that holds
    /// no secret). Empty when a needle is shorter than 2 bytes.
    pairs: Vec<u64>,
}

impl Automaton {
    /// Builds the automaton of `needles` (slot, text); texts are distinct and not empty.
    /// Adds its work (trie steps, sibling comparisons, failure hops) to `work`. (A `dyn`
    /// iterator: one copy of this code in the module, whoever calls it.)
    ///
    /// A trie node is one push, and the tables after the trie are sized before they are
    /// filled, through slices: at opt-level "z" each `Vec::push` and each index into a `Vec`
    /// is a call, and they were most of the build, which a call that takes values pays once
    /// (measured: an eighth of a 2 KB result with four marked values).
    pub fn build(needles: &mut dyn Iterator<Item = (u32, &[u8])>, work: &mut Steps) -> Automaton {
        // 1. The trie, children as sibling lists sorted by byte (the root's as a dense table).
        // Its nodes grow by doubling, as a `Vec`'s would (not sized to the needle bytes: values
        // that share long prefixes make few nodes), and are read through a slice: indexing the
        // growing `Vec` was a call per step (a third of a dense result's build).
        let mut nodes = vec![Node::EMPTY; 64];
        let mut states = 1;
        let mut root = [NONE; 256];
        let (mut slot, mut len) = (Vec::new(), Vec::new());
        let mut bytes = 0;
        let mut pairs = vec![0u64; 1 << 10];
        let mut one_byte = false;
        for (s, text) in needles {
            if let [a, b, ..] = text {
                let pair = usize::from(*a) << 8 | usize::from(*b);
                pairs[pair >> 6] |= 1 << (pair & 63);
            } else {
                one_byte = true;
            }
            let mut state = 0u32;
            for &b in text {
                *work += 1;
                if states == nodes.len() {
                    nodes.resize(2 * states, Node::EMPTY);
                }
                let trie = &mut nodes[..];
                let (mut before, mut next) =
                    if state == 0 { (NONE, root[usize::from(b)]) } else { (NONE, trie[state as usize].child) };
                if state != 0 {
                    while next != NONE && trie[next as usize].byte < b {
                        *work += 1;
                        before = next;
                        next = trie[next as usize].sibling;
                    }
                }
                if next == NONE || trie[next as usize].byte != b {
                    let new = states as u32;
                    trie[states] = Node { child: NONE, sibling: next, term: NONE, byte: b };
                    states += 1;
                    if state == 0 {
                        root[usize::from(b)] = new;
                    } else if before == NONE {
                        trie[state as usize].child = new;
                    } else {
                        trie[before as usize].sibling = new;
                    }
                    next = new;
                }
                state = next;
            }
            let trie = &mut nodes[..];
            if trie[state as usize].term == NONE {
                trie[state as usize].term = slot.len() as u32;
                slot.push(s);
                len.push(text.len() as u32);
                bytes += text.len();
            }
        }
        if one_byte {
            pairs.clear();
        }
        let trie = &nodes[..states];
        *work += states as u64;

        // 2. Renumber breadth-first into flat, byte-sorted edge lists.
        let mut a = Automaton {
            root: vec![0; 256],
            first: vec![0; states + 1],
            edge_byte: vec![0; states - 1],
            edge_to: vec![0; states - 1],
            fail: vec![0; states],
            out: vec![NONE; states],
            shorter: vec![NONE; slot.len()],
            slot,
            len,
            bytes,
            pairs,
        };
        let (a_root, first, edge_byte, edge_to) =
            (&mut a.root[..], &mut a.first[..], &mut a.edge_byte[..], &mut a.edge_to[..]);
        let mut order = vec![0u32; states]; // new id -> trie node
        let order = &mut order[..];
        let (mut ordered, mut edges) = (1, 0);
        for at in 0..states {
            let node = order[at] as usize;
            first[at] = edges as u32;
            // The root's children in byte order, or the first of a sorted sibling list.
            let mut c = if node == 0 { NONE } else { trie[node].child };
            let mut b = 0;
            loop {
                if node == 0 {
                    while b < 256 && root[b] == NONE {
                        b += 1;
                    }
                    if b == 256 {
                        break;
                    }
                    c = root[b];
                    b += 1;
                } else if c == NONE {
                    break;
                }
                let id = ordered as u32;
                edge_byte[edges] = trie[c as usize].byte;
                edge_to[edges] = id;
                edges += 1;
                order[ordered] = c;
                ordered += 1;
                if node == 0 {
                    a_root[usize::from(trie[c as usize].byte)] = id;
                }
                c = trie[c as usize].sibling;
            }
        }
        first[states] = edges as u32;

        // 3. Failure links and outputs, breadth-first: a state's failure target is shallower,
        // so it is complete when the state is reached.
        let (fail, out, shorter) = (&mut a.fail[..], &mut a.out[..], &mut a.shorter[..]);
        for s in 0..states {
            let (from, to) = (first[s] as usize, first[s + 1] as usize);
            for e in from..to {
                let (b, c) = (edge_byte[e], edge_to[e] as usize);
                let target = if s == 0 {
                    0
                } else {
                    let mut f = fail[s];
                    loop {
                        if let Some(t) = step(a_root, first, edge_byte, edge_to, f, b) {
                            break t;
                        }
                        if f == 0 {
                            break 0;
                        }
                        *work += 1;
                        f = fail[f as usize];
                    }
                };
                fail[c] = target;
                let needle = trie[order[c] as usize].term;
                let inherited = out[target as usize];
                if needle == NONE {
                    out[c] = inherited;
                } else {
                    out[c] = needle;
                    shorter[needle as usize] = inherited;
                }
            }
        }
        a
    }

    /// Needle bytes in this automaton, tombstones included.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The length of its shortest needle, tombstones included (`usize::MAX` when it has none):
    /// no text shorter than that can hold a match.
    pub fn shortest(&self) -> usize {
        self.len.iter().min().map_or(usize::MAX, |&l| l as usize)
    }

    /// The length of its longest needle, tombstones included (0 when it has none): no match
    /// reaches further than that from any byte it covers.
    pub fn longest(&self) -> usize {
        self.len.iter().max().map_or(0, |&l| l as usize)
    }

    fn goto(&self, s: u32, b: u8) -> Option<u32> {
        step(&self.root, &self.first, &self.edge_byte, &self.edge_to, s, b)
    }

    /// Pushes `(start, end, slot)` for every position of `text` where a live needle ends,
    /// with the longest one, in increasing `end`. `live(slot)` tells tombstones apart; what it
    /// says of a slot must never go from false back to true. Adds its steps to `work`.
    pub fn scan(
        &mut self,
        text: &[u8],
        live: &dyn Fn(u32) -> bool,
        out: &mut Vec<(usize, usize, u32)>,
        work: &mut Steps,
    ) {
        if self.slot.is_empty() {
            return;
        }
        let mut state = 0u32;
        let mut i = 0;
        while i < text.len() {
            if state == 0 && !self.pairs.is_empty() {
                // Over a slice's windows: the loop most of a text goes through, kept tight.
                let pairs: &[u64] = &self.pairs;
                let starts = |w: &[u8]| {
                    let pair = usize::from(w[0]) << 8 | usize::from(w[1]);
                    pairs[pair >> 6] & (1 << (pair & 63)) != 0
                };
                let skip = text[i..].windows(2).position(starts).unwrap_or(text.len() - i - 1);
                *work += skip as u64;
                i += skip;
            }
            let b = text[i];
            i += 1;
            *work += 1;
            state = loop {
                if let Some(t) = self.goto(state, b) {
                    break t;
                }
                if state == 0 {
                    break 0;
                }
                *work += 1;
                state = self.fail[state as usize];
            };
            let mut o = self.out[state as usize];
            if o == NONE {
                continue;
            }
            if !live(self.slot[o as usize]) {
                o = self.skip_dead(o, live, work);
                self.out[state as usize] = o;
                if o == NONE {
                    continue;
                }
            }
            out.push((i - self.len[o as usize] as usize, i, self.slot[o as usize]));
        }
    }

    /// The first live needle on `dead`'s chain of shorter needles; every tombstone on the way
    /// is pointed straight at it.
    fn skip_dead(&mut self, dead: u32, live: &dyn Fn(u32) -> bool, work: &mut Steps) -> u32 {
        let mut found = self.shorter[dead as usize];
        while found != NONE && !live(self.slot[found as usize]) {
            *work += 1;
            found = self.shorter[found as usize];
        }
        let mut d = dead;
        while d != found {
            let next = self.shorter[d as usize];
            self.shorter[d as usize] = found;
            d = next;
        }
        found
    }
}

/// A trie node while the automaton is built.
#[derive(Clone, Copy)]
struct Node {
    child: u32,
    sibling: u32,
    /// The needle that ends here, or NONE.
    term: u32,
    byte: u8,
}

impl Node {
    const EMPTY: Node = Node { child: NONE, sibling: NONE, term: NONE, byte: 0 };
}

/// The transition from state `s` on byte `b`, if there is one (the root's `0` is none), over
/// the automaton's tables (the build reads them as slices while it fills them).
fn step(root: &[u32], first: &[u32], edge_byte: &[u8], edge_to: &[u32], s: u32, b: u8) -> Option<u32> {
    if s == 0 {
        return Some(root[usize::from(b)]).filter(|&t| t != 0);
    }
    let (from, to) = (first[s as usize] as usize, first[s as usize + 1] as usize);
    let edges = &edge_byte[from..to];
    let i = if edges.len() <= 8 { edges.iter().position(|&e| e == b)? } else { edges.binary_search(&b).ok()? };
    Some(edge_to[from + i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(needles: &[&str], text: &str, dead: &[u32]) -> Vec<(usize, usize, u32)> {
        let mut work = Steps::default();
        let mut a = Automaton::build(&mut needles.iter().enumerate().map(|(i, n)| (i as u32, n.as_bytes())), &mut work);
        let mut out = Vec::new();
        a.scan(text.as_bytes(), &|s| !dead.contains(&s), &mut out, &mut work);
        out
    }

    /// Every (start, end) with the longest live needle ending at `end`, by brute force.
    fn brute(needles: &[&str], text: &str, dead: &[u32]) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        for end in 1..=text.len() {
            let best = (0..needles.len() as u32)
                .filter(|i| !dead.contains(i))
                .filter(|&i| text.as_bytes()[..end].ends_with(needles[i as usize].as_bytes()))
                .max_by_key(|&i| needles[i as usize].len());
            if let Some(i) = best {
                out.push((end - needles[i as usize].len(), end, i));
            }
        }
        out
    }

    #[test]
    fn longest_needle_per_end_matches_brute_force() {
        let cases: &[(&[&str], &str)] = &[
            (&["he", "she", "his", "hers"], "ushers and his sheep"),
            (&["abcd", "bcd", "cd", "d", "abcdx"], "abcdabcdxabcd"),
            (&["aaaa", "aaaaa", "aaaaaa", "ab"], "aaaaaaaaaabaaaa"),
            (&["a%40b", "%40", "40b", "%4"], "x a%40b %40%4"),
            (&["\u{e9}t\u{e9}", "t\u{e9}"], "\u{e9}t\u{e9} \u{e9}t\u{e9}t\u{e9}"),
        ];
        for (needles, text) in cases {
            assert_eq!(matches(needles, text, &[]), brute(needles, text, &[]), "{needles:?} in {text:?}");
            for dead in 0..needles.len() as u32 {
                assert_eq!(matches(needles, text, &[dead]), brute(needles, text, &[dead]), "{dead} dead");
            }
            let all_but_last: Vec<u32> = (0..needles.len() as u32 - 1).collect();
            assert_eq!(matches(needles, text, &all_but_last), brute(needles, text, &all_but_last));
        }
    }

    #[test]
    fn many_children_per_state_use_the_sorted_edges() {
        let needles: Vec<String> = (0..=255u8).map(|b| format!("x{}", char::from(b))).collect();
        let refs: Vec<&str> = needles.iter().map(String::as_str).collect();
        let text = "xAxzx~x\u{7f}";
        assert_eq!(matches(&refs, text, &[]), brute(&refs, text, &[]));
    }

    #[test]
    fn text_where_no_needle_can_start_is_passed_over() {
        let mut work = Steps::default();
        let mut a = Automaton::build(&mut [(0, &b"abcd"[..]), (1, b"zyab")].into_iter(), &mut work);
        let (mut found, mut steps) = (Vec::new(), Steps::default());
        let text = format!("{}abcd", "z".repeat(10_000));
        a.scan(text.as_bytes(), &|_| true, &mut found, &mut steps);
        assert_eq!(found, [(10_000, 10_004, 0)]);
        assert!(steps.0 <= text.len() as u64 + 8, "{steps:?}");
    }

    #[test]
    fn tombstones_found_again_cost_nothing_more() {
        // Nested needles, all but the shortest dead: the first position walks the chain once.
        let needles: Vec<String> = (4..200).map(|n| "A".repeat(n)).collect();
        let refs: Vec<&str> = needles.iter().map(String::as_str).collect();
        let dead: Vec<u32> = (1..refs.len() as u32).collect();
        let mut work = Steps::default();
        let mut a = Automaton::build(&mut refs.iter().enumerate().map(|(i, n)| (i as u32, n.as_bytes())), &mut work);
        let text = "A".repeat(10_000);
        let (mut first, mut second) = (Steps::default(), Steps::default());
        a.scan(text.as_bytes(), &|s| !dead.contains(&s), &mut Vec::new(), &mut first);
        a.scan(text.as_bytes(), &|s| !dead.contains(&s), &mut Vec::new(), &mut second);
        assert!(first.0 < 2 * 10_000 + 400, "{first:?}");
        assert!(second.0 <= 2 * 10_000, "{second:?}");
    }
}
