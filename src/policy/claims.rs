//! What a result says about itself: its own sensitivity and trust claims, from every place a
//! result can carry them, read with the one reader a tool's claims go through
//! ([`ToolModel::read_place`]: same vocabulary, same spellings). Claims only add: a result can
//! make its tool stricter, never laxer, and the riskiest claim wins.
//!
//! The places, for the result and for each of its content blocks and each block's `resource`:
//! `_meta`, `annotations`, and `_meta.annotations` (SEP-1913's wire example); in each, the
//! proposals' annotations (`sensitiveHint`, `mcp.dev/resultSensitivity`, `returnMetadata`, the
//! boolean hints, `attribution`) and the trust-annotations extension
//! (`io.modelcontextprotocol/trust-annotations`). And a result written as text inside a text
//! block or an embedded resource (a tool or bridge that stringifies its result: rule 5 walks it
//! as a CallToolResult) makes the claims of that result, read the same way.

use serde_json::{Map, Value};

use crate::hash::TextMap;
use crate::json::{embedded_spans, quoted_spans};
use crate::model::{norm, Level, ToolModel};
use crate::policy::session::{claims, Labels};
use crate::{Error, ErrorCode};

/// The MCP extension's `_meta` key: `{ sensitive?, untrusted?, evidenceRef? }`.
pub const TRUST_KEY: &str = "io.modelcontextprotocol/trust-annotations";

/// How many results written as text inside one another are read; a JSON object deeper than
/// that fails the result (`depth_limit`): its claims would go unread, and reading each level
/// reads its text again.
pub const MAX_EMBEDDED: usize = 8;

/// The error for JSON written as text nested past [`MAX_EMBEDDED`] (claims and rule 5 alike),
/// at `at`.
pub(crate) fn nested_too_deep(at: &str) -> Error {
    let detail = format!("JSON written as text inside one another goes deeper than {MAX_EMBEDDED}");
    Error::new(ErrorCode::DepthLimit, at, detail)
}

/// Could JSON written in string `s` of a value make claims? Only through a `_meta` or
/// `annotations` member, its name spelled out or escaped ([`names_a_place`]), and with a
/// bracket, as written or escaped (a result written into a URL or into HTML), in `s` or in a
/// view of it decoded again where it escapes an escape ([`in_a_chain`]). The claims reader
/// reads just these strings (no other string of a value is parsed for claims), and the
/// streaming engine declines just these (`stream.rs`), so both engines read the same.
pub fn may_claim(s: &str) -> bool {
    // Every string of a plain value is asked (the streaming engine's hot path): one pass over it
    // answers no for almost all of them. Over bytes: the five are ASCII, which UTF-8 never
    // writes inside another character, and `str::contains` with a set of chars decoded every
    // character (a third of a pass-through call's instructions, callgrind, stop 31).
    // A table look-up per byte, in an indexed loop (at opt-level "z" the byte iterator's steps
    // and the five comparisons were each byte's cost: callgrind, stop 37). A table, not an
    // `AsciiSet`: this is every string of a pass-through result, and the masks' test cost it 5%.
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && !OPENS_A_CLAIM[usize::from(b[i])] {
        i += 1;
    }
    i < b.len() && in_a_chain(s, crate::scrub::DECODINGS - 1, &|s| names_a_place(s) && holds_a_bracket(s))
}

/// The bytes without which a string holds no claims ([`may_claim`]): a bracket, or what starts
/// an escape of one or of a place's name.
const OPENS_A_CLAIM: [bool; 256] = {
    let (mut table, mut i) = ([false; 256], 0);
    let opens = *b"{[%&\\";
    while i < opens.len() {
        table[opens[i] as usize] = true;
        i += 1;
    }
    table
};

/// A bracket as written, or as an escape one decoded view reads as one.
fn holds_a_bracket(s: &str) -> bool {
    s.bytes().any(|b| matches!(b, b'{' | b'[')) || ESCAPED_BRACKETS.iter().any(|p| s.contains(p))
}

/// The escapes of a bracket one decoded view reads as one.
const ESCAPED_BRACKETS: [&str; 10] =
    ["%7B", "%7b", "%5B", "%5b", "&#", "\\u", "&lcub;", "&lbrace;", "&lsqb;", "&lbrack;"];

