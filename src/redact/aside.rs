//! JSON a tool writes where rule 5 does not rewrite: a `_meta` string, a `resource_link`'s
//! `name` or `description`, a resource's `uri` (a `data:` URL holding the value's JSON). Found by
//! review s28: `{"apiKey": "…"}` written there reached the agent, since only text blocks and
//! resources' texts were read as the value they stand for. Such JSON is walked aside, as JSON in
//! prose that cannot be written back in place: what it took is known, and value matching then
//! cuts it from the string (and from every other place it is echoed).

use serde_json::Value;

use super::Run;
use crate::scrub::data_url_text;
use crate::Error;

impl Run<'_> {
    /// Walks the JSON in every string of `v` (a kept block, or `_meta`, at `pointer`, where
    /// what it takes is reported: a pointer cannot go inside a string) but the texts rule 5
    /// reads itself (with `block`: a block's and its resource's `text`), for what it takes. Not
    /// in a view of ours: its JSON was walked the first time, and value matching's
    /// `[redacted: …]` would be taken again.
    pub(super) fn walk_aside(&mut self, v: &Value, pointer: &str, block: bool) -> Result<(), Error> {
        if self.own || !self.tool.has_marks() {
            return Ok(());
        }
        match v {
            Value::Object(o) => {
                for (k, v) in o.iter().filter(|(k, _)| !block || k.as_str() != "text") {
                    self.walk_aside(v, pointer, block && k == "resource")?;
                }
            }
            Value::Array(a) => {
                for v in a {
                    self.walk_aside(v, pointer, false)?;
                }
            }
            Value::String(s) => {
                let text = data_url_text(s);
                let text = text.as_deref().unwrap_or(s);
                if text.contains(['{', '[']) || crate::scrub::encodes_json(text) {
                    let mark = self.collect.mark();
                    if let Some(json) = self.text_json(text, (false, true), false, 0)? {
                        // Not written back: value matching cuts what it took.
                        self.rewrite_text(text, json, false, 0)?;
                        self.collect.point_since(mark, pointer);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}
