//! The encodings a value takes on its way into another string.
//!
//! A value is kept as a needle verbatim only. Every escaped form (JSON, HTML, percent, and
//! their chains and mixtures) is caught on the decoded views of the text instead
//! (`unescape.rs`), and base64 on the decoded runs (`base64.rs`), where the value reads
//! verbatim. The encoders below are kept, for tests only, as the oracle: each writes a value as
//! a common encoder does, and the tests check that every such text is caught.
//!
//! # Caught
//!
//! For a value of 4 characters or more (`MIN_LEN`), anywhere inside any string:
//! - verbatim;
//! - JSON-escaped as serde_json, JavaScript and Python write it, and JSON inside JSON; with `\/`;
//!   with every non-ASCII character as lowercase `\uXXXX` (Python's `ensure_ascii`), also with
//!   `<`, `>`, `&` escaped; as Go writes it (`\u003c`, `\u003e`, `\u0026`, U+2028, U+2029), as
//!   Gson does (`<`, `>`, `&`, `=`, `'`), as Newtonsoft's `EscapeHtml` does (`<`, `>`, `&`, `'`,
//!   `"`), all in lowercase hex; and as System.Text.Json writes it by default, in uppercase hex
//!   (`\u0022`, `\u0026`, `\u0027`, `\u002B`, `\u003C`, `\u003E`, `\u0060`, and every
//!   character outside ASCII);
//! - percent-encoded as `encodeURIComponent`, `encodeURI` and forms do, and as RFC 3986's
//!   unreserved set leaves it (Python's `quote`, `quote_plus`, `urlencode`, Go's
//!   `QueryEscape`), hex in either case, and percent-encoded twice (`%2540` for `@`, `%252f` or `%252F` for `/`, `%2B` for a form's
//!   space);
//! - HTML-escaped: `&amp;`, `&lt;`, `&gt;`, `&quot;` or `&#34;`, `&#39;`, `&#x27;`, `&#039;` or
//!   `&apos;`, all-decimal or all-hexadecimal references (either case), .NET's `HtmlEncoder`
//!   (`&#x2B;` for `+`, `&#xE9;` for `é`), Python's `xmlcharrefreplace` (`&#233;`), PHP's
//!   `htmlentities` (`&eacute;`); quotes left alone in text content; and JSON inside an
//!   HTML attribute (`\&quot;`);
//! - base64 and base64url, padded or not: the value encoded on its own (a `data:` URL, a Basic
//!   auth header, a JWT part, a `blob` or `data` field), and the value inside a longer encoded
//!   text at any byte alignment, for values of at least `MIN_INSIDE` (6) bytes; also base64
//!   text that was escaped in turn (`\/` in JSON, `%2F` in a URL), base64 wrapped at line
//!   breaks, and base64 of text that escapes the value once (a JWT's JSON, a URL's query).
//!
//! For a value of 2 or 3 characters (`MIN_SHORT`), verbatim only, and only where it stands alone
//! as a token (see `Needles::short_matches`).
//!
//! # Not caught, and why
//!
//! - A value of one character: it is in every text, and a guess finds it.
//! - Short values (2-3 characters) inside a word ("17370"), or encoded: every encoding of a
//!   3-digit number is the number, and encoding other short values would match innocent text.
//! - Base64 of a value of 4 or 5 bytes inside a longer encoded text, where its encoding does
//!   not start a group of four characters: 32 or 40 bits at every position would be found by
//!   chance in random base64 too often. It is caught encoded on its own. (Where the value is
//!   caught inside longer base64, every character carrying a bit of it is replaced, together
//!   with the bits of up to 2 bytes of context that share those characters.)
//! - Base64 split by anything but line breaks (runs go on across `\n` and `\r\n`, as MIME and
//!   PEM wrap them) inside the value's part; base64 of a value escaped twice over (one decoding
//!   of the decoded text is read: a JWT's JSON escapes, a URL's query), base64 of base64, of
//!   UTF-16 or of Latin-1 (`btoa`); base32, base85, hex or any other encoding
//!   of arbitrary text, gzip or any compression, encryption or hashing.
//! - Anything an agent or a tool did to the value itself: reversed, split (`sk_live_` in one
//!   place, the rest in another), spaced out, cut short, case changed (`SK_LIVE_…`), characters
//!   swapped or translated; a value spelled out in words, or read back from an image.
//! - Escapes the decoded views do not read: `\x3c`, `%u003C`, HTML's named entities past
//!   Latin-1 (`&euro;`; the Latin-1 ones, `&eacute;`, are read), punycode; more than three decodings chained. (Mixtures of styles inside one
//!   value, and escapes of letters and digits, are caught: a view decodes every escape of its
//!   kind at once.)

