//! A `#![no_std]` Kafka producer on kwire, as it would run on a microcontroller: no
//! allocator, no panics, every buffer on the stack.
//!
//! ```text
//! cd embedded-producer && cargo build --release --target thumbv7em-none-eabihf
//! ```
//!
//! Built from its own directory, the firmware compiles only the versions it speaks, named in
//! `.cargo/config.toml` (`KWIRE_VERSIONS`, see the kwire crate docs); `scripts/embedded-stack`
//! runs that build under QEMU and prints its peak stack.
//!
//! On a `thumbv7em-none-eabihf` target (a Cortex-M4F or M7 with 128 KiB of RAM; see `memory.x`)
//! the binary negotiates versions, looks the topic up, produces a batch and fetches it back
//! against responses recorded from a broker, then waits in a loop: the board's TCP stack would
//! take the place of [`producer::Canned`].
//!
//! With `--features sasl` it logs in with SCRAM-SHA-256 first (against responses recorded from a
//! broker requiring SASL, in `data/sasl/`).
//!
//! On a host the same code runs with `std` around it, and afterwards the `kafka-protocol` crate,
//! an implementation that is not kwire, decodes the four request frames it sent and every field
//! is compared with what the producer set:
//!
//! ```text
//! cargo run -p embedded-producer                          # the recorded responses
//! cargo run -p embedded-producer -- --broker 127.0.0.1:19092 [--save DIR]   # a live broker
//! ```
#![cfg_attr(target_os = "none", no_std, no_main)]

mod producer;

#[cfg(target_os = "none")]
mod device {
    use core::sync::atomic::{AtomicI32, Ordering};

    use cortex_m_rt::entry;

    use crate::producer::{Canned, RECORDED, run};

    /// Records read back, or -1 on failure; `i32::MIN` until the run ends. Exported under its
    /// own name, so that a debugger (or `scripts/embedded-stack`, under QEMU) finds it and the
    /// store is kept.
    #[unsafe(no_mangle)]
    static RECORDS_READ: AtomicI32 = AtomicI32::new(i32::MIN);

    #[entry]
    fn main() -> ! {
        let mut transport = Canned::new(&RECORDED);
        let read = match run(&mut transport) {
            Ok(summary) => i32::try_from(summary.records_read).unwrap_or(i32::MAX),
            Err(_) => -1,
        };
        RECORDS_READ.store(read, Ordering::Relaxed);
        loop {
            core::hint::spin_loop();
        }
    }

    /// kwire never panics (its lint wall forbids indexing, unchecked arithmetic, unwraps and
    /// panics, and fuzzing backs that up), and nor does this code; a panic handler is still
    /// required to link, and this one stops the core.
    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
        loop {
            core::hint::spin_loop();
        }
    }
}

#[cfg(not(target_os = "none"))]
mod host;
#[cfg(not(target_os = "none"))]
mod peer;

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    host::main()
}
