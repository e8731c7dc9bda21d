//! What the library adds to a result (secret stubs, the notice, `webmcp-redact/*` `_meta`
//! keys) and how it recognises them again, so that a second pass leaves them alone.

use crate::hash::TextMap;

use serde_json::{Map, Value};

use crate::json::write::object;
use crate::scrub::Needles;
use crate::Format;

pub(crate) const META_PREFIX: &str = "webmcp-redact/";
pub(crate) const REPORT_KEY: &str = "webmcp-redact/redactions";
pub(crate) const SECRET_KEY: &str = "webmcp-redact/secret";
pub(crate) const NOTICE_KEY: &str = "webmcp-redact/notice";

/// Past this many stubs, one more stands for all the rest.
pub(crate) const MAX_STUBS: usize = 32;

/// Source of the 128 random bits behind each handle (the browser's `crypto` in wasm).
pub trait HandleSource {
    fn fill(&mut self, bytes: &mut [u8; 16]);
    /// A redaction starts: a source that draws randomness in batches starts a new batch, so
    /// that no call uses bytes drawn for another.
    fn new_call(&mut self) {}
    /// `count` handles are about to be drawn: a source that draws in batches can draw them at
    /// once (one crossing into JS for all the handles of a result, not one per few).
    fn reserve(&mut self, _count: usize) {}
}

/// A new handle: 32 lowercase hex digits, whatever the value it stands for.
pub(crate) fn new_handle(source: &mut dyn HandleSource) -> String {
    let mut bytes = [0u8; 16];
    source.fill(&mut bytes);
    // A table, not `format!` per byte: a dense result draws tens of thousands of handles.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(32);
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    bytes.fill(0); // the handle's bytes are not left on the stack
    out
}