#[cfg(test)]
use serde_json::Value;

#[cfg(test)]
pub(super) fn escape_json(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

#[cfg(test)]
/// JSON string content with every non-ASCII character as `\\uXXXX` (lowercase hex, as Python
/// writes it); `html` also escapes `<`, `>` and `&` (as Go does, in lowercase hex too).
pub(super) fn escape_unicode(json: &str, html: bool) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && !(html && matches!(c, '<' | '>' | '&')) {
            out.push(c);
            continue;
        }
        push_units(&mut out, c, false);
    }
    out
}

#[cfg(test)]
/// Bytes left as they are by encodeURIComponent, encodeURI and form encoding, and by RFC
/// 3986's unreserved set as Python's `quote(safe="")`, `quote_plus`, `urlencode` and Go's
/// `QueryEscape` keep it (with `/`: `quote`'s default).
pub(super) const COMPONENT: &[u8] = b"-_.!~*'()";
#[cfg(test)]
pub(super) const URI: &[u8] = b"-_.!~*'();/?:@&=+$,#";
#[cfg(test)]
pub(super) const FORM: &[u8] = b"*-._";
#[cfg(test)]
pub(super) const UNRESERVED: &[u8] = b"-_.~";
#[cfg(test)]
pub(super) const UNRESERVED_PATH: &[u8] = b"-_.~/";

#[cfg(test)]
pub(super) fn percent(s: &str, keep: &[u8], plus_for_space: bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else if b == b' ' && plus_for_space {
            out.push('+');
        } else {
            out.push('%');
            push_hex(&mut out, u32::from(b), 2, true);
        }
    }
    out
}

#[cfg(test)]
/// `%2F` -> `%2f`, leaving everything else alone.
pub(super) fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            out.extend(chars.by_ref().take(2).map(|h| h.to_ascii_lowercase()));
        }
    }
    out
}

#[cfg(test)]
/// The two base64 alphabets: standard (RFC 4648 §4) and URL-safe (§5).
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
#[cfg(test)]
const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[cfg(test)]
pub(super) fn base64(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        let chars = group.len() + 1;
        out.extend((0..chars).map(|i| alphabet[(n >> (18 - 6 * i) & 63) as usize]));
        if pad {
            out.extend(std::iter::repeat(b'=').take(4 - chars));
        }
    }
    String::from_utf8(out).unwrap_or_default() // the alphabets are ASCII
}

#[cfg(test)]
/// How HTML writers escape `&`, `<`, `>`, `"` and `'`, one style per library family.
const HTML: [[&str; 5]; 9] = [
    ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"], // lodash, Ruby, .NET WebUtility, Java Spring
    ["&amp;", "&lt;", "&gt;", "&quot;", "&#x27;"], // Python html.escape, React
    ["&amp;", "&lt;", "&gt;", "&quot;", "&#039;"], // PHP htmlspecialchars(ENT_QUOTES)
    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"], // XML, PHP ENT_HTML5
    ["&amp;", "&lt;", "&gt;", "&#34;", "&#39;"],  // Go html.EscapeString and html/template, Jinja
    ["&amp;", "&lt;", "&gt;", "\"", "'"],         // text content only (quote=False, XML text)
    ["&#38;", "&#60;", "&#62;", "&#34;", "&#39;"], // decimal references
    ["&#x26;", "&#x3C;", "&#x3E;", "&#x22;", "&#x27;"], // hexadecimal references
    ["&#x26;", "&#x3c;", "&#x3e;", "&#x22;", "&#x27;"], // the same, lowercase
];

#[cfg(test)]
/// Two styles of JSON text inside an HTML attribute.
pub(super) const HTML_QUOT: [&str; 5] = HTML[0];
#[cfg(test)]
pub(super) const HTML_34: [&str; 5] = HTML[4];

