//! The README's quick start is the consumer example: a reader who copies the snippet gets the
//! program CI runs against the mini broker.

/// A file of the repository, by its path from the examples package.
fn read(path: &str) -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{dir}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_readme_quick_start_is_the_consumer_example() {
    let readme = read("../README.md");
    let example = read("consumer.rs");
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
