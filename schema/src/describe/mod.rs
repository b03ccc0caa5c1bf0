//! A dissector: the annotated object tree of any frame, and the reference page of any API.
//!
//! The tree is produced by walking the schema tables ([`crate::MESSAGES`]) over the bytes, so it
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
//!   tree so far followed by the error when the input is malformed; [`render`] renders any walk,
//!   [`Reveal`] shows the credentials a tree otherwise hides.
//! * [`page`] writes the reference page of an API: its facts, and for the request and the
//!   response the smallest legal frame, its byte layout and its tree.
//!
//! ```
//! use kwire_schema::describe;
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
pub use render::{Renderer, render, write_request_frame, write_response_frame};

pub use crate::tree::{
    About, Category, DescribeError, LenNote, Name, Node, PREVIEW, TypeWord, Value, Visit,
};
pub use walk::{visit_body, visit_request_frame, visit_response_frame};

/// A visitor that hands every node to another with its secret shown ([`Value::revealed`]): the
/// content of SaslAuthenticate's auth bytes (passwords, SCRAM proofs, tokens), which trees
/// otherwise show as their length and mechanism step only. For a tool's `--show-secrets`.
///
/// ```
/// use kwire_schema::describe::{self, Reveal, visit_request_frame};
///
/// // A SaslAuthenticate v0 request carrying PLAIN credentials.
/// let frame = [
///     0, 0, 0, 24, 0, 36, 0, 0, 0, 0, 0, 7, 0xff, 0xff, 0, 0, 0, 10, 0, b'u', 0, b's', b'e',
///     b'c', b'r', b'e', b't', b'!',
/// ];
/// let mut hidden = String::new();
/// describe::write_request_frame(&frame, &mut hidden)?;
/// assert!(hidden.contains("<PLAIN credentials, 10 bytes, not shown>"));
/// let mut shown = String::new();
/// describe::render(&mut shown, |v| visit_request_frame(&frame, &mut Reveal(v)))?;
/// assert!(shown.contains("= 0x00750073656372657421 (int32 len=10)"));
/// # Ok::<(), describe::DescribeError>(())
/// ```
pub struct Reveal<'v>(pub &'v mut dyn Visit);

impl core::fmt::Debug for Reveal<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Reveal(..)")
    }
}

impl Visit for Reveal<'_> {
    fn node(&mut self, node: &Node<'_>) -> core::fmt::Result {
        self.0.node(&Node {
            value: node.value.revealed(),
            ..*node
        })
    }
}

/// The deepest tree level drawn; deeper nodes are still visited but drawn at this depth.
pub const MAX_DEPTH: usize = 32;
