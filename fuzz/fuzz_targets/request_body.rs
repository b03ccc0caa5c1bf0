#![no_main]
use kwire_testkit::oracles::{request_body, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    request_body(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
