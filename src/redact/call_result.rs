//! A CallToolResult: `structuredContent`, each content block (rule 5), `_meta` and the rest.

use serde_json::{Map, Value};

use super::blocks::{block_label, classify, reference_strings, user_only_label, user_only_strings, Block};
use super::stubs::{as_mcp_stub, is_library_block, is_library_key, new_handle, stub, REPORT_KEY};
use super::{Run, UNDECLARED_LABEL};
use crate::json::{child, embedded_spans, is_mcp_member, parse_embedded, quoted_spans, write};
use crate::policy::claims::{nested_too_deep, MAX_EMBEDDED};
use crate::{Error, Format, Limits, Reason};

impl Run<'_> {
    /// A CallToolResult: structuredContent, then each block, then `_meta` and the rest.
    pub(super) fn call_result(
        &mut self,
        mut result: Map<String, Value>,
        content: Vec<Value>,
        allowlist: bool,
    ) -> Result<Value, Error> {
        let _ = self.walk_beside_mcp(&mut result, allowlist);
        let structured = result.shift_remove("structuredContent");
        if self.format == Format::Mcp && structured.as_ref().is_some_and(Value::is_null) {
            // MCP's schema has no null here: the view drops it (and so is not the raw text).
            self.note("/structuredContent".into(), Reason::NotMcp, "structuredContent".into());
        }
        let mut structured = structured.filter(|v| !v.is_null());
        let duplicates = duplicate_texts(&content, structured.as_ref(), &self.limits, self.own, self.spotlit)?;
        // A structuredContent MCP does not allow (not an object) is walked like any other, so
        // that its marked values are taken and every echo of them caught; only then it goes.
        // The agent gets no structured value, so its other JSON text blocks are walked as the
        // value they stand for, as with no structuredContent at all (else a second pass would).
        let not_mcp = self.format == Format::Mcp && structured.as_ref().is_some_and(|v| !v.is_object());
        let bare = structured.is_none() || not_mcp;
        // Beside an array structuredContent (the webmcp format), JSON text of an array can
        // stand for the value as well as an object can (found by review: it passed unwalked).
        let arrays = bare || structured.as_ref().is_some_and(Value::is_array);
        let changed = match structured.as_mut() {
            Some(v) => self.walk_into(v, "/structuredContent", allowlist),
            None => false,
        };
        if structured.as_ref().is_some_and(Value::is_null) {
            structured = None; // taken whole: it goes, and its duplicate text with it
        }
        let kept = self.blocks(content, &duplicates, (bare, arrays), allowlist)?;
        // Everything is taken before anything is value-matched, so that a value taken anywhere
        // (an undeclared `_meta` key, the last block) is caught everywhere else.
        let rest: Vec<(String, Value)> =
            result.into_iter().filter_map(|(k, v)| Some((k.clone(), self.top_level(&k, v, allowlist)?))).collect();
        if !allowlist {
            for (i, block) in &kept {
                self.walk_aside(block, &format!("/content/{i}"), true)?;
            }
            if let Some((_, meta)) = rest.iter().find(|(k, _)| k == "_meta") {
                self.walk_aside(meta, "/_meta", false)?;
            }
        }
        // Then credentials no one declared are found (and taken) everywhere value matching reads.
        self.take_glued();
        if let Some(v) = structured.as_ref() {
            self.detect(v, "/structuredContent");
        }
        for (i, block) in &kept {
            if !self.ours(block) {
                self.detect_block(block, &format!("/content/{i}"));
            }
        }
        for (key, value) in &rest {
            self.detect(&Value::String(key.clone()), "");
            self.detect(value, &child("", key));
        }
        Ok(self.call_view(structured, changed, kept, &duplicates, rest, not_mcp))
    }

    /// The rest of [`Run::call_result`] once everything is taken and the detectors have read
    /// the result: value matching, the duplicate text written again where the structured value
    /// changed (`changed`: the walk took from it), and the view. The streaming engine's reading
    /// of a CallToolResult ends here too where value matching finds something.
    pub(super) fn call_view(
        &mut self,
        mut structured: Option<Value>,
        mut changed: bool,
        kept: Vec<(usize, Value)>,
        duplicates: &[bool],
        rest: Vec<(String, Value)>,
        not_mcp: bool,
    ) -> Value {
        if let Some(v) = structured.as_mut() {
            changed |= self.scrub(v, "/structuredContent");
        }
        // Scrub after every block has added its needles, so block order does not matter.
        let text = structured.as_ref().map(write::text);
        let mut blocks = Vec::with_capacity(kept.len());
        let mut kept_at = Vec::with_capacity(kept.len());
        for (i, mut block) in kept {
            let regenerate = duplicates[i] && changed;
            if regenerate {
                // Taken whole: its duplicate goes too. In a spotlit view (ours, redacted again),
                // the text it stands for stays between the delimiters it was in (found by review:
                // they were lost). A duplicate is a text block, so an object (`duplicate_texts`).
                let Some(t) = &text else { continue };
                if let Some(block) = block.as_object_mut() {
                    let text = if self.spotlit { super::spotlight(t) } else { t.clone() };
                    block.insert("text".into(), Value::String(text));
                }
            }
            let pointer = format!("/content/{i}");
            if let Some(label) = self.known_in_fixed_fields(&block).filter(|_| !self.ours(&block)) {
                self.note(pointer, Reason::ValueMatch, label);
                continue;
            }
            self.scrub_block(&mut block, &pointer);
            blocks.push(block);
            kept_at.push(i);
        }
        self.content_at = Some(kept_at);
        let mut agent = Map::new();
        agent.insert("content".into(), Value::Array(blocks));
        if not_mcp {
            self.note("/structuredContent".into(), Reason::NotMcp, "structuredContent".into());
        } else if let Some(v) = structured {
            agent.insert("structuredContent".into(), v);
        }
        for (key, mut value) in rest {
            match &mut value {
                // Our own `_meta` keys (kept only in a view this redactor wrote) are our wording:
                // a known value that is a word of one ("redactions") leaves it as it is, as the
                // key shape of a CallToolResult is left (found by review: a second pass renamed
                // it). What they hold is value-matched like the rest.
                Value::Object(meta) if key == "_meta" && self.own => {
                    let ours: Vec<String> = meta.keys().filter(|k| is_library_key(k)).cloned().collect();
                    let shape: Vec<&str> = ours.iter().map(String::as_str).collect();
                    self.scrub_keys(meta, "/_meta", &shape);
                    for (k, v) in meta.iter_mut() {
                        let at = child("/_meta", k);
                        match v {
                            // Our report: its entries' keys and reasons are our wording (a known
                            // "sensitive" made `x_sensitive` change on a second pass); their
                            // pointers and labels come from tool data.
                            Value::Array(entries) if k == REPORT_KEY => {
                                for (i, entry) in entries.iter_mut().enumerate() {
                                    let Value::Object(entry) = entry else { continue };
                                    for field in ["pointer", "label"] {
                                        if let Some(text) = entry.get_mut(field) {
                                            let at = child(&child(&at, &i.to_string()), field);
                                            self.scrub(text, &at);
                                        }
                                    }
                                }
                            }
                            _ => drop(self.scrub(v, &at)),
                        }
                    }
                }
                _ => drop(self.scrub(&mut value, &child("", &key))),
            }
            agent.insert(key, value);
        }
        self.scrub_keys(&mut agent, "", &["content", "structuredContent", "isError", "_meta"]);
        Value::Object(agent)
    }

    /// `isError`, `_meta` and anything else at the top of a CallToolResult: what stays, to be
    /// value-matched with the rest.
    fn top_level(&mut self, key: &str, value: Value, allowlist: bool) -> Option<Value> {
        let pointer = child("", key);
        match key {
            "isError" if self.format == Format::Mcp && !value.is_boolean() => {
                self.note(pointer, Reason::NotMcp, key.into());
                None
            }
            "isError" if !value.is_boolean() => {
                self.note(pointer, Reason::UnknownField, key.into());
                None
            }
            "isError" => Some(value),
            "_meta" => self.meta(value, &pointer, allowlist),
            _ if allowlist => {
                // Reported at the result (its key is tool data).
                self.take(String::new(), Reason::Undeclared, key.into(), value);
                None
            }
            _ => Some(value),
        }
    }

    /// Members beside MCP's own are the tool's data, which the schema may describe: a document
    /// `{ title, content: [typed parts], authorToken }` or a chat message `{ role, content,
    /// apiKey }` is shaped like a CallToolResult, and its marked members would pass unwalked
    /// (found by review). They are walked with the schema as the structured value they belong
    /// to, before anything else (in allowlist mode they are undeclared and go whole anyway).
    /// Whether it took anything.
    fn walk_beside_mcp(&mut self, result: &mut Map<String, Value>, allowlist: bool) -> bool {
        if allowlist || !self.tool.has_marks() || result.keys().all(|k| is_mcp_member(k)) {
            return false;
        }
        let mut data = Map::new();
        for key in result.keys().filter(|k| !is_mcp_member(k)).cloned().collect::<Vec<_>>() {
            if let Some(v) = result.shift_remove(&key) {
                data.insert(key, v);
            }
        }
        let mut data = Value::Object(data);
        let took = self.walk_into(&mut data, "", false);
        // What was not taken goes back, after MCP's own members (the view is written anew);
        // taken whole (a root schema of another type), it is reported and nothing goes back.
        if let Value::Object(kept) = data {
            result.extend(kept);
        }
        took
    }

    /// Rule 5 for each block; returns the blocks that stay, with their index in the raw
    /// content. A JSON text block that does not duplicate the structuredContent is walked with
    /// the schema itself, as the structured value it stands for (the commonest way a marked
    /// field leaks): with no structuredContent (`bare`), and also beside one it differs from
    /// when it is an object (an older or fuller copy of the value; found by review). In allowlist mode beside a
    /// structuredContent, such a block is undeclared and goes whole.
    fn blocks(
        &mut self,
        content: Vec<Value>,
        duplicates: &[bool],
        (bare, arrays): (bool, bool),
        allowlist: bool,
    ) -> Result<Vec<(usize, Value)>, Error> {
        let mut kept = Vec::with_capacity(content.len());
        for (i, mut block) in content.into_iter().enumerate() {
            let pointer = format!("/content/{i}");
            for s in reference_strings(&block) {
                self.known.note(&s, block.get("label").and_then(Value::as_str).unwrap_or("secret_reference"));
            }
            let kind = classify(&block, self.own);
            // The text that may stand for the value: a text block's, and outside allowlist
            // mode an embedded resource's (in allowlist mode a resource goes whole).
            let field = match kind {
                Block::Text => Some("text"),
                Block::Media if !allowlist && block.pointer("/resource/text").is_some() => Some("resource/text"),
                _ => None,
            };
            let json = match field.and_then(|f| block.pointer(&format!("/{f}"))?.as_str().map(|t| (f, t))) {
                Some((f, text)) if (bare || !allowlist) && !duplicates[i] => {
                    self.text_json(text, (bare, arrays), allowlist, 0).map_err(|e| at_field(e, i, f))?.map(|j| (f, j))
                }
                _ => None,
            };
            // A stub this run just wrote for the tool's own reference is ours already.
            let fresh_stub = matches!(kind, Block::Reference(_));
            let removed = match kind {
                Block::Library => {
                    self.library_block(&mut block);
                    None
                }
                Block::UserOnly => {
                    // For the user's eyes: the page's vault keeps it to show; the agent gets a
                    // stub, and its text becomes known, so no echo of it reaches the agent.
                    let strings = user_only_strings(&block);
                    self.take_with(pointer, Reason::Audience, user_only_label(&block), block, strings);
                    continue;
                }
                Block::Unknown => Some(Reason::UnknownBlock),
                Block::Malformed => Some(Reason::MalformedBlock),
                Block::BadReference => Some(Reason::MalformedReference),
                Block::Reference(r) => {
                    let handle = new_handle(self.handles);
                    block = stub(self.format, self.known.needles().display_label(&r.label), &handle);
                    self.known.own(&handle, &r.id, &r.label);
                    self.known.own(&handle, &r.redeem_url, &r.label);
                    self.collect.reference(pointer.clone(), &handle, r);
                    None
                }
                Block::Text if duplicates[i] => None,
                Block::Text | Block::Media if json.is_some() => {
                    if let Some((field, json)) = json {
                        self.walk_text(&mut block, field, json, &pointer, allowlist)
                            .map_err(|e| at_field(e, i, field))?;
                    }
                    None
                }
                Block::Text | Block::Media if allowlist => {
                    let label = block_label(&block);
                    self.take(pointer, Reason::Undeclared, label, block);
                    continue;
                }
                Block::Text | Block::Media => None,
            };
            if let Some(reason) = removed {
                let label = match reason {
                    Reason::MalformedReference => "secret_reference".into(),
                    // An unknown block's type is the tool's word, which no schema declared: in
                    // allowlist mode it is named like any undeclared value (found by review).
                    Reason::UnknownBlock if allowlist => UNDECLARED_LABEL.into(),
                    _ => block_label(&block),
                };
                self.note(pointer, reason, label);
                continue;
            }
            let ours = fresh_stub || self.ours(&block);
            // A notice or an mcp-format stub this redactor did not write for this result (another
            // redactor's, or its own copied into another result) promised the agent a reveal no
            // one could make, its mark stripped and its text kept (found by review s34): it goes,
            // as a foreign `secret_reference` does.
            if !ours && is_library_block(&block) {
                self.note(pointer, Reason::Forged, "webmcp-redact block".into());
                continue;
            }
            if !ours {
                self.known_fields(&mut block, &pointer);
                self.forged_keys(&mut block, &pointer);
            }
            if allowlist && !ours {
                if let Some(meta) = block.as_object_mut().and_then(|b| b.shift_remove("_meta")) {
                    self.take(pointer.to_string(), Reason::Undeclared, "_meta".into(), meta);
                }
            }
            if self.format == Format::Mcp {
                self.mcp_audience(&mut block, &pointer);
            }
            kept.push((i, block));
        }
        Ok(kept)
    }

    /// Is `block` one of this redactor's own stubs or notices?
    fn ours(&self, block: &Value) -> bool {
        self.own && is_library_block(block)
    }

    /// `webmcp-redact/` keys in a block's `_meta` that this redactor did not write: removed.
    fn forged_keys(&mut self, block: &mut Value, pointer: &str) {
        let Some(Value::Object(meta)) = block.get_mut("_meta") else { return };
        let before = meta.len();
        meta.retain(|k, _| !is_library_key(k));
        for _ in meta.len()..before {
            self.note(child(pointer, "_meta"), Reason::Forged, "webmcp-redact key".into());
        }
    }

    /// Our own stub from a webmcp-format pass, met in the mcp format: rewritten, same handle.
    fn library_block(&mut self, block: &mut Value) {
        if self.format == Format::Mcp {
            if let Some(mcp) = as_mcp_stub(block) {
                *block = mcp;
                self.reshaped = true;
            }
        }
    }

    /// MCP defines only the "user" and "assistant" roles.
    fn mcp_audience(&mut self, block: &mut Value, pointer: &str) {
        let Some(Value::Array(audience)) = block.pointer_mut("/annotations/audience") else { return };
        let before = audience.len();
        audience.retain(|a| a == "user" || a == "assistant");
        if audience.len() != before {
            self.note(format!("{pointer}/annotations/audience"), Reason::NotMcp, "audience".into());
        }
    }

    /// The JSON a text (a text block's, an embedded resource's, or one inside a result written
    /// as text) stands for, with the schema: its whole text, parsed once (any JSON: the mcp
    /// format wraps even `null` or `42` as text), or the JSON inside its prose. Beside a
    /// structuredContent (not `bare`), only an object can stand for the value, or an array
    /// beside an array (`arrays`); a `4200` or `"pending"` there is prose, and walked with the
    /// schema it would be taken whole as a mismatch, and learned (found by review). A JSON
    /// string holding JSON (a value stringified twice) stands for what that JSON stands for
    /// (found by review: in prose, or beside a structuredContent, its marked values passed).
    /// JSON too deep to walk, or with duplicate keys, fails the result: it is never prose.
    /// `depth` counts the strings (and results written as text) this text is inside.
    pub(super) fn text_json(
        &self,
        text: &str,
        (bare, arrays): (bool, bool),
        allowlist: bool,
        depth: usize,
    ) -> Result<Option<TextJson>, Error> {
        if !self.tool.has_marks() {
            return Ok(None);
        }
        match tolerate_own(parse_embedded(text, &self.limits), self.own)? {
            Some(Value::String(inner)) => {
                let whole = bare.then(|| TextJson::Whole(Value::String(inner.clone())));
                Ok(self.quoted(inner, (bare, arrays), allowlist, depth)?.or(whole))
            }
            Some(v) if bare || v.is_object() || (arrays && v.is_array()) => Ok(Some(TextJson::Whole(v))),
            // JSON the schema cannot take as the value may hold values it can (`[{...}]`).
            Some(v @ (Value::Array(_) | Value::Object(_))) => Ok(Some(TextJson::Within(v, arrays))),
            Some(_) => Ok(None),
            // Prose; in allowlist mode it is undeclared and goes whole.
            None if allowlist => Ok(None),
            // In a view of ours, every JSON value in prose was walked the first time: what it
            // took there either went with the text written back or is a `[redacted: …]` from
            // value matching, which a second walk would take again (and cutting a value out
            // may leave JSON that parses where it did not). New known values are value
            // matching's. It is still prose that held JSON, not a string to take whole.
            None if self.own => Ok(Some(TextJson::Inside(Vec::new(), Vec::new()))),
            None => self.json_in_prose(text, arrays, depth),
        }
    }

    /// The JSON a JSON string's text stands for, one level of stringification down.
    fn quoted(
        &self,
        inner: String,
        sides: (bool, bool),
        allowlist: bool,
        depth: usize,
    ) -> Result<Option<TextJson>, Error> {
        if !inner.contains(['{', '[', '"']) {
            return Ok(None);
        }
        if depth + 1 >= MAX_EMBEDDED {
            return Err(nested_too_deep(""));
        }
        let json = self.text_json(&inner, sides, allowlist, depth + 1)?;
        Ok(json.map(|json| TextJson::Quoted(Box::new(json), inner)))
    }

    /// The JSON objects (and arrays, where an array can stand for the value) written inside
    /// prose: a Markdown code fence, `Result: {...}`, and a JSON string holding one (`Result:
    /// "{\"id\":1}"`). A tool that writes its value so is read as one that writes it as the
    /// whole text (found by review: the marked values in a fence passed, being prose). JSON
    /// there that the core must not give up on (too deep, repeated keys) fails the result, as
    /// it does for a whole text.
    fn json_in_prose(&self, text: &str, arrays: bool, depth: usize) -> Result<Option<TextJson>, Error> {
        if !self.tool.schema().is_some_and(|s| s.has_marks()) {
            return Ok(None);
        }
        // JSON in prose is the value only where the schema could take it as one: a `[1, 2]`
        // beside an object schema is prose, and would be taken whole as a mismatch.
        // Every value that parses is walked. One that starts inside another (in a string of
        // it), or that the schema cannot take but holds values it can (`[{...}]` beside an
        // object), is walked aside, not written back in place: what it took is known, and
        // value matching finds it in the text.
        let (mut objects, mut apart, mut aside) = (Vec::new(), Vec::new(), Vec::new());
        let spans = embedded_spans(text);
        for &(start, end) in &spans {
            let Some(v) = tolerate_own(parse_embedded(&text[start..end], &self.limits), self.own)? else { continue };
            if !self.stands_for(&v, arrays) || apart.last().is_some_and(|&(_, e)| start < e) {
                aside.push((v, arrays));
            } else {
                apart.push((start, end));
                objects.push((start, end, TextJson::Whole(v)));
            }
        }
        let mut strings = Vec::new();
        let mut after = 0;
        for (start, end) in quoted_spans(text, &spans) {
            if start < after {
                continue;
            }
            if let Some(Value::String(inner)) = tolerate_own(parse_embedded(&text[start..end], &self.limits), self.own)?
            {
                if let Some(json) = self.quoted(inner, (false, arrays), false, depth)? {
                    strings.push((start, end, json));
                    after = end;
                }
            }
        }
        if depth == 0 {
            self.encoded_json(text, objects.iter().chain(&strings).map(|(_, _, json)| json), arrays, &mut aside)?;
        }
        // Both lists are in order and apart from each other: merged by start.
        let mut found = Vec::with_capacity(objects.len() + strings.len());
        let (mut objects, mut strings) = (objects.into_iter().peekable(), strings.into_iter().peekable());
        while let Some(next) = match (objects.peek(), strings.peek()) {
            (Some(o), Some(q)) if q.0 < o.0 => strings.next(),
            (Some(_), _) => objects.next(),
            (None, _) => strings.next(),
        } {
            found.push(next);
        }
        Ok((!found.is_empty() || !aside.is_empty()).then_some(TextJson::Inside(found, aside)))
    }

    /// The JSON objects and arrays `text` carries encoded once (`scrub::json_readings`: escaped,
    /// HTML-escaped, percent-encoded, base64), pushed onto `aside`: walked, not written back,
    /// since value matching reads those encodings and cuts what they took (stop 37: a marked
    /// value in `<pre>{&quot;apiKey&quot;:…}</pre>` or in `eyJhcGlLZXki…` reached the agent).
    /// A value read already (`found` as written, or in a JSON string of the text, and `aside`)
    /// or in another reading is not walked again. Only the text itself, not JSON strings inside
    /// it (`depth` 0), so that what is read stays linear in the text; JSON there that repeats
    /// a key or nests too deep fails the result, as in prose.
    fn encoded_json<'j>(
        &self,
        text: &str,
        found: impl Iterator<Item = &'j TextJson>,
        arrays: bool,
        aside: &mut Vec<(Value, bool)>,
    ) -> Result<(), Error> {
        let mut readings = Vec::new();
        crate::scrub::json_readings(text, &mut |r| readings.push(r.to_string()));
        // Read as value matching's views are, against the call's allowance: past it, the
        // result fails closed (`work_limit`) without these being walked.
        let meter = self.known.needles().meter();
        if readings.is_empty() || !readings.iter().all(|r| meter.charge(r.len())) {
            return Ok(());
        }
        let mut read = crate::hash::TextSet::default();
        found.for_each(|json| json.values(&mut read));
        read.extend(aside.iter().map(|(v, _)| write::text(v)));
        let mut seen = crate::hash::TextSet::default();
        for r in &readings {
            for (start, end) in embedded_spans(r) {
                let Some(v) = tolerate_own(parse_embedded(&r[start..end], &self.limits), self.own)? else { continue };
                let written = write::text(&v);
                if (v.is_object() || v.is_array()) && !read.contains(&written) && seen.insert(written) {
                    aside.push((v, arrays));
                }
            }
        }
        Ok(())
    }

    /// A block's text (`field`) holding JSON that no structuredContent beside it stands for:
    /// redact that JSON as the structured value it stands for, the prose around it left as it
    /// is (value matching reads it later). A pointer cannot go inside a string, so every
    /// redaction in it points at the text.
    fn walk_text(
        &mut self,
        block: &mut Value,
        field: &str,
        json: TextJson,
        pointer: &str,
        allowlist: bool,
    ) -> Result<(), Error> {
        let mark = self.collect.mark();
        let Some(slot) = block.pointer_mut(&format!("/{field}")) else { return Ok(()) };
        let Some(text) = slot.as_str() else { return Ok(()) };
        if let Some(text) = self.rewrite_text(text, json, allowlist, 0)? {
            *slot = Value::String(text);
            self.collect.point_since(mark, &format!("{pointer}/{field}"));
        }
        Ok(())
    }

    /// `text` with the JSON it holds (`json`, found in it) redacted; `None` when nothing went.
    /// `depth` counts the results written as text this one is inside.
    pub(super) fn rewrite_text(
        &mut self,
        text: &str,
        json: TextJson,
        allowlist: bool,
        depth: usize,
    ) -> Result<Option<String>, Error> {
        Ok(match json {
            TextJson::Whole(mut value) => {
                self.walk_embedded(&mut value, allowlist, depth)?.then(|| write::text(&value))
            }
            TextJson::Within(mut value, arrays) => {
                self.walk_within(&mut value, arrays, allowlist, depth)?.then(|| write::text(&value))
            }
            TextJson::Inside(parts, aside) => {
                let (mut out, mut at, mut changed) = (String::with_capacity(text.len()), 0, false);
                for (mut value, arrays) in aside {
                    changed |= self.walk_within(&mut value, arrays, allowlist, depth)?;
                }
                for (start, end, part) in parts {
                    out.push_str(&text[at..start]);
                    match self.rewrite_text(&text[start..end], part, allowlist, depth)? {
                        Some(t) => {
                            changed = true;
                            out.push_str(&t);
                        }
                        None => out.push_str(&text[start..end]),
                    }
                    at = end;
                }
                out.push_str(&text[at..]);
                changed.then_some(out)
            }
            // Written back as the JSON string it was, holding the redacted JSON.
            TextJson::Quoted(json, inner) => self.rewrite_text(&inner, *json, allowlist, depth + 1)?.map(|t| {
                let mut quoted = String::new();
                write::string(&mut quoted, &t);
                quoted
            }),
        })
    }

    /// Could the schema take `v` as the value, where it stands in prose? An object, or an
    /// array where one can stand for the value, of a type the root allows: a `[1, 2]` beside an
    /// object schema is prose, and would be taken whole as a mismatch.
    fn stands_for(&self, v: &Value, arrays: bool) -> bool {
        (v.is_object() || (arrays && v.is_array())) && self.tool.schema().is_some_and(|s| s.root_fits(v))
    }

    /// JSON in a text that the schema may not take as the value, walked where it can: the
    /// whole, or else each value inside it that it can take, outermost first (found by
    /// review: `[{"password": ...}]` beside an object schema was prose, its value unread).
    fn walk_within(&mut self, value: &mut Value, arrays: bool, allowlist: bool, depth: usize) -> Result<bool, Error> {
        if self.stands_for(value, arrays) {
            return self.walk_embedded(value, allowlist, depth);
        }
        let mut changed = false;
        match value {
            Value::Array(items) => {
                for v in items {
                    changed |= self.walk_within(v, arrays, allowlist, depth)?;
                }
            }
            Value::Object(members) => {
                for v in members.values_mut() {
                    changed |= self.walk_within(v, arrays, allowlist, depth)?;
                }
            }
            // A string holding JSON: a value stringified twice, as in prose.
            Value::String(text) if text.contains(['{', '[']) => {
                if let Some(TextJson::Quoted(json, inner)) =
                    self.quoted(text.clone(), (false, arrays), allowlist, depth)?
                {
                    if let Some(t) = self.rewrite_text(&inner, *json, allowlist, depth + 1)? {
                        (*text, changed) = (t, true);
                    }
                }
            }
            _ => {}
        }
        Ok(changed)
    }

    /// The JSON of a text, walked with the schema. A whole CallToolResult written as text (a
    /// tool or bridge that returns its result stringified) is walked as one: the schema
    /// describes its `structuredContent`, the members beside MCP's own, and the JSON its own
    /// blocks' texts stand for, down to results written as text inside it (found by review:
    /// only the first level was walked, so a value in its text blocks passed). What it took is
    /// known, so every echo of it elsewhere in the text is value-matched like any other. In
    /// allowlist mode the envelope is undeclared, and goes, as before.
    fn walk_embedded(&mut self, value: &mut Value, allowlist: bool, depth: usize) -> Result<bool, Error> {
        if allowlist || !self.tool.reads_as_call_result(value) {
            return Ok(self.walk_into(value, "", allowlist));
        }
        let Value::Object(result) = value else { return Ok(false) };
        let mut changed = false;
        let structured = result.get_mut("structuredContent").filter(|v| !v.is_null());
        let bare = structured.is_none();
        let arrays = bare || structured.as_ref().is_some_and(|v| v.is_array());
        if let Some(structured) = structured {
            changed |= self.walk_into(structured, "", false);
        }
        changed |= self.walk_beside_mcp(result, false);
        let Some(Value::Array(blocks)) = result.get_mut("content") else { return Ok(changed) };
        for block in blocks.iter_mut() {
            for field in ["/text", "/resource/text"] {
                let Some(slot) = block.pointer_mut(field) else { continue };
                let Some(text) = slot.as_str() else { continue };
                let Some(json) = self.text_json(text, (bare, arrays), false, depth + 1)? else { continue };
                if depth + 1 >= MAX_EMBEDDED {
                    return Err(nested_too_deep(""));
                }
                if let Some(text) = self.rewrite_text(text, json, false, depth + 1)? {
                    *slot = Value::String(text);
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// `_meta`: our own keys stay; in allowlist mode every other key goes, else it is scrubbed.
    fn meta(&mut self, meta: Value, pointer: &str, allowlist: bool) -> Option<Value> {
        if self.format == Format::Mcp && !meta.is_object() {
            self.note(pointer.to_string(), Reason::NotMcp, "_meta".into());
            return None;
        }
        let Value::Object(map) = meta else {
            if allowlist {
                self.take(String::new(), Reason::Undeclared, "_meta".into(), meta);
                return Some(Value::Object(Map::new()));
            }
            return Some(meta);
        };
        let mut out = Map::new();
        for (key, value) in map {
            if is_library_key(&key) && !self.own {
                self.note(pointer.to_string(), Reason::Forged, "webmcp-redact key".into());
                continue;
            }
            if self.format == Format::Mcp && !mcp_meta_member(&key, &value) {
                self.note(pointer.to_string(), Reason::NotMcp, "_meta member".into());
                continue;
            }
            if allowlist && !is_library_key(&key) {
                self.take(pointer.to_string(), Reason::Undeclared, key, value);
                continue;
            }
            out.insert(key, value);
        }
        Some(Value::Object(out))
    }
}

/// The `_meta` members MCP's result schema types: a progress token is a string or an
/// integer, and a related task names its id.
fn mcp_meta_member(key: &str, value: &Value) -> bool {
    match key {
        // zod's `int()` takes only safe integers (|n| < 2^53).
        "progressToken" => value.is_string() || value.as_i64().is_some_and(|n| n.unsigned_abs() < 1 << 53),
        "io.modelcontextprotocol/related-task" => value.get("taskId").is_some_and(Value::is_string),
        _ => true,
    }
}

/// Which text blocks are the JSON text of structuredContent (compact, pretty, any key order).
/// JSON text that is too deep or repeats a key fails the result.
/// In a view this redactor returned, JSON text that repeats a key is its own doing (value
/// matching rewrote two keys of a text to the same placeholder): prose, not an error, so that
/// a second pass changes nothing. Anywhere else it is an error.
/// The JSON a text block holds: its whole text, or objects inside its prose (with their spans).
pub(super) enum TextJson {
    Whole(Value),
    /// JSON the schema cannot take as the value, with the values inside it that it can: see
    /// `walk_within` (with whether an array can stand for the value).
    Within(Value, bool),
    /// Spans of the text, each with the JSON it holds (`Whole` or `Quoted`), in order; and
    /// JSON walked but not written back (see `json_in_prose`), with whether an array there
    /// can stand for the value.
    Inside(Vec<(usize, usize, TextJson)>, Vec<(Value, bool)>),
    /// A JSON string, with its text and the JSON that text holds.
    Quoted(Box<TextJson>, String),
}

impl TextJson {
    /// The JSON text of each value this holds, into `out`.
    fn values(&self, out: &mut crate::hash::TextSet<String>) {
        match self {
            TextJson::Whole(v) | TextJson::Within(v, _) => {
                out.insert(write::text(v));
            }
            TextJson::Inside(parts, aside) => {
                parts.iter().for_each(|(_, _, json)| json.values(out));
                out.extend(aside.iter().map(|(v, _)| write::text(v)));
            }
            TextJson::Quoted(json, _) => json.values(out),
        }
    }
}

pub(super) fn tolerate_own(parsed: Result<Option<Value>, Error>, own: bool) -> Result<Option<Value>, Error> {
    match parsed {
        Err(e) if own && e.code == crate::ErrorCode::DuplicateKey => Ok(None),
        other => other,
    }
}

fn duplicate_texts(
    content: &[Value],
    structured: Option<&Value>,
    limits: &Limits,
    own: bool,
    spotlit: bool,
) -> Result<Vec<bool>, Error> {
    let Some(structured) = structured.filter(|v| !v.is_null()) else { return Ok(vec![false; content.len()]) };
    // A scalar's JSON text too (`"sk_live…"` beside a structuredContent string); a container's
    // duplicate starts like one, so no other text is parsed for it.
    let container = structured.is_object() || structured.is_array();
    let mut out = Vec::with_capacity(content.len());
    for (i, b) in content.iter().enumerate() {
        let text = b.get("type").filter(|t| *t == "text").and_then(|_| b.get("text")).and_then(Value::as_str);
        // In a view we wrote with spotlighting, the duplicate is between our delimiters.
        let text = text.map(|t| match spotlit {
            true => {
                let (head, tail) = super::spotlit_span(t);
                &t[head..tail]
            }
            false => t,
        });
        let text = text.filter(|t| !container || t.trim_start().starts_with(['{', '[']));
        let parsed = match text {
            Some(t) => tolerate_own(parse_embedded(t, limits), own).map_err(|e| at_field(e, i, "text"))?,
            None => None,
        };
        out.push(parsed.is_some_and(|v| &v == structured));
    }
    Ok(out)
}

/// An error in the JSON of block `i`'s text at `field` (`text`, `resource/text`): a pointer
/// cannot go inside a string, so it names the text.
fn at_field(mut e: Error, i: usize, field: &str) -> Error {
    e.pointer = format!("/content/{i}/{field}");
    e
}
