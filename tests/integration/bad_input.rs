//! Bad input: every proper prefix of several real frames fails with `Truncated` at the exact
//! offset of the item that could not be completed (computed from an independent field layout),
//! one whole typed error for each kind of malformed input, and the encode-side failures.
//! Nothing here may panic.

use kwire::codec::{
    Decode, Encode, RawTaggedField, Reader, TaggedFields, VersionRange, uvarint_len,
};
use kwire::frame::{self, decode_request, decode_response, encode_request, encode_response};
use kwire::messages::api_versions_request::ApiVersionsRequest;
use kwire::messages::fetch_request::{FetchRequest, ReplicaState};
use kwire::messages::heartbeat_request::HeartbeatRequest;
use kwire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire::messages::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire::messages::update_features_request::{FeatureUpdateKey, UpdateFeaturesRequest};
use kwire::messages::update_features_response::{UpdatableFeatureResult, UpdateFeaturesResponse};
use kwire::messages::{
    RenewDelegationTokenRequest, RenewDelegationTokenResponse, RequestHeader, ResponseHeader,
};
use kwire::{ApiKey, DecodeError, DecodeErrorKind, EncodeError, Request, Response, Status};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    assert_eq!(digits.len() % 2, 0, "odd hex literal");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn de(offset: usize, kind: DecodeErrorKind, path: &'static str) -> DecodeError {
    DecodeError::new(offset, kind, path)
}

fn trunc(offset: usize, needed: usize, path: &'static str) -> DecodeError {
    de(offset, DecodeErrorKind::Truncated { needed }, path)
}

fn encode_body<T: Encode>(body: &T, version: i16) -> Vec<u8> {
    let n = body.encoded_len(version).expect("encoded_len");
    let mut buf = vec![0xa5u8; n + 8];
    assert_eq!(body.encode(version, &mut buf), Ok(n));
    assert!(
        buf[n..].iter().all(|&b| b == 0xa5),
        "wrote past encoded_len"
    );
    buf.truncate(n);
    buf
}

fn request_frame<T: Encode + frame::Body>(header: &RequestHeader<'_>, body: &T) -> Vec<u8> {
    let mut buf = vec![0xa5u8; 4096];
    let n = encode_request(header, body, &mut buf).expect("encode_request");
    assert!(buf[n..].iter().all(|&b| b == 0xa5));
    buf.truncate(n);
    buf
}

fn response_frame<T: Encode + frame::Body>(
    header: &ResponseHeader<'_>,
    body: &T,
    version: i16,
) -> Vec<u8> {
    let mut buf = vec![0xa5u8; 4096];
    let n = encode_response(header, body, version, &mut buf).expect("encode_response");
    buf.truncate(n);
    buf
}

fn req_header(key: i16, version: i16, client_id: Option<&str>) -> RequestHeader<'_> {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(0x0102_0304)
        .with_client_id(client_id)
}

fn resp_header() -> ResponseHeader<'static> {
    ResponseHeader::default().with_correlation_id(0x0a0b_0c0d)
}

fn with_size(frame: &[u8], size: i32) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[..4].copy_from_slice(&size.to_be_bytes());
    f
}

// ---------------------------------------------------------------------------------------------
// An independent model of the field layout: the order, width and schema path of every item a
// decoder reads. From it, the exact error for any truncation point follows.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Item {
    /// A fixed-width read (integer, UUID, or the content bytes of a string/bytes).
    Fixed {
        at: usize,
        len: usize,
        path: &'static str,
    },
    /// A varint read (compact length, tagged-field count).
    Varint {
        at: usize,
        len: usize,
        path: &'static str,
    },
    /// The check that an array count does not exceed the bytes left (at the first element).
    Count {
        at: usize,
        n: usize,
        path: &'static str,
    },
}

#[derive(Debug, Default, Clone)]
struct Layout {
    items: Vec<Item>,
    pos: usize,
}

impl Layout {
    fn new() -> Self {
        Self::default()
    }

    fn fixed(&mut self, len: usize, path: &'static str) -> &mut Self {
        if len > 0 {
            self.items.push(Item::Fixed {
                at: self.pos,
                len,
                path,
            });
        }
        self.pos += len;
        self
    }

    fn varint_of(&mut self, value: u32, path: &'static str) -> &mut Self {
        let len = uvarint_len(value);
        self.items.push(Item::Varint {
            at: self.pos,
            len,
            path,
        });
        self.pos += len;
        self
    }

    fn int(&mut self, width: usize, path: &'static str) -> &mut Self {
        self.fixed(width, path)
    }

    fn string(&mut self, flexible: bool, len: usize, path: &'static str) -> &mut Self {
        if flexible {
            self.varint_of(len as u32 + 1, path);
        } else {
            self.fixed(2, path);
        }
        self.fixed(len, path)
    }

    fn null(&mut self, flexible: bool, short: bool, path: &'static str) -> &mut Self {
        if flexible {
            self.varint_of(0, path)
        } else if short {
            self.fixed(2, path)
        } else {
            self.fixed(4, path)
        }
    }

    fn bytes(&mut self, flexible: bool, len: usize, path: &'static str) -> &mut Self {
        if flexible {
            self.varint_of(len as u32 + 1, path);
        } else {
            self.fixed(4, path);
        }
        self.fixed(len, path)
    }

    fn array(&mut self, flexible: bool, n: usize, path: &'static str) -> &mut Self {
        if flexible {
            self.varint_of(n as u32 + 1, path);
        } else {
            self.fixed(4, path);
        }
        self.items.push(Item::Count {
            at: self.pos,
            n,
            path,
        });
        self
    }

    /// An empty tagged-field section.
    fn tags(&mut self, path: &'static str) -> &mut Self {
        self.varint_of(0, path)
    }

    fn append(&mut self, other: &Layout) -> &mut Self {
        let base = self.pos;
        for it in &other.items {
            self.items.push(match *it {
                Item::Fixed { at, len, path } => Item::Fixed {
                    at: at + base,
                    len,
                    path,
                },
                Item::Varint { at, len, path } => Item::Varint {
                    at: at + base,
                    len,
                    path,
                },
                Item::Count { at, n, path } => Item::Count {
                    at: at + base,
                    n,
                    path,
                },
            });
        }
        self.pos += other.pos;
        self
    }

    /// The error decoding must report when the input stops after `p` bytes (None: complete).
    fn expected(&self, p: usize) -> Option<DecodeError> {
        for it in &self.items {
            match *it {
                Item::Fixed { at, len, path } if p < at + len => {
                    return Some(trunc(at, at + len - p, path));
                }
                Item::Varint { at, len, path } if p < at + len => return Some(trunc(at, 1, path)),
                Item::Count { at, n, path } if p - at < n => {
                    return Some(trunc(at, n - (p - at), path));
                }
                _ => {}
            }
        }
        None
    }

    /// Sanity of the model itself: contiguous items covering `len` bytes.
    fn check_covers(&self, len: usize) {
        assert_eq!(self.pos, len, "layout size");
        let mut cur = self.items.first().map_or(0, |it| match *it {
            Item::Fixed { at, .. } | Item::Varint { at, .. } | Item::Count { at, .. } => at,
        });
        for it in &self.items {
            match *it {
                Item::Fixed { at, len, .. } | Item::Varint { at, len, .. } => {
                    assert_eq!(at, cur, "gap in layout before {it:?}");
                    cur += len;
                }
                Item::Count { at, .. } => assert_eq!(at, cur, "gap in layout before {it:?}"),
            }
        }
        assert_eq!(cur, len);
    }
}