#[cfg(test)]
/// `s` as each HTML style writes it: the five specials in each style; .NET's `HtmlEncoder`,
/// which also writes `+` and everything outside printable ASCII as references; and Python's
/// `html.escape` then `xmlcharrefreplace` (non-ASCII as decimal references); and PHP's
/// `htmlentities` (Latin-1 by name). None when `s` has
/// nothing any of them changes.
pub(super) fn html_forms(s: &str) -> Vec<String> {
    let specials = s.contains(['&', '<', '>', '"', '\'']);
    let mut out: Vec<String> = if specials { HTML.iter().map(|style| html(s, style)).collect() } else { Vec::new() };
    if specials || s.chars().any(|c| c == '+' || !(' '..='~').contains(&c)) {
        out.push(html_dotnet(s));
    }
    if !s.is_ascii() {
        out.push(decimal_references(&html(s, &HTML[1])));
    }
    if s.contains(|c| ('\u{a0}'..='\u{ff}').contains(&c)) {
        out.push(latin1_names(&html(s, &HTML[2])));
    }
    out
}

#[cfg(test)]
/// Every Latin-1 character by name (`&eacute;`), as PHP's `htmlentities` writes it.
fn latin1_names(s: &str) -> String {
    let names: Vec<&str> = super::unescape::LATIN1.split(' ').collect();
    let name = |c: char| names.get((c as usize).wrapping_sub(0xA0)).map(|n| format!("&{n};"));
    s.chars().map(|c| name(c).unwrap_or_else(|| c.to_string())).collect()
}

#[cfg(test)]
/// Every character outside ASCII as a decimal reference (`&#233;`), as Python's
/// `xmlcharrefreplace` writes it.
fn decimal_references(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("&#{};", u32::from(c)));
        }
    }
    out
}

#[cfg(test)]
pub(super) fn html(s: &str, style: &[&str; 5]) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match "&<>\"'".find(c) {
            Some(i) => out.push_str(style[i]),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
/// .NET's `HtmlEncoder.Default`: `&quot;`, `&amp;`, `&lt;`, `&gt;`, then `&#xHH;` (uppercase)
/// for `'`, `+` and everything outside printable ASCII.
fn html_dotnet(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            ' '..='~' if c != '\'' && c != '+' => out.push(c),
            _ => {
                out.push_str("&#x");
                let n = u32::from(c);
                push_hex(&mut out, n, (32 - n.leading_zeros() as usize).div_ceil(4).max(1), true);
                out.push(';');
            }
        }
    }
    out
}

#[cfg(test)]
/// JSON string content as `System.Text.Json` writes it by default (`JavaScriptEncoder.Default`):
/// `"`, `&`, `'`, `+`, `<`, `>` and `` ` `` as `\u0022`, `\u0026`, `\u0027`, `\u002B`,
/// `\u003C`, `\u003E`, `\u0060`; `\\`, `\b`, `\f`, `\n`, `\r`, `\t`; every other control
/// character and everything outside ASCII as `\uXXXX` UTF-16 units, hex in uppercase.
pub(super) fn escape_dotnet(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' | '&' | '\'' | '+' | '<' | '>' | '`' => push_units(&mut out, c, true),
            ' '..='~' => out.push(c),
            _ => push_units(&mut out, c, true),
        }
    }
    out
}

