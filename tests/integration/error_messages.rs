//! Errors read without the source: API names beside keys, the versions there are, CRCs in one
//! radix.

use kwire::codec::Reader;
use kwire::messages::{FetchRequest, RequestHeader};
use kwire::{ApiKey, DecodeErrorKind, EncodeError, Request, frame};

#[test]
fn versions_and_keys_are_named() {
    let err = Request::decode(&mut Reader::new(&[]), ApiKey::FETCH, 99).unwrap_err();
    assert_eq!(
        err.kind.to_string(),
        format!(
            "Fetch (1) has no version 99 (versions {})",
            ApiKey::FETCH.request_versions()
        )
    );
    let err = Request::decode(&mut Reader::new(&[]), ApiKey(1000), 0).unwrap_err();
    assert_eq!(err.kind.to_string(), "unknown API key 1000");
    assert_eq!(
        DecodeErrorKind::ApiNotEnabled(ApiKey::SHARE_FETCH).to_string(),
        "ShareFetch (78) is not compiled in: its cargo feature `ShareFetch` is off"
    );

    let header = RequestHeader::new(ApiKey::METADATA, 12, 1);
    let err = frame::encode_request(&header, &FetchRequest::default(), &mut [0; 64]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the header names Metadata (3) but the body is Fetch (1)"
    );
    assert_eq!(
        EncodeError::UnsupportedVersion {
            api_key: ApiKey::METADATA,
            version: -1
        }
        .to_string(),
        format!(
            "Metadata (3) has no version -1 (versions {})",
            ApiKey::METADATA.request_versions()
        )
    );
}

#[test]
fn crcs_print_in_hex_both_ways() {
    let kind = DecodeErrorKind::CrcMismatch {
        stored: 0xdead_beef,
        computed: 0x0000_0001,
    };
    assert_eq!(
        kind.to_string(),
        "CRC mismatch: stored 0xdeadbeef, computed 0x00000001"
    );
    assert_eq!(
        format!("{kind:?}"),
        "CrcMismatch { stored: 0xdeadbeef, computed: 0x00000001 }"
    );
    // Every other kind prints as derived.
    assert_eq!(
        format!("{:?}", DecodeErrorKind::Truncated { needed: 3 }),
        "Truncated { needed: 3 }"
    );
    assert_eq!(
        format!("{:?}", DecodeErrorKind::UnknownApiKey(ApiKey::FETCH)),
        "UnknownApiKey(Fetch(1))"
    );
}

/// Bytes of one version read at another: the error says where the structure broke, and that
/// the version may be the wrong one. Errors outside a body, or not about its structure, do not.
#[test]
fn a_body_read_at_the_wrong_version_hints_at_the_version() {
    use kwire::messages::fetch_response::{
        AbortedTransaction, FetchableTopicResponse, PartitionData,
    };
    use kwire::messages::{FetchResponse, ResponseHeader};

    let aborted = [AbortedTransaction::default().with_producer_id(7)];
    let partitions =
        [PartitionData::default().with_aborted_transactions(Some((&aborted[..]).into()))];
    let topics = [FetchableTopicResponse::default()
        .with_topic_id(kwire::codec::Uuid::from_u128(1))
        .with_partitions(&partitions)];
    let body = FetchResponse::default().with_responses(&topics);
    let header = ResponseHeader::default().with_correlation_id(1);
    let mut buf = [0u8; 256];
    let n = frame::encode_response(&header, &body, 16, &mut buf).unwrap();
    let err = frame::decode_response_as::<FetchResponse<'_>>(&buf[..n], 12).unwrap_err();
    assert!(err.path.starts_with("FetchResponse"), "{err}");
    assert!(
        err.to_string().ends_with(
            "(were the bytes written at another version than the one they were read at?)"
        ),
        "{err}"
    );

    // A frame cut short says nothing of versions.
    let err = frame::decode_response_as::<FetchResponse<'_>>(&buf[..2], 16).unwrap_err();
    assert!(!err.to_string().contains("version"), "{err}");
}
