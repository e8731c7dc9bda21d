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

/// Handles drawn from one `getRandomValues` call per redaction (and per 16 handles within
/// one): each call crosses into JS and costs microseconds, and a result often needs several
/// handles. Each redaction starts with a fresh draw, and handed-out bytes are wiped.
pub struct CryptoHandles {
    pool: [u8; POOL],
    /// Bytes handed out; `POOL` means the pool is spent (or was never filled).
    used: usize,
}

const POOL: usize = 16 * 16;

impl CryptoHandles {
    pub const fn new() -> CryptoHandles {
        CryptoHandles { pool: [0; POOL], used: POOL }
    }
}

impl HandleSource for CryptoHandles {
    fn new_call(&mut self) {
        self.pool.fill(0);
        self.used = POOL;
    }

    fn fill(&mut self, bytes: &mut [u8; 16]) {
        if self.used == POOL {
            if !CRYPTO.with(|c| c.get_random_values_with_u8_array(&mut self.pool).is_ok()) {
                panic!("crypto.getRandomValues failed");
            }
            self.used = 0;
        }
        bytes.copy_from_slice(&self.pool[self.used..self.used + 16]);
        self.pool[self.used..self.used + 16].fill(0); // a handed-out handle is not kept here
        self.used += 16;
    }
}
