//! A dissector: the annotated object tree of any frame, and the reference page of any API.
//!
//! The tree is produced by walking the schema tables ([`crate::schema`]) over the bytes, so it
//! works for every API key and version, shows every field with its wire type, value, offset and
//! size, and names known tagged fields, unknown tags, record batches and legacy messages. It is
//! an independent reading of the bytes: it shares no code with the generated decoders.
//!
//! Everything writes into a [`core::fmt::Write`]. A walk is linear in the input: it records the
//! sizes of the tree's composite nodes (structs, arrays, tagged sections) in a first walk that
//! visits nothing, on the stack for up to 256 of them, in a vector beyond that with the `alloc`
//! feature. Without `alloc`, a larger tree measures each composite node by walking it once more,
//! at a cost of the input's size times its depth, and nothing allocates.
//!
//! * [`visit_request_frame`], [`visit_response_frame`] and [`visit_body`] hand each [`Node`] of
//!   the tree to a [`Visit`]or, in order, and return the first decoding error.
//! * [`write_request_frame`] and [`write_response_frame`] render the tree as aligned text, the
//!   tree so far followed by the error when the input is malformed.
//! * [`page`] writes the reference page of an API: its facts, and for the request and the
//!   response the smallest legal frame, its byte layout and its tree.
//!
//! ```
//! use kwire::describe;
//!
//! let frame = [
//!     0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
//! ];
//! let mut text = String::new();
//! describe::write_request_frame(&frame, &mut text)?;
//! assert!(text.contains("request_api_key          int16            = 39 (RenewDelegationToken)"));
//! # Ok::<(), describe::DescribeError>(())
//! ```

mod page;
mod render;
mod walk;

pub use page::{ROW, Side, page, page_version, write_hex, write_layout, write_minimal_frame};
pub use render::{Renderer, write_request_frame, write_response_frame};

pub use crate::schema::tree::{
    About, Category, DescribeError, LenNote, Name, Node, PREVIEW, TypeWord, Value, Visit,
};
pub use walk::{visit_body, visit_request_frame, visit_response_frame};

/// The deepest tree level drawn; deeper nodes are still visited but drawn at this depth.
pub const MAX_DEPTH: usize = 32;