fn request_header_layout(version: i16, client_id_len: usize) -> Layout {
    let mut l = Layout::new();
    l.int(2, "RequestHeader.RequestApiKey")
        .int(2, "RequestHeader.RequestApiVersion")
        .int(4, "RequestHeader.CorrelationId")
        .string(false, client_id_len, "RequestHeader.ClientId");
    if version >= 2 {
        l.tags("RequestHeader.tagged_fields");
    }
    l
}

fn response_header_layout(version: i16) -> Layout {
    let mut l = Layout::new();
    l.int(4, "ResponseHeader.CorrelationId");
    if version >= 1 {
        l.tags("ResponseHeader.tagged_fields");
    }
    l
}

fn frame_layout(header: &Layout, body: &Layout) -> Layout {
    let mut l = Layout::new();
    l.int(4, "Frame.size").append(header).append(body);
    l
}

/// Every proper prefix of `body` fails as the layout predicts, through `decode_exact`, through
/// `decode` on a reader at a non-zero base offset, and the whole body decodes to `value`.
fn check_body_prefixes<'a, T>(body: &'a [u8], version: i16, layout: &Layout, value: &T)
where
    T: Decode<'a> + PartialEq + std::fmt::Debug,
{
    layout.check_covers(body.len());
    for p in 0..body.len() {
        let expected = layout
            .expected(p)
            .expect("proper prefix must be incomplete");
        let got = T::decode_exact(&body[..p], version).expect_err("proper prefix decoded");
        assert_eq!(
            got,
            expected,
            "decode_exact of {p}-byte prefix of {}",
            T::PATH
        );
        assert!(got.offset <= p);
        let mut r = Reader::with_offset(&body[..p], 1000);
        let got = T::decode(&mut r, version).expect_err("proper prefix decoded");
        assert_eq!(
            got,
            DecodeError {
                offset: expected.offset + 1000,
                ..expected
            },
            "decode at base 1000, prefix {p}"
        );
    }
    assert_eq!(layout.expected(body.len()), None);
    let decoded = T::decode_exact(body, version).expect("whole body");
    assert_eq!(&decoded, value);
}

/// Every proper prefix of a request frame fails: as is (the size prefix then promises more than
/// is there), and with the size prefix patched to the prefix length (the header or body is then
/// cut short at the item the layout predicts).
fn check_request_frame_prefixes(frame: &[u8], layout: &Layout) {
    layout.check_covers(frame.len());
    let total = frame.len();
    assert!(decode_request(frame).is_ok());
    for p in 0..total {
        let got = decode_request(&frame[..p]).expect_err("prefix decoded");
        let expected = if p < 4 {
            trunc(0, 4 - p, "Frame.size")
        } else {
            trunc(4, total - p, "Frame")
        };
        assert_eq!(got, expected, "unpatched request frame prefix {p}");
        assert_eq!(
            frame::split(&frame[..p], 1 << 20),
            Ok(Status::Incomplete {
                needed: if p < 4 { 4 - p } else { total - p }
            })
        );
        if p >= 4 {
            let patched = with_size(&frame[..p], (p - 4) as i32);
            let got = decode_request(&patched).expect_err("patched prefix decoded");
            assert_eq!(
                Some(got),
                layout.expected(p),
                "patched request frame prefix {p}"
            );
        }
    }
    assert_eq!(frame::split(frame, 1 << 20), Ok(Status::Complete(frame)));
}

