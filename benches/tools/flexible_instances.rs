//! Prints random instances of every flexible version of every request and response, as kwire's
//! typed encoder writes them, one `case NAME KEY VERSION DIR HEX` line each (several per
//! version, of which the reader takes the first it can read): the input of
//! `tests/kafka_python/decode_ours.py`, which has kafka-python decode them.
//!
//! ```text
//! cargo run --example flexible_instances | PYTHON tests/kafka_python/decode_ours.py \
//!     > tests/kafka_python/flexible.txt
//! ```

use kwire::codec::{MessageKind, Reader};
use kwire::{ApiKey, Encode, Request, Response};
use kwire_schema as schema;

/// The walker's seeds: fixed, so that the output is the same on every run.
const SEEDS: [u64; 6] = [0x006b_7769_7265, 1, 2, 3, 4, 5];

fn main() {
    for schema in schema::MESSAGES.iter().copied() {
        let request = match schema.kind {
            MessageKind::Request => true,
            MessageKind::Response => false,
            MessageKind::Header | MessageKind::Data => continue,
        };
        let range = schema.valid_versions;
        let versions =
            (range.min..=range.max).filter(|&v| range.contains(v) && schema.is_flexible(v));
        for (v, seed) in versions.flat_map(|v| SEEDS.map(|seed| (v, seed))) {
            let mut buf = vec![0u8; 1 << 16];
            let n =
                kwire_testkit::write_random(schema, v, seed, &mut buf).expect("an instance fits");
            let key = ApiKey(schema.api_key);
            let mut r = Reader::new(&buf[..n]);
            let mut out = vec![0u8; n];
            let written = if request {
                Request::decode(&mut r, key, v).map(|b| b.encode(v, &mut out))
            } else {
                Response::decode(&mut r, key, v).map(|b| b.encode(v, &mut out))
            }
            .expect("the walker's instance decodes")
            .expect("and encodes");
            let hex: String = out[..written].iter().map(|b| format!("{b:02x}")).collect();
            let dir = if request { "request" } else { "response" };
            println!(
                "case {}_v{v} {} {v} {dir} {hex}",
                schema.name, schema.api_key
            );
        }
    }
}