/// Does `test` (which looks one decoding ahead) hold for `s`, or for a view of it `levels`
/// decodings deep at most, decoded where the text escapes an escape (`%255F`, `&amp;#95;`,
/// `%26quot%3B`)? Found by review s31: a result escaped twice made no claims (its place name
/// or brackets escaped twice were not asked for), so it reached the agent raw. Only a string
/// with such an escape is decoded here (most strings of a value hold none).
fn in_a_chain(s: &str, levels: usize, test: &dyn Fn(&str) -> bool) -> bool {
    const ESCAPES_AN_ESCAPE: [&str; 8] = ["%25", "%26", "%5C", "%5c", "&amp", "&AMP", "&percnt;", "&bsol;"];
    if test(s) {
        return true;
    }
    if levels == 0 || !ESCAPES_AN_ESCAPE.iter().any(|e| s.contains(e)) {
        return false;
    }
    let mut found = false;
    crate::scrub::each_decoding(s, &mut |view| found = found || in_a_chain(view, levels - 1, test));
    found
}

/// Could `s` name a place of claims, `_meta` or `annotations`, spelled out or with a letter or
/// `_` escaped as one decoded view reads it: `\u` (`\u{5f}` too), JavaScript's `\x`, an HTML
/// numeric reference or `&lowbar;`, or a percent-escape of a letter, digit or `_`. Found by
/// review s30: `&quot;&#95;meta&quot;` or `%5Fmeta` in an escaped result was not read, and its
/// result reached the agent raw; by review s34, `\x5fmeta` once the views read `\x`.
fn names_a_place(s: &str) -> bool {
    let hex = |b: u8| (b as char).to_digit(16);
    let escaped = |w: &[u8]| char::from_u32(hex(w[1])? * 16 + hex(w[2])?);
    let escapes_a_name = || {
        let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        s.as_bytes().windows(3).any(|w| w[0] == b'%' && escaped(w).is_some_and(name_char))
    };
    const NAMED: [&str; 7] = ["_meta", "annotations", "\\u", "\\x", "&#", "&lowbar;", "&UnderBar;"];
    NAMED.iter().any(|p| s.contains(p)) || escapes_a_name()
}

/// A result's own claims.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnClaims {
    pub labels: Labels,
    /// A trust annotation says its content is untrusted (or is not an object).
    pub untrusted: bool,
}

/// Reads JSON text inside a result: `Ok(None)` for text that is not JSON, an error for JSON
/// the core must not give up on (see `json::parse_embedded`).
pub type ReadText<'a> = dyn FnMut(&str) -> Result<Option<Value>, Error> + 'a;

/// Every claim `raw` makes about itself, its blocks and the results written inside it.
pub fn of_result(raw: &Value, read_text: &mut ReadText) -> Result<OwnClaims, Error> {
    let left = crate::scrub::DECODINGS;
    let mut r = Reader { claims: OwnClaims::default(), read_text, left, seen: TextMap::default() };
    r.result(raw, 0, None, 0)?;
    Ok(r.claims)
}

/// What the caller of [`Reader::below`] has read of a value already, so that no text is read
/// twice: `result` reads its blocks' texts, then walks the rest. Reading them again there
/// doubled the work at each result written as text inside one another (2^8 readings of the
/// innermost: 3 s for 200 KB, found by review s29). For an object, its members; for an array,
/// each of its items that is an object (as `result` reads only those).
type Read = u8;
/// The object's `text`, if a string.
const TEXT: Read = 1;
/// The `text` of the object's `resource`.
const RESOURCE: Read = 2;
/// The texts of the blocks in the object's `content` array (a result's).
const BLOCKS: Read = 4;

struct Reader<'r, 'a> {
    claims: OwnClaims,
    read_text: &'r mut ReadText<'a>,
    /// The decodings a text read now may still be read through: all of them for the result's
    /// own texts, fewer inside a decoded view (the decodings that made it are spent), so that
    /// a chain of decodings, wherever JSON strings split it, is at most [`DECODINGS`] long.
    /// Found by review s32: a JSON string inside a view (`"{&quot;_meta&quot;…}"` written with
    /// numeric references), or one holding a result whose brackets are escaped
    /// (`"%7B%22_meta%22…"`, as `JSON.stringify` writes a percent-encoded result), was read
    /// without views, and its result reached the agent raw.
    ///
    /// [`DECODINGS`]: crate::scrub::DECODINGS
    left: usize,
    /// Each text that names a place read so far, with the decodings it was read through: a text
    /// read again makes the same claims, and the decoded views of a text hold again what its
    /// written form held (a result inside prose, and each text inside that): read again, each
    /// level's views re-read every level below it (160 KB read for a 20 KB result three deep,
    /// found when review s29's views met its once-per-level test).
    /// (Counted in u32 like `views`' table: one table type for both, and the module carries
    /// one copy of its code.)
    seen: TextMap<Box<str>, u32>,
}

