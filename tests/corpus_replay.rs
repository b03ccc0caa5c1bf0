//! Replays every file under `fuzz/corpus/<target>/` through the same oracle as the fuzz target of
//! that name, so the corpus guards against regressions under plain `cargo test`, without
//! libFuzzer.
//!
//! Files whose names start with `seed-` are hand-made canonical encodings: for the round-trip
//! targets they must also re-encode to exactly their own bytes. The `dissector` corpus is
//! replayed only with the `describe` feature (CI tests with `--all-features`).

use std::fs;
use std::path::{Path, PathBuf};

use kwire::__fuzz::{FEATURE_GATED, Outcome, TARGETS, Target};

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

#[test]
fn every_corpus_file_passes_its_oracle() {
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
            match oracle(&data, &mut scratch) {
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
    assert!(
        failures.is_empty(),
        "{} of {total} corpus files failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fuzz_target_has_an_oracle_here() {
    let targets = files(&fuzz_dir().join("fuzz_targets"));
    assert!(!targets.is_empty(), "no fuzz targets found");
    for path in targets {
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .expect("target name");
        if let Some((_, feature)) = FEATURE_GATED.iter().find(|(t, _)| *t == name)
            && !TARGETS.iter().any(|t| t.name == name)
        {
            println!("fuzz target {name} is replayed only with the {feature} feature");
            continue;
        }
        assert!(
            TARGETS.iter().any(|t| t.name == name),
            "fuzz target {name} is not replayed by tests/corpus_replay.rs"
        );
    }
}
