//! A `#![no_std]`, `#![no_main]` binary that encodes and decodes a frame with kwire.
//!
//! If kwire or any of its dependencies pulled in `std`, this would not build: the second
//! `panic_impl` lang item fails with E0152 naming the crate. Nothing here needs an allocator, so
//! an `alloc` dependency would fail to link as well. Run it and check the exit code: 0 when the
//! round trip held, a distinct non-zero code for each check that did not.
//!
//! This package is the only place in the repository with `unsafe` code: the C entry point, the
//! libc `abort` and the symbols a `no_std` binary must provide itself.

#![no_std]
#![no_main]

use core::panic::PanicInfo;

use kwire::codec::Str;
use kwire::messages::{RenewDelegationTokenRequest, RequestHeader};
use kwire::records::{BatchBuilder, NewHeader, NewRecord, RecordBatch};
use kwire::{ApiKey, Request, frame};

unsafe extern "C" {
    fn abort() -> !;
}

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    // SAFETY: libc's abort takes no arguments and never returns.
    unsafe { abort() }
}

/// Referenced by `core` even with `panic = "abort"`; never called.
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality() {}

/// The C entry point, called by the libc start files.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    match round_trip().and_then(|()| record_batch()) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// Encodes a RenewDelegationToken v2 request frame into a stack buffer, decodes it back and
/// checks every field.
fn round_trip() -> Result<(), i32> {
    let body = RenewDelegationTokenRequest::default()
        .with_hmac(b"\x01\x02")
        .with_renew_period_ms(86_400_000);
    let header = RequestHeader::default()
        .with_request_api_key(ApiKey::RENEW_DELEGATION_TOKEN.0)
        .with_request_api_version(2)
        .with_correlation_id(7)
        .with_client_id(Some("no_std"));
    let mut buf = [0u8; 64];
    let n = frame::encode_request(&header, &body, &mut buf).map_err(|_| 10)?;
    // size (4) + header v2: key, version, correlation id (8), client id (2 + 6), tags (1)
    // + body v2: hmac (1 + 2), renew period (8), tags (1)
    if n != 33 {
        return Err(11);
    }
    let frame = buf.get(..n).ok_or(12)?;
    let (decoded_header, decoded) = frame::decode_request(frame).map_err(|_| 13)?;
    if decoded_header.correlation_id != 7 || decoded_header.client_id != Some(Str::new("no_std")) {
        return Err(14);
    }
    let Request::RenewDelegationToken(decoded) = decoded else {
        return Err(15);
    };
    if decoded.hmac != b"\x01\x02" || decoded.renew_period_ms != 86_400_000 {
        return Err(16);
    }
    Ok(())
}

/// Builds a two-record batch with the lz4-free core, reads it back in place and checks the CRC
/// and the records.
fn record_batch() -> Result<(), i32> {
    let headers = [NewHeader::new(b"h", b"v")];
    let records = [
        NewRecord::new(b"one").with_timestamp(1_000),
        NewRecord::new(b"two")
            .with_key(b"k")
            .with_headers(&headers)
            .with_timestamp(1_005),
    ];
    let mut buf = [0u8; 256];
    let n = BatchBuilder::new()
        .with_base_offset(40)
        .write(&records, &mut buf)
        .map_err(|_| 20)?;
    let batch = RecordBatch::parse(buf.get(..n).ok_or(21)?).map_err(|_| 22)?;
    batch.verify_crc().map_err(|_| 23)?;
    let mut count = 0;
    for (record, want) in batch.records().map_err(|_| 24)?.zip(records.iter()) {
        let record = record.map_err(|_| 25)?;
        if record.value() != want.value || record.key() != want.key {
            return Err(26);
        }
        if record.timestamp() != want.timestamp || record.headers().len() != want.headers.len() {
            return Err(27);
        }
        count += 1;
    }
    if count != 2 || batch.last_offset() != 41 {
        return Err(28);
    }
    Ok(())
}
