//! A direct JSON writer for the records that go back to JS. They are small, fixed shapes read
//! once by `JSON.parse`; writing them by hand instead of through serde derives keeps ~3 KiB
//! (gzip) of monomorphized serializer code out of the module (measured with this commit).

use serde_json::Value;

/// An object being written into `out`; members are separated as they come.
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

/// Writes one JSON object, its members written by `members`.
pub fn object(out: &mut String, members: impl FnOnce(&mut Obj)) {
    out.push('{');
    members(&mut Obj { out, first: true });
    out.push('}');
}

/// Writes a JSON array of `items`, each written by `item`.
pub fn array<T>(out: &mut String, items: impl IntoIterator<Item = T>, mut item: impl FnMut(&mut String, T)) {
    out.push('[');
    for (i, t) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, t);
    }
    out.push(']');
}

/// A JSON string literal, escaped as JSON requires.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push_str(escape);
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

impl Obj<'_> {
    /// Starts a member; its value is written next, into the returned text.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        string(self.out, key);
        self.out.push(':');
        self.out
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        string(self.key(key), value);
        self
    }

    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.str(key, v);
        }
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key).push_str(if value { "true" } else { "false" });
        self
    }

    /// A number or other literal already in JSON form.
    pub fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        self.key(key).push_str(json);
        self
    }

    pub fn value(&mut self, key: &str, value: &Value) -> &mut Self {
        let text = value.to_string();
        self.raw(key, &text)
    }

    pub fn strs<S: AsRef<str>>(&mut self, key: &str, items: &[S]) -> &mut Self {
        array(self.key(key), items, |out, s| string(out, s.as_ref()));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_it_writes_reads_back_as_the_same_data() {
        let tricky = "q\"b\\s/\n\r\t\u{1}\u{1f}é😀\u{2028}";
        let mut out = String::new();
        object(&mut out, |o| {
            o.str("s", tricky).opt_str("none", None).bool("t", true).raw("n", "12.5").strs("l", &["a", tricky]);
            o.value("v", &serde_json::json!({ "x": [1, null] }));
        });
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            back,
            serde_json::json!({ "s": tricky, "t": true, "n": 12.5, "l": ["a", tricky], "v": { "x": [1, null] } })
        );
    }
}
