//! kwire's dissector for the browser: the catalogue's dissect page (`kwire site --wasm`) loads
//! this module, built for `wasm32-unknown-unknown`, and shows any frame a user pastes with the
//! same byte grid and object tree as the catalogue's pages, rendered by the same code
//! ([`kwire_site::write_frame`]).
//!
//! The boundary is five functions over the module's memory, no bindings generator:
//!
//! 1. `kwire_input(len)` makes room for a frame of `len` bytes and returns where to copy it;
//! 2. `kwire_schema(len)` makes room for the JSON schema of the frame's message, as Kafka's
//!    schema file holds it (UTF-8; `len` 0 for none), whose descriptions then fill the tree's
//!    last column;
//! 3. `kwire_dissect(kind, api_key, version)` dissects the frame (`kind` 0 for a request, whose
//!    header names the API, 1 for a response of `api_key` at `version`) and returns the length
//!    of the HTML it produced: the grid, the tree and the records listing, a
//!    `<p class="error">` first when the frame is malformed or its records damaged;
//! 4. `kwire_output()` returns where that HTML is, as UTF-8;
//! 5. `kwire_failed()` returns 1 when the last frame did not decode or its records are
//!    damaged, else 0.
//!
//! The only `unsafe` is the `no_mangle` attribute that exports them.

use std::cell::RefCell;
use std::fmt::Write as _;

use kwire::ApiKey;
use kwire_site::records::{self, Report};
use kwire_site::{Frame, SchemaDoc};

/// The module's state: the browser runs it on one thread.
#[derive(Default)]
struct State {
    input: Vec<u8>,
    schema: Vec<u8>,
    output: String,
    failed: bool,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// Makes room for an input of `len` bytes and returns its address in the module's memory.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_input(len: usize) -> *mut u8 {
    STATE.with_borrow_mut(|s| {
        s.input.clear();
        s.input.resize(len, 0);
        s.input.as_mut_ptr()
    })
}

/// Makes room for a schema of `len` bytes and returns its address in the module's memory.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_schema(len: usize) -> *mut u8 {
    STATE.with_borrow_mut(|s| {
        s.schema.clear();
        s.schema.resize(len, 0);
        s.schema.as_mut_ptr()
    })
}

/// Dissects the input: a request frame for `kind` 0, a response of `api_key` at `version`
/// otherwise. Returns the length of the HTML in [`kwire_output`].
#[unsafe(no_mangle)]
pub extern "C" fn kwire_dissect(kind: i32, api_key: i32, version: i32) -> usize {
    STATE.with_borrow_mut(|s| {
        let State {
            input,
            schema,
            output,
            failed,
        } = s;
        output.clear();
        *failed = false;
        let frame = if kind == 0 {
            Some(Frame::Request)
        } else {
            match (i16::try_from(api_key), i16::try_from(version)) {
                (Ok(api), Ok(version)) => Some(Frame::Response {
                    api: ApiKey(api),
                    version,
                }),
                _ => None,
            }
        };
        let Some(frame) = frame else {
            *failed = true;
            output.push_str("<p class=\"error\">the API key or version is out of range</p>");
            return output.len();
        };
        let doc = std::str::from_utf8(schema)
            .ok()
            .filter(|s| !s.is_empty())
            .and_then(|s| SchemaDoc::parse(s.to_owned()));
        let mut html = String::new();
        if let Err(e) = kwire_site::write_frame(&mut html, input, frame, doc.as_ref()) {
            *failed = true;
            let _ = writeln!(
                output,
                "<p class=\"error\">{}</p>",
                kwire_site::escape(&e.to_string())
            );
        }
        let mut report = Report::printed();
        match frame {
            Frame::Request => records::request_records(input, &|_| None, &mut report),
            Frame::Response { api, version } => {
                records::response_records(input, api, version, &|_| None, &mut report);
            }
        }
        if let Some(problem) = report.summary() {
            *failed = true;
            let _ = writeln!(
                output,
                "<p class=\"error\">damaged records: {}</p>",
                kwire_site::escape(&problem)
            );
        }
        output.push_str(&html);
        let listing = report.into_text();
        if !listing.is_empty() {
            let _ = write!(
                output,
                "<h3>records</h3>\n<pre class=\"records\">{}</pre>\n",
                kwire_site::escape(&listing)
            );
        }
        output.len()
    })
}

/// Where the HTML of the last [`kwire_dissect`] is.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_output() -> *const u8 {
    STATE.with_borrow(|s| s.output.as_ptr())
}

