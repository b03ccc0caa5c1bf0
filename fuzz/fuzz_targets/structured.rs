#![no_main]
use kwire_testkit::oracles::{structured, structured_scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    structured(data, &mut vec![0; structured_scratch_len()]).unwrap();
});
