//! The known-secret set: every value a redactor has taken from a result, fetched for the user,
//! or seen as a tool's own secret reference, so that no later result of any tool carries it back
//! to the agent, and no call takes it out (`check`'s `secret_egress`).
//!
//! What enters it is decided in one place, [`secret_strings`]. Values are owned by the vault
//! handles they came with: `forget(handle)` drops a value once no other handle holds it, and
//! `clear` drops everything. A value that entered without a handle (from a result that was then
//! withheld, or a reference the agent never got a stub for) stays until `clear`: scrubbing a
//! value too many is the safe side.
//!
//! Memory grows with the number of distinct values (each kept in its encoded forms, see
//! `forms_of`: 4 to 10 for a token of letters, digits, `-`, `_` and `.`, about 40 for a value
//! with every character HTML, JSON and URLs escape) until `forget`/`clear`; nothing expires on
//! its own, since an expired vault entry's value must still never reach the agent.

use std::collections::HashMap;

use serde_json::Value;

use super::Needles;

#[derive(Default)]
pub struct KnownSecrets {
    needles: Needles,
    /// value -> the handles that hold it (empty: entered without one).
    owners: HashMap<String, Vec<String>>,
    /// handle -> the values it holds.
    owned: HashMap<String, Vec<String>>,
}

impl KnownSecrets {
    /// Remembers `value` under `label` (the label its redactions will show), owned by no handle yet.
    pub fn note(&mut self, value: &str, label: &str) {
        if !self.owners.contains_key(value) {
            self.needles.add(value, label);
            self.owners.insert(value.to_string(), Vec::new());
        }
    }

    /// Remembers `value` as held by `handle`.
    pub fn own(&mut self, handle: &str, value: &str, label: &str) {
        self.note(value, label);
        let owners = self.owners.get_mut(value).expect("noted above");
        if !owners.iter().any(|h| h == handle) {
            owners.push(handle.to_string());
            self.owned.entry(handle.to_string()).or_default().push(value.to_string());
        }
    }

    /// The vault entry `handle` is gone: its values go too, unless another handle holds them.
    pub fn forget(&mut self, handle: &str) {
        for value in self.owned.remove(handle).unwrap_or_default() {
            let Some(owners) = self.owners.get_mut(&value) else { continue };
            owners.retain(|h| h != handle);
            if owners.is_empty() {
                self.owners.remove(&value);
                self.needles.remove(&value);
            }
        }
    }

    pub fn clear(&mut self) {
        *self = KnownSecrets::default();
    }

    /// How many distinct values are known.
    pub fn len(&self) -> usize {
        self.owners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owners.is_empty()
    }

    pub(crate) fn needles(&self) -> &Needles {
        &self.needles
    }
}

/// The rule for what of a taken value enters the set: every string and the text of every
/// number inside it, nested ones included; with `keys`, object keys too (a value whose keys are
/// secret, from `propertyNames`). The envelope words of anything shaped like a content block
/// (its `type`, `mimeType` and `annotations`) are structure, not values: a block or a whole
/// result taken at once would otherwise scrub "text" out of every later result. The rule reads
/// only the value, so the JS side can replay a vault record into a fresh set after a trap.
pub fn secret_strings(value: &Value, keys: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Number(n) => out.push(n.to_string()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if keys {
                    out.extend(map.keys().cloned());
                }
                let block = map.get("type").and_then(Value::as_str).is_some_and(is_block_type);
                let envelope = |k: &str| block && matches!(k, "type" | "mimeType" | "annotations");
                stack.extend(map.iter().filter(|(k, _)| !envelope(k)).map(|(_, v)| v));
            }
            _ => {}
        }
    }
    out
}

fn is_block_type(t: &str) -> bool {
    matches!(t, "text" | "image" | "audio" | "resource_link" | "resource" | "secret_reference")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scrubbed(k: &KnownSecrets, s: &str) -> bool {
        k.needles().scrub(s).is_some()
    }

    #[test]
    fn forget_drops_a_value_only_when_no_handle_holds_it() {
        let mut k = KnownSecrets::default();
        k.own("h1", "sk_live_shared", "key");
        k.own("h2", "sk_live_shared", "key");
        k.own("h1", "only-in-h1", "key");
        k.forget("h1");
        assert!(scrubbed(&k, "x sk_live_shared y"), "h2 still holds it");
        assert!(!scrubbed(&k, "x only-in-h1 y"));
        k.forget("h2");
        assert!(k.is_empty());
        assert!(!scrubbed(&k, "x sk_live_shared y"));
    }

    #[test]
    fn values_without_a_handle_stay_until_clear() {
        let mut k = KnownSecrets::default();
        k.note("pending-value", "x");
        k.forget("any");
        assert!(scrubbed(&k, "pending-value"));
        k.clear();
        assert!(!scrubbed(&k, "pending-value"));
    }

    #[test]
    fn a_removed_form_shared_with_another_value_stays() {
        // "a%20bcd" is both the verbatim form of one value and the encoded form of another.
        let mut k = KnownSecrets::default();
        k.own("h1", "a bcd", "one");
        k.own("h2", "a%20bcd", "two");
        k.forget("h2");
        assert!(scrubbed(&k, "q=a%20bcd"), "still an encoding of h1's value");
    }

    #[test]
    fn secret_strings_cover_nested_strings_numbers_and_secret_keys() {
        let v = json!({ "user": { "password": "hunter22", "pin": 123456 }, "list": ["tok-abc"], "type": "card" });
        let mut s = secret_strings(&v, false);
        s.sort();
        assert_eq!(s, ["123456", "card", "hunter22", "tok-abc"], "\"type\" is a value outside a block");
        assert!(secret_strings(&v, true).contains(&"password".to_string()));
    }

    #[test]
    fn a_whole_result_leaves_its_envelope_words_out() {
        let raw = json!({ "content": [{ "type": "text", "text": "card 4111", "annotations": { "audience": ["user"] } },
                                      { "type": "image", "data": "QUJD", "mimeType": "image/png" }],
                          "structuredContent": { "card": "4111-1111" } });
        let mut s = secret_strings(&raw, false);
        s.sort();
        assert_eq!(s, ["4111-1111", "QUJD", "card 4111"]);
    }
}