fn check_response_frame_prefixes(frame: &[u8], key: ApiKey, version: i16, layout: &Layout) {
    layout.check_covers(frame.len());
    let total = frame.len();
    assert!(decode_response(frame, key, version).is_ok());
    for p in 0..total {
        let got = decode_response(&frame[..p], key, version).expect_err("prefix decoded");
        let expected = if p < 4 {
            trunc(0, 4 - p, "Frame.size")
        } else {
            trunc(4, total - p, "Frame")
        };
        assert_eq!(got, expected, "unpatched response frame prefix {p}");
        if p >= 4 {
            let patched = with_size(&frame[..p], (p - 4) as i32);
            let got = decode_response(&patched, key, version).expect_err("patched prefix decoded");
            assert_eq!(
                Some(got),
                layout.expected(p),
                "patched response frame prefix {p}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sample frames
// ---------------------------------------------------------------------------------------------

const HMAC: &[u8] = b"\x01\x02\x03";

fn renew_request() -> RenewDelegationTokenRequest<'static> {
    RenewDelegationTokenRequest::default()
        .with_hmac(HMAC)
        .with_renew_period_ms(86_400_000)
}

fn renew_layout(version: i16) -> Layout {
    let flexible = version >= 2;
    let mut l = Layout::new();
    l.bytes(flexible, HMAC.len(), "RenewDelegationTokenRequest.Hmac")
        .int(8, "RenewDelegationTokenRequest.RenewPeriodMs");
    if flexible {
        l.tags("RenewDelegationTokenRequest.tagged_fields");
    }
    l
}

fn feature_updates() -> [FeatureUpdateKey<'static>; 2] {
    [
        FeatureUpdateKey::default()
            .with_feature("metadata.version")
            .with_max_version_level(20)
            .with_upgrade_type(1),
        FeatureUpdateKey::default()
            .with_feature("kraft.version")
            .with_max_version_level(1)
            .with_upgrade_type(2),
    ]
}

fn update_features_layout(updates: &[FeatureUpdateKey<'_>]) -> Layout {
    let mut l = Layout::new();
    l.int(4, "UpdateFeaturesRequest.timeoutMs").array(
        true,
        updates.len(),
        "UpdateFeaturesRequest.FeatureUpdates",
    );
    for u in updates {
        l.string(
            true,
            u.feature.len(),
            "UpdateFeaturesRequest.FeatureUpdates.Feature",
        )
        .int(2, "UpdateFeaturesRequest.FeatureUpdates.MaxVersionLevel")
        .int(1, "UpdateFeaturesRequest.FeatureUpdates.UpgradeType")
        .tags("UpdateFeaturesRequest.FeatureUpdates.tagged_fields");
    }
    l.int(1, "UpdateFeaturesRequest.ValidateOnly")
        .tags("UpdateFeaturesRequest.tagged_fields");
    l
}

const REPLICAS: [i32; 3] = [1, 2, 3];
const ISR: [i32; 2] = [1, 3];
const TOPIC_ID: [u8; 16] = [
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
];

fn metadata_partitions() -> [MetadataResponsePartition<'static>; 2] {
    [
        MetadataResponsePartition::default()
            .with_partition_index(0)
            .with_leader_id(1)
            .with_leader_epoch(7)
            .with_replica_nodes(&REPLICAS)
            .with_isr_nodes(&ISR),
        MetadataResponsePartition::default()
            .with_error_code(5)
            .with_partition_index(1)
            .with_leader_id(-1)
            .with_leader_epoch(-1)
            .with_replica_nodes(&ISR),
    ]
}

fn metadata_brokers() -> [MetadataResponseBroker<'static>; 1] {
    [MetadataResponseBroker::default()
        .with_node_id(1)
        .with_host("broker-1.example")
        .with_port(9092)
        .with_rack(Some("r1"))]
}

fn metadata_topic<'a>(
    partitions: &'a [MetadataResponsePartition<'a>],
) -> MetadataResponseTopic<'a> {
    MetadataResponseTopic::default()
        .with_name(Some("orders"))
        .with_topic_id(kwire::codec::Uuid(TOPIC_ID))
        .with_partitions(partitions)
        .with_topic_authorized_operations(0x0f)
}

fn metadata_response_layout() -> Layout {
    let mut l = Layout::new();
    l.int(4, "MetadataResponse.ThrottleTimeMs")
        .array(true, 1, "MetadataResponse.Brokers")
        .int(4, "MetadataResponse.Brokers.NodeId")
        .string(
            true,
            "broker-1.example".len(),
            "MetadataResponse.Brokers.Host",
        )
        .int(4, "MetadataResponse.Brokers.Port")
        .string(true, 2, "MetadataResponse.Brokers.Rack")
        .tags("MetadataResponse.Brokers.tagged_fields")
        .string(true, "cluster-a".len(), "MetadataResponse.ClusterId")
        .int(4, "MetadataResponse.ControllerId")
        .array(true, 1, "MetadataResponse.Topics")
        .int(2, "MetadataResponse.Topics.ErrorCode")
        .string(true, "orders".len(), "MetadataResponse.Topics.Name")
        .int(16, "MetadataResponse.Topics.TopicId")
        .int(1, "MetadataResponse.Topics.IsInternal")
        .array(true, 2, "MetadataResponse.Topics.Partitions");
    for (replicas, isr) in [(3, 2), (2, 0)] {
        l.int(2, "MetadataResponse.Topics.Partitions.ErrorCode")
            .int(4, "MetadataResponse.Topics.Partitions.PartitionIndex")
            .int(4, "MetadataResponse.Topics.Partitions.LeaderId")
            .int(4, "MetadataResponse.Topics.Partitions.LeaderEpoch")
            .array(
                true,
                replicas,
                "MetadataResponse.Topics.Partitions.ReplicaNodes",
            );
        for _ in 0..replicas {
            l.int(4, "MetadataResponse.Topics.Partitions.ReplicaNodes");
        }
        l.array(true, isr, "MetadataResponse.Topics.Partitions.IsrNodes");
        for _ in 0..isr {
            l.int(4, "MetadataResponse.Topics.Partitions.IsrNodes");
        }
        l.array(
            true,
            0,
            "MetadataResponse.Topics.Partitions.OfflineReplicas",
        )
        .tags("MetadataResponse.Topics.Partitions.tagged_fields");
    }
    l.int(4, "MetadataResponse.Topics.TopicAuthorizedOperations")
        .tags("MetadataResponse.Topics.tagged_fields")
        .tags("MetadataResponse.tagged_fields");
    l
}

// ---------------------------------------------------------------------------------------------
// Every proper prefix
// ---------------------------------------------------------------------------------------------

#[test]
fn renew_delegation_token_v2_request_prefixes() {
    let body = renew_request();
    let bytes = encode_body(&body, 2);
    assert_eq!(bytes, hex("04 010203 0000000005265c00 00"));
    let layout = renew_layout(2);
    check_body_prefixes(&bytes, 2, &layout, &body);

    // Hand-computed: the offset is the start of the item that could not be completed.
    type R<'a> = RenewDelegationTokenRequest<'a>;
    const HMAC_PATH: &str = "RenewDelegationTokenRequest.Hmac";
    const PERIOD: &str = "RenewDelegationTokenRequest.RenewPeriodMs";
    assert_eq!(R::decode_exact(&bytes[..0], 2), Err(trunc(0, 1, HMAC_PATH)));
    assert_eq!(R::decode_exact(&bytes[..2], 2), Err(trunc(1, 2, HMAC_PATH)));
    assert_eq!(R::decode_exact(&bytes[..4], 2), Err(trunc(4, 8, PERIOD)));
    assert_eq!(R::decode_exact(&bytes[..11], 2), Err(trunc(4, 1, PERIOD)));
    assert_eq!(
        R::decode_exact(&bytes[..12], 2),
        Err(trunc(12, 1, "RenewDelegationTokenRequest.tagged_fields"))
    );

    let header = req_header(39, 2, Some("cli"));
    let frame = request_frame(&header, &body);
    let fl = frame_layout(&request_header_layout(2, 3), &layout);
    check_request_frame_prefixes(&frame, &fl);
    // Hand-computed on the whole frame: header is 4+2+2+4+2+3+1 = 18 bytes, body starts there.
    let patched = with_size(&frame[..20], 16);
    assert_eq!(decode_request(&patched), Err(trunc(19, 2, HMAC_PATH)));
    let patched = with_size(&frame[..13], 9);
    assert_eq!(
        decode_request(&patched),
        Err(trunc(12, 1, "RequestHeader.ClientId"))
    );
    let patched = with_size(&frame[..5], 1);
    assert_eq!(
        decode_request(&patched),
        Err(trunc(4, 1, "RequestHeader.RequestApiKey"))
    );
}

#[test]
fn renew_delegation_token_v1_request_prefixes() {
    let body = renew_request();
    let bytes = encode_body(&body, 1);
    assert_eq!(bytes, hex("00000003 010203 0000000005265c00"));
    let layout = renew_layout(1);
    check_body_prefixes(&bytes, 1, &layout, &body);
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&bytes[..3], 1),
        Err(trunc(0, 1, "RenewDelegationTokenRequest.Hmac"))
    );
    let header = req_header(39, 1, Some(""));
    let frame = request_frame(&header, &body);
    check_request_frame_prefixes(&frame, &frame_layout(&request_header_layout(1, 0), &layout));
}

#[test]
fn renew_delegation_token_v2_response_prefixes() {
    let body = RenewDelegationTokenResponse::default()
        .with_error_code(58)
        .with_expiry_timestamp_ms(1_700_000_000_000)
        .with_throttle_time_ms(3);
    let bytes = encode_body(&body, 2);
    let mut layout = Layout::new();
    layout
        .int(2, "RenewDelegationTokenResponse.ErrorCode")
        .int(8, "RenewDelegationTokenResponse.ExpiryTimestampMs")
        .int(4, "RenewDelegationTokenResponse.ThrottleTimeMs")
        .tags("RenewDelegationTokenResponse.tagged_fields");
    check_body_prefixes(&bytes, 2, &layout, &body);
    let frame = response_frame(&resp_header(), &body, 2);
    check_response_frame_prefixes(
        &frame,
        ApiKey(39),
        2,
        &frame_layout(&response_header_layout(1), &layout),
    );
}

#[test]
fn update_features_v2_request_prefixes() {
    let updates = feature_updates();
    let body = UpdateFeaturesRequest::default()
        .with_timeout_ms(30_000)
        .with_feature_updates(&updates)
        .with_validate_only(true);
    let bytes = encode_body(&body, 2);
    let mut expected = hex("00007530 03");
    expected.push(17);
    expected.extend_from_slice(b"metadata.version");
    expected.extend_from_slice(&hex("0014 01 00"));
    expected.push(14);
    expected.extend_from_slice(b"kraft.version");
    expected.extend_from_slice(&hex("0001 02 00 01 00"));
    assert_eq!(bytes, expected);
    let layout = update_features_layout(&updates);
    check_body_prefixes(&bytes, 2, &layout, &body);

    type U<'a> = UpdateFeaturesRequest<'a>;
    const UPDATES: &str = "UpdateFeaturesRequest.FeatureUpdates";
    assert_eq!(U::decode_exact(&bytes[..4], 2), Err(trunc(4, 1, UPDATES)));
    // The count (2) is checked against the bytes left before any element is read.
    assert_eq!(U::decode_exact(&bytes[..5], 2), Err(trunc(5, 2, UPDATES)));
    assert_eq!(U::decode_exact(&bytes[..6], 2), Err(trunc(5, 1, UPDATES)));
    assert_eq!(
        U::decode_exact(&bytes[..7], 2),
        Err(trunc(6, 15, "UpdateFeaturesRequest.FeatureUpdates.Feature"))
    );
    assert_eq!(
        U::decode_exact(&bytes[..23], 2),
        Err(trunc(
            22,
            1,
            "UpdateFeaturesRequest.FeatureUpdates.MaxVersionLevel"
        ))
    );
    assert_eq!(
        U::decode_exact(&bytes[..24], 2),
        Err(trunc(
            24,
            1,
            "UpdateFeaturesRequest.FeatureUpdates.UpgradeType"
        ))
    );

    let header = req_header(57, 2, Some("admin"));
    let frame = request_frame(&header, &body);
    check_request_frame_prefixes(&frame, &frame_layout(&request_header_layout(2, 5), &layout));
    let (h, decoded) = decode_request(&frame).unwrap();
    assert_eq!(h, header);
    assert_eq!(decoded, Request::UpdateFeatures(body));
}

