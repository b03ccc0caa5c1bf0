//! The README's quick start is the consumer example, and the guide's blocking connection the
//! producer example: a reader who copies a snippet gets the program CI runs against the mini
//! broker. The README stays a page: at most 300 lines.

/// A file of the repository, by its path from the examples package.
fn read(path: &str) -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{dir}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The first ```rust,no_run block of the section with this heading in the document at `path`.
fn program(path: &str, heading: &str) -> String {
    let text = read(path);
    let section = text
        .split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("a section {heading:?} in {path}"));
    let snippet = section
        .split("```rust,no_run\n")
        .nth(1)
        .and_then(|s| s.split("\n```\n").next())
        .unwrap_or_else(|| panic!("a rust block in {heading:?} of {path}"));
    format!("{snippet}\n")
}

#[test]
fn the_readme_quick_start_is_the_consumer_example() {
    assert_eq!(
        program("../README.md", "Quick start: a consumer"),
        read("consumer.rs"),
        "the README's quick start differs from examples/consumer.rs"
    );
}

#[test]
fn the_guides_blocking_connection_is_the_producer_example() {
    assert_eq!(
        program("../docs/guide/client.md", "A blocking connection"),
        read("producer.rs"),
        "the guide's blocking connection differs from examples/producer.rs"
    );
}

/// Right after the two commands, the README says how to add the crate, at its current version,
/// with the feature choices a device and a client with compression make.
#[test]
fn the_readme_says_how_to_add_the_crate() {
    let readme = read("../README.md");
    let manifest = read("../Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.rsplit_once('.'))
        .map(|(major_minor, _)| major_minor)
        .expect("the crate's version");
    let headings: Vec<&str> = readme.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings.first(), Some(&"## Add it"), "the first section");
    let section = readme
        .split("\n## Add it\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    for line in [
        "cargo add kwire".to_string(),
        "[dependencies]".to_string(),
        format!("kwire = \"{version}\""),
        format!("kwire = {{ version = \"{version}\", default-features = false, features = ["),
        format!("kwire = {{ version = \"{version}\", features = [\"gzip\""),
    ] {
        assert!(section.contains(&line), "the section lacks {line:?}");
    }
}

#[test]
fn the_readme_fits_on_a_page() {
    let lines = read("../README.md").lines().count();
    assert!(
        lines <= 300,
        "the README has {lines} lines; the guide (docs/guide/) takes the rest"
    );
}
