//! The records listing (`kwire dissect --records`, `kwire capture --records`, the dissect
//! page): every record of every records field of a frame, with its offset, time, key, value and
//! headers; compressed batches decompressed, control records named. The same reading, without
//! the lines, checks the records of every exchange ([`Report::checked`]).

use std::fmt::{self, Write};

use kwire::DecodeErrorKind;
use kwire::codec::Uuid;
use kwire::records::compression::{BuiltinCodecs, CompressionError, Decompressor};
use kwire::records::{
    Batch, Compression, ControlRecord, LegacyMessage, RecordBatch, RecordIter, Records,
};
use kwire_schema::describe::{self, DescribeError, Name, Node, Value, Visit};

/// Characters of a text value shown before it is cut.
const TEXT: usize = 64;
/// Bytes of a binary value shown (as hex) before it is cut.
const HEX: usize = 32;
/// The largest decompressed payload accepted (a broker's default `message.max.bytes` is 1 MiB;
/// producers batch up to a few).
const MAX_DECOMPRESSED: usize = 256 << 20;

/// A topic as a frame names it.
#[derive(Debug, Clone)]
enum Topic {
    /// By name, quoted as it is printed (bytes that are not UTF-8 escaped as `\xNN`).
    Name(String),
    /// By id.
    Id(Uuid),
}

/// A records field of a frame: where its bytes are, and the topic and partition before it.
#[derive(Debug)]
struct Field {
    topic: Option<Topic>,
    partition: Option<i64>,
    start: usize,
    len: usize,
}

/// Finds the records fields of a tree, each with the most recent topic and partition.
#[derive(Debug, Default)]
struct Fields {
    topic: Option<Topic>,
    partition: Option<i64>,
    found: Vec<Field>,
}

