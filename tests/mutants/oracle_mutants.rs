//! The fuzz oracles catch a wrong codec. This test runs only in the copy of the repository that
//! `scripts/oracle-mutants` makes, whose library carries the deliberate faults of
//! `tests/mutants/faults.patch` (`kwire::mutant`), which can be switched on one at a time; with
//! each on, the committed corpus of every target the fault should disturb is replayed, and that
//! target's oracle must report a failure on at least one file. With every fault off, none fails.

use std::fs;
use std::path::Path;

use kwire::mutant::{Mutant, activate};
use kwire_testkit::oracles::{TARGETS, Target};

/// The targets whose oracle each fault must trip. Every target is in some row.
const CAUGHT_BY: &[(Mutant, &[&str])] = &[
    (
        Mutant::WriterI32,
        &[
            "request_body",
            "response_body",
            "request_frame",
            "response_frame",
            "structured",
        ],
    ),
    (Mutant::WriterUvarint, &["primitives"]),
    (Mutant::SplitShort, &["split"]),
    (Mutant::RecordTimestamp, &["record_batch"]),
    (Mutant::LegacyOffset, &["legacy_message_set"]),
    (Mutant::DissectorFrameNode, &["dissector"]),
    (Mutant::InFlightAnyOldest, &["session"]),
    (Mutant::SaslAnySignature, &["sasl"]),
];

/// How many of `target`'s corpus files its oracle fails on, with the first failure.
fn failures(target: &Target) -> (usize, usize, Option<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target.name);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("a committed corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut failed = 0;
    let mut first = None;
    for path in &files {
        let data = fs::read(path).expect("readable");
        let mut scratch = vec![0u8; (target.scratch_len)(data.len())];
        if let Err(e) = (target.oracle)(&data, &mut scratch) {
            failed += 1;
            first.get_or_insert_with(|| format!("{}: {e}", path.display()));
        }
    }
    (failed, files.len(), first)
}

#[test]
fn every_oracle_catches_a_wrong_codec() {
    for target in TARGETS {
        assert!(
            CAUGHT_BY
                .iter()
                .any(|(_, names)| names.contains(&target.name)),
            "no fault is shown to be caught by the {} oracle",
            target.name
        );
    }
    assert_eq!(CAUGHT_BY.len(), Mutant::ALL.len(), "every fault is tried");

    let mut report = Vec::new();
    for &(mutant, names) in CAUGHT_BY {
        activate(Some(mutant));
        for target in TARGETS.iter().filter(|t| names.contains(&t.name)) {
            let (failed, files, first) = failures(target);
            println!(
                "{mutant:?}: {} fails on {failed} of {files} files",
                target.name
            );
            if failed == 0 {
                report.push(format!("{mutant:?} passed every {} file", target.name));
            } else if let Some(first) = first {
                println!("  first: {first}");
            }
        }
        activate(None);
    }
    for target in TARGETS {
        let (failed, _, first) = failures(target);
        assert_eq!(failed, 0, "with every fault off: {first:?}");
    }
    assert!(
        report.is_empty(),
        "faults no oracle caught:\n{}",
        report.join("\n")
    );
}
