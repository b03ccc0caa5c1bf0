#![no_main]
use kwire_testkit::oracles::{response_body, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    response_body(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
