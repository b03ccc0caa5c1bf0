//! The two reference pages (RenewDelegationToken v2 and UpdateFeatures v2): the smallest legal
//! instance of each request and response, built with the typed API, must encode to exactly the
//! bytes the pages lay out (sizes and offsets of every node of their object trees), and decode
//! back to equal values.

use kwire::codec::{Encode, Str, VersionRange};
use kwire::frame::{decode_request, decode_response, encode_request, encode_response};
use kwire::header::{request_header_version, response_header_version};
use kwire::messages::update_features_request::FeatureUpdateKey;
use kwire::messages::{
    RenewDelegationTokenRequest, RenewDelegationTokenResponse, RequestHeader, ResponseHeader,
    UpdateFeaturesRequest, UpdateFeaturesResponse,
};
use kwire::{ApiKey, Request, Response};

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    assert_eq!(digits.len() % 2, 0, "odd hex literal");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// One leaf of a page's object tree: its name, `[offset, size]` and the bytes it must hold.
struct Node {
    name: &'static str,
    offset: usize,
    size: usize,
    bytes: &'static str,
}

const fn node(name: &'static str, offset: usize, size: usize, bytes: &'static str) -> Node {
    Node {
        name,
        offset,
        size,
        bytes,
    }
}

/// Checks that the leaves tile the frame without gaps and that each holds its bytes.
fn check_tree(frame: &[u8], leaves: &[Node]) {
    let mut at = 0;
    for n in leaves {
        assert_eq!(n.offset, at, "{} starts at {:#06x}", n.name, at);
        let want = hex(n.bytes);
        assert_eq!(want.len(), n.size, "{}: size in the table", n.name);
        assert_eq!(
            &frame[n.offset..n.offset + n.size],
            want.as_slice(),
            "{} at [{:#06x}, {}B]",
            n.name,
            n.offset,
            n.size
        );
        at += n.size;
    }
    assert_eq!(at, frame.len(), "the leaves cover the whole frame");
}

fn header(key: i16, version: i16) -> RequestHeader<'static> {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(0)
        .with_client_id(Some(""))
}

fn encode_req<B: kwire::frame::Body>(h: &RequestHeader<'_>, body: &B) -> Vec<u8> {
    let mut buf = vec![0xa5u8; 256];
    let n = encode_request(h, body, &mut buf).expect("encode_request");
    assert!(buf[n..].iter().all(|&b| b == 0xa5), "wrote past the frame");
    buf.truncate(n);
    buf
}

fn encode_resp<B: kwire::frame::Body>(body: &B, version: i16) -> Vec<u8> {
    let mut buf = vec![0xa5u8; 256];
    let h = ResponseHeader::default().with_correlation_id(0);
    let n = encode_response(&h, body, version, &mut buf).expect("encode_response");
    assert!(buf[n..].iter().all(|&b| b == 0xa5), "wrote past the frame");
    buf.truncate(n);
    buf
}

// ---------------------------------------------------------------------------------------------
// RenewDelegationToken (API key 39), v2
// ---------------------------------------------------------------------------------------------

const RENEW_REQUEST: &str = "
    00 00 00 15
    00 27 00 02 00 00 00 00 00 00 00
    01 00 00 00 00 00 00 00 00 00";

const RENEW_RESPONSE: &str = "
    00 00 00 14
    00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

#[test]
fn renew_delegation_token_facts() {
    let key = ApiKey(39);
    assert_eq!(key.name(), Some("RenewDelegationToken"));
    // v1-2 from the 4.x schemas, v0 from the Kafka 3.9 schemas.
    assert_eq!(key.request_versions(), VersionRange::new(0, 2));
    assert_eq!(key.response_versions(), VersionRange::new(0, 2));
    assert_eq!(request_header_version(key, 2), 2);
    assert_eq!(response_header_version(key, 2), 1);
    assert_eq!(request_header_version(key, 1), 1);
    assert_eq!(response_header_version(key, 1), 0);
    assert_eq!(request_header_version(key, 0), 1);
    assert_eq!(response_header_version(key, 0), 0);
}

