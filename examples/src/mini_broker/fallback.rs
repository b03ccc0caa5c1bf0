//! The answer to a request the broker does not serve: a response of the right API and version,
//! written from the schema tables by the schema walker, with every top-level `ErrorCode` set to
//! the error, arrays empty and every other field at its schema default. A client gets a
//! response it can parse and an error it understands instead of a closed connection.

use kwire::ApiKey;
use kwire::codec::{Encode, Writer};
use kwire::header::response_header_version;
use kwire::messages::ResponseHeader;
use kwire_schema::walker::{self, Slot, Source, Spot};
use kwire_schema::{self as schema, DefaultValue, FieldType, Primitive};

/// Encodes the whole error response frame.
pub fn error_response(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    error: i16,
) -> Result<Vec<u8>, String> {
    let Some(s) = schema::response(key) else {
        return Err(format!("no response schema for {key}"));
    };
    let hv = response_header_version(key, version);
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let header_len = header.encoded_len(hv).map_err(|e| e.to_string())?;
    let source = Defaults { error };
    let body_len =
        walker::instance_len(s, version, source).map_err(|e| format!("{key} v{version}: {e}"))?;
    let size = header_len + body_len;
    let mut out = vec![0u8; 4 + size];
    let mut w = Writer::new(&mut out);
    w.i32(i32::try_from(size).map_err(|e| e.to_string())?);
    header.write(&mut w, hv);
    let start = w.position();
    let body = out.get_mut(start..).ok_or("frame too short")?;
    walker::write_instance(s, version, source, body).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The walker's choices for an error response: defaults everywhere, the error in the
/// top-level `ErrorCode`.
#[derive(Clone, Copy)]
struct Defaults {
    error: i16,
}

impl Source for Defaults {
    /// Null where the default is null; a nullable `records` field is always null.
    fn null(&mut self, at: Spot<'_>) -> bool {
        at.field.default == DefaultValue::Null
            || matches!(at.field.ty, FieldType::Primitive(Primitive::Records))
    }

    fn elements(&mut self, _: Spot<'_>) -> usize {
        0
    }

    // No tagged field (the default): every one is at its default, and defaults are left out.

    fn primitive(&mut self, at: Spot<'_>, p: Primitive, slot: &mut Slot<'_, '_>) {
        if at.depth == 0 && at.field.name == "ErrorCode" {
            slot.int(self.error as u64);
            return;
        }
        match (p, at.field.default) {
            (Primitive::Bool, DefaultValue::Bool(b)) => slot.bool(b),
            (Primitive::Float64, DefaultValue::Float(x)) => slot.float(x),
            (Primitive::String, DefaultValue::Str(s)) => slot.string(s),
            (_, DefaultValue::Int(n)) => slot.int(n as u64),
            // Everything else is zero, empty, or no batch.
            _ => {}
        }
    }
}
