//! # kwire
//!
//! A `#![no_std]` codec for the complete Apache Kafka wire protocol: every API key and every
//! version, requests and responses, encode and decode. It encodes into a caller's `&mut [u8]` and
//! decodes into borrowed views over the caller's input.
//!
//! ## Quick start: a consumer's loop
//!
//! Negotiate versions, find the topic's id, fetch by topic id, walk the records with their CRC
//! checked, and fetch again from the offset after the last batch. `call` sends a request frame
//! and returns the frame that answers it. (`examples/consumer.rs` in the repository is this
//! program whole over a `TcpStream`, with the session layer, [`session`], keeping the
//! correlation ids, the negotiation and the framing that the code below does by hand.)
//!
//! ```no_run
//! use kwire::api::{VersionTable, api_versions_request_version, decode_api_versions};
//! use kwire::codec::Array;
//! use kwire::messages::fetch_request::{FetchPartition, FetchTopic};
//! use kwire::messages::metadata_request::MetadataRequestTopic;
//! use kwire::messages::{
//!     ApiVersionsRequest, FetchRequest, FetchResponse, MetadataRequest, MetadataResponse,
//!     RequestHeader,
//! };
//! use kwire::records::Batch;
//! use kwire::{ApiKey, Body, ErrorCode, frame};
//! # use std::io::{Read, Write};
//! # type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
//! # fn call<B: Body>(s: &mut std::net::TcpStream, body: &B, version: i16) -> Result<Vec<u8>> {
//! #     let header = RequestHeader::new(body.body_api_key(), version, 1);
//! #     let mut out = vec![0; frame::request_len(&header, body)?];
//! #     frame::encode_request(&header, body, &mut out)?;
//! #     s.write_all(&out)?;
//! #     let mut size = [0; 4];
//! #     s.read_exact(&mut size)?;
//! #     let mut frame = size.to_vec();
//! #     frame.resize(4 + usize::try_from(i32::from_be_bytes(size))?, 0);
//! #     s.read_exact(&mut frame[4..])?;
//! #     Ok(frame)
//! # }
//! # fn main() -> Result<()> {
//! # let mut broker = std::net::TcpStream::connect("127.0.0.1:19092")?;
//! # let topic = "events";
//!
//! // Negotiate: a broker that does not know the version asked for answers in the v0 layout
//! // with the versions it knows; ask again at one of those.
//! let mut version = api_versions_request_version();
//! let versions = loop {
//!     let response = call(&mut broker, &ApiVersionsRequest::default(), version)?;
//!     let reply = decode_api_versions(&response, version)?;
//!     match VersionTable::try_from_response(&reply.body) {
//!         Ok(table) => break table,
//!         Err(e) => match e.retry_version(version) {
//!             Some(retry) if retry != version => version = retry,
//!             _ => return Err(e.into()),
//!         },
//!     }
//! };
//!
//! // The topic's id: Fetch names topics by id from v13 on.
//! let version = versions.negotiate(ApiKey::METADATA)?;
//! let topics = [MetadataRequestTopic::default().with_name(Some(topic))];
//! let request = MetadataRequest::default().with_topics(&topics);
//! let response = call(&mut broker, &request, version)?;
//! let (_, metadata) = frame::decode_response_as::<MetadataResponse<'_>>(&response, version)?;
//! let topic_id = metadata.topics.iter().find(|t| t.name == Some(topic.into())).ok_or("no topic")?.topic_id;
//!
//! let version = versions.negotiate(ApiKey::FETCH)?;
//! let mut offset = 0;
//! loop {
//!     let partitions = [FetchPartition::default().with_fetch_offset(offset).with_partition_max_bytes(1 << 20)];
//!     // Named both ways: the encode writes the name before v13, the id from v13 on.
//!     let topics = [FetchTopic::default().with_topic(topic).with_topic_id(topic_id).with_partitions(&partitions)];
//!     let request = FetchRequest::default().with_max_wait_ms(500).with_min_bytes(1).with_topics(&topics);
//!     let response = call(&mut broker, &request, version)?;
//!     let (_, fetched) = frame::decode_response_as::<FetchResponse<'_>>(&response, version)?;
//!     for partition in fetched.responses.iter().flat_map(|t| t.partitions.iter()) {
//!         if partition.error_code != ErrorCode::NONE {
//!             return Err(format!("{}", ErrorCode(partition.error_code)).into());
//!         }
//!         for batch in partition.records.unwrap_or_default().batches() {
//!             let Batch::V2(batch) = batch? else { continue };
//!             for record in batch.records()? {
//!                 // `records()` checked the batch's CRC.
//!                 let record = record?;
//!                 if record.offset() >= offset {
//!                     println!("{}: {:?} = {:?}", record.offset(), record.key(), record.value());
//!                 }
//!             }
//!             offset = batch.next_offset();
//!         }
//!     }
//! }
//! # }
//! ```
//!
//! A value a version cannot carry is refused rather than dropped
//! ([`EncodeError::FieldNotInVersion`]); a topic's name and id are the exception the request
//! above relies on: set both, and the encode writes the one its version carries (one alone, at a
//! version that names the topic the other way, is [`EncodeError::TopicNamedBy`]).
//!
//! ## A producer, for a device without an allocator
//!
//! Records are written into a stack buffer; arrays to encode come from slices, arrays or
//! `heapless` vectors; the response is decoded in place, as the one type expected, so only its
//! decoder is linked in (`embedded-producer/` in the repository is the whole path for a
//! Cortex-M). Firmware depends on the crate with `default-features = false` and names the APIs it
//! speaks, such as `features = ["ApiVersions", "Metadata", "Produce", "Fetch"]`: the crate then
//! compiles in a fifth of the time, and the `perf` feature's inlined and table-heavy fast paths
//! are left out, the same results from about a fifth less code (the guide's chapter on
//! embedded use gives the producer's section sizes).
//!
//! A device speaks one version of each API, fixed when it is built. The build names it in the
//! `KWIRE_VERSIONS` environment variable, usually from the firmware's `.cargo/config.toml`:
//!
//! ```toml
//! [env]
//! KWIRE_VERSIONS = "ApiVersions=3,Metadata=13,Produce=13,Fetch=18"
//! ```
//!
//! Each entry is `Name=RANGE`, with the API names of the features (any ASCII case), separated
//! by commas or spaces. The range is written as Kafka's schemas write them, the notation
//! [`codec::VersionRange`] parses and prints: `V`, `LOW-HIGH`, or `LOW+` for every valid
//! version from `LOW` on. The build script refuses an unknown name, a version the API does not
//! have, `none`, and an API whose feature is off. The messages of a named API then
//! decode and encode only those versions: every version test in their code is folded at
//! compile time, and only that version's code is linked. Any other version is refused with
//! `UnsupportedVersion`; each message's `BUILT_VERSIONS` (`ProduceRequest::BUILT_VERSIONS`,
//! a constant of the type) and [`ApiKey::built_versions`] say what was kept, so that code sending
//! at a pinned version writes `ProduceRequest::BUILT_VERSIONS.max` rather than the number (see
//! the embedded guide), and [`api::VersionTable`] negotiates within it. A firmware negotiates through
//! [`session::Client`], which keeps the broker's ranges by key: for the keys the program names,
//! the API table is not linked; it walks fetched records with
//! [`records::Records::record_batches`], v2 batches only, which links no legacy-message reader.
//! An API the variable does not name keeps
//! every version, and a build without the variable is the crate as it always is: proxies and
//! tools that choose versions at run time lose nothing. The embedded producer's code is about
//! a third smaller with its four versions than with every version (the guide's chapter on
//! embedded use gives the sizes).
//!
//! ```
//! use heapless::Vec;
//! use kwire::codec::Array;
//! use kwire::{ApiKey, frame};
//! use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
//! use kwire::messages::{ProduceRequest, ProduceResponse, RequestHeader};
//! use kwire::records::{BatchBuilder, NewRecord, Records};
//! # use kwire::messages::ResponseHeader;
//! # use kwire::messages::produce_response::{PartitionProduceResponse, TopicProduceResponse};
//!
//! let readings = [
//!     NewRecord::new(b"21.5C").with_key(b"board-7"),
//!     NewRecord::new(b"21.7C").with_key(b"board-7"),
//! ];
//! let mut batch = [0u8; 256];
//! let batch_len = BatchBuilder::new().write(&readings, &mut batch)?;
//!
//! let mut partitions: Vec<PartitionProduceData<'_>, 4> = Vec::new();
//! let partition = PartitionProduceData::default()
//!     .with_index(0)
//!     .with_records(Some(Records::new(&batch[..batch_len])));
//! partitions.push(partition).map_err(|_| "more than 4 partitions")?;
//! let topics = [TopicProduceData::default()
//!     .with_name("sensors")
//!     .with_partition_data(&partitions)];
//! let request = ProduceRequest::default()
//!     .with_acks(-1)
//!     .with_timeout_ms(5_000)
//!     .with_topic_data(&topics);
//! let header = RequestHeader::new(ApiKey::PRODUCE, 11, 1).with_client_id(Some("board-7"));
//! let mut out = [0u8; 512];
//! let n = frame::encode_request(&header, &request, &mut out)?;
//! // ... send out[..n], read the answer into a buffer ...
//! # let parts = [PartitionProduceResponse::default().with_index(0).with_base_offset(42)];
//! # let answers = [TopicProduceResponse::default().with_name("sensors")
//! #     .with_partition_responses(&parts)];
//! # let body = ProduceResponse::default().with_responses(&answers);
//! # let mut answer = [0u8; 128];
//! # let m = frame::encode_response(&ResponseHeader::default().with_correlation_id(1), &body, 11,
//! #     &mut answer)?;
//! let (response_header, response) =
//!     frame::decode_response_as::<ProduceResponse<'_>>(&answer[..m], 11)?;
//! assert_eq!(response_header.correlation_id, 1);
//! for topic in &response.responses {
//!     for p in &topic.partition_responses {
//!         assert_eq!((p.error_code, p.base_offset), (0, 42));
//!     }
//! }
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## For a proxy: touch one field, copy the rest
//!
//! A decoded message borrows the frame it came from; re-encoding it at the version it was read
//! at copies every array that was not replaced as the bytes it was read from
//! (`examples/proxy.rs` is a whole proxy).
//!
//! ```
//! use kwire::frame;
//! # use kwire::messages::{MetadataRequest, RequestHeader};
//! # let header = RequestHeader::default().with_request_api_key(3).with_request_api_version(12)
//! #     .with_correlation_id(5).with_client_id(Some("app"));
//! # let mut incoming = [0u8; 64];
//! # let len = frame::encode_request(&header, &MetadataRequest::default(), &mut incoming)?;
//! # let incoming = &incoming[..len];
//!
//! let (mut header, body) = frame::decode_request(incoming)?;
//! header.client_id = Some("through-the-proxy".into());
//! let mut out = [0u8; 128];
//! let n = frame::encode_request(&header, &body, &mut out)?;
//! let (rewritten, _) = frame::decode_request(&out[..n])?;
//! assert_eq!(rewritten.client_id, Some("through-the-proxy".into()));
//! assert_eq!(rewritten.correlation_id, 5);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ### Changing a field inside an array
//!
//! A decoded array is a view over the bytes it was read from, so its elements are changed in a
//! copy: [`codec::Array::map_into`] passes each element through a closure into storage the caller
//! provides (a stack array here; a `Vec` or [`heapless::Vec`] work the same way) and returns the
//! filled part, which the message's setter takes back. Every other field, the other arrays
//! included, is still copied verbatim when the message is encoded again.
//!
//! ```
//! use kwire::frame;
//! use kwire::messages::MetadataResponse;
//! use kwire::messages::metadata_response::MetadataResponseBroker;
//! # use kwire::messages::ResponseHeader;
//! # let brokers = [
//! #     MetadataResponseBroker::default().with_node_id(1).with_host("kafka-1.internal").with_port(9092),
//! #     MetadataResponseBroker::default().with_node_id(2).with_host("kafka-2.internal").with_port(9092),
//! # ];
//! # let upstream = MetadataResponse::default().with_brokers(&brokers).with_cluster_id(Some("c1"));
//! # let mut incoming = [0u8; 256];
//! # let len = frame::encode_response(&ResponseHeader::default().with_correlation_id(9), &upstream,
//! #     12, &mut incoming)?;
//! # let incoming = &incoming[..len];
//!
//! let (header, metadata) = frame::decode_response_as::<MetadataResponse<'_>>(incoming, 12)?;
//! let mut storage = [MetadataResponseBroker::default(); 16];
//! let brokers = metadata
//!     .brokers
//!     .map_into(&mut storage, |broker| broker.with_host("proxy.local").with_port(19092))?;
//! let rewritten = metadata.with_brokers(&*brokers);
//!
//! let mut out = [0u8; 256];
//! let n = frame::encode_response(&header, &rewritten, 12, &mut out)?;
//! let (_, seen) = frame::decode_response_as::<MetadataResponse<'_>>(&out[..n], 12)?;
//! assert!(seen.brokers.iter().all(|b| b.host == "proxy.local" && b.port == 19092));
//! assert_eq!(seen.brokers.last().map(|b| b.node_id), Some(2));
//! assert_eq!(seen.cluster_id, Some("c1".into()));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## For a protocol tool: the tree of any frame
//!
//! The dissector is a crate of its own, `kwire-schema`, which depends on this one: Kafka's
//! schemas as tables, and walks over them that render any request or response frame, of any API
//! and version, well formed or not, as an annotated tree (`kwire dissect` on the command line).
//! The codec does not need it, and a program that only encodes and decodes builds without it.
//!
//! ## Layers
//!
//! Bottom first. A module imports only modules of the rows before its own, the layers below it;
//! modules that share a row import none of each other (`tests/integration/layers.rs` checks the
//! imports against this table).
//!
//! | module | holds |
//! |---|---|
//! | `wire` | private: the wire's primitive types, each public where it is used: [`ApiKey`] (in [`api`] and here), [`codec::VersionRange`] and [`codec::Uuid`] |
//! | [`error`] | [`DecodeError`] (offset, kind, field path), [`EncodeError`], [`Status`] |
//! | [`codec`] | the [`Decode`]/[`Encode`] traits, the reads and writes of each wire type, [`codec::Reader`], [`codec::Array`], strings, UUIDs, tagged fields; the value of a `records` field ([`records::Records`]: bytes, or with `in-place` a source that writes them) |
//! | [`records`] | record batches: the v2 batch view and builder, records, control record keys, legacy message sets, CRCs, the compression hook |
//! | [`messages`] | generated: one struct per message and nested struct, for all versions |
//! | [`api`] | the version tables, [`Request`] and [`Response`] by key, version negotiation; header versions ([`header`]); control record values ([`control`]) |
//! | [`frame`] | size-prefixed frames: encoding and decoding them whole, finding them in a stream buffer |
//! | [`session`] | the protocol session without I/O: a client's correlation ids, requests in flight, version negotiation and SASL authentication, frames out of received chunks, a server's responses |
//! | `io` | with the `std` feature: a blocking connection over any byte stream; a relay of connections frame by frame, with the broker addresses responses tell clients pointed at it |
//!
//! ## Guarantees
//!
//! * **No allocation.** The crate does not link `alloc`; no wire length can cause an allocation.
//!   Only the codecs of the `gzip`, `zstd` and `snappy` features allocate (see
//!   [`records::compression::BuiltinCodecs`]), and with `std`, a connection of `io` for its
//!   buffers.
//! * **No panics on any input.** Decoding returns a typed error naming the byte offset and the
//!   field; the library is compiled under a lint wall that forbids indexing, unchecked
//!   arithmetic, `as` casts and unwraps.
//! * **No `unsafe`.** `#![forbid(unsafe_code)]`.
//! * **Encoding never writes part of a message**: sizes are computed and checked first.
//!
//! ## Cargo features
//!
//! | feature | effect |
//! |---|---|
//! | `all-apis` (default) | every API below |
//! | one per API, named as the API: `Produce`, `Fetch`, `ApiVersions`, `DescribeUserScramCredentials`, ... | that API's request and response types (`messages::produce_request`, ...) and its [`Request`]/[`Response`] variants. Without it, [`ApiKey::is_enabled`] is false and the by-key decoders fail with [`DecodeErrorKind::ApiNotEnabled`]. Headers, the other schemas, [`ApiKey`] and its version tables are always compiled; version negotiation from an ApiVersions response needs `ApiVersions` |
//! | `perf` (default) | speed bought with code size: element decoders inlined into array loops and iterators, arrays validated by a walk that builds nothing, nested arrays walked over when iterating, CRC tables that take sixteen bytes a step (16 KiB each). Firmware short of flash turns default features off; decoding and encoding are otherwise the same |
//! | `in-place` | a records field written in place, straight into the encoder's output: `records::NewBatch` (a batch builder and its records) in a message as `Records::in_place(&batch)`, for any number of partitions and through every encode, with no buffer of its own and no copy (`records::WriteRecords` for sources of one's own). Off, a records field is only bytes, and the generated encoders and decoders are as they were without it |
//! | `defmt` | `defmt::Format` for errors, headers, API keys, version negotiation, record views and every generated message |
//! | `sasl` (default) | SASL in the session layer (`session::sasl`): PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 (client and server side), OAUTHBEARER; enables the ApiVersions, SaslHandshake and SaslAuthenticate APIs |
//! | `tls` | `io::tls`: a blocking connection over TLS (rustls with the `ring` provider; the system's roots or a CA file, client certificates) and the server side of a listener; enables `std` |
//! | `alloc` | links `alloc`: arrays from a `Vec` and `codec::Array::to_vec` |
//! | `std` | links `std` (and `alloc`): the `io` module, a blocking `io::Connection` over any `Read + Write` stream, whose buffers are allocated |
//! | `gzip`, `snappy`, `lz4`, `zstd` | codecs for [`records::compression::BuiltinCodecs`]; `gzip` and `zstd` enable `alloc`, `snappy` enables `std` (`lz4` needs neither) |
//! | `crc-hw` | CRC-32C with the processor's instruction (SSE 4.2, AArch64 CRC; detected at run time) through the `crc32c` crate; enables `std` |
//!
//! ## MSRV
//!
//! Rust 1.95.

