//! The README's quick start is the consumer example, and its client on kwire the producer
//! example: a reader who copies a snippet gets the program CI runs against the mini broker.

/// A file of the repository, by its path from the examples package.
fn read(path: &str) -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{dir}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The first ```rust,no_run block of the README section with this heading.
fn readme_program(heading: &str) -> String {
    let readme = read("../README.md");
    let section = readme
        .split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("a section {heading:?} in the README"));
    let snippet = section
        .split("```rust,no_run\n")
        .nth(1)
        .and_then(|s| s.split("\n```\n").next())
        .unwrap_or_else(|| panic!("a rust block in {heading:?}"));
    format!("{snippet}\n")
}

#[test]
fn the_readme_quick_start_is_the_consumer_example() {
    assert_eq!(
        readme_program("Quick start: a consumer"),
        read("consumer.rs"),
        "the README's quick start differs from examples/consumer.rs"
    );
}

#[test]
fn the_readme_client_on_kwire_is_the_producer_example() {
    assert_eq!(
        readme_program("A client on kwire"),
        read("producer.rs"),
        "the README's client on kwire differs from examples/producer.rs"
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
