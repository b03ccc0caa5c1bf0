//! Reads `KWIRE_VERSIONS`, the versions a firmware build compiles, checks it against the API
//! table and writes it for `src/wire/built.rs`.
//!
//! The variable lists `NAME=RANGE` entries, separated by commas or spaces: the API name of a
//! cargo feature, matched ignoring ASCII case, and a range of versions in the notation of
//! Kafka's schemas, which the `kwire-notation` crate defines for the library, the generator and
//! this script alike: `N`, `N-M` or `N+` (`ApiVersions=3,Metadata=12,Produce=9+,Fetch=12-17`).
//! `N+` keeps the valid versions from `N` on; `none` is refused, since an API without versions
//! is one whose feature is off. An API it does not name keeps every valid version. Unset or
//! empty, nothing is narrowed.

use std::fmt::Write as _;
use std::path::PathBuf;

// `APIS`, every API's name, key and valid request versions, and `BROKER_APIS`, the APIs whose
// responses name brokers, generated from the schemas.
include!("build/apis.rs");

const VAR: &str = "KWIRE_VERSIONS";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/apis.rs");
    println!("cargo:rerun-if-env-changed={VAR}");
    let spec = std::env::var(VAR).unwrap_or_default();
    let named = match parse(&spec) {
        Ok(named) => named,
        Err(e) => {
            eprintln!("error: {VAR}={spec:?} is refused. {e}");
            std::process::exit(1);
        }
    };
    // The session's broker-address rewriting has work only with an API whose responses name
    // brokers: one cfg for that set, instead of the list at each item it concerns.
    if BROKER_APIS.iter().any(|api| {
        std::env::var_os(format!("CARGO_FEATURE_{}", api.to_ascii_uppercase())).is_some()
    }) {
        println!("cargo:rustc-cfg=kwire_names_brokers");
    }
    // Only a build that narrows something compiles the pinning (see `src/wire/built.rs`).
    if !named.is_empty() {
        println!("cargo:rustc-cfg=kwire_narrowed");
    }
    let mut out = String::from("&[");
    for (key, min, max) in &named {
        let _ = write!(out, "({key}, {min}, {max}),");
    }
    out.push(']');
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dir.join("kwire_versions.rs"), out).expect("OUT_DIR is writable");
}

/// The `(key, lowest, highest)` ranges `spec` names, in key order, each within the API's
/// valid versions.
fn parse(spec: &str) -> Result<Vec<(i16, i16, i16)>, String> {
    let mut named: Vec<(i16, i16, i16)> = Vec::new();
    for entry in spec
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|e| !e.is_empty())
    {
        let (name, range) = entry.split_once('=').ok_or_else(|| {
            format!(
                "`{entry}` is not of the form NAME=RANGE, such as `Produce=9` or `Fetch=12-17`."
            )
        })?;
        let &(api, key, valid_min, valid_max) = APIS
            .iter()
            .find(|(n, ..)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("`{name}` in `{entry}` is not the name of an API."))?;
        let (min, max) =
            kwire_notation::parse_range(range).map_err(|e| format!("In `{entry}`, {e}."))?;
        if min > max {
            return Err(format!(
                "`{entry}` names no version of {api}; leave its feature off instead."
            ));
        }
        // `N+` reaches as far as the API does.
        let max = if max == i16::MAX { valid_max } else { max };
        if min < valid_min || max > valid_max || min > max {
            return Err(format!(
                "{api} has versions {}, which `{entry}` does not fit in.",
                shown(valid_min, valid_max)
            ));
        }
        let feature = format!("CARGO_FEATURE_{}", api.to_ascii_uppercase());
        if std::env::var_os(&feature).is_none() {
            return Err(format!(
                "`{entry}` names {api}, whose feature is not enabled."
            ));
        }
        if named.iter().any(|&(k, ..)| k == key) {
            return Err(format!("{api} is named twice."));
        }
        named.push((key, min, max));
    }
    named.sort_unstable();
    Ok(named)
}

/// A range in the notation `KWIRE_VERSIONS` is written in.
fn shown(min: i16, max: i16) -> String {
    let mut out = String::new();
    let _ = kwire_notation::write_range(&mut out, min, max);
    out
}
