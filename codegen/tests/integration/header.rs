//! Header versions (`kwire_codegen::header`): a schema's `headerVersions` map, read and
//! checked, and the header versions derived from the flexible versions without one. The schemas
//! are small ones written here.

use kwire_codegen::header::{HeaderSpan, derived, first_versions, header_version, header_versions};
use kwire_codegen::spec::{Message, Range, parse_message};

/// The first version of a header version no version uses.
const NEVER: i16 = i16::MAX;

/// A `kind` schema of API `key`, flexible from `flexible`, with `extra` top-level keys.
fn schema(kind: &str, key: i16, flexible: &str, extra: &str) -> Result<Message, String> {
    let name = if kind == "request" {
        "TestRequest"
    } else {
        "TestResponse"
    };
    let src = format!(
        r#"// a schema of our own
        {{ "apiKey": {key}, "type": "{kind}", "name": "{name}", "validVersions": "0-12",
          "flexibleVersions": "{flexible}", {extra} "fields": [] }}"#
    );
    parse_message(&format!("{name}.json"), &src)
}

fn with_map(kind: &str, key: i16, flexible: &str, map: &str) -> Result<Message, String> {
    schema(kind, key, flexible, &format!(r#""headerVersions": {map},"#))
}

fn span(min: i16, max: i16, header: i16) -> HeaderSpan {
    HeaderSpan {
        versions: Range { min, max },
        header,
    }
}

const OPEN: i16 = i16::MAX;

#[test]
fn a_map_gives_each_version_its_header() {
    let m = with_map("request", 99, "9+", r#"{"9+": "2", "0-8": "1"}"#).expect("a sound map");
    assert_eq!(m.header_map, Some(vec![span(0, 8, 1), span(9, OPEN, 2)]));
    assert_eq!(header_versions(&m), [span(0, 8, 1), span(9, OPEN, 2)]);
    assert_eq!(header_version(&m, 0), Some(1));
    assert_eq!(header_version(&m, 8), Some(1));
    assert_eq!(header_version(&m, 9), Some(2));
    assert_eq!(header_version(&m, 12), Some(2));
    // It says what the flexible versions say: the library's rule holds.
    assert_eq!(derived(&m), header_versions(&m));
    assert_eq!(first_versions(&m), Ok([NEVER, 0, 9, NEVER]));

    // Ranges split where the header does not change are the same map.
    let m = with_map(
        "response",
        99,
        "9+",
        r#"{"0-3": "0", "4-8": "0", "9+": "1"}"#,
    )
    .expect("a sound map");
    assert_eq!(header_version(&m, 5), Some(0));
    assert_eq!(first_versions(&m), Ok([0, 9, NEVER, NEVER]));
}

#[test]
fn without_a_map_the_header_follows_the_flexible_versions() {
    let m = schema("request", 99, "9+", "").unwrap();
    assert_eq!(m.header_map, None);
    assert_eq!(header_versions(&m), [span(0, 8, 1), span(9, OPEN, 2)]);
    let m = schema("request", 99, "none", "").unwrap();
    assert_eq!(header_versions(&m), [span(0, OPEN, 1)]);
    let m = schema("response", 99, "0+", "").unwrap();
    assert_eq!(header_versions(&m), [span(0, OPEN, 1)]);
    let m = schema("response", 99, "3+", "").unwrap();
    assert_eq!(header_versions(&m), [span(0, 2, 0), span(3, OPEN, 1)]);
    // ControlledShutdown v0 requests have no client id; ApiVersions responses keep header v0.
    let m = schema("request", 7, "3+", "").unwrap();
    assert_eq!(
        header_versions(&m),
        [span(0, 0, 0), span(1, 2, 1), span(3, OPEN, 2)]
    );
    let m = schema("response", 18, "3+", "").unwrap();
    assert_eq!(header_versions(&m), [span(0, OPEN, 0)]);
}

#[test]
fn a_map_another_header_than_the_rule_gives_goes_to_the_api_table() {
    // Request header v3 from version 11: the API table carries it, as the map says.
    let m = with_map(
        "request",
        99,
        "9+",
        r#"{"0-8": "1", "9-10": "2", "11+": "3"}"#,
    )
    .expect("a sound map");
    assert_eq!(header_version(&m, 11), Some(3));
    assert_ne!(derived(&m), header_versions(&m));
    assert_eq!(first_versions(&m), Ok([NEVER, 0, 9, 11]));
    // A header version past the newest the library knows is refused, naming the schema.
    let m = with_map("request", 99, "9+", r#"{"0-8": "1", "9+": "4"}"#).expect("a sound map");
    let err = first_versions(&m).unwrap_err();
    assert!(err.starts_with("TestRequest.json: "), "{err}");
    assert!(err.contains("header v4"), "{err}");
}

#[test]
fn the_api_versions_response_keeps_header_0_at_flexible_versions() {
    let m = with_map("response", 18, "3+", r#"{"0+": "0"}"#).expect("the one exception");
    assert_eq!(first_versions(&m), Ok([0, NEVER, NEVER, NEVER]));
    let err = with_map("response", 17, "3+", r#"{"0+": "0"}"#).unwrap_err();
    assert!(err.contains("header v1 or later"), "{err}");
}

/// Each refusal of a map, with a word of its message; every one names the schema.
#[test]
fn unsound_maps_are_refused() {
    let cases = [
        (
            "request",
            "9+",
            r#"{"1-8": "1", "9+": "2"}"#,
            "starts at version 1",
        ),
        ("request", "9+", r#"{}"#, "is empty"),
        (
            "request",
            "9+",
            r#"{"0-4": "1", "6-8": "1", "9+": "2"}"#,
            "leaves out versions 5",
        ),
        ("request", "9+", r#"{"0-9": "1", "9+": "2"}"#, "overlap"),
        (
            "request",
            "9+",
            r#"{"0-8": "1", "9-12": "2"}"#,
            "not with an open range",
        ),
        ("request", "9+", r#"{"0+": "1", "9+": "2"}"#, "overlap"),
        ("request", "none", r#"{"0-8": "2", "9+": "1"}"#, "goes down"),
        (
            "request",
            "9+",
            r#"{"0-9": "1", "10+": "2"}"#,
            "header v2 or later",
        ),
        ("response", "9+", r#"{"0+": "0"}"#, "header v1 or later"),
        (
            "request",
            "9+",
            r#"{"0-8": 1, "9+": "2"}"#,
            "string of digits",
        ),
        (
            "request",
            "9+",
            r#"{"0-8": "-1", "9+": "2"}"#,
            "string of digits",
        ),
        (
            "request",
            "9+",
            r#"{"0-8": "v1", "9+": "2"}"#,
            "string of digits",
        ),
        ("request", "9+", r#"{"0-x": "1", "9+": "2"}"#, "0-x"),
        (
            "request",
            "9+",
            r#"{"none": "1", "0+": "2"}"#,
            "names no version",
        ),
        ("request", "9+", r#"["0+", "2"]"#, "not an object"),
    ];
    for (kind, flexible, map, why) in cases {
        let err = with_map(kind, 99, flexible, map)
            .map(|m| m.header_map)
            .expect_err(map);
        let schema = if kind == "request" {
            "TestRequest.json"
        } else {
            "TestResponse.json"
        };
        assert!(err.starts_with(schema), "{map}: {err}");
        assert!(err.contains(why), "{map}: {err}");
    }
    // Only requests and responses have headers.
    let src = r#"{ "type": "data", "name": "TestRecord", "validVersions": "0",
        "flexibleVersions": "0+", "headerVersions": {"0+": "2"}, "fields": [] }"#;
    let err = parse_message("TestRecord.json", src).unwrap_err();
    assert!(err.starts_with("TestRecord.json"), "{err}");
    assert!(err.contains("only requests and responses"), "{err}");
}