impl Visit for Fields {
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        let Name::Plain(name) = n.name else {
            return Ok(());
        };
        match (name, n.value) {
            ("Name" | "Topic" | "TopicName", Value::Str(s, _)) => {
                self.topic = Some(Topic::Name(format!("{s:?}")));
            }
            ("TopicId", Value::Uuid(u)) => self.topic = Some(Topic::Id(u)),
            ("Index" | "PartitionIndex" | "Partition", Value::Int(p)) => self.partition = Some(p),
            (_, Value::Records { len, .. }) => {
                if let Some(size) = n.size {
                    self.found.push(Field {
                        topic: self.topic.clone(),
                        partition: self.partition,
                        start: n.offset + size - len,
                        len,
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// What reading a frame's records found: the lines to print, when they are wanted, and every
/// problem (a batch whose CRC does not match, an entry or record that cannot be read), which
/// marks the exchange whether or not the records are printed.
#[derive(Debug, Default)]
pub struct Report {
    /// The lines, when the records are printed.
    text: Option<String>,
    /// What is wrong with the records, a sentence each.
    problems: Vec<String>,
}

impl Report {
    /// A report that prints the records.
    pub fn printed() -> Self {
        Self {
            text: Some(String::new()),
            problems: Vec::new(),
        }
    }

    /// A report that only checks them.
    pub fn checked() -> Self {
        Self::default()
    }

    /// The first problem, and how many more there are; `None` when the records are sound.
    pub fn summary(&self) -> Option<String> {
        let first = self.problems.first()?;
        Some(match self.problems.len() - 1 {
            0 => first.clone(),
            1 => format!("{first} (and one more problem)"),
            n => format!("{first} (and {n} more problems)"),
        })
    }

    /// The printed lines (empty when only checked).
    pub fn into_text(self) -> String {
        self.text.unwrap_or_default()
    }

    /// Where a line goes, when lines are printed.
    fn out(&mut self) -> Option<&mut String> {
        self.text.as_mut()
    }

    /// A line under `indent` that says what is wrong, and the problem recorded, naming `field`.
    fn problem(&mut self, indent: &str, field: &str, what: String) {
        if let Some(out) = self.out() {
            let _ = writeln!(out, "{indent}{what}");
        }
        self.problems.push(format!("{field}: {what}"));
    }
}

/// The name of a topic id, when it is known.
pub type TopicNames<'n> = &'n dyn Fn(Uuid) -> Option<String>;

/// Reads the records of every records field in the tree `walk` gives of `frame` into `report`,
/// naming topic ids with `names`. `request`: the records are a producer's (a field may not end
/// in a partial entry, as a fetch response cut at its size limit does, and each batch's last
/// offset delta is its last record's).
fn frame_records(
    frame: &[u8],
    walk: impl FnOnce(&mut dyn Visit) -> Result<(), DescribeError>,
    request: bool,
    names: TopicNames<'_>,
    report: &mut Report,
) {
    let mut fields = Fields::default();
    // The fields before a decoding error are still read; the error is the tree's to report.
    let _ = walk(&mut fields);
    for f in fields.found {
        // An empty field (a fetched partition with nothing new) has nothing to show.
        let Some(bytes) = frame
            .get(f.start..f.start + f.len)
            .filter(|b| !b.is_empty())
        else {
            continue;
        };
        let mut name = String::from("records");
        match &f.topic {
            Some(Topic::Name(t)) => {
                let _ = write!(name, " of topic {t}");
            }
            // In Kafka's base64 form, as its tools print topic ids; with its name when known.
            Some(Topic::Id(id)) => match names(*id) {
                Some(t) => {
                    let _ = write!(name, " of topic {t:?} (id {id})");
                }
                None => {
                    let _ = write!(name, " of topic id {id}");
                }
            },
            None => {}
        }
        if let Some(p) = f.partition {
            let _ = write!(name, " partition {p}");
        }
        if let Some(out) = report.out() {
            let _ = writeln!(out, "{name} ({} bytes at frame byte {}):", f.len, f.start);
        }
        read_records(Records::from(bytes), &name, request, report);
    }
}

/// Reads the request frame's records into `report`, naming topic ids with `names`.
pub fn request_records(frame: &[u8], names: TopicNames<'_>, report: &mut Report) {
    frame_records(
        frame,
        |v| describe::visit_request_frame(frame, v),
        true,
        names,
        report,
    );
}

/// Reads the response frame's records into `report`, naming topic ids with `names`.
pub fn response_records(
    frame: &[u8],
    api: kwire::ApiKey,
    version: i16,
    names: TopicNames<'_>,
    report: &mut Report,
) {
    frame_records(
        frame,
        |v| describe::visit_response_frame(frame, api, version, v),
        false,
        names,
        report,
    );
}

/// Reads each entry of the records field `field` and its records, indented by two spaces;
/// `request` as [`frame_records`] takes it.
fn read_records(records: Records<'_>, field: &str, request: bool, report: &mut Report) {
    let indent = "  ";
    let mut batches = records.batches();
    let mut any = false;
    for b in batches.by_ref() {
        any = true;
        match b {
            Ok(Batch::V2(b)) => read_batch(&b, field, indent, request, report),
            Ok(Batch::Legacy(m)) => read_legacy(&m, field, indent, report),
            Err(e) => report.problem(indent, field, format!("malformed entry: {e}")),
        }
    }
    if let Some(p) = batches.partial() {
        let what = format!(
            "a partial entry at the end: {} of its bytes are here, {} more were needed",
            p.available, p.needed
        );
        if !request {
            if let Some(out) = report.out() {
                let _ = writeln!(
                    out,
                    "{indent}{what}, as a broker cuts a fetch at its size limit"
                );
            }
        } else {
            report.problem(indent, field, what);
        }
    } else if !any && let Some(out) = report.out() {
        let _ = writeln!(out, "{indent}no entries");
    }
}

fn read_batch(b: &RecordBatch<'_>, field: &str, indent: &str, request: bool, report: &mut Report) {
    let codec = b.compression();
    let count = b.records_count();
    if let Some(out) = report.out() {
        let _ = write!(
            out,
            "{indent}batch offsets {}..={}, {count} record{}, {}",
            b.base_offset(),
            b.last_offset(),
            if count == 1 { "" } else { "s" },
            codec_name(codec)
        );
        if b.producer_id() >= 0 {
            let _ = write!(
                out,
                ", producer {} epoch {} sequence {}",
                b.producer_id(),
                b.producer_epoch(),
                b.base_sequence()
            );
        }
        if b.is_transactional() {
            out.push_str(", transactional");
        }
        if b.is_control() {
            out.push_str(", control");
        }
        out.push('\n');
    }
    let inner = format!("{indent}  ");
    if let Err(e) = b.verify_crc() {
        report.problem(&inner, field, shown_anyway("batch", b.base_offset(), &e));
    }
    let mut buf = Vec::new();
    let records = if codec == Compression::NONE {
        b.records_unchecked().map_err(CompressionError::Decode)
    } else {
        match decompress(codec, b.payload(), &mut buf) {
            Ok((n, checksum)) => {
                if let Some(e) = checksum {
                    report.problem(&inner, field, shown_anyway("batch", b.base_offset(), &e));
                }
                b.records_in_unchecked(&buf[..n])
                    .map_err(CompressionError::Decode)
            }
            Err(e) => Err(e),
        }
    };
    match records {
        Ok(records) => {
            let last = read_v2_records(records, b, field, &inner, report);
            check_last_offset(b, last, request, field, &inner, report);
        }
        Err(e) => report.problem(&inner, field, format!("records not read: {e}")),
    }
}

/// The records of batch `b`, which `records` reads; returns the offset of the last one read.
fn read_v2_records(
    records: RecordIter<'_>,
    b: &RecordBatch<'_>,
    field: &str,
    indent: &str,
    report: &mut Report,
) -> Option<i64> {
    let control = b.is_control();
    let mut last = None;
    for r in records {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                let at = format!("batch at offset {}", b.base_offset());
                let what = match e.kind {
                    DecodeErrorKind::TrailingBytes { .. } => format!(
                        "{at}: it holds more than the {} records its header counts ({e})",
                        b.records_count()
                    ),
                    DecodeErrorKind::Truncated { .. } => format!(
                        "{at}: it holds fewer than the {} records its header counts ({e})",
                        b.records_count()
                    ),
                    _ => format!("malformed record: {e}"),
                };
                report.problem(indent, field, what);
                return last;
            }
        };
        last = Some(r.offset());
        let control = control.then(|| ControlRecord::parse(&r));
        if let Some(Err(e)) = &control {
            report.problem(
                indent,
                field,
                format!("control record at offset {} malformed: {e}", r.offset()),
            );
            continue;
        }
        let Some(out) = report.out() else {
            continue;
        };
        let _ = write!(
            out,
            "{indent}offset {}  {}",
            r.offset(),
            time(r.timestamp())
        );
        if let Some(Ok(c)) = control {
            let ty = c.record_type();
            match ty.name() {
                Some(name) => {
                    let _ = write!(out, "  control {name}");
                }
                None => {
                    let _ = write!(out, "  control type {}", ty.0);
                }
            }
            out.push('\n');
            continue;
        }
        let _ = write!(out, "  key {}  value {}", shown(r.key()), shown(r.value()));
        let headers = r.headers();
        if !headers.is_empty() {
            out.push_str("  headers");
            for h in headers.iter() {
                let _ = write!(out, " {}={}", shown(Some(h.key())), shown(h.value()));
            }
        }
        out.push('\n');
    }
    last
}

/// Checks the batch's last offset delta against its records (`last`: the last one's offset):
/// none may be past it, and in a producer's batch the last record is at it (a compacted batch
/// a broker returns keeps its last offset delta, so its last record may be before it).
fn check_last_offset(
    b: &RecordBatch<'_>,
    last: Option<i64>,
    request: bool,
    field: &str,
    indent: &str,
    report: &mut Report,
) {
    let Some(last) = last else {
        return;
    };
    let end = b.last_offset();
    if last > end || (request && last != end) {
        report.problem(
            indent,
            field,
            format!(
                "batch at offset {}: its last offset delta {} puts its last record at offset \
                 {end}, but that record is at offset {last}",
                b.base_offset(),
                b.last_offset_delta()
            ),
        );
    }
}

fn read_legacy(m: &LegacyMessage<'_>, field: &str, indent: &str, report: &mut Report) {
    if let Err(e) = m.verify_crc() {
        let at = format!("message at offset {}", m.offset());
        report.problem(indent, field, format!("{at}: {e}"));
    }
    let codec = m.compression();
    if !m.is_wrapper() {
        if let Some(out) = report.out() {
            let _ = writeln!(
                out,
                "{indent}offset {}  {}  key {}  value {}  (magic {})",
                m.offset(),
                m.timestamp().map_or_else(|| "-".into(), time),
                shown(m.key()),
                shown(m.value()),
                m.magic()
            );
        }
        return;
    }
    if let Some(out) = report.out() {
        let _ = writeln!(
            out,
            "{indent}message set, magic {}, {}, wrapper offset {}",
            m.magic(),
            codec_name(codec),
            m.offset()
        );
    }
    let inner = format!("{indent}  ");
    let mut buf = Vec::new();
    let n = match decompress(codec, m.value().unwrap_or_default(), &mut buf) {
        Ok((n, checksum)) => {
            if let Some(e) = checksum {
                report.problem(&inner, field, shown_anyway("message set", m.offset(), &e));
            }
            n
        }
        Err(e) => {
            report.problem(&inner, field, format!("records not read: {e}"));
            return;
        }
    };
    let messages = match m.inner(&buf[..n]) {
        Ok(messages) => messages,
        Err(e) => {
            report.problem(&inner, field, format!("records not read: {e}"));
            return;
        }
    };
    for r in messages {
        match r {
            Ok(r) => {
                if let Some(out) = report.out() {
                    let _ = writeln!(
                        out,
                        "{inner}offset {}  {}  key {}  value {}",
                        r.offset(),
                        r.timestamp().map_or_else(|| "-".into(), time),
                        shown(r.key()),
                        shown(r.value())
                    );
                }
            }
            Err(e) => {
                report.problem(&inner, field, format!("malformed message: {e}"));
                return;
            }
        }
    }
}

fn codec_name(c: Compression) -> String {
    match c.name() {
        Some(n) => n.to_string(),
        None => format!("codec {}", c.0),
    }
}

/// Decompresses `input` into `buf`, growing it as the codec asks. A stream that fails its own
/// checksum (gzip's CRC-32, lz4's header, block and content checksums) is decompressed again
/// without checking it, so its records are shown as they are; the mismatch is returned beside
/// the length for the caller to report.
fn decompress(
    codec: Compression,
    input: &[u8],
    buf: &mut Vec<u8>,
) -> Result<(usize, Option<CompressionError>), CompressionError> {
    match decompress_with(BuiltinCodecs::new(), codec, input, buf) {
        Err(checked @ CompressionError::Checksum { .. }) => {
            let unchecked = BuiltinCodecs::new().verify_checksums(false);
            match decompress_with(unchecked, codec, input, buf) {
                Ok(n) => Ok((n, Some(checked))),
                // Damage past the checksum's: the unchecked read got further.
                Err(e) => Err(e),
            }
        }
        other => other.map(|n| (n, None)),
    }
}

/// The problem of a batch or message set at `offset` whose CRC or compressed payload's
/// checksum failed (`e`), and whose records are shown all the same.
fn shown_anyway(what: &str, offset: i64, e: &dyn core::fmt::Display) -> String {
    format!("{what} at offset {offset}: {e}; its records are shown as they are")
}

/// Decompresses `input` with `codecs` into `buf`, growing it as the codec asks.
fn decompress_with(
    mut codecs: BuiltinCodecs,
    codec: Compression,
    input: &[u8],
    buf: &mut Vec<u8>,
) -> Result<usize, CompressionError> {
    let mut size = input.len().saturating_mul(4).clamp(4096, MAX_DECOMPRESSED);
    loop {
        buf.resize(size, 0);
        match codecs.decompress(codec, input, buf) {
            Err(CompressionError::OutputTooSmall { needed, available })
                if size < MAX_DECOMPRESSED =>
            {
                size = needed
                    .unwrap_or(available.saturating_mul(2))
                    .max(available.saturating_mul(2))
                    .min(MAX_DECOMPRESSED);
            }
            other => return other,
        }
    }
}

/// A key, value or header: null, text when it is UTF-8 without control characters other than
/// tabs and newlines, else hex; long ones cut, with their length.
fn shown(b: Option<&[u8]>) -> String {
    let Some(b) = b else {
        return "null".into();
    };
    if let Ok(s) = std::str::from_utf8(b)
        && !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        let mut t = String::from("\"");
        for c in s.chars().take(TEXT) {
            let _ = write!(t, "{}", c.escape_debug());
        }
        t.push('"');
        if s.chars().count() > TEXT {
            let _ = write!(t, "... ({} bytes)", b.len());
        }
        return t;
    }
    let mut t = String::from("0x");
    for x in b.iter().take(HEX) {
        let _ = write!(t, "{x:02x}");
    }
    if b.len() > HEX {
        let _ = write!(t, "... ({} bytes)", b.len());
    }
    t
}

/// A timestamp in milliseconds since the epoch, as UTC (`2026-12-02T13:00:59.128Z`); a
/// negative one (no timestamp) as the number.
fn time(ms: i64) -> String {
    if ms < 0 {
        return format!("timestamp {ms}");
    }
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_values() {
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(time(1_796_217_659_128), "2026-12-02T13:20:59.128Z");
        assert_eq!(time(-1), "timestamp -1");
        assert_eq!(shown(None), "null");
        assert_eq!(shown(Some(b"a\"b\n")), "\"a\\\"b\\n\"");
        assert_eq!(shown(Some(&[0, 1, 0xff])), "0x0001ff");
        let long = "x".repeat(70);
        assert_eq!(
            shown(Some(long.as_bytes())),
            format!("\"{}\"... (70 bytes)", "x".repeat(64))
        );
        assert!(shown(Some(&[7u8; 40])).ends_with("... (40 bytes)"));
    }
}
