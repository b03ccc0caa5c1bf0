#![no_main]
use kwire_testkit::oracles::sasl;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sasl(data, &mut []).unwrap();
});
