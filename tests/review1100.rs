//! Review 1100 findings that were fixed: each test is an input on which a documented guarantee
//! failed at 8f7e91d (a value learned through a marked tool, echoed by a later result of an
//! unmarked one; tests/common). The agent's-schema findings are unit tests in
//! src/schema/agent.rs and tests/js/review1100.test.mjs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use serde_json::json;

const SECRET: &str = "sk_live_abc123XYZ";

fn b64(bytes: &[u8], url: bool, pad: bool) -> String {
    let alpha: &[u8] = if url {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..=c.len() {
            out.push(alpha[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
        if pad {
            for _ in c.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// Base64 wrapped at 76 columns (MIME, PEM, `base64` CLI, Python `encodebytes`, Java's
/// MimeEncoder): a known value whose encoding straddles a line break is in two runs, neither
/// holding 6 bytes of it, so it passes. `atob`, `Buffer.from(s, "base64")` and every MIME
/// decoder skip the line breaks, so the agent reads the value back.
#[test]
fn review1100_base64_wrapped_at_76_columns_is_caught() {
    let mut data = vec![b'Q'; 50];
    data.extend_from_slice(SECRET.as_bytes());
    data.extend_from_slice(&[b'Z'; 40]);
    let e = b64(&data, false, true);
    let wrapped = e.as_bytes().chunks(76).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\r\n");
    for view in later_views(json!(SECRET), &text_result(&wrapped)) {
        let v: serde_json::Value = serde_json::from_str(&view).unwrap();
        let joined = v["content"][0]["text"].as_str().unwrap().replace(['\r', '\n'], "");
        // Bytes 50..67 are the value: characters 66..92 carry them.
        assert!(!joined.contains(&e[66..90]), "wrapped base64 of the known value passed: {view}");
    }
}

/// Learns `secret`, then fails when `needle` (an encoding of it) is still in a later view.
fn assert_gone(secret: &str, later: serde_json::Value, needle: &str) {
    for view in later_views(json!(secret), &later) {
        assert!(!view.contains(needle), "encoding {needle} of the known value passed: {view}");
    }
}

/// Base64url of a URL whose query percent-encodes the value (an OAuth `state` or a
/// `redirect_uri` parameter, base64url-encoded): the decoded bytes are not percent-decoded.
#[test]
fn review1100_base64_of_percent_encoded_value_is_caught() {
    let secret = "tok+en/abc==xyz";
    let e = b64(b"https://a.example/cb?t=tok%2Ben%2Fabc%3D%3Dxyz&x=1", true, false);
    assert_gone(secret, text_result(&e), &e);
}

/// A JWT whose payload JSON escapes the value (Python's `json.dumps`, which PyJWT uses, writes
/// non-ASCII as `\u00e4`; PHP's `json_encode` writes `/` as `\/`): the decoded payload is not
/// JSON-unescaped, so the claim passes inside the token.
#[test]
fn review1100_jwt_payload_with_json_escaped_value_is_caught() {
    let secret = "pässwort/Grüße";
    let payload = br#"{"sub":"u1","pw":"p\u00e4sswort\/Gr\u00fc\u00dfe"}"#;
    let jwt = format!("{}.{}.sig", b64(br#"{"alg":"HS256"}"#, true, false), b64(payload, true, false));
    assert_gone(secret, text_result(&jwt), &jwt);
}
