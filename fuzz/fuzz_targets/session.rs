#![no_main]
use kwire_testkit::oracles::{scratch_len, session};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    session(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