/// 1 when the last frame did not decode or its records are damaged, else 0.
#[unsafe(no_mangle)]
pub extern "C" fn kwire_failed() -> i32 {
    STATE.with_borrow(|s| i32::from(s.failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dissect(frame: &[u8], kind: i32, api: i32, version: i32) -> (String, bool) {
        let at = kwire_input(frame.len());
        STATE.with_borrow_mut(|s| {
            assert_eq!(s.input.as_ptr(), at.cast_const());
            s.input.copy_from_slice(frame);
        });
        let n = kwire_dissect(kind, api, version);
        STATE.with_borrow(|s| {
            assert_eq!(s.output.as_ptr(), kwire_output());
            assert_eq!(s.output.len(), n);
            (s.output.clone(), kwire_failed() == 1)
        })
    }

    #[test]
    fn a_request_and_a_response() {
        let request = [
            0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let (html, failed) = dissect(&request, 0, 0, 0);
        assert!(!failed);
        assert!(html.contains("39 (RenewDelegationToken)"));
        assert_eq!(html.matches("<td ").count(), request.len());
        let response = [
            0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let (html, failed) = dissect(&response, 1, 39, 2);
        assert!(!failed);
        assert!(html.contains("ExpiryTimestampMs"));
    }

    /// A Produce v9 request of one batch with the records "hello" and "world" (key "k"), and
    /// where its batch starts.
    fn produce() -> (Vec<u8>, usize) {
        use kwire::frame;
        use kwire::messages::produce_request::{PartitionProduceData, TopicProduceData};
        use kwire::messages::{ProduceRequest, RequestHeader};
        use kwire::records::{BatchBuilder, NewRecord, Records};
        let plain = [
            NewRecord::new(b"hello").with_key(b"k"),
            NewRecord::new(b"world"),
        ];
        let mut records = vec![0u8; 256];
        let len = BatchBuilder::new().write(&plain, &mut records).unwrap();
        let batch = &records[..len];
        let partitions = [PartitionProduceData::default().with_records(Some(Records::from(batch)))];
        let topics = [TopicProduceData::default()
            .with_name("orders")
            .with_partition_data(&partitions[..])];
        let body = ProduceRequest::default()
            .with_acks(-1)
            .with_topic_data(&topics[..]);
        let header = RequestHeader::new(ApiKey::PRODUCE, 9, 1).with_client_id(Some("t"));
        let mut frame = vec![0u8; 512];
        let n = frame::encode_request(&header, &body, &mut frame).unwrap();
        frame.truncate(n);
        let at = frame.windows(len).position(|w| w == batch).unwrap();
        (frame, at)
    }

    #[test]
    fn records_are_listed_and_damage_reported() {
        let (frame, batch) = produce();
        let (html, failed) = dissect(&frame, 0, 0, 0);
        assert!(!failed, "{html}");
        assert!(html.contains("<h3>records</h3>"), "{html}");
        assert!(
            html.contains("key &quot;k&quot;  value &quot;hello&quot;"),
            "{html}"
        );
        assert!(html.contains("value &quot;world&quot;"), "{html}");
        // The batch's CRC, 17 bytes into it, damaged.
        let mut bad = frame.clone();
        bad[batch + 17] ^= 1;
        let (html, failed) = dissect(&bad, 0, 0, 0);
        assert!(failed, "{html}");
        assert!(
            html.starts_with("<p class=\"error\">damaged records: "),
            "{html}"
        );
    }

    #[test]
    fn a_schema_describes_the_fields() {
        let request = [
            0, 0, 0, 21, 0, 39, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let schema = br#"{ "apiKey": 39, "type": "request", "name": "RenewDelegationTokenRequest",
            "validVersions": "0-2", "flexibleVersions": "2+", "fields": [
            { "name": "Hmac", "type": "bytes", "versions": "0+", "about": "The token's HMAC." },
            { "name": "RenewPeriodMs", "type": "int64", "versions": "0+", "about": "The period." }
        ]}"#;
        let at = kwire_schema(schema.len());
        STATE.with_borrow_mut(|s| {
            assert_eq!(s.schema.as_ptr(), at.cast_const());
            s.schema.copy_from_slice(schema);
        });
        let (html, failed) = dissect(&request, 0, 0, 0);
        kwire_schema(0);
        assert!(!failed);
        assert!(html.contains("The token&#39;s HMAC."), "{html}");
        let (html, _) = dissect(&request, 0, 0, 0);
        assert!(!html.contains("HMAC"), "{html}");
    }

    #[test]
    fn a_malformed_frame_says_where() {
        let (html, failed) = dissect(&[0, 0, 0, 9, 0, 39, 0, 2], 0, 0, 0);
        assert!(failed);
        assert!(html.starts_with("<p class=\"error\">"), "{html}");
        let (_, failed) = dissect(&[0; 8], 1, 70_000, 0);
        assert!(failed);
    }
}