#[test]
fn metadata_v12_response_prefixes() {
    let partitions = metadata_partitions();
    let brokers = metadata_brokers();
    let topics = [metadata_topic(&partitions)];
    let body = MetadataResponse::default()
        .with_throttle_time_ms(0)
        .with_brokers(&brokers)
        .with_cluster_id(Some("cluster-a"))
        .with_controller_id(1)
        .with_topics(&topics);
    let bytes = encode_body(&body, 12);
    let layout = metadata_response_layout();
    check_body_prefixes(&bytes, 12, &layout, &body);

    // Hand-computed: brokers start at 4 (count) / 5 (first NodeId).
    type M<'a> = MetadataResponse<'a>;
    assert_eq!(
        M::decode_exact(&bytes[..5], 12),
        Err(trunc(5, 1, "MetadataResponse.Brokers"))
    );
    assert_eq!(
        M::decode_exact(&bytes[..7], 12),
        Err(trunc(5, 2, "MetadataResponse.Brokers.NodeId"))
    );

    let frame = response_frame(&resp_header(), &body, 12);
    check_response_frame_prefixes(
        &frame,
        ApiKey(3),
        12,
        &frame_layout(&response_header_layout(1), &layout),
    );
    let (h, decoded) = decode_response(&frame, ApiKey(3), 12).unwrap();
    assert_eq!(h.correlation_id, 0x0a0b_0c0d);
    assert_eq!(decoded, Response::Metadata(body));
}

#[test]
fn api_versions_v3_request_worked_example() {
    let body = ApiVersionsRequest::default()
        .with_client_software_name("kcodec")
        .with_client_software_version("0.1");
    let header = RequestHeader::default()
        .with_request_api_key(18)
        .with_request_api_version(3)
        .with_correlation_id(1)
        .with_client_id(Some("c"));
    let frame = request_frame(&header, &body);
    assert_eq!(
        frame,
        hex("00000018 0012 0003 00000001 0001 63 00 07 6b636f646563 04 302e31 00")
    );
    let mut layout = Layout::new();
    layout
        .string(true, 6, "ApiVersionsRequest.ClientSoftwareName")
        .string(true, 3, "ApiVersionsRequest.ClientSoftwareVersion")
        .tags("ApiVersionsRequest.tagged_fields");
    check_body_prefixes(&frame[16..], 3, &layout, &body);
    check_request_frame_prefixes(&frame, &frame_layout(&request_header_layout(2, 1), &layout));
    assert_eq!(
        decode_request(&with_size(&frame[..16], 12)),
        Err(trunc(16, 1, "ApiVersionsRequest.ClientSoftwareName"))
    );
    assert_eq!(
        decode_request(&with_size(&frame[..17], 13)),
        Err(trunc(17, 6, "ApiVersionsRequest.ClientSoftwareName"))
    );
    assert_eq!(
        decode_request(&with_size(&frame[..20], 16)),
        Err(trunc(17, 3, "ApiVersionsRequest.ClientSoftwareName"))
    );
}

#[test]
fn metadata_v8_request_prefixes() {
    let topics = [
        MetadataRequestTopic::default().with_name(Some("orders")),
        MetadataRequestTopic::default().with_name(Some("")),
        MetadataRequestTopic::default().with_name(Some("payments")),
    ];
    let body = MetadataRequest::default()
        .with_topics(&topics)
        .with_allow_auto_topic_creation(false)
        .with_include_topic_authorized_operations(true);
    let bytes = encode_body(&body, 8);
    let mut expected = hex("00000003 0006");
    expected.extend_from_slice(b"orders");
    expected.extend_from_slice(&hex("0000 0008"));
    expected.extend_from_slice(b"payments");
    expected.extend_from_slice(&hex("00 00 01"));
    assert_eq!(bytes, expected);
    let mut layout = Layout::new();
    layout.array(false, 3, "MetadataRequest.Topics");
    for len in [6, 0, 8] {
        layout.string(false, len, "MetadataRequest.Topics.Name");
    }
    layout
        .int(1, "MetadataRequest.AllowAutoTopicCreation")
        .int(1, "MetadataRequest.IncludeClusterAuthorizedOperations")
        .int(1, "MetadataRequest.IncludeTopicAuthorizedOperations");
    check_body_prefixes(&bytes, 8, &layout, &body);
    assert_eq!(
        MetadataRequest::decode_exact(&bytes[..4], 8),
        Err(trunc(4, 3, "MetadataRequest.Topics"))
    );
    assert_eq!(
        MetadataRequest::decode_exact(&bytes[..9], 8),
        Err(trunc(6, 3, "MetadataRequest.Topics.Name"))
    );
    let header = req_header(3, 8, None);
    let frame = request_frame(&header, &body);
    check_request_frame_prefixes(&frame, &frame_layout(&request_header_layout(1, 0), &layout));

    // A null topic list (all topics).
    let all = MetadataRequest::default().with_topics(None);
    let bytes = encode_body(&all, 8);
    assert_eq!(bytes, hex("ffffffff 01 00 00"));
    let mut layout = Layout::new();
    layout
        .null(false, false, "MetadataRequest.Topics")
        .int(1, "MetadataRequest.AllowAutoTopicCreation")
        .int(1, "MetadataRequest.IncludeClusterAuthorizedOperations")
        .int(1, "MetadataRequest.IncludeTopicAuthorizedOperations");
    check_body_prefixes(&bytes, 8, &layout, &all);
}

// ---------------------------------------------------------------------------------------------
// One case per error kind, with the whole typed error
// ---------------------------------------------------------------------------------------------

/// A request frame around raw body bytes, with the header version the API key and version call
/// for and client id "cli" (the body starts at 17 with header v1, 18 with header v2).
fn raw_request(key: i16, version: i16, body: &[u8]) -> Vec<u8> {
    let header = req_header(key, version, Some("cli"));
    let hv = kwire::header::request_header_version(ApiKey(key), version);
    let h = encode_body(&header, hv);
    let mut f = ((h.len() + body.len()) as i32).to_be_bytes().to_vec();
    f.extend_from_slice(&h);
    f.extend_from_slice(body);
    f
}

const NAME: &str = "MetadataRequest.Topics.Name";

#[test]
fn negative_length_on_a_non_nullable_string() {
    let body = hex("00000001 fffe 00 00 00");
    let expected = de(4, DecodeErrorKind::NegativeLength(-2), NAME);
    assert_eq!(MetadataRequest::decode_exact(&body, 8), Err(expected));
    let f = raw_request(3, 8, &body);
    assert_eq!(
        decode_request(&f),
        Err(de(17 + 4, DecodeErrorKind::NegativeLength(-2), NAME))
    );
    // i16::MIN is negative too.
    let body = hex("00000001 8000 00 00 00");
    assert_eq!(
        MetadataRequest::decode_exact(&body, 8),
        Err(de(4, DecodeErrorKind::NegativeLength(-32_768), NAME))
    );
    // Compact: N+1 = 0xffffffff gives N = -2 (Java int arithmetic).
    let body = hex("00000000 02 ffffffff0f 0000 00 00 00 00");
    assert_eq!(
        UpdateFeaturesRequest::decode_exact(&body, 2),
        Err(de(
            5,
            DecodeErrorKind::NegativeLength(-2),
            "UpdateFeaturesRequest.FeatureUpdates.Feature"
        ))
    );
    // Non-nullable bytes.
    let body = hex("fffffffb 0000000000000000");
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&body, 1),
        Err(de(
            0,
            DecodeErrorKind::NegativeLength(-5),
            "RenewDelegationTokenRequest.Hmac"
        ))
    );
}

