//! Handles come from Web Crypto's CSPRNG (`globalThis.crypto`, in browsers, workers and
//! Node 20+). Without it there is no safe handle, so a failure aborts: the module traps, JS
//! withholds the result and replaces the instance.

use wasm_bindgen::JsCast;

use crate::HandleSource;

pub struct CryptoHandles;

impl HandleSource for CryptoHandles {
    fn fill(&mut self, bytes: &mut [u8; 16]) {
        let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into())
            .ok()
            .filter(|c| c.is_object())
            .map(|c| c.unchecked_into::<web_sys::Crypto>());
        let filled = crypto.map(|c| c.get_random_values_with_u8_array(bytes).is_ok());
        if filled != Some(true) {
            panic!("crypto.getRandomValues failed");
        }
    }
}
