//! # kafka-wire
//!
//! A `#![no_std]` codec for the complete Apache Kafka wire protocol: every API key and every
//! version, requests and responses, encode and decode. It encodes into a caller's `&mut [u8]` and
//! decodes into borrowed views over the caller's input.
//!
//! ## Example
//!
//! Encode a request frame into a stack buffer and decode it back:
//!
//! ```
//! use kafka_wire::messages::{RenewDelegationTokenRequest, RequestHeader};
//! use kafka_wire::{Request, frame};
//!
//! let body = RenewDelegationTokenRequest::default()
//!     .with_hmac(b"\x01\x02")
//!     .with_renew_period_ms(86_400_000);
//! let header = RequestHeader::default()
//!     .with_request_api_key(39)
//!     .with_request_api_version(2)
//!     .with_correlation_id(7)
//!     .with_client_id(Some("embedded"));
//!
//! let mut buf = [0u8; 64];
//! let n = frame::encode_request(&header, &body, &mut buf)?;
//!
//! let (decoded_header, decoded) = frame::decode_request(&buf[..n])?;
//! assert_eq!(decoded_header.correlation_id, 7);
//! let Request::RenewDelegationToken(decoded) = decoded else { unreachable!() };
//! assert_eq!(decoded.hmac, b"\x01\x02");
//! assert_eq!(decoded.renew_period_ms, 86_400_000);
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## Layers
//!
//! | module | holds |
//! |---|---|
//! | [`error`] | [`DecodeError`] (offset, kind, field path), [`EncodeError`], [`Status`] |
//! | [`codec`] | [`codec::Reader`], [`codec::Writer`], [`codec::Array`], tagged fields, the [`Decode`]/[`Encode`] traits |
//! | [`frame`], [`header`] | size-prefixed frames, finding frames in a stream buffer, header versions |
//! | `describe` (feature) | the dissector and the reference pages |
//! | [`records`] | record batches: the v2 batch view and builder, records, control records, legacy message sets, CRCs, the compression hook |
//! | [`messages`] | generated: one struct per message and nested struct, for all versions |
//! | [`schema`] | generated tables of every schema, and a hand-written walker over them |
//! | [`api`] | [`ApiKey`], the version tables, [`Request`] and [`Response`] |
//!
//! ## Guarantees
//!
//! * **No allocation.** The crate does not link `alloc`; no wire length can cause an allocation.
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
//! | `defmt` | `defmt::Format` for errors, headers, API keys, version negotiation, record views and every generated message |
//! | `describe` | the `describe` module: the dissector (object trees of any frame) and the reference pages |
//! | `gzip`, `snappy`, `lz4`, `zstd` | codecs for [`records::compression::BuiltinCodecs`]; `gzip` and `zstd` enable `alloc`, `snappy` enables `std` (`lz4` needs neither) |
//! | `crc-hw` | CRC-32C with the processor's instruction (SSE 4.2, AArch64 CRC; detected at run time) through the `crc32c` crate; enables `std` |
//!
//! ## MSRV
//!
//! Rust 1.95.

#![no_std]
#![forbid(unsafe_code)]
#![deny(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms
)]
#![deny(
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

#[cfg(feature = "gzip")]
extern crate alloc;
#[cfg(test)]
extern crate std;

#[doc(hidden)]
#[path = "fuzz.rs"]
pub mod __fuzz;
pub mod api;
pub mod codec;
#[cfg(feature = "describe")]
pub mod describe;
pub mod error;
pub mod frame;
pub mod header;
pub mod messages;
pub mod records;
pub mod schema;
#[cfg(test)]
mod testdata;

pub use api::{ApiKey, Request, Response};
pub use codec::{Decode, Encode, Message};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, Status};