#[test]
fn renew_delegation_token_v2_request_page() {
    let body = RenewDelegationTokenRequest::default()
        .with_hmac(b"")
        .with_renew_period_ms(0);
    let h = header(39, 2);
    assert_eq!(h.encoded_len(2), Ok(11));
    assert_eq!(body.encoded_len(2), Ok(10));

    let frame = encode_req(&h, &body);
    assert_eq!(frame.len(), 25);
    assert_eq!(frame, hex(RENEW_REQUEST));
    check_tree(
        &frame,
        &[
            node("Frame.size = 21", 0x00, 4, "00000015"),
            node("RequestHeader.request_api_key = 39", 0x04, 2, "0027"),
            node("RequestHeader.request_api_version = 2", 0x06, 2, "0002"),
            node("RequestHeader.correlation_id = 0", 0x08, 4, "00000000"),
            node("RequestHeader.client_id = \"\"", 0x0c, 2, "0000"),
            node("RequestHeader.tagged_fields = 0", 0x0e, 1, "00"),
            node("Hmac = empty", 0x0f, 1, "01"),
            node("RenewPeriodMs = 0", 0x10, 8, "0000000000000000"),
            node("tagged_fields = 0", 0x18, 1, "00"),
        ],
    );

    let (dh, decoded) = decode_request(&frame).expect("decode");
    assert_eq!(dh, h);
    assert_eq!(dh.client_id, Some(Str::EMPTY));
    assert_eq!(decoded, Request::RenewDelegationToken(body));
    // The decoded values encode to the same frame.
    assert_eq!(encode_req(&dh, &decoded), frame);
}

#[test]
fn renew_delegation_token_v2_response_page() {
    let body = RenewDelegationTokenResponse::default()
        .with_error_code(0)
        .with_expiry_timestamp_ms(0)
        .with_throttle_time_ms(0);
    assert_eq!(body.encoded_len(2), Ok(15));

    let frame = encode_resp(&body, 2);
    assert_eq!(frame.len(), 24);
    assert_eq!(frame, hex(RENEW_RESPONSE));
    check_tree(
        &frame,
        &[
            node("Frame.size = 20", 0x00, 4, "00000014"),
            node("ResponseHeader.correlation_id = 0", 0x04, 4, "00000000"),
            node("ResponseHeader.tagged_fields = 0", 0x08, 1, "00"),
            node("ErrorCode = 0", 0x09, 2, "0000"),
            node("ExpiryTimestampMs = 0", 0x0b, 8, "0000000000000000"),
            node("ThrottleTimeMs = 0", 0x13, 4, "00000000"),
            node("tagged_fields = 0", 0x17, 1, "00"),
        ],
    );

    let (dh, decoded) = decode_response(&frame, ApiKey(39), 2).expect("decode");
    assert_eq!(dh, ResponseHeader::default().with_correlation_id(0));
    assert_eq!(decoded, Response::RenewDelegationToken(body));
    assert_eq!(encode_resp(&decoded, 2), frame);
}

// ---------------------------------------------------------------------------------------------
// UpdateFeatures (API key 57), v2
// ---------------------------------------------------------------------------------------------

const UPDATE_FEATURES_REQUEST: &str = "
    00 00 00 17
    00 39 00 02 00 00 00 00 00 00 00
    00 00 00 00 02 01 00 00 00 00 00 00";

const UPDATE_FEATURES_RESPONSE: &str = "
    00 00 00 0d
    00 00 00 00 00
    00 00 00 00 00 00 01 00";

#[test]
fn update_features_facts() {
    let key = ApiKey(57);
    assert_eq!(key.name(), Some("UpdateFeatures"));
    assert_eq!(key.request_versions(), VersionRange::new(0, 2));
    assert_eq!(key.response_versions(), VersionRange::new(0, 2));
    // Flexible from v0: header v2 / v1 at every version.
    for v in 0..=2 {
        assert_eq!(request_header_version(key, v), 2);
        assert_eq!(response_header_version(key, v), 1);
    }
}