#![no_std]
#![forbid(unsafe_code)]
// docs.rs marks each item with the cargo features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms
)]
#![deny(
    clippy::missing_errors_doc,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::as_conversions,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::alloc_instead_of_core,
    clippy::std_instead_of_core
)]
#![cfg_attr(
    test,
    allow(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::arithmetic_side_effects,
        clippy::as_conversions,
        clippy::unreachable,
        reason = "unit tests may panic; the library may not"
    )
)]

#[cfg(feature = "alloc")]
extern crate alloc;

// The unit tests' fixtures, declared first: a test build then reads every other source file at
// other positions than the library's build, so that the `defmt` symbols of the two copies of
// the crate a unit-test binary links (the library comes in again through the test kit) are
// told apart (defmt names each by the position of its macro's call).
#[cfg(test)]
mod testdata;

/// The README's programs, compiled and run as doc tests (its consumer is on `io`).
#[cfg(all(doctest, feature = "std"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The guide's programs (`docs/guide/`), compiled and run as doc tests, a chapter each; the
/// client chapter, which uses `kwire-tokio` too, is that crate's.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../docs/guide/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../docs/guide/records.md")]
    struct Records;
    #[doc = include_str!("../docs/guide/cli.md")]
    struct CommandLine;
    #[doc = include_str!("../docs/guide/embedded.md")]
    struct Embedded;
    #[doc = include_str!("../docs/guide/performance.md")]
    struct Performance;
    #[doc = include_str!("../docs/guide/internals.md")]
    struct Internals;
}
#[cfg(test)]
extern crate std;

