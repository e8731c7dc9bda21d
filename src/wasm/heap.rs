//! The bytes the core holds live on its heap, so that JS can tell the memory a call grew and
//! gave back (slack, worth a fresh instance) from memory the redactor still uses (compiled
//! tools, the known set), which a fresh instance would only have to build again
//! (`js/engine.js`, `liveBytes`).
//!
//! A counter around the system allocator (dlmalloc on wasm32): one add or subtract per call of
//! the allocator. wasm32-unknown-unknown has one thread, so relaxed atomics compile to plain
//! loads and stores.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` with the caller's arguments unchanged; the counter
// only observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            LIVE.fetch_add(new_size, Relaxed);
        }
        q
    }
}

/// Bytes allocated and not yet freed (what the allocator was asked for, without its overhead).
pub fn live() -> usize {
    LIVE.load(Relaxed)
}
