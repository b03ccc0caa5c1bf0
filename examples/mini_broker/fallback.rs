//! The answer to a request the broker does not serve: a response of the right API and version,
//! written from the schema tables, with every top-level `ErrorCode` set to the error, arrays
//! empty and every other field at its schema default. A client gets a response it can parse and
//! an error it understands instead of a closed connection.

use kwire::ApiKey;
use kwire::codec::{Encode, Writer};
use kwire::header::response_header_version;
use kwire::messages::ResponseHeader;
use kwire::schema::{self, DefaultValue, FieldSchema, FieldType, Primitive, StructSchema};

/// Encodes the whole error response frame.
pub fn error_response(
    key: ApiKey,
    version: i16,
    correlation_id: i32,
    error: i16,
) -> Result<Vec<u8>, String> {
    let Some(s) = schema::response(key).filter(|s| s.valid_versions.contains(version)) else {
        return Err(format!("no response schema for {key} v{version}"));
    };
    let ctx = Ctx {
        version,
        flexible: s.is_flexible(version),
        error,
    };
    let hv = response_header_version(key, version);
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let header_len = header.encoded_len(hv).map_err(|e| e.to_string())?;
    let mut counter = Writer::new(&mut []);
    write_struct(s.root, ctx, true, &mut counter);
    let size = header_len + counter.position();
    let mut out = vec![0u8; 4 + size];
    let mut w = Writer::new(&mut out);
    w.i32(i32::try_from(size).map_err(|e| e.to_string())?);
    header.write(&mut w, hv);
    write_struct(s.root, ctx, true, &mut w);
    debug_assert!(!w.overflowed());
    Ok(out)
}

#[derive(Clone, Copy)]
struct Ctx {
    version: i16,
    flexible: bool,
    error: i16,
}

fn write_struct(s: &StructSchema, ctx: Ctx, top: bool, w: &mut Writer<'_>) {
    for f in s.fields.iter().filter(|f| f.is_positional(ctx.version)) {
        write_field(f, ctx, top, w);
    }
    if ctx.flexible {
        // No tagged fields: every one is at its default, and defaults are left out.
        w.uvarint(0);
    }
}

fn write_field(f: &FieldSchema, ctx: Ctx, top: bool, w: &mut Writer<'_>) {
    let compact = f
        .flexible_versions
        .map_or(ctx.flexible, |r| r.contains(ctx.version));
    let null = f.is_nullable(ctx.version) && f.default == DefaultValue::Null;
    match f.ty {
        FieldType::Array(_) | FieldType::StructArray(_) => {
            if null {
                w.null_len(compact, false);
            } else {
                w.len(0, compact, false);
            }
        }
        FieldType::Struct(s) => {
            if f.is_nullable(ctx.version) {
                if null {
                    w.i8(-1);
                    return;
                }
                w.i8(1);
            }
            write_struct(s, ctx, false, w);
        }
        FieldType::Primitive(p) => {
            if top && f.name == "ErrorCode" {
                w.i16(ctx.error);
                return;
            }
            let int = match f.default {
                DefaultValue::Int(n) => n,
                DefaultValue::Bool(b) => i64::from(b),
                _ => 0,
            };
            match p {
                Primitive::Bool | Primitive::Int8 => w.i8(int as i8),
                Primitive::Int16 | Primitive::Uint16 => w.i16(int as i16),
                Primitive::Int32 | Primitive::Uint32 => w.i32(int as i32),
                Primitive::Int64 => w.i64(int),
                Primitive::Float64 => w.f64(match f.default {
                    DefaultValue::Float(x) => x,
                    _ => 0.0,
                }),
                Primitive::Uuid => w.put(&[0; 16]),
                Primitive::String => match f.default {
                    _ if null => w.null_len(compact, true),
                    DefaultValue::Str(s) => w.string(s, compact),
                    _ => w.string("", compact),
                },
                Primitive::Bytes | Primitive::Records => {
                    if null || (p == Primitive::Records && f.is_nullable(ctx.version)) {
                        w.null_len(compact, false);
                    } else {
                        w.bytes(&[], compact);
                    }
                }
            }
        }
    }
}
