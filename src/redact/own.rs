//! What this redactor wrote: so that a result shaped like its own output is kept as its own
//! only when it really is (redacting its output again changes nothing), and every other part
//! shaped like a stub, a notice or a `webmcp-redact/` key is tool data, or a forgery.
//!
//! Each agent view the redactor returns is remembered as a keyed digest of its JSON text, bound
//! to the tool it answered for (a view presented again as another tool's result is not its
//! own). The key is random per redactor, so nobody can make a forgery collide. At most
//! `CAPACITY` views are remembered, oldest out: redacting a view older than that again treats
//! its library parts as tool data, which redacts more, never less.

use std::collections::VecDeque;
use std::hash::Hasher;

use serde_json::Value;

use crate::hash::IdSet;

const CAPACITY: usize = 4096;

#[derive(Default)]
pub struct Written {
    key: (u64, u64),
    digests: IdSet<u64>,
    order: VecDeque<u64>,
}

impl Written {
    pub fn set_key(&mut self, key: [u8; 16]) {
        let key = u128::from_le_bytes(key); // its first eight bytes are the low half
        self.key = (key as u64, (key >> 64) as u64);
    }

    /// SipHash-2-4 keyed with this redactor's key, over the tool name and the view's text.
    /// (std's SipHasher is deprecated only in favour of crates; it is the same function.)
    fn digest(&self, tool: &str, text: &str) -> u64 {
        #[allow(deprecated)]
        let mut h = std::hash::SipHasher::new_with_keys(self.key.0, self.key.1);
        h.write(tool.as_bytes());
        h.write_u8(0xff);
        h.write(text.as_bytes());
        h.finish()
    }

    /// Remembers an agent view this redactor returned for `tool`.
    pub fn record(&mut self, tool: &str, agent_json: &str) {
        let d = self.digest(tool, agent_json);
        if self.digests.insert(d) {
            self.order.push_back(d);
            if self.order.len() > CAPACITY {
                if let Some(old) = self.order.pop_front() {
                    self.digests.remove(&old);
                }
            }
        }
    }

    /// Is `raw` (as parsed) a view this redactor returned for `tool`? Compared in the canonical
    /// text the redactor writes, so a view that went through `JSON.parse`/`JSON.stringify`
    /// still counts.
    pub fn wrote(&self, tool: &str, raw: &Value) -> bool {
        !self.digests.is_empty() && self.digests.contains(&self.digest(tool, &crate::json::write::text(raw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_is_own_for_its_tool_and_key_only() {
        let mut w = Written::default();
        w.set_key([1; 16]);
        let view = r#"{"content":[{"type":"text","text":"x"}]}"#;
        w.record("t", view);
        let parsed: Value = serde_json::from_str(view).unwrap();
        assert!(w.wrote("t", &parsed));
        assert!(!w.wrote("other_tool", &parsed));
        let mut other = Written::default();
        other.set_key([2; 16]);
        other.record("t", "{}");
        assert!(!other.wrote("t", &parsed));
    }

    #[test]
    fn memory_is_bounded() {
        let mut w = Written::default();
        for i in 0..CAPACITY + 10 {
            w.record("t", &format!("[{i}]"));
        }
        assert_eq!(w.digests.len(), CAPACITY);
        assert!(!w.wrote("t", &serde_json::json!([0])), "the oldest went first");
        assert!(w.wrote("t", &serde_json::json!([CAPACITY + 9])));
    }
}
