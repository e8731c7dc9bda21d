//! Sets of ASCII bytes, as two 64-bit masks: a membership test per byte without a table of 256
//! entries in the module's data for each set, nor a chain of comparisons per byte.

/// A set of ASCII bytes.
#[derive(Clone, Copy)]
pub(crate) struct AsciiSet([u64; 2]);

impl AsciiSet {
    /// The set of `bytes`, all ASCII (checked when the constant is evaluated).
    pub(crate) const fn of(bytes: &[u8]) -> AsciiSet {
        let (mut mask, mut i) = ([0u64; 2], 0);
        while i < bytes.len() {
            let b = bytes[i];
            assert!(b < 0x80, "an AsciiSet holds ASCII bytes only");
            mask[(b >> 6) as usize] |= 1 << (b & 63);
            i += 1;
        }
        AsciiSet(mask)
    }

    #[inline(always)]
    pub(crate) fn has(self, b: u8) -> bool {
        b < 0x80 && self.0[usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    /// Does `s` hold a byte of the set? An indexed loop: at opt-level "z" the byte iterator's
    /// steps are calls, and hot callers ask this of every string of a result.
    pub(crate) fn any_in(self, s: &[u8]) -> bool {
        let mut i = 0;
        while i < s.len() {
            if self.has(s[i]) {
                return true;
            }
            i += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::AsciiSet;

    #[test]
    fn a_set_holds_its_bytes_and_no_other() {
        let members = b"\",:[]{}%&\\\x00\x7f";
        let set = AsciiSet::of(members);
        for b in 0..=255u8 {
            assert_eq!(set.has(b), members.contains(&b), "{b:#x}");
            assert_eq!(set.any_in(&[b'a', b, b'z']), members.contains(&b), "{b:#x}");
        }
        assert!(!set.any_in("sk_live_0123 é😀".as_bytes()) && !set.any_in(b""));
    }
}
