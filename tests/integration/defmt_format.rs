//! With the `defmt` feature, every type a device logs implements `defmt::Format`: errors,
//! headers, API keys, negotiation, record views and every generated message (the `Request` and
//! `Response` enums derive it, which needs it of every body and of every struct nested in one).
//! The check is at compile time: this file does not build if any of them lacks the impl.
#![cfg(feature = "defmt")]

use kwire::api::{NegotiateError, Unsupported, VersionTable};
use kwire::codec::{
    Array, ArrayView, ParseVersionRangeError, Str, TaggedFields, Uuid, VersionRange,
};
use kwire::messages::{
    ConsumerProtocolAssignment, FetchResponse, MetadataResponse, ProduceRequest, RequestHeader,
    ResponseHeader,
};
use kwire::records::{
    Attributes, ControlRecord, Header, LegacyMessage, Record, RecordBatch, RecordBatchHeader,
    Records,
};
use kwire::{ApiKey, DecodeError, DecodeErrorKind, EncodeError, ErrorCode, Request, Response};

fn is_format<T: defmt::Format + ?Sized>() {}

#[test]
fn everything_a_device_logs_implements_format() {
    is_format::<DecodeError>();
    is_format::<DecodeErrorKind>();
    is_format::<EncodeError>();
    is_format::<ApiKey>();
    is_format::<ErrorCode>();
    is_format::<kwire::frame::RequestInfo<'static>>();
    is_format::<VersionRange>();
    is_format::<ParseVersionRangeError>();
    is_format::<VersionTable>();
    is_format::<NegotiateError>();
    is_format::<Unsupported>();
    is_format::<RequestHeader<'static>>();
    is_format::<ResponseHeader<'static>>();
    is_format::<Request<'static>>();
    is_format::<Response<'static>>();
    is_format::<MetadataResponse<'static>>();
    is_format::<FetchResponse<'static>>();
    is_format::<ProduceRequest<'static>>();
    is_format::<ConsumerProtocolAssignment<'static>>();
    is_format::<Array<'static, i32>>();
    is_format::<ArrayView<'static, Str<'static>>>();
    is_format::<Str<'static>>();
    is_format::<TaggedFields<'static>>();
    is_format::<Uuid>();
    is_format::<Records<'static>>();
    is_format::<RecordBatch<'static>>();
    is_format::<RecordBatchHeader>();
    is_format::<Attributes>();
    is_format::<Record<'static>>();
    is_format::<Header<'static>>();
    is_format::<ControlRecord<'static>>();
    is_format::<LegacyMessage<'static>>();
}