pub mod api;
pub mod codec;
pub mod error;
pub mod frame;
#[cfg(feature = "std")]
pub mod io;
/// Generated message types: one module per schema, one struct per message and per nested
/// struct, each covering every version of its schema. The top-level types are re-exported here.
///
/// ## Fields outside a version
///
/// A struct holds the fields of all its versions, and each field's documentation says which
/// versions carry it. Decoding a version without a field leaves the field at its default.
/// Encoding at a version without a field depends on what the field holds:
///
/// * **Its default** (named in the field's documentation when it is not the type's zero: 0,
///   `false`, empty, null or the zero UUID): nothing is lost, and the encode goes on.
/// * **Another value**: the value would be lost, so the encode fails with
///   [`EncodeError::FieldNotInVersion`], naming the field and the versions that have it.
/// * **A topic's name or id**: Produce and Fetch name a topic by its name up to version 12 and
///   by its id from 13 (OffsetCommit from 10, TxnOffsetCommit from 6). Set both, and an encode
///   writes the one its version carries; one alone at a version that carries the other is
///   refused by every encode with [`EncodeError::TopicNamedBy`], naming the field to set: a
///   Produce v13 with a topic name alone is not sent for the zero topic id.
/// * **The one exception, on request**: Kafka's schema marks some fields *ignorable* (their
///   documentation ends with "Ignorable."): hints the receiver can do without (a client's
///   software name, a rack id, a leader epoch for fencing), which Kafka's own serializer drops
///   silently at a version without them. [`Encode::encode_lenient`],
///   [`frame::encode_request_lenient`] and [`frame::encode_response_lenient`] leave such values
///   out, as Kafka does: for proxies that re-encode at another version than they read. The error
///   says whether a field is ignorable, and [`Encode::dropped_field`] names the field that a
///   lenient encode would leave out.
///
/// A tagged field at one of its tagged versions is written only when it differs from its
/// default; a field that is null where the version does not allow null fails with
/// [`EncodeError::NullNotAllowed`].
///
/// ```
/// use kwire::EncodeError;
/// use kwire::codec::{DroppedField, Encode, VersionRange};
/// use kwire::messages::{ApiVersionsRequest, MetadataRequest};
///
/// let mut out = [0u8; 64];
/// // Metadata v3 cannot say "do not create the topic".
/// let metadata = MetadataRequest::default().with_allow_auto_topic_creation(false);
/// assert_eq!(
///     metadata.encode(3, &mut out),
///     Err(EncodeError::FieldNotInVersion {
///         path: "MetadataRequest.AllowAutoTopicCreation",
///         version: 3,
///         versions: VersionRange::from(4),
///         ignorable: false,
///     })
/// );
/// assert!(metadata.encode(4, &mut out).is_ok());
///
/// // An ignorable field: refused too, unless the encode is lenient.
/// let hello = ApiVersionsRequest::default().with_client_software_name("kwire");
/// let err = hello.encode(2, &mut out).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "ApiVersionsRequest.ClientSoftwareName holds a value that version 2 cannot carry: \
///      the field is in versions 3+ only (it is ignorable: a lenient encode leaves it out \
///      instead of failing)"
/// );
/// assert_eq!(hello.encode_lenient(2, &mut out), Ok(0));
/// assert_eq!(
///     hello.dropped_field(2),
///     Some(DroppedField {
///         path: "ApiVersionsRequest.ClientSoftwareName",
///         versions: VersionRange::from(3),
///     })
/// );
/// assert_eq!(hello.dropped_field(3), None);
/// ```
pub mod messages;
pub mod records;
pub mod session;
mod wire;

/// The `heapless` this crate builds with, so that arrays built in `heapless::Vec`s
/// (`Array::from(&vec)`) need no version matched by hand.
pub use heapless;

pub use api::{ErrorCode, Request, Response, control, header};
pub use codec::{Decode, Encode, Message};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, Status};
pub use frame::Body;
pub use wire::ApiKey;
