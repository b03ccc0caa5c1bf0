//! On linux-gnu, `core`'s `memcpy`, `memset` and friends come from libc. The argument goes to
//! the binary only: link arguments in `RUSTFLAGS` would reach proc-macros too.

fn main() {
    println!("cargo:rustc-link-arg-bins=-lc");
}
