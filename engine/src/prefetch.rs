//! Software prefetch: the hint that a value will be read soon, issued where its
//! address is known well before the read (the TT bucket and eval-cache slot of a
//! child before the move is made, the correction entries before the TT probe).

/// Hints the CPU to bring the cache line holding `value` into L1. Only a hint: it
/// changes no memory and never faults. A no-op off x86-64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the pointer comes from a live reference, a prefetch reads nothing
    // architecturally, and SSE is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
