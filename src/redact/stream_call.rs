//! The streaming engine's reading of the commonest CallToolResults (issue 9): a
//! `structuredContent` object, read in one pass as a plain structured value is (`stream.rs`),
//! with `content` text blocks beside it, each the structured value's JSON text (its duplicate)
//! or prose, and `isError`; or such blocks alone (content only). It gives the DOM engine's
//! `call_result` view byte for byte.
//!
//! It takes only what the DOM engine does nothing else with, and declines the rest before
//! anything has changed: any other member at the top (`_meta`, the tool's data), a block with a
//! field but `type` and `text` (annotations, `_meta`, unknown fields) or of another type, a
//! structuredContent that is no object or is taken whole, content only from a tool whose schema
//! marks a member named like MCP's (its data then), a text that holds JSON other than the
//! duplicate as written (a bracket or a backslash: JSON in prose, which rule 5 walks, or a
//! duplicate written otherwise, which the DOM engine compares as a value; content only, a JSON
//! scalar as a whole, which a schema with marks walks as the value; content only from a tool
//! that marks nothing, a JSON object or array as a whole is read, when the plain scan takes it:
//! no claims), a text that may hold a result making claims (`claims::may_claim`), a `null` or
//! repeated member, and a credential the detectors find in a text that this result does not
//! take (the DOM engine's detectors pass over a known one: a taken value echoed in the
//! duplicate text).

use std::borrow::Cow;

use super::stream::{scan, scan_at, Context, Scanned};
use crate::json::{parse, scan};
use crate::policy::claims;
use crate::schema::Schema;
use crate::scrub::detect::Detect;
use crate::scrub::detected;

/// A CallToolResult around the structured value the streaming engine read.
pub(super) struct Call {
    pub blocks: Vec<TextBlock>,
    pub is_error: Option<bool>,
    /// It has a `structuredContent` (the scanned value); else only `content`, and the scanned
    /// value is empty.
    pub structured: bool,
    /// What the detectors found in the blocks' texts: each is known by the time they read it
    /// in the DOM engine (`Run::stream` checks), where it is passed over.
    pub detected: Vec<String>,
}

/// A `{"type":"text","text":…}` block.
pub(super) struct TextBlock {
    pub text: String,
    /// Its `text` member comes first (the view keeps the members' order).
    pub text_first: bool,
    /// The text is the structured value's JSON as written: the DOM engine's duplicate.
    pub duplicate: bool,
}

/// Reads `text` as such a CallToolResult, its `structuredContent` walked with `cx`'s schema;
/// `None` leaves it to the DOM engine.
pub(super) fn scan_call(text: &str, cx: &mut Context) -> Option<Scanned> {
    let b = text.as_bytes();
    let mut i = scan::skip_ws(b, 0);
    // A block is three deep: the DOM engine's parser refuses a result deeper than the limit.
    if b.get(i) != Some(&b'{') || cx.max_depth < 3 {
        return None;
    }
    let (mut blocks, mut is_error, mut structured) = (None, None, None);
    i = scan::skip_ws(b, i + 1);
    loop {
        let (key, at) = member(text, i)?;
        i = match &*key {
            "content" if blocks.is_none() => {
                let (list, end) = text_blocks(text, at)?;
                blocks = Some(list);
                end
            }
            "structuredContent" if structured.is_none() && b.get(at) == Some(&b'{') => {
                let (scanned, end) = scan_at(text, at, cx)?;
                structured = Some((scanned, &text[at..end]));
                end
            }
            "isError" if is_error.is_none() => {
                let end = scan::literal(b, at)?;
                is_error = Some(match &text[at..end] {
                    "true" => true,
                    "false" => false,
                    _ => return None, // not a boolean: the DOM engine reports it
                });
                end
            }
            _ => return None,
        };
        i = scan::skip_ws(b, i);
        match b.get(i) {
            Some(b',') => i = scan::skip_ws(b, i + 1),
            Some(b'}') if scan::skip_ws(b, i + 1) == b.len() => break,
            _ => return None,
        }
    }
    let (mut scanned, written) = match structured {
        Some((scanned, written)) => (scanned, Some(written)),
        // Content only: a CallToolResult unless the schema marks one of its members (the
        // tool's data then, which the plain scan declines).
        None if blocks.is_some() && cx.bare_calls => (Scanned::default(), None),
        None => return None,
    };
    let mut blocks = blocks.unwrap_or_default();
    let marks = cx.schema.is_some_and(Schema::has_marks);
    let mut found = Vec::new();
    for block in &mut blocks {
        block.duplicate = written == Some(block.text.as_str());
        let bare = written.is_none();
        let read =
            block.duplicate || prose(&block.text, bare, marks) || (bare && !marks && claimless_json(&block.text, cx));
        if !read {
            return None;
        }
        found.extend(detected(&block.text, cx.detect, cx.meter).into_iter().map(|(_, secret)| secret));
    }
    // The DOM engine's detectors read the keys beside MCP's own.
    if is_error.is_some() && !detected("isError", cx.detect, cx.meter).is_empty() {
        return None;
    }
    scanned.call = Some(Call { blocks, is_error, detected: found, structured: written.is_some() });
    Some(scanned)
}

