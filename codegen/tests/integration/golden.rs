//! Golden tests for the generator.
//!
//! Each of Kafka's generator test schemas (`shared/kafka-schemas/test-message`, read in place)
//! is generated and compared with the committed fixture of the library crate,
//! `src/testdata/<name in snake case>.rs`, where its `testdata` unit tests (`src/testdata.rs`)
//! compile and exercise it. After a deliberate change to the generator, run
//! `UPDATE_GOLDEN=1 cargo test -p kwire-codegen --test integration golden::` to rewrite the fixtures,
//! and review the diff.
//!
//! Also here: unit tests of the schema reader and of identifier naming, and a determinism check
//! over the real schema set.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kwire_codegen::emit::{MARKER, field_ident, snake};
use kwire_codegen::spec::{Prim, Range, Ty, parse_message};

/// The test schemas, by file stem; each has a fixture of the same name in snake case.
const TEST_SCHEMAS: [&str; 5] = [
    "AllTypeMessage",
    "NullableStructMessage",
    "SimpleArraysMessage",
    "SimpleExampleMessage",
    "SimpleRecordsMessage",
];

/// The repository root (the parent of the `codegen` package).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen lives inside the repository")
        .to_path_buf()
}

fn shared_schemas(dir: &str) -> PathBuf {
    repo_root().join("../shared/kafka-schemas").join(dir)
}

