//! A JSON number's value as an f64, read in one place. Natively Rust's own reading; in the
//! browser module a reader the embedder gives ([`set_reader`]: the door gives JavaScript's
//! `parseFloat`, `src/wasm/float.rs`), the way it gives the hashing its seed: Rust's reading
//! (core's dec2flt, with its 11 KiB table of powers of five) was about 16 KiB raw and 12 KiB gzip
//! of the page's module, for a handful of numbers a call (a taken number's forms, option values,
//! block fields). Both round correctly (ECMA-262's StringToNumber in V8, SpiderMonkey and
//! JavaScriptCore), so a JSON number's text reads as the same f64 either way.

use std::sync::OnceLock;

use serde_json::{Number, Value};

/// Reads a JSON number's text as an f64: NaN when it is no number, infinite past f64's range.
pub(crate) type Reader = fn(&str) -> f64;

static READER: OnceLock<Reader> = OnceLock::new();

/// Reads numbers with `read` from now on; the first reader given stays. The module's door gives
/// it before the core reads anything.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn set_reader(read: Reader) {
    let _ = READER.set(read);
}

/// The f64 the JSON number `text` reads as (infinite past f64's range, as `Number(text)` in
/// JavaScript); None only for text that is no number. `text` is a JSON number's text:
/// JavaScript's `parseFloat` reads a prefix of other text where Rust refuses it.
pub(crate) fn parse(text: &str) -> Option<f64> {
    let read = READER.get().copied().unwrap_or(own);
    Some(read(text)).filter(|f| !f.is_nan())
}

/// Rust's own reading, natively.
#[cfg(not(target_arch = "wasm32"))]
fn own(text: &str) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

/// The module carries no reading of its own (see above): a number read before the door gave
/// one traps, like a table hashed before it seeded (`src/hash.rs`): the result is then withheld
/// and the instance replaced (`js/engine.js`). (An abort: a panic's message, which a page never
/// sees, cost 0.1 KiB more.)
#[cfg(target_arch = "wasm32")]
fn own(_: &str) -> f64 {
    std::process::abort()
}

/// serde_json's `Number::as_f64` (with `arbitrary_precision`: the text's f64 when finite).
pub(crate) fn finite(n: &Number) -> Option<f64> {
    parse(n.as_str()).filter(|f| f.is_finite())
}

/// serde_json's `Value::as_f64`: a number's finite f64, None for anything else.
pub(crate) fn of(value: &Value) -> Option<f64> {
    value.as_number().and_then(finite)
}
