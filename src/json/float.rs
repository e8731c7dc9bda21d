//! A JSON number's value as an f64, read in one place. Natively Rust's own reading; in the
//! browser module JavaScript's `parseFloat`, through the door (`src/wasm/float.rs`): Rust's
//! reading (core's dec2flt, with its 11 KiB table of powers of five) was about 16 KiB raw and
//! 12 KiB gzip of the page's module, for a handful of numbers a call (a taken number's forms,
//! option values, block fields). Both round correctly (ECMA-262's StringToNumber in V8,
//! SpiderMonkey and JavaScriptCore), so a JSON number's text reads as the same f64 either way.

use serde_json::{Number, Value};

/// The f64 the JSON number `text` reads as (infinite past f64's range, as `Number(text)` in
/// JavaScript); None only for text that is no number. `text` is a JSON number's text:
/// JavaScript's `parseFloat` reads a prefix of other text where Rust refuses it.
pub(crate) fn parse(text: &str) -> Option<f64> {
    #[cfg(not(target_arch = "wasm32"))]
    let f = text.parse().ok();
    #[cfg(target_arch = "wasm32")]
    let f = Some(crate::wasm::parse_float(text)).filter(|f| !f.is_nan());
    f
}

/// serde_json's `Number::as_f64` (with `arbitrary_precision`: the text's f64 when finite).
pub(crate) fn finite(n: &Number) -> Option<f64> {
    parse(n.as_str()).filter(|f| f.is_finite())
}

/// serde_json's `Value::as_f64`: a number's finite f64, None for anything else.
pub(crate) fn of(value: &Value) -> Option<f64> {
    value.as_number().and_then(finite)
}
