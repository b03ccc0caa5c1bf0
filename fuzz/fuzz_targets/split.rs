#![no_main]
use kwire_testkit::oracles::{scratch_len, split};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    split(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