#[test]
fn minus_one_on_a_non_nullable_string_is_unexpected_null() {
    let body = hex("00000001 ffff 00 00 00");
    assert_eq!(
        MetadataRequest::decode_exact(&body, 8),
        Err(de(4, DecodeErrorKind::UnexpectedNull, NAME))
    );
    let f = raw_request(3, 8, &body);
    assert_eq!(
        decode_request(&f),
        Err(de(21, DecodeErrorKind::UnexpectedNull, NAME))
    );
    // Compact null (00) for a non-nullable compact string.
    let body = hex("00000000 02 00 0000 00 00 00 00");
    assert_eq!(
        UpdateFeaturesRequest::decode_exact(&body, 2),
        Err(de(
            5,
            DecodeErrorKind::UnexpectedNull,
            "UpdateFeaturesRequest.FeatureUpdates.Feature"
        ))
    );
    // A non-nullable array (FeatureUpdates) read as null.
    let body = hex("00000000 00 00 00");
    assert_eq!(
        UpdateFeaturesRequest::decode_exact(&body, 2),
        Err(de(
            4,
            DecodeErrorKind::UnexpectedNull,
            "UpdateFeaturesRequest.FeatureUpdates"
        ))
    );
    // The same bytes are fine where the field is nullable (Name is nullable from v10).
    let topic_null_name = hex("02 00000000000000000000000000000000 00 00 01 00 00 00");
    let decoded = MetadataRequest::decode_exact(&topic_null_name, 10).unwrap();
    let names: Vec<_> = decoded.topics.unwrap().iter().map(|t| t.name).collect();
    assert_eq!(names, [None]);
}

#[test]
fn length_past_the_end_is_truncated() {
    let body = hex("00000001 000a 616263");
    assert_eq!(
        MetadataRequest::decode_exact(&body, 8),
        Err(trunc(6, 7, NAME))
    );
    let f = raw_request(3, 8, &body);
    assert_eq!(decode_request(&f), Err(trunc(23, 7, NAME)));
    let body = hex("7fffffff 01 02");
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&body, 1),
        Err(trunc(
            4,
            0x7fff_ffff - 2,
            "RenewDelegationTokenRequest.Hmac"
        ))
    );
}

#[test]
fn huge_array_counts_fail_before_reading_elements() {
    let body = hex("7fffffff 00");
    assert_eq!(
        MetadataRequest::decode_exact(&body, 8),
        Err(trunc(4, 0x7fff_ffff - 1, "MetadataRequest.Topics"))
    );
    let f = raw_request(3, 8, &body);
    assert_eq!(
        decode_request(&f),
        Err(trunc(21, 0x7fff_ffff - 1, "MetadataRequest.Topics"))
    );
    // Compact count N+1 = 0x7fffffff.
    let body = hex("00000000 ffffffff07 00");
    assert_eq!(
        UpdateFeaturesRequest::decode_exact(&body, 2),
        Err(trunc(
            9,
            0x7fff_fffe - 1,
            "UpdateFeaturesRequest.FeatureUpdates"
        ))
    );
    // Compact count N+1 = 0x80000000: N would be i32::MAX.
    let body = hex("00000000 8080808008 00");
    assert_eq!(
        UpdateFeaturesRequest::decode_exact(&body, 2),
        Err(de(
            4,
            DecodeErrorKind::LengthTooLarge {
                length: 0x7fff_ffff,
                limit: 0x7fff_fffe
            },
            "UpdateFeaturesRequest.FeatureUpdates"
        ))
    );
    // A huge tagged-field count.
    let body = hex("01 0000000000000000 ffffffff0f");
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&body, 2),
        Err(trunc(
            14,
            2 * 0xffff_ffff_usize,
            "RenewDelegationTokenRequest.tagged_fields"
        ))
    );
}

#[test]
fn strings_that_are_not_utf8_decode_and_are_refused_when_checked() {
    // UpdateFeatures v2: timeout, one update (feature "\xc3(", max version level, upgrade type,
    // tagged fields), validate only, tagged fields.
    let body = hex("00000000 02 03 c328 0000 00 00 00 00");
    // The decode takes the bytes as they are: `to_str` is where they are checked.
    let decoded = UpdateFeaturesRequest::decode_exact(&body, 2).unwrap();
    let feature = decoded.feature_updates.iter().next().unwrap().feature;
    assert_eq!(feature.as_bytes(), [0xc3, 0x28]);
    assert_eq!(feature.to_str().map_err(|e| e.valid_up_to()), Err(0));
    assert_eq!(feature.to_string(), r"\xc3(");
    let f = raw_request(57, 2, &body);
    let (_, request) = decode_request(&f).unwrap();
    assert_eq!(request, Request::UpdateFeatures(decoded));
    // Re-encoded as it was read.
    let mut out = vec![0u8; f.len()];
    let (header, _) = decode_request(&f).unwrap();
    assert_eq!(encode_request(&header, &request, &mut out), Ok(f.len()));
    assert_eq!(out, f);
    // A reader checking UTF-8 refuses them, at the first byte of the string.
    assert_eq!(
        UpdateFeaturesRequest::decode(&mut Reader::new(&body).checking_utf8(), 2),
        Err(de(
            6,
            DecodeErrorKind::InvalidUtf8,
            "UpdateFeaturesRequest.FeatureUpdates.Feature"
        ))
    );
    // In the header's client id.
    let mut f = raw_request(39, 2, &hex("01 0000000000000000 00"));
    f[15] = 0xff;
    let (header, _) = decode_request(&f).unwrap();
    let client_id = header.client_id.unwrap();
    assert_eq!(client_id.as_bytes(), b"c\xffi");
    assert_eq!(format!("{client_id:?}"), r#""c\xffi""#);
    assert_eq!(
        frame::request_info(&f).map(|i| i.client_id),
        Ok(Some(client_id))
    );
    assert_eq!(
        RequestHeader::decode(&mut Reader::with_offset(&f[4..], 4).checking_utf8(), 2),
        Err(de(
            14,
            DecodeErrorKind::InvalidUtf8,
            "RequestHeader.ClientId"
        ))
    );
}

#[test]
fn unknown_api_keys() {
    for key in [999i16, 95, -1, 96, 1000] {
        let f = raw_request(key, 1, &[]);
        assert_eq!(
            decode_request(&f),
            Err(de(
                4,
                DecodeErrorKind::UnknownApiKey(ApiKey(key)),
                "RequestHeader.RequestApiKey"
            )),
            "key {key}"
        );
    }
    let mut r = Reader::with_offset(&[], 50);
    assert_eq!(
        Request::decode(&mut r, ApiKey(999), 0),
        Err(de(
            50,
            DecodeErrorKind::UnknownApiKey(ApiKey(999)),
            "Request"
        ))
    );
    let mut r = Reader::with_offset(&[], 50);
    assert_eq!(
        Response::decode(&mut r, ApiKey(999), 0),
        Err(de(
            50,
            DecodeErrorKind::UnknownApiKey(ApiKey(999)),
            "Response"
        ))
    );
    // A response to an unknown key: header v0, then the body fails.
    let f = hex("00000004 00000001");
    assert_eq!(
        decode_response(&f, ApiKey(999), 0),
        Err(de(
            8,
            DecodeErrorKind::UnknownApiKey(ApiKey(999)),
            "Response"
        ))
    );
}

#[test]
fn unsupported_versions() {
    let unsupported = |version| DecodeErrorKind::UnsupportedVersion {
        api_key: ApiKey(39),
        version,
    };
    let v1_body = encode_body(&renew_request(), 1);
    let f = raw_request(39, -1, &v1_body);
    assert_eq!(
        decode_request(&f),
        Err(de(17, unsupported(-1), "RenewDelegationTokenRequest"))
    );
    let f = raw_request(39, 3, &encode_body(&renew_request(), 2));
    assert_eq!(
        decode_request(&f),
        Err(de(18, unsupported(3), "RenewDelegationTokenRequest"))
    );
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&v1_body, -1),
        Err(de(0, unsupported(-1), "RenewDelegationTokenRequest"))
    );
    let f = hex("00000005 00000000 00");
    assert_eq!(
        decode_response(&f, ApiKey(39), 5),
        Err(de(9, unsupported(5), "RenewDelegationTokenResponse"))
    );
    // ShareGroupHeartbeat is valid from v1 (its v0 was early access); header v2 at any version.
    let f = raw_request(76, 0, &[0; 40]);
    assert_eq!(
        decode_request(&f),
        Err(de(
            18,
            DecodeErrorKind::UnsupportedVersion {
                api_key: ApiKey(76),
                version: 0
            },
            "ShareGroupHeartbeatRequest"
        ))
    );
}