#[test]
fn update_features_v2_request_page() {
    // The page's minimal instance: numbers 0 (not the schema defaults 60000 and 1), one element.
    let updates = [FeatureUpdateKey::default()
        .with_feature("")
        .with_max_version_level(0)
        .with_upgrade_type(0)];
    let body = UpdateFeaturesRequest::default()
        .with_timeout_ms(0)
        .with_feature_updates(&updates)
        .with_validate_only(false);
    let h = header(57, 2);
    assert_eq!(h.encoded_len(2), Ok(11));
    assert_eq!(body.encoded_len(2), Ok(12));

    let frame = encode_req(&h, &body);
    assert_eq!(frame.len(), 27);
    assert_eq!(frame, hex(UPDATE_FEATURES_REQUEST));
    check_tree(
        &frame,
        &[
            node("Frame.size = 23", 0x00, 4, "00000017"),
            node("RequestHeader.request_api_key = 57", 0x04, 2, "0039"),
            node("RequestHeader.request_api_version = 2", 0x06, 2, "0002"),
            node("RequestHeader.correlation_id = 0", 0x08, 4, "00000000"),
            node("RequestHeader.client_id = \"\"", 0x0c, 2, "0000"),
            node("RequestHeader.tagged_fields = 0", 0x0e, 1, "00"),
            node("timeoutMs = 0", 0x0f, 4, "00000000"),
            node("FeatureUpdates.length = 2 (n+1)", 0x13, 1, "02"),
            node("FeatureUpdateKey[0].Feature = \"\"", 0x14, 1, "01"),
            node("FeatureUpdateKey[0].MaxVersionLevel = 0", 0x15, 2, "0000"),
            node("FeatureUpdateKey[0].UpgradeType = 0", 0x17, 1, "00"),
            node("FeatureUpdateKey[0].tagged_fields = 0", 0x18, 1, "00"),
            node("ValidateOnly = false", 0x19, 1, "00"),
            node("tagged_fields = 0", 0x1a, 1, "00"),
        ],
    );

    let (dh, decoded) = decode_request(&frame).expect("decode");
    assert_eq!(dh, h);
    assert_eq!(decoded, Request::UpdateFeatures(body));
    let Request::UpdateFeatures(ref d) = decoded else {
        unreachable!()
    };
    assert_eq!(d.feature_updates.len(), 1);
    let first = d.feature_updates.iter().next().unwrap();
    assert_eq!(first.feature, "");
    assert_eq!(first.upgrade_type, 0);
    assert_eq!(d.timeout_ms, 0);
    assert_eq!(encode_req(&dh, &decoded), frame);
}

#[test]
fn update_features_v2_response_page() {
    let body = UpdateFeaturesResponse::default()
        .with_throttle_time_ms(0)
        .with_error_code(0)
        .with_error_message(Some(""));
    assert_eq!(body.encoded_len(2), Ok(8));

    let frame = encode_resp(&body, 2);
    assert_eq!(frame.len(), 17);
    assert_eq!(frame, hex(UPDATE_FEATURES_RESPONSE));
    check_tree(
        &frame,
        &[
            node("Frame.size = 13", 0x00, 4, "0000000d"),
            node("ResponseHeader.correlation_id = 0", 0x04, 4, "00000000"),
            node("ResponseHeader.tagged_fields = 0", 0x08, 1, "00"),
            node("ThrottleTimeMs = 0", 0x09, 4, "00000000"),
            node("ErrorCode = 0", 0x0d, 2, "0000"),
            node("ErrorMessage = \"\"", 0x0f, 1, "01"),
            node("tagged_fields = 0", 0x10, 1, "00"),
        ],
    );

    let (dh, decoded) = decode_response(&frame, ApiKey(57), 2).expect("decode");
    assert_eq!(dh.correlation_id, 0);
    assert!(dh.unknown_tagged_fields.is_empty());
    assert_eq!(decoded, Response::UpdateFeatures(body));
    let Response::UpdateFeatures(ref d) = decoded else {
        unreachable!()
    };
    assert_eq!(d.error_message, Some(Str::EMPTY));
    assert!(d.results.is_empty());
    assert_eq!(encode_resp(&decoded, 2), frame);
}

#[test]
fn reference_frames_fit_exactly() {
    // The sizes on the pages are exact: one byte less does not fit.
    let body = RenewDelegationTokenRequest::default();
    let mut buf = [0xa5u8; 24];
    assert_eq!(
        encode_request(&header(39, 2), &body, &mut buf),
        Err(kwire::EncodeError::BufferTooSmall {
            required: 25,
            available: 24
        })
    );
    let mut buf = [0xa5u8; 25];
    assert_eq!(encode_request(&header(39, 2), &body, &mut buf), Ok(25));
    assert_eq!(buf.to_vec(), hex(RENEW_REQUEST));

    let body = UpdateFeaturesResponse::default().with_error_message(Some(""));
    let h = ResponseHeader::default();
    let mut buf = [0xa5u8; 16];
    assert_eq!(
        encode_response(&h, &body, 2, &mut buf),
        Err(kwire::EncodeError::BufferTooSmall {
            required: 17,
            available: 16
        })
    );
    let mut buf = [0xa5u8; 17];
    assert_eq!(encode_response(&h, &body, 2, &mut buf), Ok(17));
    assert_eq!(buf.to_vec(), hex(UPDATE_FEATURES_RESPONSE));
}
