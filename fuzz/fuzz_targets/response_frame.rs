#![no_main]
use kwire_testkit::oracles::{response_frame, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    response_frame(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