#[test]
fn trailing_bytes() {
    let body = encode_body(&renew_request(), 2);
    let mut longer = body.clone();
    longer.push(0);
    assert_eq!(
        RenewDelegationTokenRequest::decode_exact(&longer, 2),
        Err(de(
            body.len(),
            DecodeErrorKind::TrailingBytes { count: 1 },
            "RenewDelegationTokenRequest"
        ))
    );
    // `decode` (not exact) stops after the value.
    let mut r = Reader::new(&longer);
    assert_eq!(
        RenewDelegationTokenRequest::decode(&mut r, 2),
        Ok(renew_request())
    );
    assert_eq!(r.offset(), body.len());

    let frame = request_frame(&req_header(39, 2, Some("cli")), &renew_request());
    // Bytes after the frame the size prefix announces.
    let mut f = frame.clone();
    f.extend_from_slice(&[1, 2, 3]);
    assert_eq!(
        decode_request(&f),
        Err(de(
            frame.len(),
            DecodeErrorKind::TrailingBytes { count: 3 },
            "Frame"
        ))
    );
    // Bytes inside the frame after the body.
    let mut f = with_size(&frame, (frame.len() - 4 + 2) as i32);
    f.extend_from_slice(&[1, 2]);
    assert_eq!(
        decode_request(&f),
        Err(de(
            frame.len(),
            DecodeErrorKind::TrailingBytes { count: 2 },
            "Request"
        ))
    );
    let body = RenewDelegationTokenResponse::default();
    let frame = response_frame(&resp_header(), &body, 2);
    let mut f = with_size(&frame, (frame.len() - 4 + 1) as i32);
    f.push(0);
    assert_eq!(
        decode_response(&f, ApiKey(39), 2),
        Err(de(
            frame.len(),
            DecodeErrorKind::TrailingBytes { count: 1 },
            "Response"
        ))
    );
}

/// The v2 RenewDelegationToken body without its (empty) tagged section: 12 bytes.
fn renew_v2_positional() -> Vec<u8> {
    let mut b = encode_body(&renew_request(), 2);
    assert_eq!(b.pop(), Some(0));
    assert_eq!(b.len(), 12);
    b
}

const RENEW_TAGS: &str = "RenewDelegationTokenRequest.tagged_fields";

#[test]
fn tags_out_of_order_or_duplicated() {
    for (section, at, tag, previous) in [
        ("02 05 00 03 00", 15, 3, 5),
        ("02 05 00 05 00", 15, 5, 5),
        ("02 05 01 aa 05 00", 16, 5, 5),
        ("03 01 00 07 00 02 00", 17, 2, 7),
    ] {
        let mut body = renew_v2_positional();
        body.extend_from_slice(&hex(section));
        assert_eq!(
            RenewDelegationTokenRequest::decode_exact(&body, 2),
            Err(de(
                at,
                DecodeErrorKind::TagOutOfOrder { tag, previous },
                RENEW_TAGS
            )),
            "{section}"
        );
        let f = raw_request(39, 2, &body);
        assert_eq!(
            decode_request(&f),
            Err(de(
                at + 18,
                DecodeErrorKind::TagOutOfOrder { tag, previous },
                RENEW_TAGS
            ))
        );
    }
    // A known tag repeated (FetchRequest v12, tag 0 = ClusterId, null).
    let mut body = fetch_positional(12);
    body.extend_from_slice(&hex("02 00 01 00 00 01 00"));
    assert_eq!(
        FetchRequest::decode_exact(&body, 12),
        Err(de(
            32,
            DecodeErrorKind::TagOutOfOrder {
                tag: 0,
                previous: 0
            },
            "FetchRequest.tagged_fields"
        ))
    );
}

#[test]
fn unknown_tags_in_order_are_kept_and_written_back() {
    let mut body = renew_v2_positional();
    body.extend_from_slice(&hex("02 03 01 aa 05 00"));
    let decoded = RenewDelegationTokenRequest::decode_exact(&body, 2).unwrap();
    let fields: Vec<_> = decoded.unknown_tagged_fields.iter().collect();
    assert_eq!(
        fields,
        [
            RawTaggedField {
                tag: 3,
                data: &[0xaa]
            },
            RawTaggedField { tag: 5, data: &[] }
        ]
    );
    assert_eq!(encode_body(&decoded, 2), body);
    // They cannot be written at a version without tagged fields.
    assert_eq!(
        decoded.encoded_len(1),
        Err(EncodeError::TaggedFieldsNotInVersion {
            path: "RenewDelegationTokenRequest",
            version: 1
        })
    );
    // Caller-supplied unknown tags must be strictly increasing.
    let bad = [
        RawTaggedField { tag: 5, data: &[] },
        RawTaggedField { tag: 3, data: &[] },
    ];
    let value = renew_request().with_unknown_tagged_fields(TaggedFields::from(&bad[..]));
    assert_eq!(
        value.encoded_len(2),
        Err(EncodeError::InvalidUnknownTag {
            path: "RenewDelegationTokenRequest",
            tag: 3
        })
    );
    // ... and may not reuse a tag the struct defines (FetchRequest defines 0 and 1).
    let reserved = [RawTaggedField { tag: 1, data: &[] }];
    let value =
        FetchRequest::default().with_unknown_tagged_fields(TaggedFields::from(&reserved[..]));
    assert_eq!(
        value.encoded_len(12),
        Err(EncodeError::InvalidUnknownTag {
            path: "FetchRequest",
            tag: 1
        })
    );
}

/// A default FetchRequest body at `version` without its (empty) tagged section.
fn fetch_positional(version: i16) -> Vec<u8> {
    let mut b = encode_body(&FetchRequest::default(), version);
    assert_eq!(b.pop(), Some(0));
    b
}

const REPLICA_STATE: &str = "00000005 0000000000000009 00";

