//! JavaScript's `parseFloat`, given to the core as its reader of JSON numbers
//! (`src/json/float.rs`, `set_reader`): Rust's own float parsing is about 16 KiB raw, 12 KiB gzip
//! of the module.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The realm's `parseFloat`, read once per instance (on first use), like `crypto`: a script
    /// that later replaces the global does not choose how the core reads numbers.
    #[wasm_bindgen(thread_local_v2, js_name = parseFloat)]
    static PARSE_FLOAT: js_sys::Function;
}

/// The f64 JavaScript reads `text` as (NaN when it is no number).
pub fn parse_float(text: &str) -> f64 {
    PARSE_FLOAT
        .with(|f| f.call1(&JsValue::UNDEFINED, &JsValue::from_str(text)))
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN)
}
