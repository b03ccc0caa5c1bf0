//! How deep decoding goes: prints the deepest struct nesting of every schema, then decodes a
//! random legal instance of every request and response at every version and compares each
//! value with itself, which iterates every nested array. Run under massif to measure the peak
//! stack of all of it:
//!
//! ```text
//! cargo build --release --example stack_depth
//! valgrind --tool=massif --stacks=yes --massif-out-file=/tmp/stack.out \
//!     target/release/examples/stack_depth
//! ms_print /tmp/stack.out | head -30
//! ```
//!
//! The decoding runs on a thread with a stack of the size given as the first argument (bytes,
//! default 65536), so `target/release/examples/stack_depth 16384` shows that it fits in 16 KiB
//! (a thread that overflows its stack aborts the process).
//!
//! Decoders recurse only along the schema's nesting (a struct inside a struct), never along
//! anything the input controls, so the peak is a property of the schemas.

use kwire::codec::{MessageKind, Reader};
use kwire::{ApiKey, EncodeError, Request, Response};
use kwire_schema::{FieldType, MESSAGES, StructSchema};

/// Struct nesting below and including `s`.
fn depth(s: &StructSchema) -> usize {
    1 + s
        .fields
        .iter()
        .map(|f| match f.ty {
            FieldType::Struct(inner) | FieldType::StructArray(inner) => depth(inner),
            FieldType::Primitive(_) | FieldType::Array(_) => 0,
        })
        .max()
        .unwrap_or(0)
}

fn main() {
    let mut deepest: Vec<(usize, &str)> =
        MESSAGES.iter().map(|m| (depth(m.root), m.name)).collect();
    deepest.sort_by(|a, b| b.cmp(a));
    for (d, name) in deepest.iter().take(5) {
        println!("struct depth {d}: {name}");
    }

    let stack: usize = std::env::args()
        .nth(1)
        .map_or(65536, |a| a.parse().expect("stack size in bytes"));
    let decoded = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(decode_everything)
        .expect("thread")
        .join()
        .expect("decoding panicked");
    println!("decoded and iterated {decoded} instances on a {stack}-byte stack");
}

/// Decodes and iterates a few random instances of every request and response version.
fn decode_everything() -> usize {
    let mut decoded = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    for m in MESSAGES.iter().filter(|m| m.api_key >= 0) {
        let (min, max) = (m.valid_versions.min, m.valid_versions.max);
        for version in min..=max {
            for seed in 0..4u64 {
                let n = match kwire_testkit::write_random(m, version, seed, &mut buf) {
                    Ok(n) => n,
                    Err(EncodeError::BufferTooSmall { .. }) => continue,
                    Err(e) => panic!("{} v{version}: {e}", m.name),
                };
                let bytes = &buf[..n];
                let key = ApiKey(m.api_key);
                let same = match m.kind {
                    MessageKind::Request => {
                        let v = Request::decode(&mut Reader::new(bytes), key, version)
                            .expect("a walker instance decodes");
                        let copy = v;
                        v == copy
                    }
                    _ => {
                        let v = Response::decode(&mut Reader::new(bytes), key, version)
                            .expect("a walker instance decodes");
                        let copy = v;
                        v == copy
                    }
                };
                assert!(same);
                decoded += 1;
            }
        }
    }
    decoded
}
