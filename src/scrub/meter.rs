//! What value matching and the detectors may read in one call.
//!
//! Reading is linear, but its constant is the tool's to choose: a string holding escapes of
//! every kind, nested, has up to 84 decoded views (`unescape.rs`), each made in full (and read
//! near its escapes), and labels, pointers and the report are read again for each redaction. The meter
//! counts the bytes read (scanned as written, decoded into a view, scanned in one) against an
//! allowance each entry point sets from the size of its input ([`allowance`]); past it,
//! reading stops, and the caller fails closed with `work_limit`: what it did not read may
//! hold a value.

use std::cell::Cell;

/// A call may read `max_work` bytes, plus `max_work >> READ_SHIFT` bytes per byte of its input
/// (1,024 at the default `max_work`), at least one. Measured, per byte of the result: a dense
/// all-redacted result reads 1 to 2 bytes, a tree of marks through `$ref` 9, HTML with links in
/// JSON text inside JSON (escapes of every kind in every string) 376, and a string built so
/// that every chain of decodings changes something 322, or 320 padded with runs of text
/// (1 MB of it takes about 0.5 s natively).
pub(crate) const READ_SHIFT: u32 = 14;

/// The fixed part of the allowance is never below this (a millisecond or two of reading): a
/// small `max_work` bounds the walk, and should not make a small result's reading the limit.
/// It also keeps the engines apart from the allowance on small results: they read a result
/// differently (the streaming engine its whole text, then the strings with escapes; the DOM
/// engine every string, then the text block), so near the allowance one could run out where
/// the other does not.
pub(crate) const READ_FLOOR: u64 = 1 << 20;

/// The allowance for reading an input of `input_bytes` under `max_work`.
pub(crate) fn allowance(max_work: usize, input_bytes: usize) -> u64 {
    let per_byte = (max_work as u64 >> READ_SHIFT).max(1);
    (max_work as u64).max(READ_FLOOR).saturating_add(per_byte.saturating_mul(input_bytes as u64))
}

/// The `work_limit` detail of a call whose reading passed its allowance.
pub(crate) fn overrun_detail(max_work: usize) -> String {
    let per_byte = (max_work >> READ_SHIFT).max(1);
    let fixed = (max_work as u64).max(READ_FLOOR);
    format!(
        "reading it for known and undeclared secrets took more than {fixed} bytes plus \
         {per_byte} per byte of input (limits.maxWork)"
    )
}

/// Bytes read so far, and the allowance (none outside a metered call: a set's own upkeep,
/// tests).
#[derive(Default)]
pub(crate) struct Meter {
    read: Cell<u64>,
    allowance: Cell<Option<u64>>,
}

impl Meter {
    /// A metered call starts, which may read `bytes`.
    pub fn allow(&self, bytes: u64) {
        self.read.set(0);
        self.allowance.set(Some(bytes));
    }

    /// The metered call is over: what it read no longer counts.
    pub fn stop(&self) {
        self.read.set(0);
        self.allowance.set(None);
    }

    /// Counts `bytes` read. False once the reads pass the allowance: the caller stops reading.
    pub fn charge(&self, bytes: usize) -> bool {
        if self.spent() {
            return false; // nothing more is read
        }
        self.read.set(self.read.get().saturating_add(bytes as u64));
        !self.spent()
    }

    /// Have the reads passed the allowance? Then what was read is incomplete, and the call
    /// fails closed.
    pub fn spent(&self) -> bool {
        self.allowance.get().is_some_and(|a| self.read.get() > a)
    }

    /// Counts only the first `read` bytes read so far (what an engine that declined read is
    /// not held against the one that takes over).
    pub fn rewind(&self, read: u64) {
        self.read.set(read.min(self.read.get()));
    }

    /// Bytes read since the allowance was set.
    pub fn read(&self) -> u64 {
        self.read.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_allowance_are_spent_until_the_call_ends() {
        let m = Meter::default();
        assert!(m.charge(1 << 40) && !m.spent(), "unmetered");
        m.allow(10);
        assert!(m.charge(10));
        assert!(!m.charge(1) && m.spent());
        assert!(!m.charge(1), "spent stays spent");
        assert_eq!(m.read(), 11, "what is not read is not counted");
        m.stop();
        assert!(!m.spent() && m.read() == 0);
        assert_eq!(allowance(5, 2), READ_FLOOR + 2);
        assert_eq!(allowance(1 << 24, 3), (1 << 24) + 3 * 1024);
        assert_eq!(allowance(usize::MAX, usize::MAX), u64::MAX);
    }
}