fn is_handle(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The agent's view of a withheld value, read back from [`write_stub`]'s text: one definition of
/// its shape, and no second builder of it in the module (the JSON reader is there anyway).
pub(crate) fn stub(format: Format, label: &str, handle: &str) -> Value {
    let mut text = String::new();
    write_stub(&mut text, format, label, handle);
    // What write_stub writes is always valid JSON without repeated keys.
    crate::json::parse_json(&text).unwrap_or_default()
}

/// The agent's view of a withheld value, written as JSON text into `out`.
pub(crate) fn write_stub(out: &mut String, format: Format, label: &str, handle: &str) {
    object(out, |o| match format {
        Format::Webmcp => {
            o.str("type", "secret_reference").str("label", label).str("handle", handle);
        }
        Format::Mcp => {
            o.str("type", "text").str("text", &format!("{}{label}{}", STUB_TEXT.0, STUB_TEXT.1));
            object(o.key("_meta"), |m| {
                object(m.key(SECRET_KEY), |s| {
                    s.str("label", label).str("handle", handle);
                });
            });
        }
    });
}

/// The wording of the notice, as (before the label list, after it), singular then plural. The
/// label lists are the only parts that come from data (see [`data_spans`]).
const WITHHELD: [(&str, &str); 2] = [
    (
        " value was withheld from this result by webmcp-redact (",
        "). The user can reveal it in the page; do not ask for it.",
    ),
    (
        " values were withheld from this result by webmcp-redact (",
        "). The user can reveal them in the page; do not ask for them.",
    ),
];
const OTHER: [(&str, &str); 2] = [
    (" other item was removed or masked by webmcp-redact (", ")."),
    (" other items were removed or masked by webmcp-redact (", ")."),
];
const STUB_TEXT: (&str, &str) = crate::scrub::MARKER_FORMS[1];

/// The last text block of a redacted result: what was withheld (the user can reveal it) and
/// what was only removed or masked (nothing to reveal).
#[cfg(test)]
pub(crate) fn notice(withheld: &[&str], other: &[&str]) -> Value {
    serde_json::json!({ "type": "text", "text": notice_text(withheld, other), "_meta": { NOTICE_KEY: true } })
}

/// [`notice`] written as JSON text into `out`, byte for byte as serde_json writes that value.
/// With `needles`, value-matched as a second pass would match it: labels each hold no known
/// value, but the list that joins them may spell one across a `, `.
pub(crate) fn write_notice(out: &mut String, text: &str) {
    object(out, |o| {
        o.str("type", "text").str("text", text);
        object(o.key("_meta"), |m| {
            m.bool(NOTICE_KEY, true);
        });
    });
}

/// The notice's text as the agent reads it: value-matched outside its wording.
pub(crate) fn notice_shown(withheld: &[&str], other: &[&str], needles: Option<&Needles>) -> String {
    let text = notice_text(withheld, other);
    match needles.and_then(|n| scrub_outside_wording(n, &text)) {
        Some((clean, _)) => clean,
        None => text,
    }
}

fn notice_text(withheld: &[&str], other: &[&str]) -> String {
    let mut parts = Vec::new();
    for (labels, wording) in [(withheld, WITHHELD), (other, OTHER)] {
        if !labels.is_empty() {
            let (open, close) = wording[usize::from(labels.len() > 1)];
            parts.push(format!("{}{open}{}{close}", labels.len(), names(labels)));
        }
    }
    parts.join(" ")
}

/// Value matching on a text this library writes (a notice, an mcp stub's text): only its label
/// lists and counts are tool data; a match wholly inside its fixed wording is ours and stays,
/// and one reaching from a label into the wording is cut up to it, so a second pass still
/// reads the wording (see [`data_spans`]). A text not in that wording is all data.
pub(crate) fn scrub_outside_wording(needles: &Needles, text: &str) -> Option<(String, Vec<String>)> {
    match data_spans(text) {
        Some(data) => needles.scrub_within(text, &data),
        None => needles.scrub(text),
    }
}

/// Where this library's own fixed wording stands in a text it writes (a notice, or an mcp
/// stub's text): everything but the label lists, which [`data_spans`] finds. `None` when the
/// text is not in that wording. (What the test below reads the wording through.)
#[cfg(test)]
pub(crate) fn wording_spans(text: &str) -> Option<Vec<(usize, usize)>> {
    let data = data_spans(text)?;
    let mut wording = Vec::new();
    let mut at = 0;
    for (start, end) in data {
        if start > at {
            wording.push((at, start));
        }
        at = end;
    }
    if at < text.len() {
        wording.push((at, text.len()));
    }
    Some(wording)
}

/// The label lists of a text in our wording (the only parts of it that come from data), in order.
fn data_spans(text: &str) -> Option<Vec<(usize, usize)>> {
    if text.starts_with(STUB_TEXT.0)
        && text.ends_with(STUB_TEXT.1)
        && text.len() >= STUB_TEXT.0.len() + STUB_TEXT.1.len()
    {
        return Some(vec![(STUB_TEXT.0.len(), text.len() - STUB_TEXT.1.len())]);
    }
    let mut spans = Vec::new();
    let mut at = 0;
    if let Some((part, next)) = notice_part(text, at, &WITHHELD, false) {
        spans.push(part[1]); // the label list; the count is ours (the text is verified)
        at = next;
        if at < text.len() {
            at = at + text[at..].strip_prefix(' ').map(|_| 1)?;
        }
    }
    if at < text.len() {
        let (part, next) = notice_part(text, at, &OTHER, true)?;
        spans.push(part[1]);
        at = next;
    }
    (at == text.len() && !spans.is_empty()).then_some(spans)
}

/// One "N ... (labels)..." sentence at `at`: the spans of its count and its label list, and
/// where it ends. `last`: the sentence ends the text, so its closing is the text's last one.
fn notice_part(text: &str, at: usize, wording: &[(&str, &str); 2], last: bool) -> Option<([(usize, usize); 2], usize)> {
    let digits = text[at..].bytes().take_while(u8::is_ascii_digit).count();
    let rest = &text[at + digits..];
    wording.iter().find_map(|(open, close)| {
        let start = at + digits + open.len();
        let list = rest.strip_prefix(open)?;
        let end = start + if last { list.strip_suffix(close)?.len() } else { list.find(close)? };
        (digits > 0).then_some(([(at, at + digits), (start, end)], end + close.len()))
    })
}

/// Distinct labels, the first ten of them. Counted in a map, not by a scan of those seen so far
/// per label: a result can carry thousands of labels, many of them distinct. (The map is of
/// the type `Run::detections` already uses: no second instance of the hash table's code.)
fn names(labels: &[&str]) -> String {
    const SHOWN: usize = 10;
    let mut shown: Vec<&str> = Vec::new();
    let mut seen: TextMap<String, Vec<String>> = TextMap::default();
    for l in labels {
        if !seen.contains_key(*l) {
            seen.insert(l.to_string(), Vec::new());
            if shown.len() < SHOWN {
                shown.push(l);
            }
        }
    }
    let mut out = shown.join(", ");
    if seen.len() > SHOWN {
        out.push_str(&format!(" and {} more", seen.len() - SHOWN));
    }
    out
}

/// A webmcp stub rewritten in the "mcp" format, same label and handle.
pub(crate) fn as_mcp_stub(block: &Value) -> Option<Value> {
    let label = block.get("label")?.as_str()?;
    let handle = block.get("handle")?.as_str()?;
    (block.get("type")? == "secret_reference").then(|| stub(Format::Mcp, label, handle))
}

/// Is `block` one of our stubs or our notice, exactly as we write them?
pub(crate) fn is_library_block(block: &Value) -> bool {
    let Value::Object(b) = block else { return false };
    let str_of = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let is_stub_meta = |m: &Map<String, Value>| {
        m.len() == 2 && str_of(m, "label").is_some() && str_of(m, "handle").is_some_and(|h| is_handle(&h))
    };
    match b.get("type").and_then(Value::as_str) {
        Some("secret_reference") => is_stub_meta(b) || (b.len() == 3 && is_stub_meta(&without_type(b))),
        Some("text") if b.len() == 3 && str_of(b, "text").is_some() => match b.get("_meta") {
            Some(Value::Object(meta)) if meta.len() == 1 => match meta.iter().next() {
                Some((k, Value::Object(s))) if k == SECRET_KEY => is_stub_meta(s),
                Some((k, Value::Bool(true))) => k == NOTICE_KEY,
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}

fn without_type(b: &Map<String, Value>) -> Map<String, Value> {
    b.iter().filter(|(k, _)| *k != "type").map(|(k, v)| (k.clone(), v.clone())).collect()
}

pub(crate) fn is_library_key(key: &str) -> bool {
    key.starts_with(META_PREFIX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wording_spans_cover_exactly_our_fixed_wording() {
        let data = |t: &str| {
            let wording = wording_spans(t)?;
            let mut rest = t.to_string();
            for &(a, b) in wording.iter().rev() {
                rest.replace_range(a..b, "|");
            }
            Some(rest)
        };
        let text = |n: Value| n["text"].as_str().unwrap().to_string();
        assert_eq!(data(&text(notice(&["API key"], &[]))).as_deref(), Some("|API key|"));
        assert_eq!(data(&text(notice(&["a", "b (x)."], &["c"]))).as_deref(), Some("|a, b (x).|c|"));
        assert_eq!(data(&text(notice(&[], &["u", "v"]))).as_deref(), Some("|u, v|"));
        assert_eq!(data(&text(stub(Format::Mcp, "card", "00"))).as_deref(), Some("|card|"));
        for forged in [
            "1 value was withheld",
            "x value was withheld from this result by webmcp-redact (a). The user can reveal it in the page; do not ask for it.",
            "secret sk_live_1",
            "",
        ] {
            assert_eq!(wording_spans(forged), None, "{forged}");
        }
    }

    #[test]
    fn the_notice_names_the_first_ten_distinct_labels_and_counts_the_rest() {
        let labels: Vec<String> = (0..40).map(|i| format!("l{}", i % 25)).collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        assert_eq!(names(&labels), "l0, l1, l2, l3, l4, l5, l6, l7, l8, l9 and 15 more");
        assert_eq!(names(&["b", "a", "b"]), "b, a");
        let ten: Vec<String> = (0..10).map(|i| format!("x{i}")).collect();
        let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
        assert_eq!(names(&ten), ten.join(", "), "exactly ten: none more");
    }

    #[test]
    fn written_stubs_and_notices_are_the_values_serialized() {
        let h = "0a".repeat(16);
        let label = "k\"\u{1}é";
        let mcp = json!({ "type": "text", "text": format!("[secret withheld: {label}]"),
            "_meta": { SECRET_KEY: { "label": label, "handle": h } } });
        for (format, value) in
            [(Format::Webmcp, json!({ "type": "secret_reference", "label": label, "handle": h })), (Format::Mcp, mcp)]
        {
            let mut out = String::new();
            write_stub(&mut out, format, label, &h);
            assert_eq!(out, value.to_string());
            assert_eq!(stub(format, label, &h), value);
        }
        let mut out = String::new();
        write_notice(&mut out, &notice_shown(&["a\n"], &["b", "c"], None));
        assert_eq!(out, notice(&["a\n"], &["b", "c"]).to_string());
    }

    struct Counter(u8);
    impl HandleSource for Counter {
        fn fill(&mut self, bytes: &mut [u8; 16]) {
            self.0 += 1;
            *bytes = [self.0; 16];
        }
    }

    #[test]
    fn handles_are_32_hex_digits() {
        let h = new_handle(&mut Counter(0xfe));
        assert_eq!(h, "ff".repeat(16));
        assert!(is_handle(&h));
        // Every nibble, high before low, as `{:02x}` writes a byte.
        struct Ramp;
        impl HandleSource for Ramp {
            fn fill(&mut self, bytes: &mut [u8; 16]) {
                *bytes = std::array::from_fn(|i| (i as u8).wrapping_mul(0x1f) ^ 0xa5);
            }
        }
        let expected: String = (0..16u8).map(|i| format!("{:02x}", i.wrapping_mul(0x1f) ^ 0xa5)).collect();
        assert_eq!(new_handle(&mut Ramp), expected);
    }

    #[test]
    fn stubs_and_notices_are_recognised_in_both_formats() {
        let h = "0a".repeat(16);
        for format in [Format::Webmcp, Format::Mcp] {
            assert!(is_library_block(&stub(format, "API key", &h)));
        }
        assert!(is_library_block(&notice(&["a", "b"], &["c"])));
        assert!(!is_library_block(&stub(Format::Webmcp, "x", "not-a-handle")));
        let mut forged = stub(Format::Webmcp, "x", &h);
        forged["id"] = json!("k1");
        assert!(!is_library_block(&forged), "a reference with an id is the tool's, not ours");
    }
}
