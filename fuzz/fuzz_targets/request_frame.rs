#![no_main]
use kwire_testkit::oracles::{request_frame, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    request_frame(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
