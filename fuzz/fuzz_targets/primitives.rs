#![no_main]
use kwire_testkit::oracles::{primitives, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    primitives(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
