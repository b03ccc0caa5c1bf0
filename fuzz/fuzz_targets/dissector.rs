#![no_main]
use kwire_testkit::oracles::{dissector, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    dissector(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
