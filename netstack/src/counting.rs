//! A global allocator that counts the calls made while a thread has armed it.
//!
//! The data path (the produce and consume loops) runs with counting armed on its thread; the
//! setup before it (opening the device, building the interface, the buffers and the records)
//! and the printing after it are not counted.
#![allow(unsafe_code, reason = "a `GlobalAlloc` impl is unsafe by definition")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards every call to the system allocator, counting those made while armed.
struct Counting;

thread_local! {
    /// Whether this thread's allocator calls are counted.
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocator calls while armed.
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Counts one call, if this thread is armed.
fn note() {
    // `try_with`: the thread-locals may be gone while a thread is being torn down.
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let _ = COUNT.try_with(|c| c.set(c.get().saturating_add(1)));
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counting touches only
// const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`; `ptr` came from this allocator, that is from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note();
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The program's allocator.
#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` with counting armed on this thread; returns its result and the number of allocator
/// calls (allocations, reallocations and frees) it made.
pub fn counted<R>(f: impl FnOnce() -> R) -> (R, u64) {
    COUNT.with(|c| c.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, COUNT.with(Cell::get))
}
