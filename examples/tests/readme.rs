//! The README's quick start is the consumer example: a reader who copies the snippet gets the
//! program CI runs against the mini broker.

#[test]
fn the_readme_quick_start_is_the_consumer_example() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{dir}/../README.md")).expect("README.md");
    let example = std::fs::read_to_string(format!("{dir}/consumer.rs")).expect("consumer.rs");
    let section = readme
        .split("\n## Quick start: a consumer\n")
        .nth(1)
        .expect("a quick start section in the README");
    let snippet = section
        .split("```rust,no_run\n")
        .nth(1)
        .and_then(|s| s.split("\n```\n").next())
        .expect("a rust block in the quick start");
    assert_eq!(
        format!("{snippet}\n"),
        example,
        "the README's quick start differs from examples/consumer.rs"
    );
}
