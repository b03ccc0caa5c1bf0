//! Replays every file under `fuzz/corpus/<target>/` through the same oracle as the fuzz target of
//! that name, so the corpus guards against regressions under plain `cargo test`, without
//! libFuzzer.
//!
//! Files whose names start with `seed-` are hand-made canonical encodings: for the round-trip
//! targets they must also re-encode to exactly their own bytes. The `dissector` corpus is
//! replayed only with the `describe` feature (CI tests with `--all-features`).
//!
//! Every file's outcome (rejected, round trip and whether canonical, items checked) is recorded
//! in `fuzz/corpus/outcomes.txt` and must not change: a change that starts rejecting a valid
//! input, or accepting one that was rejected, fails here even when no oracle does. After adding
//! corpus files, or a deliberate change of outcome, run
//! `UPDATE_OUTCOMES=1 cargo test --all-features --test integration corpus_replay::` and review the diff.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use kwire_testkit::oracles::{Outcome, TARGETS, Target};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

fn corpus_dir(target: &str) -> PathBuf {
    fuzz_dir().join("corpus").join(target)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.expect("readable corpus directory").path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn outcomes_path() -> PathBuf {
    fuzz_dir().join("corpus").join("outcomes.txt")
}

/// The recorded outcomes: `target/file outcome`, a line each.
fn recorded_outcomes() -> BTreeMap<String, String> {
    let text = fs::read_to_string(outcomes_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(file, outcome)| (file.to_string(), outcome.to_string()))
        .collect()
}

fn write_outcomes(outcomes: &BTreeMap<String, String>) {
    let mut text = String::from(
        "# The outcome of every corpus file under its target's oracle, checked by\n\
         # tests/integration/corpus_replay.rs. Regenerate with\n\
         # UPDATE_OUTCOMES=1 cargo test --all-features --test integration corpus_replay::\n",
    );
    for (file, outcome) in outcomes {
        text.push_str(&format!("{file} {outcome}\n"));
    }
    fs::write(outcomes_path(), text).expect("writable fuzz/corpus/outcomes.txt");
}

#[test]
fn every_corpus_file_passes_its_oracle() {
    let updating = std::env::var_os("UPDATE_OUTCOMES").is_some_and(|v| v == "1");
    let mut recorded = recorded_outcomes();
    let mut seen = Vec::new();
    let mut failures = Vec::new();
    let mut total = 0usize;
    for &Target {
        name: target,
        oracle,
        scratch_len,
        canonical_seeds,
    } in TARGETS
    {
        let dir = corpus_dir(target);
        let paths = files(&dir);
        assert!(
            !paths.is_empty(),
            "no corpus for {target} in {}",
            dir.display()
        );
        for path in paths {
            let data = fs::read(&path).expect("readable corpus file");
            let mut scratch = vec![0u8; scratch_len(data.len())];
            total += 1;
            let is_seed = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("seed-"));
            let key = format!(
                "{target}/{}",
                path.strip_prefix(&dir)
                    .expect("under its directory")
                    .display()
            );
            let result = oracle(&data, &mut scratch);
            if let Ok(outcome) = &result {
                let outcome = format!("{outcome:?}");
                if updating {
                    recorded.insert(key.clone(), outcome);
                } else if recorded.get(&key) != Some(&outcome) {
                    failures.push(format!(
                        "{key}: outcome {outcome}, recorded {}",
                        recorded.get(&key).map_or("nothing", String::as_str)
                    ));
                }
            }
            seen.push(key);
            match result {
                Err(failure) => failures.push(format!("{}: {failure}", path.display())),
                Ok(outcome)
                    if is_seed
                        && canonical_seeds
                        && outcome != (Outcome::RoundTrip { canonical: true }) =>
                {
                    failures.push(format!(
                        "{}: a canonical seed must round-trip to its own bytes, got {outcome:?}",
                        path.display()
                    ));
                }
                Ok(_) => {}
            }
        }
    }
    // Files recorded but gone; the dissector's only count where it is replayed.
    for file in recorded.keys() {
        let replayed = TARGETS
            .iter()
            .any(|t| file.starts_with(&format!("{}/", t.name)));
        if replayed && !seen.contains(file) {
            if updating {
                continue;
            }
            failures.push(format!(
                "{file}: recorded in outcomes.txt but not in the corpus"
            ));
        }
    }
    if updating {
        recorded.retain(|file, _| {
            seen.contains(file)
                || !TARGETS
                    .iter()
                    .any(|t| file.starts_with(&format!("{}/", t.name)))
        });
        write_outcomes(&recorded);
    }
    assert!(
        failures.is_empty(),
        "{} of {total} corpus files failed (after adding files or a deliberate change of \
         outcome: UPDATE_OUTCOMES=1 cargo test --all-features --test integration corpus_replay::):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Fuzz targets of the tool rather than the library, and the test that replays their corpus.
const REPLAYED_ELSEWHERE: &[(&str, &str)] = &[("capture", "cli/tests/integration/capture.rs")];

#[test]
fn every_fuzz_target_has_an_oracle_here() {
    let targets = files(&fuzz_dir().join("fuzz_targets"));
    assert!(!targets.is_empty(), "no fuzz targets found");
    for path in targets {
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .expect("target name");
        assert!(
            TARGETS.iter().any(|t| t.name == name)
                || REPLAYED_ELSEWHERE.iter().any(|(t, _)| *t == name),
            "fuzz target {name} is not replayed by tests/integration/corpus_replay.rs"
        );
    }
}
