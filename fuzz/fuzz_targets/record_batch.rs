#![no_main]
use kwire_testkit::oracles::{record_batch, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    record_batch(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