#[test]
fn known_tag_at_a_version_without_it() {
    let mut body = fetch_positional(12);
    assert_eq!(body.len(), 28);
    body.extend_from_slice(&hex("01 01 0d"));
    body.extend_from_slice(&hex(REPLICA_STATE));
    assert_eq!(
        FetchRequest::decode_exact(&body, 12),
        Err(de(
            29,
            DecodeErrorKind::TagNotInVersion {
                tag: 1,
                version: 12
            },
            "FetchRequest.tagged_fields"
        ))
    );
    let f = raw_request(1, 12, &body);
    assert_eq!(
        decode_request(&f),
        Err(de(
            29 + 18,
            DecodeErrorKind::TagNotInVersion {
                tag: 1,
                version: 12
            },
            "FetchRequest.tagged_fields"
        ))
    );
    // The same tag is fine from v15 on.
    let mut body = fetch_positional(15);
    let at = body.len();
    body.extend_from_slice(&hex("01 01 0d"));
    body.extend_from_slice(&hex(REPLICA_STATE));
    let decoded = FetchRequest::decode_exact(&body, 15).unwrap();
    let state = ReplicaState::default()
        .with_replica_id(5)
        .with_replica_epoch(9);
    assert_eq!(decoded.replica_state, state);
    assert!(decoded.unknown_tagged_fields.is_empty());
    assert_eq!(encode_body(&decoded, 15), body);
    assert_eq!(
        encode_body(&FetchRequest::default().with_replica_state(state), 15)[at..],
        body[at..]
    );
}

#[test]
fn tagged_payload_size_mismatch() {
    // ClusterId "ab" (3 bytes) declared as 5.
    let mut body = fetch_positional(12);
    body.extend_from_slice(&hex("01 00 05 03 6162 eeee"));
    assert_eq!(
        FetchRequest::decode_exact(&body, 12),
        Err(de(
            34,
            DecodeErrorKind::TaggedSizeMismatch {
                tag: 0,
                declared: 5,
                consumed: 3
            },
            "FetchRequest.ClusterId"
        ))
    );
    // Declared smaller than the value: the value runs out of its payload.
    let mut body = fetch_positional(12);
    body.extend_from_slice(&hex("01 00 02 03 6162"));
    assert_eq!(
        FetchRequest::decode_exact(&body, 12),
        Err(de(
            32,
            DecodeErrorKind::TaggedSizeMismatch {
                tag: 0,
                declared: 2,
                consumed: 3
            },
            "FetchRequest.ClusterId"
        ))
    );
    // A struct-valued tag (ReplicaState, 13 bytes) declared as 14.
    let mut body = fetch_positional(15);
    let at = body.len();
    body.extend_from_slice(&hex("01 01 0e"));
    body.extend_from_slice(&hex(REPLICA_STATE));
    body.push(0xee);
    let expected = de(
        at + 3 + 13,
        DecodeErrorKind::TaggedSizeMismatch {
            tag: 1,
            declared: 14,
            consumed: 13,
        },
        "FetchRequest.ReplicaState",
    );
    assert_eq!(FetchRequest::decode_exact(&body, 15), Err(expected));
    let f = raw_request(1, 15, &body);
    assert_eq!(
        decode_request(&f),
        Err(DecodeError {
            offset: expected.offset + 18,
            ..expected
        })
    );
    // A tagged payload that runs past the end of the input.
    let mut body = fetch_positional(12);
    body.extend_from_slice(&hex("01 00 09 03 6162"));
    assert_eq!(
        FetchRequest::decode_exact(&body, 12),
        Err(trunc(31, 6, "FetchRequest.tagged_fields"))
    );
}

#[test]
fn negative_frame_size() {
    let f = hex("fffffffe 0027 0002 00000000 0000 00 01 0000000000000000 00");
    let expected = de(0, DecodeErrorKind::NegativeFrameSize(-2), "Frame.size");
    assert_eq!(decode_request(&f), Err(expected));
    assert_eq!(
        decode_response(&f, ApiKey(39), 2).map(|_| ()),
        Err(expected)
    );
    assert_eq!(frame::split(&f, 1 << 20), Err(expected));
    let f = hex("80000000");
    assert_eq!(
        decode_request(&f),
        Err(de(
            0,
            DecodeErrorKind::NegativeFrameSize(i32::MIN),
            "Frame.size"
        ))
    );
    assert_eq!(
        frame::split(&hex("00100000"), 1000),
        Err(de(
            0,
            DecodeErrorKind::FrameTooLarge {
                size: 0x0010_0000,
                limit: 1000
            },
            "Frame.size"
        ))
    );
}

// ---------------------------------------------------------------------------------------------
// Encode side
// ---------------------------------------------------------------------------------------------

#[test]
fn buffer_too_small_says_how_many_bytes_are_needed() {
    // What the encode wrote into the short buffer is unspecified; the error is exact.
    let body = renew_request();
    let header = req_header(39, 2, Some("cli"));
    let frame = request_frame(&header, &body);
    for available in 0..frame.len() {
        let mut buf = vec![0xa5u8; available];
        assert_eq!(
            encode_request(&header, &body, &mut buf),
            Err(EncodeError::BufferTooSmall {
                required: frame.len(),
                available
            })
        );
    }
    let bytes = encode_body(&body, 2);
    for available in 0..bytes.len() {
        let mut buf = vec![0xa5u8; available];
        assert_eq!(
            body.encode(2, &mut buf),
            Err(EncodeError::BufferTooSmall {
                required: bytes.len(),
                available
            })
        );
    }
    let partitions = metadata_partitions();
    let brokers = metadata_brokers();
    let topics = [metadata_topic(&partitions)];
    let response = MetadataResponse::default()
        .with_brokers(&brokers)
        .with_topics(&topics);
    let frame = response_frame(&resp_header(), &response, 12);
    for available in [0, 1, 4, frame.len() / 2, frame.len() - 1] {
        let mut buf = vec![0xa5u8; available];
        assert_eq!(
            encode_response(&resp_header(), &response, 12, &mut buf),
            Err(EncodeError::BufferTooSmall {
                required: frame.len(),
                available
            })
        );
    }
}

