//! The API features: each API key's message types exist only with its feature, and the
//! by-key decoders tell a key whose feature is off (`ApiNotEnabled`) from one Kafka never
//! assigned (`UnknownApiKey`).
//!
//! Every assertion holds for any set of features. CI runs this file with every API, as all
//! tests are, and again with `--no-default-features --features ApiVersions,Produce`, where most
//! keys are off (the dev-dependencies add the few APIs their oracles and workloads build).

use kwire::codec::Reader;
use kwire::{ApiKey, DecodeErrorKind, Request, Response, frame};

/// A request frame: size prefix, header v1 (key, version, correlation id 7, null client id),
/// then `body`.
fn request_frame(key: ApiKey, version: i16, body: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&key.0.to_be_bytes());
    payload.extend_from_slice(&version.to_be_bytes());
    payload.extend_from_slice(&7_i32.to_be_bytes());
    payload.extend_from_slice(&(-1_i16).to_be_bytes());
    payload.extend_from_slice(body);
    let mut frame = i32::try_from(payload.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(&payload);
    frame
}

#[test]
fn is_enabled_follows_the_features() {
    assert_eq!(ApiKey::PRODUCE.is_enabled(), cfg!(feature = "Produce"));
    assert_eq!(ApiKey::FETCH.is_enabled(), cfg!(feature = "Fetch"));
    assert_eq!(ApiKey::METADATA.is_enabled(), cfg!(feature = "Metadata"));
    assert_eq!(
        ApiKey::API_VERSIONS.is_enabled(),
        cfg!(feature = "ApiVersions")
    );
    assert_eq!(
        ApiKey::DESCRIBE_USER_SCRAM_CREDENTIALS.is_enabled(),
        cfg!(feature = "DescribeUserScramCredentials")
    );
    let enabled = ApiKey::all().filter(|k| k.is_enabled()).count();
    if cfg!(feature = "all-apis") {
        assert_eq!(enabled, ApiKey::all().count());
    } else {
        assert!(enabled < ApiKey::all().count());
    }
    assert!(!ApiKey(-1).is_enabled());
    assert!(!ApiKey(i16::MAX).is_enabled());
}

/// With an empty body, an enabled API fails inside its body (or decodes an empty one), a
/// disabled one with `ApiNotEnabled`, and a key without versions with `UnknownApiKey`.
#[test]
fn by_key_decoders_name_disabled_apis() {
    for key in ApiKey::all().chain([ApiKey(-1), ApiKey(i16::MAX)]) {
        let live = !key.request_versions().is_empty();
        for (side, result) in [
            (
                "request",
                Request::decode(&mut Reader::new(&[]), key, key.request_versions().max)
                    .map(|b| b.api_key()),
            ),
            (
                "response",
                Response::decode(&mut Reader::new(&[]), key, key.response_versions().max)
                    .map(|b| b.api_key()),
            ),
        ] {
            match (live, key.is_enabled()) {
                (true, true) => match result {
                    Ok(decoded) => assert_eq!(decoded, key),
                    Err(e) => assert!(
                        !matches!(
                            e.kind,
                            DecodeErrorKind::ApiNotEnabled(_) | DecodeErrorKind::UnknownApiKey(_)
                        ),
                        "{key:?} {side}: {e}"
                    ),
                },
                (true, false) => {
                    let e = result.unwrap_err();
                    assert_eq!(e.kind, DecodeErrorKind::ApiNotEnabled(key), "{side}");
                    assert_eq!((e.offset, e.path.is_empty()), (0, false), "{side}");
                }
                (false, _) => assert_eq!(
                    result.unwrap_err().kind,
                    DecodeErrorKind::UnknownApiKey(key),
                    "{key:?} {side}"
                ),
            }
        }
    }
}

/// A whole request frame of a disabled API is rejected after its header, at the body's offset.
#[test]
fn request_frames_of_disabled_apis() {
    // Fetch v4: replica id, max wait, min bytes, max bytes, isolation level, no topics.
    let frame_bytes = request_frame(ApiKey::FETCH, 4, &[0; 21]);
    match frame::decode_request(&frame_bytes) {
        Ok((header, body)) => {
            assert!(ApiKey::FETCH.is_enabled());
            assert_eq!(header.correlation_id, 7);
            assert_eq!(body.api_key(), ApiKey::FETCH);
        }
        Err(e) if ApiKey::FETCH.is_enabled() => panic!("{e}"),
        Err(e) => {
            assert_eq!(e.kind, DecodeErrorKind::ApiNotEnabled(ApiKey::FETCH));
            // Size prefix (4) and header v1 (2 + 2 + 4 + 2).
            assert_eq!(e.offset, 14);
        }
    }
}

/// An enabled API round-trips through the frame functions whatever else is left out.
#[cfg(feature = "Produce")]
#[test]
fn enabled_api_round_trips() {
    use kwire::messages::{ProduceRequest, RequestHeader};

    let body = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(1500);
    let header = RequestHeader::default()
        .with_request_api_key(ApiKey::PRODUCE.0)
        .with_request_api_version(9)
        .with_correlation_id(11)
        .with_client_id(Some("feature-test"));
    let mut out = [0_u8; 128];
    let n = frame::encode_request(&header, &Request::from(body), &mut out).unwrap();
    let (decoded_header, decoded) = frame::decode_request(&out[..n]).unwrap();
    assert_eq!(decoded_header, header);
    assert_eq!(decoded, Request::Produce(body));
}
