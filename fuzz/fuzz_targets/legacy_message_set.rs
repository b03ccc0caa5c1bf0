#![no_main]
use kwire_testkit::oracles::{legacy_message_set, scratch_len};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    legacy_message_set(data, &mut vec![0; scratch_len(data.len())]).unwrap();
});