#[test]
fn field_not_in_version() {
    let body = HeartbeatRequest::default()
        .with_group_id("g")
        .with_generation_id(1)
        .with_member_id("m")
        .with_group_instance_id(Some("x"));
    for version in 0..=2 {
        let expected = EncodeError::FieldNotInVersion {
            path: "HeartbeatRequest.GroupInstanceId",
            version,
            versions: VersionRange::from(3),
            ignorable: false,
        };
        assert_eq!(body.encoded_len(version), Err(expected));
        let mut buf = [0xa5u8; 64];
        assert_eq!(body.encode(version, &mut buf), Err(expected));
        assert_eq!(
            encode_request(&req_header(12, version, Some("c")), &body, &mut buf),
            Err(expected)
        );
    }
    assert_eq!(
        encode_body(&body, 3),
        hex("0001 67 00000001 0001 6d 0001 78")
    );
    // Null (the default) is fine at v0.
    let plain = body.with_group_instance_id(None);
    assert_eq!(encode_body(&plain, 0), hex("0001 67 00000001 0001 6d"));

    // A top-level non-ignorable field, and fields nested in an array element.
    let v0 = UpdateFeaturesRequest::default().with_validate_only(true);
    assert_eq!(
        v0.encoded_len(0),
        Err(EncodeError::FieldNotInVersion {
            path: "UpdateFeaturesRequest.ValidateOnly",
            version: 0,
            versions: VersionRange::from(1),
            ignorable: false,
        })
    );
    let updates = [FeatureUpdateKey::default()
        .with_feature("f")
        .with_upgrade_type(2)];
    let nested = UpdateFeaturesRequest::default().with_feature_updates(&updates);
    assert_eq!(
        nested.encoded_len(0),
        Err(EncodeError::FieldNotInVersion {
            path: "UpdateFeaturesRequest.FeatureUpdates.UpgradeType",
            version: 0,
            versions: VersionRange::from(1),
            ignorable: false,
        })
    );
    let updates = [FeatureUpdateKey::default()
        .with_feature("f")
        .with_allow_downgrade(true)];
    let nested = UpdateFeaturesRequest::default().with_feature_updates(&updates);
    assert_eq!(
        nested.encoded_len(1),
        Err(EncodeError::FieldNotInVersion {
            path: "UpdateFeaturesRequest.FeatureUpdates.AllowDowngrade",
            version: 1,
            versions: VersionRange::new(0, 0),
            ignorable: false,
        })
    );
    assert!(nested.encoded_len(0).is_ok());
    // A non-ignorable tagged field (ReplicaState, 15+) holding a non-default value.
    let fetch =
        FetchRequest::default().with_replica_state(ReplicaState::default().with_replica_id(1));
    assert_eq!(
        fetch.encoded_len(14),
        Err(EncodeError::FieldNotInVersion {
            path: "FetchRequest.ReplicaState",
            version: 14,
            versions: VersionRange::from(15),
            ignorable: false,
        })
    );
    // A null in a field that is not nullable at the version.
    let partitions: [MetadataResponsePartition<'_>; 0] = [];
    let topics = [metadata_topic(&partitions).with_name(None)];
    let response = MetadataResponse::default().with_topics(&topics);
    assert_eq!(
        response.encoded_len(11),
        Err(EncodeError::NullNotAllowed {
            path: "MetadataResponse.Topics.Name",
            version: 11
        })
    );
    assert!(response.encoded_len(12).is_ok());
    // A header whose API key is not the body's.
    let mut buf = [0xa5u8; 64];
    assert_eq!(
        encode_request(&req_header(3, 2, None), &renew_request(), &mut buf),
        Err(EncodeError::ApiKeyMismatch {
            expected: ApiKey(3),
            found: ApiKey(39)
        })
    );
    // A version outside the valid range.
    assert_eq!(
        renew_request().encoded_len(-1),
        Err(EncodeError::UnsupportedVersion {
            api_key: ApiKey(39),
            version: -1
        })
    );
    assert_eq!(
        encode_request(&req_header(39, 3, None), &renew_request(), &mut buf),
        Err(EncodeError::UnsupportedVersion {
            api_key: ApiKey(39),
            version: 3
        })
    );
}

#[test]
fn ignorable_fields_are_refused_or_left_out_leniently() {
    // UpdateFeaturesResponse.Results exists in v0-1 only and is ignorable.
    let results = [UpdatableFeatureResult::default()
        .with_feature("metadata.version")
        .with_error_message(Some("nope"))];
    let with = UpdateFeaturesResponse::default()
        .with_error_message(None)
        .with_results(&results);
    let without = UpdateFeaturesResponse::default().with_error_message(None);
    let mut buf = [0xa5u8; 64];
    assert_eq!(
        with.encode(2, &mut buf),
        Err(EncodeError::FieldNotInVersion {
            path: "UpdateFeaturesResponse.Results",
            version: 2,
            versions: VersionRange::new(0, 1),
            ignorable: true,
        })
    );
    let n = with.encode_lenient(2, &mut buf).unwrap();
    assert_eq!(buf[..n], encode_body(&without, 2));
    assert_eq!(buf[..n], hex("00000000 0000 00 00"));
    let v1 = encode_body(&with, 1);
    assert_ne!(v1, encode_body(&without, 1));
    assert_eq!(UpdateFeaturesResponse::decode_exact(&v1, 1), Ok(with));
    let v2_bytes = hex("00000000 0000 00 00");
    let v2 = UpdateFeaturesResponse::decode_exact(&v2_bytes, 2).unwrap();
    assert!(v2.results.is_empty());
    // ApiVersionsRequest's client software fields (3+) are ignorable: v2 has an empty body.
    let api = ApiVersionsRequest::default()
        .with_client_software_name("x")
        .with_client_software_version("1");
    assert_eq!(api.encoded_len(2), Ok(0));
    let header = req_header(18, 2, Some("c"));
    assert!(matches!(
        encode_request(&header, &api, &mut buf),
        Err(EncodeError::FieldNotInVersion {
            path: "ApiVersionsRequest.ClientSoftwareName",
            ignorable: true,
            ..
        })
    ));
    let n = frame::encode_request_lenient(&header, &api, &mut buf).unwrap();
    assert_eq!(buf[..n], hex("0000000b 0012 0002 01020304 0001 63"));
}

// ---------------------------------------------------------------------------------------------
// Random damage to valid frames: never a panic, and whatever decodes re-encodes consistently
// ---------------------------------------------------------------------------------------------

fn sample_request_frames() -> Vec<Vec<u8>> {
    let updates = feature_updates();
    let uf = UpdateFeaturesRequest::default()
        .with_feature_updates(&updates)
        .with_validate_only(true);
    let topics = [
        MetadataRequestTopic::default().with_name(Some("orders")),
        MetadataRequestTopic::default().with_name(Some("x")),
    ];
    let md = MetadataRequest::default().with_topics(&topics);
    let mut fetch_v15 = raw_request(1, 15, &fetch_positional(15));
    fetch_v15.extend_from_slice(&hex("01 01 0d"));
    fetch_v15.extend_from_slice(&hex(REPLICA_STATE));
    let n = fetch_v15.len() as i32 - 4;
    fetch_v15[..4].copy_from_slice(&n.to_be_bytes());
    let mut renew_tags = raw_request(39, 2, &renew_v2_positional());
    renew_tags.extend_from_slice(&hex("02 03 01 aa 05 00"));
    let n = renew_tags.len() as i32 - 4;
    renew_tags[..4].copy_from_slice(&n.to_be_bytes());
    vec![
        request_frame(&req_header(39, 2, Some("cli")), &renew_request()),
        request_frame(&req_header(39, 1, None), &renew_request()),
        request_frame(&req_header(57, 2, Some("admin")), &uf),
        request_frame(&req_header(3, 8, Some("c")), &md),
        request_frame(&req_header(3, 12, Some("c")), &md),
        request_frame(
            &req_header(18, 3, Some("c")),
            &ApiVersionsRequest::default()
                .with_client_software_name("kcodec")
                .with_client_software_version("0.1"),
        ),
        fetch_v15,
        renew_tags,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn damaged_request_frames_never_panic(
        which in 0usize..8,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in proptest::option::of(any::<usize>()),
        fix_size in any::<bool>(),
    ) {
        let frames = sample_request_frames();
        let mut f = frames[which % frames.len()].clone();
        if let Some(c) = cut {
            f.truncate(c % (f.len() + 1));
        }
        for (pos, byte) in edits {
            if f.len() > 4 {
                let i = 4 + pos % (f.len() - 4);
                f[i] = byte;
            }
        }
        if fix_size && f.len() >= 4 {
            let n = (f.len() - 4) as i32;
            f[..4].copy_from_slice(&n.to_be_bytes());
        }
        match decode_request(&f) {
            Ok((header, body)) => {
                // Whatever decodes can be encoded again, and decodes to the same values.
                let mut buf = vec![0u8; f.len() * 2 + 64];
                let n = encode_request(&header, &body, &mut buf).expect("re-encode");
                let (h2, b2) = decode_request(&buf[..n]).expect("decode of re-encoding");
                prop_assert_eq!(h2, header);
                prop_assert_eq!(b2, body);
            }
            Err(e) => {
                prop_assert!(e.offset <= f.len(), "{:?} past the end of {} bytes", e, f.len());
                if let DecodeErrorKind::Truncated { needed } = e.kind {
                    prop_assert!(needed >= 1);
                }
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), key in 0i16..100, version in -1i16..20) {
        let mut f = ((bytes.len() + 8) as i32).to_be_bytes().to_vec();
        f.extend_from_slice(&key.to_be_bytes());
        f.extend_from_slice(&version.to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 1]);
        f.extend_from_slice(&bytes);
        if let Err(e) = decode_request(&f) {
            prop_assert!(e.offset <= f.len());
        }
        let _ = decode_response(&f, ApiKey(key), version);
        let _ = frame::split(&f, 1 << 16);
    }
}
