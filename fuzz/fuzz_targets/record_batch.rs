#![no_main]
use kwire::__fuzz::{record_batch, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    record_batch(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
