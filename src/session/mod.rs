//! The protocol session, without I/O: what a client, a server or a relay keeps between frames.
//!
//! The codec turns one frame into a message and back. A connection needs more: correlation ids
//! to assign and match, requests in flight to remember (several at once, when requests are
//! pipelined), frames to cut out of whatever chunks the network delivers, the ApiVersions
//! exchange and its fallback to version 0, and the version to send each request at. This module
//! keeps that state and does no I/O, so it runs over any transport: kernel sockets, a
//! user-space TCP/IP stack, a firmware's modem, a test's byte slices.
//!
//! * [`FrameBuffer`]: the caller's receive buffer, filled with chunks of any size (a TCP
//!   segment, a ring buffer's slice, one byte) and emptied one whole frame at a time.
//! * [`Client`]: assigns correlation ids, encodes requests into the caller's buffer, remembers
//!   each request in flight in storage the caller sizes (`N` requests), negotiates versions,
//!   and hands back each response matched to its request.
//! * [`InFlight`]: the requests in flight alone, for a relay that forwards frames it did not
//!   encode.
//! * [`server`]: request frames out of chunks, and responses with the header version Kafka's
//!   rule calls for and the correlation id echoed, the ApiVersions fallback included.
//! * `sasl` (the `sasl` feature, on by default): PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER, as
//!   a client authenticates after the ApiVersions exchange (`Client::with_sasl`), and a
//!   server's checks of PLAIN and SCRAM.
//!
//! Nothing allocates, nothing panics, and every failure is a [`SessionError`].
//!
//! # A pipelined client
//!
//! Over any byte stream (here a test's vector of chunks): negotiate, send three requests
//! without waiting, then read their responses as the bytes come.
//!
//! ```
//! use kwire::messages::{HeartbeatRequest, HeartbeatResponse};
//! use kwire::session::{Client, Event, FrameBuffer};
//! # use kwire::session::server;
//! # use kwire::messages::ApiVersionsResponse;
//! # use kwire::messages::api_versions_response::ApiVersion;
//! # use kwire::ApiKey;
//! # // A broker on the other side of the stream.
//! # fn broker(requests: &[u8], answers: &mut Vec<u8>) {
//! #     let mut storage = [0u8; 1024];
//! #     let mut rx = FrameBuffer::new(&mut storage);
//! #     rx.push(requests);
//! #     let mut out = [0u8; 256];
//! #     while let Some(request) = server::next_request(&mut rx).unwrap() {
//! #         let n = if request.info.api_key == ApiKey::API_VERSIONS {
//! #             let keys = [ApiVersion::default().with_api_key(12).with_max_version(4),
//! #                         ApiVersion::default().with_api_key(18).with_max_version(4)];
//! #             let body = ApiVersionsResponse::default().with_api_keys(&keys);
//! #             server::respond_api_versions(&request.info, &body, &mut out).unwrap()
//! #         } else {
//! #             server::respond(&request.info, &HeartbeatResponse::default(), &mut out).unwrap()
//! #         };
//! #         answers.extend_from_slice(&out[..n]);
//! #     }
//! # }
//!
//! let mut client: Client<'_, 8> = Client::negotiating(Some("app"));
//! let mut storage = [0u8; 4096];
//! let mut rx = FrameBuffer::new(&mut storage);
//! let mut tx = [0u8; 256];
//! let mut wire = Vec::new();
//!
//! // The session's own request first: ApiVersions.
//! while let Some(n) = client.poll_transmit(&mut tx)? {
//!     wire.extend_from_slice(&tx[..n]);
//! }
//! # let mut answers = Vec::new();
//! # broker(&wire, &mut answers);
//! # wire.clear();
//! // ... the bytes go out, the answer comes back in pieces ...
//! # for chunk in answers.chunks(3) {
//! rx.push(chunk);
//! while let Some(event) = client.receive(&mut rx)? {
//!     assert!(matches!(event, Event::Ready));
//! }
//! # }
//! assert!(client.is_ready());
//!
//! // Three heartbeats in flight at once, each at the version both sides speak.
//! for _ in 0..3 {
//!     let sent = client.send(&HeartbeatRequest::default(), &mut tx)?;
//!     wire.extend_from_slice(&tx[..sent.len]);
//! }
//! assert_eq!(client.in_flight(), 3);
//! # let mut answers = Vec::new();
//! # broker(&wire, &mut answers);
//! let mut answered = 0;
//! # for chunk in answers.chunks(5) {
//! rx.push(chunk);
//! while let Some(Event::Response(answer)) = client.receive(&mut rx)? {
//!     let body: HeartbeatResponse<'_> = answer.decode_as()?;
//!     assert_eq!((answer.request().version, body.error_code), (4, 0));
//!     answered += 1;
//! }
//! # }
//! assert_eq!((answered, client.in_flight()), (3, 0));
//! # Ok::<(), kwire::session::SessionError>(())
//! ```

mod buffer;
mod client;
mod error;
mod in_flight;
pub mod server;

#[cfg(feature = "sasl")]
pub mod sasl;

pub use buffer::FrameBuffer;
pub use client::{Answer, Client, Event, RESPONSE_OVERHEAD};
pub use error::SessionError;
pub use in_flight::{InFlight, Pending, Sent};
