//! Every error the core reports reaches JS as a real `Error` built here, once: a
//! `RedactionError` (the package's own class, imported from `js/errors.js`, so `instanceof`
//! holds) for problems with a tool or a result, a `TypeError` or `RangeError` for misused
//! options. Each carries a stable `code` and a brand (`Symbol.for("webmcp-redact.door")`) that
//! tells `js/engine.js` it was thrown on purpose: anything else escaping the module is a trap.

use js_sys::{Object, Reflect, Symbol};
use wasm_bindgen::prelude::*;

use crate::wire::OptionError;
use crate::Error;

#[wasm_bindgen(raw_module = "../js/errors.js")]
extern "C" {
    #[wasm_bindgen(extends = js_sys::Error)]
    type RedactionError;

    #[wasm_bindgen(constructor)]
    fn new(message: &str, data: &JsValue) -> RedactionError;
}

/// The code set on a `TypeError` / `RangeError` about options.
pub const OPTION_ERROR_CODE: &str = "invalid_options";

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object or Error cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

fn branded(error: JsValue) -> JsValue {
    let _ = Reflect::set(&error, &Symbol::for_("webmcp-redact.door"), &JsValue::TRUE);
    error
}

/// The core's error as a `RedactionError { code, pointer, tool }`.
pub fn redaction_error(e: &Error) -> JsValue {
    let data = Object::new();
    set(&data, "code", &JsValue::from_str(e.code.as_str()));
    set(&data, "pointer", &JsValue::from_str(&e.pointer));
    set(&data, "tool", &JsValue::from_str(&e.tool));
    branded(RedactionError::new(&e.message(), &data).into())
}

pub fn option_error(e: &OptionError) -> JsValue {
    let error: JsValue = match e {
        OptionError::Type(m) => js_sys::TypeError::new(m).into(),
        OptionError::Range(m) => js_sys::RangeError::new(m).into(),
    };
    set(&error, "code", &JsValue::from_str(OPTION_ERROR_CODE));
    branded(error)
}
