//! `kwire-codegen`: generates kwire's message types, API tables and schema tables from
//! Kafka's JSON message schemas.
//!
//! ```text
//! cargo run -p kwire-codegen -- [--check] [--schemas DIR] [--older-schemas DIR] [--out DIR]
//! ```
//!
//! `--schemas` defaults to `../shared/kafka-schemas/message` relative to the repository root,
//! and `--older-schemas` (Kafka 3.9, for the versions 4.0 removed) to `message-3.9` beside it;
//! `--out` defaults to the repository root. `--check` writes nothing and fails, listing the stale
//! files, when the committed output differs from what the schemas generate.
//!
//! Beside the library's code it writes the visitors of `bench_report --breadth`
//! (`benches/tools/visitors.rs`, see [`kwire_codegen::visitors`]), which read the generated
//! messages and those of the `kafka-protocol` the benchmarks compare with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kwire_codegen::generate;

fn main() -> ExitCode {
    let mut check = false;
    let mut schemas: Option<PathBuf> = None;
    let mut older: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--check" => check = true,
            "--schemas" => schemas = args.next().map(PathBuf::from),
            "--older-schemas" => older = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!(
                    "usage: kwire-codegen [--check] [--schemas DIR] [--older-schemas DIR] [--out DIR]"
                );
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let root = out.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let schemas = schemas.unwrap_or_else(|| root.join("../shared/kafka-schemas/message"));
    let older = older.unwrap_or_else(|| kwire_codegen::older_beside(&schemas));
    let mut files: BTreeMap<PathBuf, String> = match generate(&schemas, Some(&older), &root) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match kwire_codegen::visitors::generate(&files, &root) {
        Ok(text) => {
            files.insert(PathBuf::from(kwire_codegen::visitors::OUT), text);
        }
        Err(e) => {
            eprintln!("error: the benchmarks' visitors: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut stale = Vec::new();
    for (rel, text) in &files {
        let path = root.join(rel);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() != Some(text.as_str()) {
            stale.push(rel.clone());
            if !check {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).expect("create output directory");
                }
                std::fs::write(&path, text).expect("write generated file");
            }
        }
    }
    // Generated files that the schemas no longer produce.
    let mut orphans = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root.join("src/messages")) {
        for e in rd.filter_map(Result::ok) {
            let rel = PathBuf::from("src/messages").join(e.file_name());
            if !files.contains_key(&rel) {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                if text.starts_with(kwire_codegen::emit::MARKER) {
                    orphans.push(rel);
                }
            }
        }
    }
    orphans.sort();
    if check {
        if stale.is_empty() && orphans.is_empty() {
            println!("generated code is up to date ({} files)", files.len());
            return ExitCode::SUCCESS;
        }
        for s in &stale {
            eprintln!("stale: {}", s.display());
        }
        for o in &orphans {
            eprintln!("orphaned: {}", o.display());
        }
        eprintln!("run `cargo run -p kwire-codegen` and commit the result");
        return ExitCode::FAILURE;
    }
    for o in &orphans {
        let _ = std::fs::remove_file(root.join(o));
    }
    println!(
        "wrote {} of {} files, removed {}",
        stale.len(),
        files.len(),
        orphans.len()
    );
    ExitCode::SUCCESS
}