/// Is a text that is not the duplicate prose to the DOM engine: no JSON it parses, and no
/// result written in it that may make claims (`claims::may_claim`)? A bracket or a backslash
/// may start JSON, which the claims reader parses in every text (one that repeats a key fails
/// the result, marks or none), and which rule 5 walks as the value (the whole text, JSON in
/// prose, a JSON string holding JSON). And with no structured value beside it (`bare`), a
/// text that is a JSON scalar as a whole (`42`, `"pending"`) stands for the value where the
/// schema marks something (`text_json`), and is walked as one. Where the schema marks
/// something, so is JSON the text carries encoded.
fn prose(text: &str, bare: bool, marks: bool) -> bool {
    // Over bytes (the three are ASCII): `str::contains` with a set of chars decodes every
    // character, half of a 1 MB content-only result's instructions (callgrind).
    // Rule 5 also walks the JSON a text carries encoded (percent-encoded, HTML-escaped, base64).
    let json = text.bytes().any(|b| matches!(b, b'{' | b'[' | b'\\'))
        || (bare && marks && parse::parse(text, None).is_ok())
        || (marks && crate::scrub::encodes_json(text));
    !json && !claims::may_claim(text)
}

/// Is a text one JSON object or array as a whole that makes no claims, which the DOM engine
/// passes as prose where the schema marks nothing (content only)? Rule 5 walks JSON only
/// against marks; the claims reader reads such a text as a result, and one the plain scan
/// takes, read without a schema or detectors, holds nothing it reads (the scan declines just
/// that: `_meta`, `annotations`, `content`, a string or key that may claim, a repeated key,
/// depth past the limit the reader parses to).
fn claimless_json(text: &str, cx: &mut Context) -> bool {
    if !text.trim_start().starts_with(['{', '[']) {
        return false;
    }
    let (schema, detect) = (cx.schema.take(), std::mem::replace(&mut cx.detect, Detect::NONE));
    let read = scan(text, cx).is_some();
    (cx.schema, cx.detect) = (schema, detect);
    read
}

/// The member whose key is at `i`: its key (decoded) and where its value starts.
fn member(text: &str, i: usize) -> Option<(Cow<'_, str>, usize)> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let key = scan::string(b, i)?;
    let colon = scan::skip_ws(b, key.end);
    if b.get(colon) != Some(&b':') {
        return None;
    }
    Some((key.chars(text), scan::skip_ws(b, colon + 1)))
}

/// The `content` array at `i`, each element a text block; and where it ends.
fn text_blocks(text: &str, i: usize) -> Option<(Vec<TextBlock>, usize)> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut blocks = Vec::new();
    let mut i = scan::skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some((blocks, i + 1));
    }
    loop {
        let (block, end) = text_block(text, i)?;
        blocks.push(block);
        i = scan::skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = scan::skip_ws(b, i + 1),
            Some(b']') => return Some((blocks, i + 1)),
            _ => return None,
        }
    }
}

/// The block at `i`: exactly a `type` of "text" and a string `text`, each once.
fn text_block(text: &str, i: usize) -> Option<(TextBlock, usize)> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let (mut kind, mut body, mut text_first) = (None, None, false);
    let mut i = scan::skip_ws(b, i + 1);
    loop {
        let (key, at) = member(text, i)?;
        if b.get(at) != Some(&b'"') {
            return None;
        }
        let value = scan::string(b, at)?;
        match &*key {
            "type" if kind.is_none() => kind = Some(value.chars(text)),
            "text" if body.is_none() => {
                text_first = kind.is_none();
                body = Some(value.chars(text).into_owned());
            }
            _ => return None,
        }
        i = scan::skip_ws(b, value.end);
        match b.get(i) {
            Some(b',') => i = scan::skip_ws(b, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    let text = body.filter(|_| kind.as_deref() == Some("text"))?;
    Some((TextBlock { text, text_first, duplicate: false }, i + 1))
}

impl TextBlock {
    /// The block as the DOM engine reads it (for its `call_view`).
    pub(super) fn into_value(self) -> serde_json::Value {
        let (kind, text) = (("type", "text".into()), ("text", self.text.into()));
        let members = if self.text_first { vec![text, kind] } else { vec![kind, text] };
        crate::json::write::obj(members)
    }

    /// Its text in the view: a duplicate's is the structured value's (`value`) once the walk
    /// `changed` that.
    pub(super) fn text_in<'a>(&'a self, value: &'a str, changed: bool) -> &'a str {
        if self.duplicate && changed {
            value
        } else {
            &self.text
        }
    }

    /// The block as JSON, its text `text`.
    pub(super) fn write(&self, out: &mut String, text: &str) {
        let kind = r#""type":"text""#;
        out.push('{');
        if !self.text_first {
            out.push_str(kind);
            out.push(',');
        }
        out.push_str(r#""text":"#);
        crate::json::write::string(out, text);
        if self.text_first {
            out.push(',');
            out.push_str(kind);
        }
        out.push('}');
    }
}
