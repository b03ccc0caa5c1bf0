#![no_main]
use kwire::__fuzz::{structured, structured_scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    structured(data, &mut vec![0; structured_scratch_len()]).unwrap();
});
