//! Our notes on what fields mean (`kwire_codegen::notes`): each names a message or field of the
//! real schema set, a path that names nothing is refused, and the text is wrapped as doc lines.

use kwire_codegen::notes::{NOTES, check, doc_lines, note, schema_paths};

#[test]
fn every_note_names_a_message_or_field_of_the_schemas() {
    let messages = super::schemas();
    let paths = schema_paths(&messages).expect("the structs collect");
    assert_eq!(check(paths.iter().map(String::as_str)), Ok(()));
    // Without the Metadata request's fields, its notes are strays, named.
    let err = check(
        paths
            .iter()
            .map(String::as_str)
            .filter(|p| !p.starts_with("MetadataRequest.")),
    )
    .unwrap_err();
    assert!(err.contains("MetadataRequest.Topics"), "{err}");
    assert!(!err.contains("ProduceRequest"), "{err}");
    // No path is noted twice, and the ones a new user needs first are there.
    let mut noted: Vec<&str> = NOTES.iter().map(|n| n.path).collect();
    noted.sort_unstable();
    let count = noted.len();
    noted.dedup();
    assert_eq!(noted.len(), count);
    for path in [
        "MetadataRequest",
        "MetadataRequest.Topics",
        "ProduceRequest.Acks",
        "FetchRequest.MaxBytes",
        "CreateTopicsRequest.Topics.ReplicationFactor",
    ] {
        assert!(note(path).is_some(), "{path}");
    }
    let timestamp = note("ListOffsetsRequest.Topics.Partitions.Timestamp").expect("noted");
    assert!(
        timestamp.contains("-1") && timestamp.contains("-2"),
        "{timestamp}"
    );
}

#[test]
fn a_note_is_wrapped_into_doc_lines() {
    assert_eq!(
        doc_lines("one two three four", 9),
        "/// one two\n/// three\n/// four\n"
    );
    assert_eq!(
        doc_lines("a-word-longer-than-the-width", 4),
        "/// a-word-longer-than-the-width\n"
    );
    assert_eq!(doc_lines("", 10), "");
}
