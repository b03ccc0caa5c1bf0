//! # kwire-schema
//!
//! Kafka's message schemas as static tables (generated from the same JSON schemas as `kwire`'s
//! message types), and the hand-written walks over them: a second, independent implementation of
//! the wire format that shares no code with `kwire`'s generated encoders and decoders.
//!
//! * One walk reads: it turns the bytes of any frame, of any API and version, well formed or
//!   not, into the nodes of an annotated object tree, which the dissector ([`describe`]) shows
//!   and [`walker::validate`] walks without visiting.
//! * One writes: instances of any message at any version, the smallest legal one or one whose
//!   choices a caller's [`walker::Source`] makes ([`walker::write_instance`]).
//! * [`describe::page`] writes the reference page of an API.
//!
//! The codec does not depend on this crate: a program that only encodes and decodes builds
//! without its tables. `kwire dissect` on the command line is this crate's dissector.
//!
//! ```
//! let frame = [0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
//! let mut text = String::new();
//! kwire_schema::describe::write_request_frame(&frame, &mut text)?;
//! assert!(text.contains("= 39 (RenewDelegationToken)"));
//! assert!(!text.contains("error"));
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! ## Cargo features
//!
//! | feature | effect |
//! |---|---|
//! | `alloc` | links `alloc`: a dissection of a tree of more than 256 composite nodes stays linear in its size (without it, such a tree is measured by walking each composite node again, and nothing allocates) |

#![no_std]
#![forbid(unsafe_code)]
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
#[cfg(test)]
extern crate std;

pub mod describe;
mod enums;
pub(crate) mod read;
mod tables;
mod tree;
pub mod walker;

pub use tables::*;

use kwire::api::ApiKey;
use kwire::codec::{MessageKind, VersionRange};

/// A primitive field or element type: Kafka's notation, shared with the generator.
pub use kwire_notation::Primitive;

/// The type of a field.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// A primitive value.
    Primitive(Primitive),
    /// A struct.
    Struct(&'static StructSchema),
    /// An array of primitives.
    Array(Primitive),
    /// An array of structs.
    StructArray(&'static StructSchema),
}

/// A field's schema default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// The implicit default: 0, false, empty, the zero UUID, an empty array, a default struct;
    /// null for records.
    Implicit,
    /// Null.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// A string.
    Str(&'static str),
}

/// One field of a struct.
#[derive(Debug, Clone, Copy)]
pub struct FieldSchema {
    /// The JSON name.
    pub name: &'static str,
    /// The type.
    pub ty: FieldType,
    /// The versions the field exists in (as written in the schema; presence also needs the
    /// enclosing struct to be present).
    pub versions: VersionRange,
    /// The versions in which the field may be null.
    pub nullable_versions: VersionRange,
    /// The versions in which the field is sent in the tagged section.
    pub tagged_versions: VersionRange,
    /// The tag, for tagged fields.
    pub tag: Option<u32>,
    /// The default.
    pub default: DefaultValue,
    /// Whether the field may be dropped when a version cannot carry it.
    pub ignorable: bool,
    /// A field-level override of the flexible versions (for the length encoding only).
    pub flexible_versions: Option<VersionRange>,
}

impl FieldSchema {
    /// True if the field's lengths use the compact encoding at `version` of a message whose
    /// encoding there is `flexible`: the message's, unless the field names its own versions.
    #[must_use]
    pub fn is_compact(&self, version: i16, flexible: bool) -> bool {
        self.flexible_versions
            .map_or(flexible, |r| r.contains(version))
    }

    /// True if the field is sent positionally at `version`.
    #[must_use]
    pub const fn is_positional(&self, version: i16) -> bool {
        self.versions.contains(version) && !self.tagged_versions.contains(version)
    }

    /// True if the field is sent in the tagged section at `version`.
    #[must_use]
    pub const fn is_tagged(&self, version: i16) -> bool {
        self.versions.contains(version) && self.tagged_versions.contains(version)
    }

    /// True if the field may be null at `version`.
    #[must_use]
    pub const fn is_nullable(&self, version: i16) -> bool {
        self.nullable_versions.contains(version)
    }
}

/// A struct: the top level of a message, an inline struct or a common struct.
#[derive(Debug, Clone, Copy)]
pub struct StructSchema {
    /// The struct's type name.
    pub name: &'static str,
    /// Its schema path, as used in error messages.
    pub path: &'static str,
    /// The versions in which the struct can be reached from the top level.
    pub versions: VersionRange,
    /// The fields, in wire order.
    pub fields: &'static [FieldSchema],
}

impl StructSchema {
    /// One past the highest tag the struct defines (tags are numbered from 0 per struct): a
    /// tag from this one up is unknown to the schema.
    #[must_use]
    pub fn tag_count(&self) -> u32 {
        self.fields
            .iter()
            .filter_map(|f| f.tag)
            .map(|t| t.saturating_add(1))
            .max()
            .unwrap_or(0)
    }
}

/// A whole schema.
#[derive(Debug, Clone, Copy)]
pub struct MessageSchema {
    /// The schema name, such as `"FetchRequest"`.
    pub name: &'static str,
    /// The API key, or -1 for headers and data payloads.
    pub api_key: i16,
    /// What the schema describes.
    pub kind: MessageKind,
    /// The valid versions.
    pub valid_versions: VersionRange,
    /// The flexible versions.
    pub flexible_versions: VersionRange,
    /// The top-level struct.
    pub root: &'static StructSchema,
}

impl MessageSchema {
    /// True if `version` uses the flexible encoding.
    #[must_use]
    pub const fn is_flexible(&self, version: i16) -> bool {
        self.flexible_versions.contains(version)
    }
}

/// The request schema of an API key.
#[must_use]
pub fn request(api_key: ApiKey) -> Option<&'static MessageSchema> {
    find(api_key, MessageKind::Request)
}

/// The response schema of an API key.
#[must_use]
pub fn response(api_key: ApiKey) -> Option<&'static MessageSchema> {
    find(api_key, MessageKind::Response)
}

fn find(api_key: ApiKey, kind: MessageKind) -> Option<&'static MessageSchema> {
    MESSAGES
        .iter()
        .copied()
        .find(|m| m.api_key == api_key.0 && m.kind == kind)
}

/// A schema by name (`"FetchRequest"`, `"RequestHeader"`, `"ConsumerProtocolSubscription"`).
#[must_use]
pub fn by_name(name: &str) -> Option<&'static MessageSchema> {
    MESSAGES.iter().copied().find(|m| m.name == name)
}