/// Where the library crate's unit tests read the fixture of the test schema `name`.
fn fixture_path(name: &str) -> PathBuf {
    repo_root()
        .join("src/testdata")
        .join(format!("{}.rs", snake(name)))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

/// A short, readable account of how `actual` differs from `expected`: a line diff (longest
/// common subsequence) with expected (`-`) and generated (`+`) line numbers, capped in length.
fn diff_summary(expected: &str, actual: &str) -> String {
    const SHOW: usize = 40;
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let em = &e[prefix..e.len() - suffix];
    let am = &a[prefix..a.len() - suffix];

    // Changed lines as (sign, 1-based line number, text).
    let mut changes: Vec<(char, usize, &str)> = Vec::new();
    if em.len().saturating_mul(am.len()) <= 4_000_000 {
        // lcs[i][j] = length of the longest common subsequence of em[i..] and am[j..].
        let mut lcs = vec![vec![0u32; am.len() + 1]; em.len() + 1];
        for i in (0..em.len()).rev() {
            for j in (0..am.len()).rev() {
                lcs[i][j] = if em[i] == am[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < em.len() || j < am.len() {
            if i < em.len() && j < am.len() && em[i] == am[j] {
                i += 1;
                j += 1;
            } else if j == am.len() || (i < em.len() && lcs[i + 1][j] >= lcs[i][j + 1]) {
                changes.push(('-', prefix + i + 1, em[i]));
                i += 1;
            } else {
                changes.push(('+', prefix + j + 1, am[j]));
                j += 1;
            }
        }
    } else {
        changes.extend(
            em.iter()
                .enumerate()
                .map(|(i, l)| ('-', prefix + i + 1, *l)),
        );
        changes.extend(
            am.iter()
                .enumerate()
                .map(|(j, l)| ('+', prefix + j + 1, *l)),
        );
    }

    let removed = changes.iter().filter(|c| c.0 == '-').count();
    let added = changes.len() - removed;
    let mut out = format!(
        "expected {} lines, generated {} lines; first difference at line {}; {removed} line(s) only in the fixture, {added} only in the generated code\n",
        e.len(),
        a.len(),
        prefix + 1,
    );
    if changes.is_empty() {
        out.push_str("(the texts differ only in line endings or a trailing newline)\n");
    }
    let mut last: Option<(char, usize)> = None;
    for &(sign, line, text) in changes.iter().take(SHOW) {
        // A new hunk: a gap within a run of one sign, or removals after additions.
        let new_hunk =
            last.is_some_and(|(s, l)| (s == sign && l + 1 != line) || (s == '+' && sign == '-'));
        if new_hunk {
            out.push_str("  ...\n");
        }
        let _ = writeln!(out, "{sign}{line:>5} | {text}");
        last = Some((sign, line));
    }
    if changes.len() > SHOW {
        let _ = writeln!(
            out,
            "   ... and {} more changed line(s)",
            changes.len() - SHOW
        );
    }
    out
}

#[test]
fn golden_test_schemas() {
    let root = repo_root();
    let mut failures = String::new();
    for name in TEST_SCHEMAS {
        let schema = shared_schemas("test-message").join(format!("{name}.json"));
        let actual = kwire_codegen::generate_message(&schema, &root)
            .unwrap_or_else(|e| panic!("generating {}: {e}", schema.display()));
        assert_eq!(
            actual.lines().next(),
            Some(MARKER),
            "{name}: generated output must start with the @generated marker"
        );
        assert!(
            actual.ends_with('\n'),
            "{name}: generated output must end with a newline"
        );
        let path = fixture_path(name);
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected == actual {
            continue;
        }
        if updating() {
            std::fs::create_dir_all(path.parent().expect("fixture directory"))
                .expect("create fixtures dir");
            std::fs::write(&path, &actual)
                .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            eprintln!("updated {}", path.display());
        } else {
            let _ = writeln!(
                failures,
                "\n=== {} is stale ===\n{}",
                path.display(),
                diff_summary(&expected, &actual)
            );
        }
    }
    assert!(
        failures.is_empty(),
        "generated code differs from the golden fixtures (rerun with UPDATE_GOLDEN=1 to accept, then review the diff):{failures}"
    );
}

#[test]
fn diff_summary_points_at_the_change() {
    let s = diff_summary("a\nb\nc\nd\n", "a\nB\nc\nd\n");
    assert!(s.contains("first difference at line 2"), "{s}");
    assert!(s.contains("-    2 | b"), "{s}");
    assert!(s.contains("+    2 | B"), "{s}");
    let s = diff_summary("a\nb\n", "a\nb\nc\n");
    assert!(
        s.contains("0 line(s) only in the fixture, 1 only in the generated code"),
        "{s}"
    );
    assert!(s.contains("+    3 | c"), "{s}");
    // Two separate edits in a longer text are reported as two changes, not one block.
    let s = diff_summary("1\n2\n3\n4\n5\n6\n", "1\nX\n3\n4\n5\nY\n");
    assert!(
        s.contains("2 line(s) only in the fixture, 2 only in the generated code"),
        "{s}"
    );
    assert!(s.contains("-    2 | 2") && s.contains("+    2 | X"), "{s}");
    assert!(s.contains("-    6 | 6") && s.contains("+    6 | Y"), "{s}");
    assert!(!s.contains("| 4"), "{s}");
    let s = diff_summary("a\n", "a");
    assert!(s.contains("only in line endings"), "{s}");
}

/// Generation of the whole real schema set is byte-for-byte deterministic. The emitted text is
/// compared, before rustfmt (itself deterministic) formats it; CI's freshness check compares
/// the formatted files with the committed ones.
#[test]
fn generation_is_deterministic() {
    let root = repo_root();
    let schemas = shared_schemas("message");
    let older = shared_schemas("message-3.9");
    let first = kwire_codegen::emit(&schemas, Some(&older), &root).expect("first run");
    let second = kwire_codegen::emit(&schemas, Some(&older), &root).expect("second run");
    assert!(
        first.len() > 100,
        "expected one file per schema, got {}",
        first.len()
    );
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>(),
        "the set of generated files differs between runs"
    );
    for (path, file) in &first {
        let text = &file.text;
        assert!(
            second[path] == *file,
            "{} differs between two runs",
            path.display()
        );
        if path.as_os_str() == "Cargo.toml" {
            // Only the block of API features is generated in the manifest.
            assert!(
                text.contains("\n# @generated by kwire-codegen")
                    && text.contains("\nall-apis = [\n    \"Produce\",\n"),
                "Cargo.toml lacks the generated API features"
            );
        } else {
            assert_eq!(
                text.lines().next(),
                Some(MARKER),
                "{} lacks the @generated marker",
                path.display()
            );
        }
    }
}

// ---- schema reader

/// The schema reader reads past comments (the `kwire-notation` crate strips them; its tests
/// cover strings and line breaks).
#[test]
fn comments_do_not_reach_the_reader() {
    let src = "// licence header\n{\"apiKey\": 18, \"type\": \"request\", // trailing\n  \"name\": \"ApiVersionsRequest\", \"validVersions\": \"0-4\", \"flexibleVersions\": \"3+\", \"fields\": [] }\n// end";
    let m = parse_message("ApiVersionsRequest.json", src).expect("parses");
    assert_eq!(m.valid, Range { min: 0, max: 4 });
}

/// A minimal schema around one field object (written here, not taken from Kafka).
fn schema_with_field(field: &str) -> String {
    format!(
        "// comment\n{{ \"name\": \"TestRequest\", \"type\": \"request\", \"apiKey\": 99, \"validVersions\": \"0-3\", \"flexibleVersions\": \"2+\", \"fields\": [ {field} ] }}"
    )
}

#[test]
fn default_and_tag_accept_numbers_and_strings() {
    let cases = [
        (
            r#"{ "name": "A", "type": "int32", "versions": "0+", "default": -1 }"#,
            "-1",
        ),
        (
            r#"{ "name": "A", "type": "int32", "versions": "0+", "default": "-1" }"#,
            "-1",
        ),
        (
            r#"{ "name": "A", "type": "int64", "versions": "0+", "default": "0x7fffffff" }"#,
            "0x7fffffff",
        ),
        (
            r#"{ "name": "A", "type": "int32", "versions": "0+", "default": 16 }"#,
            "16",
        ),
        (
            r#"{ "name": "A", "type": "bool", "versions": "0+", "default": false }"#,
            "false",
        ),
        (
            r#"{ "name": "A", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null" }"#,
            "null",
        ),
    ];
    for (field, want) in cases {
        let m = parse_message("Test.json", &schema_with_field(field))
            .unwrap_or_else(|e| panic!("{field}: {e}"));
        assert_eq!(m.fields[0].default.as_deref(), Some(want), "{field}");
    }
    let m = parse_message(
        "Test.json",
        &schema_with_field(r#"{ "name": "A", "type": "int32", "versions": "0+" }"#),
    )
    .unwrap();
    assert_eq!(m.fields[0].default, None);

    for tag in ["0", "\"0\"", "\" 0 \""] {
        let field = format!(
            r#"{{ "name": "A", "type": "[]int32", "versions": "2+", "taggedVersions": "2+", "tag": {tag} }}"#
        );
        let m = parse_message("Test.json", &schema_with_field(&field))
            .unwrap_or_else(|e| panic!("{field}: {e}"));
        assert_eq!(m.fields[0].tag, Some(0), "{field}");
        assert_eq!(
            m.fields[0].tagged,
            Range {
                min: 2,
                max: i16::MAX
            }
        );
    }
    for bad in ["-1", "\"x\"", "[0]"] {
        let field = format!(
            r#"{{ "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": {bad} }}"#
        );
        assert!(
            parse_message("Test.json", &schema_with_field(&field)).is_err(),
            "tag {bad} accepted"
        );
    }
}

#[test]
fn tag_and_tagged_versions_come_together() {
    for field in [
        r#"{ "name": "A", "type": "int32", "versions": "2+", "tag": 0 }"#,
        r#"{ "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "2+" }"#,
    ] {
        assert!(
            parse_message("Test.json", &schema_with_field(field)).is_err(),
            "{field}"
        );
    }
}

#[test]
fn versions_default_to_tagged_versions() {
    let m = parse_message(
        "Test.json",
        &schema_with_field(r#"{ "name": "A", "type": "int16", "taggedVersions": "2+", "tag": 0 }"#),
    )
    .unwrap();
    assert_eq!(
        m.fields[0].versions,
        Range {
            min: 2,
            max: i16::MAX
        }
    );
    let err = parse_message(
        "Test.json",
        &schema_with_field(r#"{ "name": "A", "type": "int16" }"#),
    );
    assert!(err.is_err());
}

#[test]
fn version_strings() {
    assert!(Range::parse("none").unwrap().is_empty());
    assert_eq!(Range::parse("none").unwrap(), Range::NONE);
    assert_eq!(Range::parse("3").unwrap(), Range { min: 3, max: 3 });
    assert_eq!(Range::parse("0").unwrap(), Range { min: 0, max: 0 });
    assert_eq!(Range::parse("1-4").unwrap(), Range { min: 1, max: 4 });
    assert_eq!(
        Range::parse("2+").unwrap(),
        Range {
            min: 2,
            max: i16::MAX
        }
    );
    assert_eq!(
        Range::parse(" 5+ ").unwrap(),
        Range {
            min: 5,
            max: i16::MAX
        }
    );
    assert_eq!(Range::parse(" 0-12 ").unwrap(), Range { min: 0, max: 12 });
    for bad in ["", "x", "1-", "+", "-1", "1.5", "40000", "2-x"] {
        assert!(Range::parse(bad).is_err(), "{bad:?} accepted");
    }
    for (r, s) in [("none", "none"), ("3", "3"), ("1-4", "1-4"), ("2+", "2+")] {
        assert_eq!(Range::parse(r).unwrap().to_string(), s);
    }
    let r = Range::parse("1-4").unwrap();
    assert!(r.contains(1) && r.contains(4) && !r.contains(0) && !r.contains(5));
    assert_eq!(
        r.intersect(Range::parse("3+").unwrap()),
        Range { min: 3, max: 4 }
    );
    assert!(r.intersect(Range::parse("5+").unwrap()).is_empty());
}

#[test]
fn unknown_keys_are_rejected() {
    let field = r#"{ "name": "A", "type": "int32", "versions": "0+", "defualt": "1" }"#;
    let err = parse_message("Test.json", &schema_with_field(field)).unwrap_err();
    assert!(err.contains("defualt"), "{err}");

    let nested = r#"{ "name": "S", "type": "[]S", "versions": "0+", "fields": [
        { "name": "B", "type": "int8", "versions": "0+", "nullable": true } ] }"#;
    let err = parse_message("Test.json", &schema_with_field(nested)).unwrap_err();
    assert!(err.contains("nullable"), "{err}");

    let top = r#"{ "name": "TestRequest", "type": "request", "apiKey": 99, "validVersions": "0", "flexibleVersions": "none", "fields": [], "extra": 1 }"#;
    let err = parse_message("Test.json", top).unwrap_err();
    assert!(err.contains("extra"), "{err}");
}

#[test]
fn every_documented_field_key_is_accepted() {
    let field = r#"{ "name": "A", "type": "string", "versions": "0+", "nullableVersions": "1+",
        "taggedVersions": "2+", "tag": 0, "default": "null", "ignorable": true, "entityType": "topicName",
        "mapKey": false, "zeroCopy": false, "flexibleVersions": "none", "about": "x // not a comment" }"#;
    let m = parse_message("Test.json", &schema_with_field(field)).unwrap();
    let f = &m.fields[0];
    assert_eq!(f.ty, Ty::Prim(Prim::String));
    assert!(f.ignorable);
    assert_eq!(
        f.nullable,
        Range {
            min: 1,
            max: i16::MAX
        }
    );
    assert_eq!(f.flexible_override, Some(Range::NONE));
    assert_eq!(m.api_key, Some(99));
    assert_eq!(m.valid, Range { min: 0, max: 3 });
    assert_eq!(
        m.flexible,
        Range {
            min: 2,
            max: i16::MAX
        }
    );
}

#[test]
fn types_parse() {
    let ty = |t: &str| {
        let field = format!(r#"{{ "name": "A", "type": "{t}", "versions": "0+" }}"#);
        parse_message("Test.json", &schema_with_field(&field)).map(|m| m.fields[0].ty.clone())
    };
    assert_eq!(ty("uint32").unwrap(), Ty::Prim(Prim::Uint32));
    assert_eq!(
        ty("[]uuid").unwrap(),
        Ty::Array(Box::new(Ty::Prim(Prim::Uuid)))
    );
    assert!(
        ty("[][]int32").is_err(),
        "arrays of arrays must be rejected"
    );
    assert!(ty("int128").is_err());
    assert!(ty("lowercaseStruct").is_err());
}

#[test]
fn test_schemas_parse() {
    for name in TEST_SCHEMAS {
        let path = shared_schemas("test-message").join(format!("{name}.json"));
        let src =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let m =
            parse_message(&format!("{name}.json"), &src).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.name, name);
        assert_eq!(
            m.flexible,
            Range {
                min: 1,
                max: i16::MAX
            }
        );
        kwire_codegen::spec::collect_structs(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // `default: false` is a JSON boolean in AllTypeMessage.
    let src = std::fs::read_to_string(shared_schemas("test-message").join("AllTypeMessage.json"))
        .unwrap();
    let m = parse_message("AllTypeMessage.json", &src).unwrap();
    let b = m.fields.iter().find(|f| f.name == "myBoolean").unwrap();
    assert_eq!(b.default.as_deref(), Some("false"));
    assert_eq!(m.common.len(), 1);
}

// ---- naming

#[test]
fn snake_case_names() {
    for (name, want) in [
        ("RequestApiKey", "request_api_key"),
        ("timeoutMs", "timeout_ms"),
        ("Type", "type"),
        ("myUint16", "my_uint16"),
        ("myInt8", "my_int8"),
        ("ProducerId", "producer_id"),
        ("Topics", "topics"),
        ("zeroCopyByteBuffer", "zero_copy_byte_buffer"),
        ("NullableStruct2", "nullable_struct2"),
    ] {
        assert_eq!(snake(name), want, "snake({name})");
    }
}

#[test]
fn field_identifiers_escape_keywords() {
    for (name, want) in [
        ("RequestApiKey", "request_api_key"),
        ("timeoutMs", "timeout_ms"),
        ("Type", "r#type"),
        ("Match", "r#match"),
        ("Name", "name"),
    ] {
        assert_eq!(field_ident(name), want, "field_ident({name})");
    }
}