#[cfg(test)]
/// JSON string content (`json`, as serde_json writes it) with some ASCII characters as
/// lowercase `\uXXXX`: Go's encoding/json writes `<`, `>`, `&` (and U+2028, U+2029) that way by
/// default, Gson `<`, `>`, `&`, `=`, `'`, Newtonsoft's `EscapeHtml` `<`, `>`, `&`, `'`, `"`.
pub(super) fn escape_some(json: &str, chars: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    let mut rest = json.chars().peekable();
    while let Some(c) = rest.next() {
        if c == '\\' && chars.contains('"') && rest.peek() == Some(&'"') {
            rest.next();
            push_units(&mut out, '"', false);
        } else if c == '\\' {
            out.push(c);
            out.extend(rest.next());
        } else if chars.contains(c) && c != '"' {
            push_units(&mut out, c, false);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
fn push_units(out: &mut String, c: char, upper: bool) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        out.push_str("\\u");
        push_hex(out, u32::from(*unit), 4, upper);
    }
}

/// The last `digits` hex digits of `n`.
#[cfg(test)]
fn push_hex(out: &mut String, n: u32, digits: usize, upper: bool) {
    let table = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    for i in (0..digits).rev() {
        out.push(char::from(table[(n >> (4 * i) & 15) as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scrub::Needles;

    fn needles(value: &str, label: &str) -> Needles {
        let mut n = Needles::default();
        n.add(value, label);
        n
    }

    #[test]
    fn every_common_encoder_and_chain_of_them_is_caught_on_the_decoded_views() {
        let values = ["p@ss/w\"rd é+1", "<&\"'>é+/ 7".repeat(3).as_str(), "tok~it's(1)*!", "a b+c%d😀\u{2028}x"]
            .map(String::from);
        for value in &values {
            let n = needles(value, "v");
            let json = escape_json(value);
            let mut written: Vec<(&str, String)> = vec![
                ("json", json.clone()),
                ("json in json", escape_json(&json)),
                ("solidus", json.replace('/', "\\/")),
                ("python ascii", escape_unicode(&json, false)),
                ("python ascii html", escape_unicode(&json, true)),
                ("go", escape_some(&json, "<>&\u{2028}\u{2029}")),
                ("gson", escape_some(&json, "<>&='")),
                ("newtonsoft", escape_some(&json, "<>&'\"")),
                ("system.text.json", escape_dotnet(value)),
                ("json in an html attribute", html(&json, &HTML_QUOT)),
                ("json in an html attribute, &#34;", html(&json, &HTML_34)),
            ];
            for style in HTML.iter() {
                written.push(("html", html(value, style)));
            }
            written.extend(html_forms(value).into_iter().map(|f| ("html form", f)));
            for (keep, plus) in [
                (COMPONENT, false),
                (URI, false),
                (FORM, true),
                (UNRESERVED, false),
                (UNRESERVED, true),
                (UNRESERVED_PATH, false),
            ] {
                let once = percent(value, keep, plus);
                written.push(("percent", lower_hex(&once)));
                written.push(("percent twice", percent(&once, COMPONENT, false)));
                written.push(("percent of json", percent(&json, keep, plus)));
                written.push(("percent", once));
            }
            for (style, text) in written {
                let framed = format!("before {text} after");
                let Some((clean, _)) = n.scrub(&framed) else { panic!("{style}: nothing found in {framed}") };
                assert!(!clean.contains(&text), "{style}: {text} survived in {clean}");
                assert!(n.scrub(&clean).is_none(), "{style}: a second pass changes {clean}");
            }
        }
    }

    /// `text` is scrubbed, with `label`, and none of `canaries` survives.
    fn caught(n: &Needles, text: &str, label: &str, canaries: &[&str]) -> String {
        let (clean, labels) = n.scrub(text).unwrap_or_else(|| panic!("nothing found in {text}"));
        assert_eq!(labels, [label], "{text}");
        for c in canaries {
            assert!(!clean.contains(c), "{c} survived in {clean}");
        }
        clean
    }

    #[test]
    fn base64_encoder_known_answers() {
        // RFC 4648 §10.
        for (plain, padded) in [
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes(), BASE64, true), padded);
            assert_eq!(base64(plain.as_bytes(), BASE64, false), padded.trim_end_matches('='));
        }
        assert_eq!(base64(&[0xfb, 0xff], BASE64, true), "+/8=");
        assert_eq!(base64(&[0xfb, 0xff], BASE64URL, false), "-_8");
    }

    #[test]
    fn base64_of_the_value_on_its_own_padded_or_not_either_alphabet() {
        // Python: base64.b64encode(b"sk_live_CANARY~>?") and base64.urlsafe_b64encode.
        let n = needles("sk_live_CANARY~>?", "key");
        for text in [
            "Authorization: Basic c2tfbGl2ZV9DQU5BUll+Pj8=",
            "token=c2tfbGl2ZV9DQU5BUll+Pj8 end",
            "jwt.c2tfbGl2ZV9DQU5BUll-Pj8.sig",
            "url c2tfbGl2ZV9DQU5BUll-Pj8=",
        ] {
            let clean = caught(&n, text, "key", &["c2tfbGl2ZV9DQU5BUl", "Pj8"]);
            assert!(clean.contains("[redacted: key]"), "{clean}");
        }
    }

    #[test]
    fn base64_inside_longer_data_at_each_alignment() {
        // Python: base64.b64encode(prefix + b"sk_live_CANARY~>?" + b"zz") for 0, 1, 2 bytes of
        // prefix: the value starts at offset 0, 1 and 2 modulo 3.
        let n = needles("sk_live_CANARY~>?", "key");
        for (text, stable) in [
            ("c2tfbGl2ZV9DQU5BUll+Pj96eg==", "c2tfbGl2ZV9DQU5BUll+"),
            ("YXNrX2xpdmVfQ0FOQVJZfj4/eno=", "X2xpdmVfQ0FOQVJZ"),
            ("YWJza19saXZlX0NBTkFSWX4+P3p6", "a19saXZlX0NBTkFSWX4+"),
        ] {
            assert!(text.contains(stable));
            let clean = caught(&n, &format!("data:application/octet-stream;base64,{text}"), "key", &[stable]);
            // What stays beside the replacement is the context and at most 2 bytes of the
            // value at each end: at most 2 groups on each side.
            let left = clean.len() - "data:application/octet-stream;base64,".len() - "[redacted: key]".len();
            assert!(left <= 16, "{clean}");
        }
        // In base64url, and without the data: prefix.
        let clean = caught(&n, "x YWJza19saXZlX0NBTkFSWX4-P3p6 y", "key", &["NBTkFSWX4"]);
        // "YWJz" is "abs": the "s" starts the value, so "Jz", which carries its bits, goes too.
        assert!(clean.starts_with("x YW[redacted: key]"), "{clean}");
    }

    #[test]
    fn base64_inside_longer_data_needs_six_bytes_of_the_value() {
        let framed = |value: &[u8], skip: usize| {
            let mut data = b"context".to_vec();
            data.truncate(skip);
            data.extend_from_slice(value);
            data.extend_from_slice(b"zz");
            format!("data {} end", base64(&data, BASE64, true))
        };
        for skip in 0..3 {
            let n = needles("123456", "pin");
            let text = framed(b"123456", skip);
            assert!(n.scrub(&text).is_some(), "6 bytes at offset {skip}: {text}");
        }
        // 4 bytes inside longer data: only where their encoding starts a group of 4 characters.
        let four = needles("1234", "pin");
        for skip in [1, 2, 4, 5] {
            assert!(four.scrub(&framed(b"1234", skip)).is_none(), "4 bytes after {skip} are not caught");
        }
        for skip in [0, 3, 6] {
            assert!(four.scrub(&framed(b"1234", skip)).is_some(), "4 bytes after {skip} are caught");
        }
        // On its own, 4 bytes are caught, padded or not, in either alphabet, also glued to
        // other text or base64 on either side.
        let n = needles("1234", "pin");
        for text in ["x MTIzNA== y", "x MTIzNA y", "Basic MTIzNA", "MTIzNAx", "xyzMTIzNA_", "xyzwMTIzNAabcd"] {
            caught(&n, text, "pin", &["MTIzNA"]);
        }
    }

    #[test]
    fn base64_at_every_alignment_glued_to_anything() {
        // Generated: a value of 6 to 40 bytes, 0 to 7 bytes of context on each side, encoded in
        // either alphabet, padded or not, glued to base64 characters or set apart; the value
        // never survives, and a second pass changes nothing.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..3000 {
            let len = 6 + next(35) as usize;
            let value: String = (0..len).map(|_| (b'!' + next(94) as u8) as char).collect();
            let context = |next: &mut dyn FnMut(u64) -> u64| (0..next(8)).map(|_| next(256) as u8).collect::<Vec<u8>>();
            let mut data = context(&mut next);
            data.extend_from_slice(value.as_bytes());
            data.extend(context(&mut next));
            let alphabet = if next(2) == 0 { BASE64 } else { BASE64URL };
            let encoded = base64(&data, alphabet, next(2) == 0);
            let glue = ["", " ", "x", "Zm9v", "_-", "="][next(6) as usize];
            let text = format!("{glue}{encoded}{glue}");
            let n = needles(&value, "v");
            let Some((clean, _)) = n.scrub(&text) else { panic!("{value:?} in {text}: nothing found") };
            assert!(n.scrub(&clean).is_none(), "{text}: a second pass changes {clean}");
            // What is left decodes to nothing holding the value, from any character.
            for from in 0..clean.len() {
                let rest: String =
                    clean[from..].chars().take_while(|c| c.is_ascii_alphanumeric() || "+/-_".contains(*c)).collect();
                let mut decoded = Vec::new();
                super::super::base64::decode_for_tests(rest.as_bytes(), &mut decoded);
                assert!(!decoded.windows(len).any(|w| w == value.as_bytes()), "{value:?} survives in {clean}");
            }
        }
    }

    #[test]
    fn base64_written_with_escapes() {
        // JSON writers may escape the solidus; the JSON view reads the base64 as it was.
        let value = "p@ss/w\"rd é+1?>>";
        let n = needles(value, "password");
        let encoded = base64(value.as_bytes(), BASE64, true);
        assert!(encoded.contains('/'), "{encoded}");
        let escaped = format!("{{\"b\":\"{}\"}}", encoded.replace('/', "\\/"));
        caught(&n, &escaped, "password", &[&encoded[4..12]]);
    }

    #[test]
    fn a_data_url_and_a_json_text_encoded_as_base64() {
        let n = needles("hunter2-CANARY", "password");
        // Python: base64.b64encode(b'{"password":"hunter2-CANARY"}')
        caught(
            &n,
            "data:application/json;base64,eyJwYXNzd29yZCI6Imh1bnRlcjItQ0FOQVJZIn0=",
            "password",
            &["bnRlcjItQ0FOQVJZ"],
        );
        caught(&n, "data:text/plain,hunter2-CANARY", "password", &["CANARY"]);
        caught(&n, "data:text/plain;base64,aHVudGVyMi1DQU5BUlk=", "password", &["aHVudGVyMi1DQU5BUlk"]);
    }

    #[test]
    fn html_entities_in_every_common_style() {
        let n = needles("p&ss<w>\"q'CANARY", "password");
        for text in [
            "p&amp;ss&lt;w&gt;&quot;q&#39;CANARY",       // lodash, Ruby, .NET WebUtility
            "p&amp;ss&lt;w&gt;&quot;q&#x27;CANARY",      // Python html.escape, React
            "p&amp;ss&lt;w&gt;&quot;q&#039;CANARY",      // PHP
            "p&amp;ss&lt;w&gt;&quot;q&apos;CANARY",      // XML
            "p&amp;ss&lt;w&gt;&#34;q&#39;CANARY",        // Go, Jinja
            "p&amp;ss&lt;w&gt;\"q'CANARY",               // text content
            "p&#38;ss&#60;w&#62;&#34;q&#39;CANARY",      // decimal
            "p&#x26;ss&#x3C;w&#x3E;&#x22;q&#x27;CANARY", // hexadecimal
            "p&#x26;ss&#x3c;w&#x3e;&#x22;q&#x27;CANARY",
            "p&amp;ss&lt;w&gt;&quot;q&#x27;CANARY", // .NET HtmlEncoder
        ] {
            caught(&n, &format!("<td title=\"{text}\">"), "password", &["CANARY"]);
        }
        // .NET's HtmlEncoder also writes + and non-ASCII as hexadecimal references.
        let n = needles("a+b'é-CANARY", "code");
        caught(&n, "a&#x2B;b&#x27;&#xE9;-CANARY", "code", &["CANARY"]);
        // JSON in an HTML attribute.
        let n = needles("say \"CANARY\"", "quote");
        caught(&n, r#"<div data-json="{&quot;q&quot;:&quot;say \&quot;CANARY\&quot;&quot;}">"#, "quote", &["CANARY"]);
    }

    #[test]
    fn unicode_escapes_as_dotnet_go_gson_and_newtonsoft_write_them() {
        let n = needles("a+b<c>&'\"`é=CANARY", "secret");
        for text in [
            // System.Text.Json, JavaScriptEncoder.Default: uppercase hex.
            r#"{"v":"a\u002Bb\u003Cc\u003E\u0026\u0027\u0022\u0060\u00E9=CANARY"}"#,
            // Gson (HTML-safe by default): <, >, &, =, ' in lowercase hex.
            r#"{"v":"a+b\u003cc\u003e\u0026\u0027\"`é\u003dCANARY"}"#,
            // Go's encoding/json: <, >, & in lowercase hex, the rest as it is.
            r#"{"v":"a+b\u003cc\u003e\u0026'\"`é=CANARY"}"#,
            // Newtonsoft with EscapeHtml.
            r#"{"v":"a+b\u003cc\u003e\u0026\u0027\u0022`é=CANARY"}"#,
        ] {
            caught(&n, text, "secret", &["CANARY"]);
        }
        assert_eq!(escape_dotnet("\\\n\u{1}\u{7f}😀"), r"\\\n\u0001\u007F\uD83D\uDE00");
    }

    #[test]
    fn percent_encoded_twice() {
        let n = needles("user@example.com/x y", "email");
        for text in [
            "next=user%2540example.com%252Fx%2520y", // Python quote(quote(v, safe=''), safe='')
            "next=user%2540example.com%252fx%2520y",
            "q=user%2540example.com%252Fx%2By", // form-encoded twice: the space's + is %2B
            "q=user@example.com/x%2520y",       // encodeURI twice
        ] {
            caught(&n, text, "email", &["user"]);
        }
    }
}