impl Reader<'_, '_> {
    /// A result (or what stands in its place: `_meta` of a structured value claims too), at
    /// `depth` results written as text below the raw one; `at` is the pointer of the outermost
    /// text it is written in (a pointer cannot go inside a string).
    fn result(&mut self, raw: &Value, depth: usize, at: Option<&str>, read: Read) -> Result<(), Error> {
        self.holder(raw)?;
        if let Some(Value::Array(blocks)) = raw.get("content") {
            for (i, block) in blocks.iter().enumerate() {
                self.holder(block)?;
                let resource = block.get("resource");
                if let Some(r) = resource {
                    self.holder(r)?;
                }
                let texts = [(block.get("text"), "text"), (resource.and_then(|r| r.get("text")), "resource/text")];
                for (text, field) in texts {
                    let Some(text) = text.and_then(Value::as_str) else { continue };
                    let here = at.map_or_else(|| format!("/content/{i}/{field}"), str::to_string);
                    self.embedded(text, depth, &here)?;
                }
            }
        }
        self.below(raw, depth, at, read | BLOCKS)
    }

    /// What `v` holds at any depth: a result nested as a value (a JSON-RPC response's
    /// `result`, an array of results, one written as text inside either) makes its claims, and
    /// so does any `_meta` (MCP's own member: tool data does not name it by chance). Found by
    /// review: a bridge that handed over `{"result": {…, "_meta": {"sensitiveHint": true}}}`
    /// let its text through raw. `annotations` is read only where a result could stand (an
    /// object with `content` or `structuredContent`, and its blocks): a list of tool
    /// definitions, each with its own `annotations`, is data about tools, not a claim.
    fn below(&mut self, v: &Value, depth: usize, at: Option<&str>, read: Read) -> Result<(), Error> {
        match v {
            Value::Object(o) => {
                for (key, child) in o {
                    // A result written as text into a key (`{"<the result as JSON>": …}`) is as
                    // much the agent's to read as one in a value (found by review s29).
                    if may_claim(key) {
                        self.embedded(key, depth, at.unwrap_or(""))?;
                    }
                    let read = match key.as_str() {
                        "text" if read & TEXT != 0 && child.is_string() => continue,
                        "resource" if read & RESOURCE != 0 && child.is_object() => TEXT,
                        "content" if read & BLOCKS != 0 && child.is_array() => TEXT | RESOURCE,
                        _ => 0,
                    };
                    self.member(child, depth, at, read)?;
                }
            }
            Value::Array(a) => {
                for child in a {
                    self.member(child, depth, at, if child.is_object() { read } else { 0 })?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// One member or element of a value, for [`Reader::below`], of which the caller read `read`.
    fn member(&mut self, child: &Value, depth: usize, at: Option<&str>, read: Read) -> Result<(), Error> {
        match child {
            Value::Object(o) if o.contains_key("content") || o.contains_key("structuredContent") => {
                self.result(child, depth, at, read)
            }
            Value::Object(_) => {
                self.meta_of(child)?;
                self.below(child, depth, at, read)
            }
            Value::Array(_) => self.below(child, depth, at, read),
            // A result written as text into a member of a value (`{"output": "{…}"}`, as agent
            // frameworks pass tool output on): found by review s28, its claims went unread and
            // its text reached the agent.
            Value::String(s) if may_claim(s) => self.embedded(s, depth, at.unwrap_or("")),
            _ => Ok(()),
        }
    }

    /// JSON text that may be a result: an object or an array (of results) is read as one, and
    /// so is each written inside prose (`Result: {...}`, a code fence), which rule 5 walks as
    /// the result it is (found by review: a bridge that prefixed the result it relayed hid its
    /// claims; an array of results written as text hid them too).
    fn embedded(&mut self, text: &str, depth: usize, at: &str) -> Result<(), Error> {
        // Only a text that names a place has views, so only such a text is read again; the
        // others (most text blocks) are not copied into `seen`.
        let names = in_a_chain(text, self.left.saturating_sub(1), &names_a_place);
        if names && !self.first_time(text) {
            return Ok(());
        }
        // Text that is one JSON value as written needs no views: each string in it that could
        // hold a result is read as a text of its own, views and all. Decoded, it would only
        // hold those again, and each view re-read every level below it.
        if self.as_written(text, depth, at)? || self.left == 0 || !names {
            return Ok(());
        }
        // A result escaped once more and left without its quotes (`out={\"content\":…}`),
        // written into HTML (`{&quot;content&quot;:…}`) or into a URL (`%7B%22content%22…`):
        // found by review s29, each reached the agent raw. A text inside a view is read through
        // the decodings left (`left`), so no chain is longer than those of value matching.
        let left = self.left;
        let read = self.views(text, depth, at, left, &mut TextMap::default());
        self.left = left;
        read
    }

    /// Reads each decoded view of `text` as written, and a view that is no JSON value as
    /// written but still names a place through its own views, up to `levels` decodings deep
    /// (at most 4 + 16 + 64 views, as value matching reads): a result escaped twice
    /// (`{&amp;quot;_meta&amp;quot;:…}`, `%257B%2522_meta…`, or an HTML escape of a URL's)
    /// reached the agent raw when views were read one decoding deep (found by review s31).
    /// `read` holds each view read so far with the levels left below it: two chains often
    /// decode to the same view (HTML then percent, percent then HTML), read once.
    fn views(
        &mut self,
        text: &str,
        depth: usize,
        at: &str,
        levels: usize,
        read: &mut TextMap<Box<str>, u32>,
    ) -> Result<(), Error> {
        let mut views = Vec::new();
        crate::scrub::each_decoding(text, &mut |view| views.push(view.to_string()));
        for view in views {
            let known = read.get(view.as_str()).copied();
            if known.is_some_and(|left| left as usize >= levels) {
                continue;
            }
            read.insert(view.as_str().into(), levels as u32);
            self.left = levels - 1;
            let deeper = levels > 1 && in_a_chain(&view, levels - 2, &names_a_place);
            if (known.is_some() || !self.as_written(&view, depth, at)?) && deeper {
                self.views(&view, depth, at, levels - 1, read)?;
            }
        }
        Ok(())
    }

    /// Whether `text` is to be read: not when it was read before through as many decodings or
    /// more (its texts' views were read as deep). Whatever the depth: a text read makes the
    /// same claims at any depth, and one read deeper would only fail sooner. Texts of a reading
    /// that failed are never met again: the error ends the reading.
    fn first_time(&mut self, text: &str) -> bool {
        match self.seen.get_mut(text) {
            Some(read) if *read as usize >= self.left => false,
            Some(read) => {
                *read = self.left as u32;
                true
            }
            None => {
                self.seen.insert(text.into(), self.left as u32);
                true
            }
        }
    }

    /// [`Reader::embedded`] for the text as it stands: true when it is one JSON value.
    fn as_written(&mut self, text: &str, depth: usize, at: &str) -> Result<bool, Error> {
        let head = text.trim_start();
        if (head.starts_with(['{', '[']) && self.object(text, depth, at)?)
            || (head.starts_with('"') && self.quoted(text, depth, at)?)
        {
            return Ok(true);
        }
        let spans = embedded_spans(text);
        for &(start, end) in &spans {
            self.object(&text[start..end], depth, at)?;
        }
        for (start, end) in quoted_spans(text, &spans) {
            self.quoted(&text[start..end], depth, at)?;
        }
        Ok(false)
    }

    /// A JSON string whose text may hold a result (one stringified twice, which rule 5 walks as
    /// the result it holds): that text is read as a text inside this one (true when it is a
    /// string). Found by review: its claims went unread.
    fn quoted(&mut self, text: &str, depth: usize, at: &str) -> Result<bool, Error> {
        let Ok(Some(Value::String(inner))) = (self.read_text)(text) else { return Ok(false) };
        // Its brackets may be escaped (`"%7B%22_meta%22…"`, found by review s32).
        if inner.contains(['{', '[']) || may_claim(&inner) {
            self.embedded(&inner, depth + 1, at)?;
        }
        Ok(true)
    }

    /// Text that starts as a JSON object or array: read as a result, or as values that may
    /// hold results, when it is one (true).
    fn object(&mut self, text: &str, depth: usize, at: &str) -> Result<bool, Error> {
        if depth >= MAX_EMBEDDED {
            return Err(nested_too_deep(at));
        }
        match (self.read_text)(text).map_err(|mut e| {
            e.pointer = at.to_string();
            e
        })? {
            Some(inner @ Value::Object(_)) => self.result(&inner, depth + 1, Some(at), 0).map(|()| true),
            Some(inner @ Value::Array(_)) => self.below(&inner, depth + 1, Some(at), 0).map(|()| true),
            _ => Ok(false),
        }
    }

    /// The places of one object that holds annotations: `_meta`, `annotations` and
    /// `_meta.annotations` (in any spelling, as every key inside a place is read).
    fn holder(&mut self, v: &Value) -> Result<(), Error> {
        self.meta_of(v)?;
        if let Some(a) = v.get("annotations") {
            self.place_in(a, Self::place)?;
        }
        Ok(())
    }

    /// `_meta` and `_meta.annotations` of `v`.
    fn meta_of(&mut self, v: &Value) -> Result<(), Error> {
        let Some(meta) = v.get("_meta") else { return Ok(()) };
        self.place_in(meta, |r, meta| {
            r.place(meta)?;
            for (k, inner) in meta {
                if norm(k) == "annotations" {
                    r.place_in(inner, Self::place)?;
                }
            }
            Ok(())
        })
    }

    /// Reads place `v` with `read`: an object, or a string holding one as JSON, as a bridge that
    /// stringifies `_meta` writes it (found by review s29: `"_meta": "{\"sensitiveHint\":true}"`
    /// claimed nothing and its result reached the agent). JSON there that the core gives up on
    /// fails the result, as in a text block.
    fn place_in(
        &mut self,
        v: &Value,
        read: impl FnOnce(&mut Self, &Map<String, Value>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut text = match v {
            Value::Object(o) => return read(self, o),
            Value::String(s) => s.clone(),
            _ => return Ok(()),
        };
        // Stringified more than once: each reading takes one level of quotes off.
        for _ in 0..MAX_EMBEDDED {
            if !text.contains('{') {
                break;
            }
            match (self.read_text)(&text)? {
                Some(Value::Object(o)) => return read(self, &o),
                Some(Value::String(inner)) => text = inner,
                _ => break,
            }
        }
        Ok(())
    }

    /// One place: the proposals' annotations, through the tool reader, and any trust
    /// annotations in it.
    fn place(&mut self, a: &Map<String, Value>) -> Result<(), Error> {
        self.claims.labels.merge(&Labels::declared(&ToolModel::read_place(a)));
        for (_, t) in a.iter().filter(|(k, t)| is_trust_key(k) && !t.is_null()) {
            self.trust(t);
        }
        Ok(())
    }

    /// `{ sensitive?, untrusted?, evidenceRef? }`, its keys in any spelling: `sensitive` is high
    /// sensitivity, `untrusted` an open world. Anything but an object claims both (fail closed),
    /// and so does a key that could name a sensitivity (`sensitivity`, `Sensitive`).
    fn trust(&mut self, t: &Value) {
        let mut l = Labels::default();
        let Value::Object(o) = t else {
            self.claims.untrusted = true;
            l.sensitivity = Level::High;
            l.open_world = true;
            return self.claims.labels.merge(&l);
        };
        for (k, v) in o {
            let k = norm(k);
            if k.starts_with("sensitiv") && claims(Some(v)) {
                l.sensitivity = Level::High;
            } else if k == "untrusted" && claims(Some(v)) {
                l.open_world = true;
                self.claims.untrusted = true;
            } else if k == "evidenceref" && !v.is_null() {
                l.evidence.push(v.clone());
            }
        }
        self.claims.labels.merge(&l);
    }
}

/// The trust-annotations key in any spelling, and its successors (a versioned or renamed key
/// that still says it holds trust annotations): unknown names of a claim fail closed.
fn is_trust_key(k: &str) -> bool {
    norm(k).contains("trustannotation")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(raw: &Value) -> OwnClaims {
        of_result(raw, &mut |t: &str| Ok(serde_json::from_str(t).ok())).unwrap()
    }

    /// `may_claim` reads bytes where it read characters: the same answer on strings built of
    /// its own pieces and of characters whose UTF-8 holds bytes near `{`, `[`, `%` (seeded).
    #[test]
    fn may_claim_over_bytes_answers_as_over_characters() {
        // The form before stop 31 went over bytes, with review s31's chains of escapes.
        let bracket = |s: &str| s.contains(['{', '[']) || ESCAPED_BRACKETS.iter().any(|p| s.contains(p));
        let by_chars = |s: &str| {
            s.contains(['{', '[', '%', '&', '\\'])
                && in_a_chain(s, crate::scrub::DECODINGS - 1, &|s| names_a_place(s) && bracket(s))
        };
        let pieces = [
            "{",
            "[",
            "%",
            "%7B",
            "%5b",
            "%5F",
            "_meta",
            "annotations",
            "\\u",
            "&#",
            "&amp;",
            "&lcub;",
            "&lowbar;",
            "%25",
            "&",
            "\\",
            "a",
            "é",
            "\u{7b}",
            "\u{FF5B}",
            "\u{1F5B}",
            "€",
            "\u{10FFFF}",
            " ",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let (mut claiming, mut total) = (0, 0);
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(seed % 7) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            assert_eq!(may_claim(&s), by_chars(&s), "{s:?}");
            claiming += usize::from(by_chars(&s));
            total += 1;
        }
        assert!(claiming > 500 && claiming < total - 500, "both answers are exercised: {claiming} of {total}");
    }

    #[test]
    fn trust_annotations_raise_sensitivity_and_open_world() {
        let trust = |t: Value| read(&json!({ "content": [], "_meta": { TRUST_KEY: t } })).labels;
        let l = trust(json!({ "sensitive": true, "untrusted": true }));
        assert_eq!((l.sensitivity, l.open_world), (Level::High, true));
        let l = trust(json!({ "sensitive": false, "untrusted": false }));
        assert_eq!((l.sensitivity, l.open_world), (Level::None, false), "false is no claim");
        for odd in [json!({ "sensitive": "yes", "untrusted": 1 }), json!(true), json!("sensitive")] {
            let l = trust(odd.clone());
            assert_eq!((l.sensitivity, l.open_world), (Level::High, true), "fails closed: {odd}");
        }
        let evidence = json!({ "type": "in-toto", "digest": "sha256:ab", "canonicalization": "jcs" });
        assert_eq!(trust(json!({ "evidenceRef": evidence })).evidence, [evidence]);
    }

    #[test]
    fn a_block_adds_to_the_result_never_takes_away() {
        let raw = json!({ "content": [
            { "type": "text", "text": "a", "_meta": { TRUST_KEY: { "sensitive": false } } },
            { "type": "text", "text": "b", "_meta": { TRUST_KEY: { "untrusted": true } } }
        ], "_meta": { TRUST_KEY: { "sensitive": true, "untrusted": false } } });
        let c = read(&raw);
        assert_eq!((c.labels.sensitivity, c.labels.open_world, c.untrusted), (Level::High, true, true));
        assert!(!read(&json!({ "content": [], "_meta": { TRUST_KEY: { "sensitive": true } } })).untrusted);
    }

    /// Every way the vocabulary says "sensitive", in every spelling the tool reader accepts.
    fn sensitive_claims() -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for key in ["sensitiveHint", "sensitive_hint", "SensitiveHint", "SENSITIVE-HINT"] {
            for v in [json!(true), json!("high"), json!("High"), json!("extreme"), json!(1)] {
                out.push((key.to_string(), v));
            }
        }
        for key in ["mcp.dev/resultSensitivity", "mcp.dev/result_sensitivity", "MCP.dev/ResultSensitivity"] {
            for v in [json!("restricted"), json!("Restricted"), json!("secret"), json!(["public", "unknown"])] {
                out.push((key.to_string(), v));
            }
        }
        for key in ["returnMetadata", "return_metadata"] {
            for v in [json!("Credentials"), json!(["User", "Credential"])] {
                out.push((key.to_string(), json!({ "Sensitivity": v })));
            }
        }
        let action = json!({ "returnMetadata": { "sensitivity": "credentials" } });
        out.push(("io.modelcontextprotocol/action-metadata".into(), action));
        for key in
            [TRUST_KEY, "io.modelcontextprotocol/Trust-Annotations", "io.modelcontextprotocol/trust-annotations/v2"]
        {
            for v in [
                json!({ "sensitive": true }),
                json!({ "Sensitive": true }),
                json!({ "sensitivity": "high" }),
                json!("x"),
            ] {
                out.push((key.to_string(), v));
            }
        }
        out
    }

    /// Every place a result carries claims, with `place` put there.
    fn placed(place: Value) -> Vec<Value> {
        let text = |extra: Value| {
            let mut b = json!({ "type": "text", "text": "CANARY" });
            b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            json!({ "content": [b] })
        };
        let resource = |extra: Value| {
            let mut r = json!({ "uri": "x:y", "text": "CANARY" });
            r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            json!({ "content": [{ "type": "resource", "resource": r }] })
        };
        let mut out = Vec::new();
        for (holder, p) in [
            ("_meta", place.clone()),
            ("annotations", place.clone()),
            ("_meta", json!({ "annotations": place.clone() })),
            ("_meta", json!({ "Annotations": place.clone() })),
        ] {
            out.push(json!({ "content": [{ "type": "text", "text": "CANARY" }], holder: p.clone() }));
            out.push(text(json!({ holder: p.clone() })));
            out.push(resource(json!({ holder: p })));
        }
        // A result written as text, in a text block and in a resource, and one level deeper.
        let deeper: Vec<Value> = out.clone();
        for inner in deeper {
            out.push(json!({ "content": [{ "type": "text", "text": inner.to_string() }] }));
            out.push(
                json!({ "content": [{ "type": "resource", "resource": { "uri": "x:y", "text": inner.to_string() } }] }),
            );
            let twice = json!({ "content": [{ "type": "text", "text": inner.to_string() }] }).to_string();
            out.push(json!({ "content": [{ "type": "text", "text": twice }] }));
        }
        out
    }

    /// Rule 4 for a result's own claims: one reader, shared with tools, at every place a result
    /// carries claims (found by review, F5 and F1: `_meta.sensitive_hint`, trust annotations
    /// under `_meta.annotations` or a resource's `_meta`, a block's `annotations`, a result
    /// written as text, each let the raw result through).
    #[test]
    fn every_spelling_at_every_place_claims_the_same() {
        let mut n = 0;
        for (key, v) in sensitive_claims() {
            let place = json!({ key.clone(): v.clone() });
            let as_tool = ToolModel::read(&json!({ "annotations": place }));
            let trust = is_trust_key(&key);
            assert!(trust || as_tool.level() == Some(Level::High), "a tool reads {place} as high");
            for raw in placed(place.clone()) {
                assert_eq!(read(&raw).labels.sensitivity, Level::High, "{raw}");
                n += 1;
            }
        }
        assert!(n > 1000, "{n}");
        // Claims only add: a `false`, a lower level or prose claims nothing more.
        for quiet in [json!({ "sensitiveHint": false }), json!({ TRUST_KEY: { "sensitive": false } })] {
            for raw in placed(quiet) {
                assert_eq!(read(&raw).labels.sensitivity, Level::None, "{raw}");
            }
        }
        let prose = json!({ "content": [{ "type": "text", "text": "{ not json: sensitiveHint true" }] });
        assert_eq!(read(&prose).labels.sensitivity, Level::None);
    }

    #[test]
    fn untrusted_is_read_at_every_place_too() {
        for raw in placed(json!({ TRUST_KEY: { "Untrusted": true } })) {
            let c = read(&raw);
            assert!(c.untrusted && c.labels.open_world, "{raw}");
        }
    }

    #[test]
    fn results_written_inside_one_another_are_read_to_a_bound() {
        let mut raw = json!({ "content": [], "_meta": { "sensitiveHint": true } });
        for _ in 0..MAX_EMBEDDED {
            raw = json!({ "content": [{ "type": "text", "text": raw.to_string() }] });
        }
        assert_eq!(read(&raw).labels.sensitivity, Level::High);
        let deeper = json!({ "content": [{ "type": "text", "text": raw.to_string() }] });
        let e = of_result(&deeper, &mut |t: &str| Ok(serde_json::from_str(t).ok())).unwrap_err();
        assert_eq!((e.code, e.pointer.as_str()), (ErrorCode::DepthLimit, "/content/0/text"));
        // An error reading the text (a repeated key) points at the outermost text.
        let dup = json!({ "content": [{ "type": "text", "text": "{\"a\":1,\"a\":2}" }] });
        let inner = json!({ "content": [{ "type": "resource", "resource": { "uri": "u", "text": dup.to_string() } }] });
        let e =
            of_result(&inner, &mut |t: &str| crate::json::parse_embedded(t, &crate::Limits::default())).unwrap_err();
        assert_eq!((e.code, e.pointer.as_str()), (ErrorCode::DuplicateKey, "/content/0/resource/text"));
    }
}
