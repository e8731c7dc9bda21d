//! A counting allocator for the bounded-cost reviews: a test binary that declares
//! `mod counting;` counts the bytes each of its threads allocates, and the peak of what it
//! holds live. (Not in `common`: it would become every test binary's allocator.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the bytes each thread allocates (a `realloc` counts its new size).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
    /// What this thread allocated and has not freed (what another thread frees of it is not
    /// seen), and its highest mark since `peak` last set it.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static HIGH: Cell<i64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|a| a.set(a.get() + bytes as u64));
    live(bytes as i64);
}

fn live(change: i64) {
    let _ = LIVE.try_with(|l| {
        l.set(l.get() + change);
        let _ = HIGH.try_with(|h| h.set(h.get().max(l.get())));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(-(layout.size() as i64));
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The old block and the new one are both live while it is copied.
        count(new_size);
        live(-(layout.size() as i64));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Bytes this thread allocates while `f` runs, and what it returns.
#[allow(dead_code)]
pub fn allocated<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let before = ALLOCATED.with(Cell::get);
    let out = f();
    (ALLOCATED.with(Cell::get) - before, out)
}

/// The most bytes this thread held live at once while `f` ran, above what it held before, and
/// what `f` returns (what it returns counts while it is live).
#[allow(dead_code)]
pub fn peak<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let before = LIVE.with(Cell::get);
    HIGH.with(|h| h.set(before));
    let out = f();
    ((HIGH.with(Cell::get) - before) as u64, out)
}
