//! Handles come from Web Crypto's CSPRNG (`globalThis.crypto`, in browsers, workers and
//! Node 20+), through web-sys's `Crypto`. Without it there is no safe handle, so a failure
//! aborts: the module traps, JS withholds the result and replaces the instance.

use wasm_bindgen::prelude::*;

use crate::HandleSource;

#[wasm_bindgen]
extern "C" {
    /// The realm's `crypto`, read once per instance: a script that later replaces
    /// `globalThis.crypto` does not choose our handles. (web-sys's `Crypto` over a hand-declared
    /// extern costs about 0.5 KiB raw, 0.3 KiB gzip of the module.)
    #[wasm_bindgen(thread_local_v2, js_name = crypto)]
    static CRYPTO: web_sys::Crypto;
}

/// Handles drawn from one `getRandomValues` call per redaction: each call crosses into JS and
/// costs microseconds (10 to 20 in Node), and a result often needs many handles, so the
/// collector says how many it will draw ([`HandleSource::reserve`]) and they come in one fill
/// (split only at Web Crypto's 65,536-byte limit per call), with one more for the result's id
/// (the door draws it once the result has issued handles). A draw past that (a tool's own
/// reference) refills 16 at a time. Each redaction starts with a fresh draw, and handed-out
/// bytes are wiped.
pub struct CryptoHandles {
    pool: Vec<u8>,
    /// Bytes handed out; `pool.len()` means the pool is spent (or was never filled).
    used: usize,
}

/// Web Crypto's limit on one `getRandomValues` call, in bytes.
const MAX_FILL: usize = 65_536;
/// Handles drawn when one is needed and none was reserved.
const BATCH: usize = 16;

impl CryptoHandles {
    pub const fn new() -> CryptoHandles {
        CryptoHandles { pool: Vec::new(), used: 0 }
    }
}

impl HandleSource for CryptoHandles {
    fn new_call(&mut self) {
        self.pool.fill(0);
        self.pool.clear();
        self.used = 0;
    }

    fn reserve(&mut self, count: usize) {
        if self.pool.len() - self.used >= count * 16 {
            return;
        }
        self.new_call(); // what is left unused is wiped, not carried into the new draw
        self.pool.resize((count + 1) * 16, 0); // and the result's id
        for chunk in self.pool.chunks_mut(MAX_FILL) {
            if !CRYPTO.with(|c| c.get_random_values_with_u8_array(chunk).is_ok()) {
                panic!("crypto.getRandomValues failed");
            }
        }
    }

    fn fill(&mut self, bytes: &mut [u8; 16]) {
        if self.used == self.pool.len() {
            self.reserve(BATCH);
        }
        let handle = &mut self.pool[self.used..self.used + 16];
        bytes.copy_from_slice(handle);
        handle.fill(0); // a handed-out handle is not kept here
        self.used += 16;
    }
}

/// Seeds the core's hashing of text a tool chose (`src/hash.rs`) from Web Crypto, once per
/// instance; every entry point that may hash such text calls this first.
///
/// std's `RandomState` gets the same treatment as far as it can be reached: serde_json's maps
/// (the DOM engine's objects) use it and the core cannot give them another hasher, and on
/// wasm32 its keys are the addresses of a stack and a heap variable at its first use, plus one
/// per `RandomState` made since: the same in every instance. So its first use here comes after
/// a heap block of random size (up to 64 KiB, which moves that heap variable), and then a
/// random number of `RandomState`s, up to 65,535, are made and dropped: about 29 bits a tool
/// would have to guess, against the 64 of a real key. That is a mitigation, not a key; the
/// streaming engine, which most plain results take, uses no serde_json map.
pub fn seed_hashing() {
    if crate::hash::is_seeded() {
        return;
    }
    let mut entropy = [0u8; 20];
    if !CRYPTO.with(|c| c.get_random_values_with_u8_array(&mut entropy).is_ok()) {
        panic!("crypto.getRandomValues failed");
    }
    let [seed @ .., a, b, c, d] = entropy;
    let [a, b, c, d] = [a, b, c, d].map(usize::from);
    let pad: Vec<u8> = Vec::with_capacity(8 * (1 + (a | (b & 0x1f) << 8)));
    let _ = std::hash::RandomState::new();
    drop(pad);
    for _ in 0..(c | d << 8) {
        let _ = std::hash::RandomState::new();
    }
    crate::hash::seed(seed);
    entropy.fill(0);
}
