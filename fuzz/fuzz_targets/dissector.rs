#![no_main]
use kwire::__fuzz::{dissector, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dissector(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
