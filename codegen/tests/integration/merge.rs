//! The merge of the primary schema set (`message/`) with the older one (`message-3.9/`), checked
//! version by version against each source.
//!
//! For every merged message and every version it is valid at, the wire layout of the merged
//! schema (the ordered fields present at that version with their type, nested struct layouts,
//! nullability, compact or classic length encoding, tag, and the tagged-field sections) must equal
//! the primary schema's layout when the primary has that version, else the older schema's. The
//! layout is computed here from the schema model directly, by the version rules of the protocol
//! notes (section 9), without the merge code's own bookkeeping. Names and defaults are left out:
//! fields may be renamed without a wire change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kwire_codegen::spec::{Field, Kind, Message, Range, Ty, load_dir};

fn shared(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/kafka-schemas")
        .join(dir)
}

/// Every struct's fields by name: inline ones and common ones.
fn structs(m: &Message) -> BTreeMap<String, Vec<Field>> {
    fn inline(fields: &[Field], out: &mut BTreeMap<String, Vec<Field>>) {
        for f in fields {
            if let (Some(sub), Some(name)) = (&f.fields, f.ty.struct_name()) {
                out.insert(name.to_string(), sub.clone());
                inline(sub, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    inline(&m.fields, &mut out);
    for c in &m.common {
        out.insert(c.name.clone(), c.fields.clone());
        inline(&c.fields, &mut out);
    }
    out
}

fn has(r: Range, v: i16) -> bool {
    r.contains(v)
}

/// The wire layout of `fields` at version `v` of `m`, as text.
fn layout_of(m: &Message, all: &BTreeMap<String, Vec<Field>>, fields: &[Field], v: i16) -> String {
    let flexible = has(m.flexible, v);
    let mut out = Vec::new();
    for f in fields.iter().filter(|f| has(f.versions, v)) {
        let compact = has(f.flexible_override.unwrap_or(m.flexible), v);
        let ty = |t: &Ty| -> String {
            match t {
                Ty::Prim(p) => p.name().to_string(),
                Ty::Struct(name) => {
                    let sub = f.fields.clone().or_else(|| all.get(name).cloned());
                    let sub = sub.unwrap_or_else(|| panic!("{}: no struct {name}", m.file));
                    format!("{{{}}}", layout_of(m, all, &sub, v))
                }
                Ty::Array(_) => unreachable!(),
            }
        };
        let mut t = match &f.ty {
            Ty::Array(inner) => format!("[{}]", ty(inner)),
            other => ty(other),
        };
        let variable = match &f.ty {
            Ty::Array(_) => true,
            Ty::Prim(p) => p.width().is_none(),
            Ty::Struct(_) => false,
        };
        if variable {
            t.push_str(if compact { " compact" } else { " classic" });
        }
        if has(f.nullable, v) {
            t.push_str(" nullable");
        }
        if has(f.tagged, v) {
            t = format!("tag {}: {t}", f.tag.expect("a tagged field has a tag"));
        }
        out.push(t);
    }
    if flexible {
        out.push("<tagged fields>".into());
    }
    out.join(", ")
}

fn layout(m: &Message, v: i16) -> String {
    let all = structs(m);
    layout_of(m, &all, &m.fields, v)
}

fn versions(r: Range) -> impl Iterator<Item = i16> {
    (r.min..=r.max.min(100)).filter(move |v| r.contains(*v))
}

fn key(m: &Message) -> String {
    match (m.api_key, m.kind) {
        (Some(k), Kind::Request) => format!("request {k}"),
        (Some(k), Kind::Response) => format!("response {k}"),
        _ => m.name.clone(),
    }
}

struct Sets {
    new: BTreeMap<String, Message>,
    old: BTreeMap<String, Message>,
    merged: Vec<Message>,
    excluded: kwire_codegen::merge::Excluded,
}

fn sets() -> Sets {
    let by_key = |v: Vec<Message>| v.into_iter().map(|m| (key(&m), m)).collect();
    let (merged, excluded) =
        kwire_codegen::load(&shared("message"), Some(&shared("message-3.9"))).expect("merge");
    Sets {
        new: by_key(load_dir(&shared("message")).expect("primary set")),
        old: by_key(load_dir(&shared("message-3.9")).expect("older set")),
        merged,
        excluded,
    }
}

#[test]
fn merged_layouts_equal_each_source_version_by_version() {
    let s = sets();
    let mut failures = Vec::new();
    let mut from_new = 0;
    let mut from_old = 0;
    let mut primary_wrong = BTreeSet::new();
    for m in &s.merged {
        let k = key(m);
        let new = &s.new[&k];
        let old = s.old.get(&k);
        for v in versions(m.valid) {
            let (source, which) = if new.valid.contains(v) {
                from_new += 1;
                (new, "message")
            } else {
                from_old += 1;
                let old = old.unwrap_or_else(|| panic!("{k} v{v}: in neither set"));
                assert!(old.valid.contains(v), "{k} v{v}: in neither set");
                // The primary schema, read at a version it no longer has, is not always right.
                if layout(new, v) != layout(old, v) {
                    primary_wrong.insert(format!("{} v{v}", m.name));
                }
                (old, "message-3.9")
            };
            let (ours, theirs) = (layout(m, v), layout(source, v));
            if ours != theirs {
                failures.push(format!(
                    "{} v{v} differs from {which}:\n  merged {ours}\n  source {theirs}",
                    m.name
                ));
            }
        }
        // Every version of the primary set is kept.
        for v in versions(new.valid) {
            assert!(m.valid.contains(v), "{k}: lost primary version {v}");
        }
    }
    println!("{from_new} message-versions compared with message/, {from_old} with message-3.9/");
    assert!(from_old > 100, "only {from_old} older message-versions");
    println!("older versions the primary schemas alone would get wrong: {primary_wrong:?}");
    for v in [
        "ListOffsetsRequest v0",
        "OffsetCommitRequest v1",
        "LeaderAndIsrRequest v0",
    ] {
        assert!(
            primary_wrong.contains(v),
            "{v} should need the older schema"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The older versions are taken in full, except the early-access v0 of the share-group APIs.
#[test]
fn every_released_older_version_is_merged() {
    let s = sets();
    let merged: BTreeMap<String, &Message> = s.merged.iter().map(|m| (key(m), m)).collect();
    let mut missing = BTreeSet::new();
    for (k, old) in &s.old {
        let m = merged.get(k).unwrap_or_else(|| panic!("{k}: not merged"));
        for v in versions(old.valid).filter(|v| !m.valid.contains(*v)) {
            missing.insert(format!("{k} v{v}"));
        }
    }
    let expected: BTreeSet<String> = [76, 77, 78, 79]
        .into_iter()
        .flat_map(|k| [format!("request {k} v0"), format!("response {k} v0")])
        .collect();
    assert_eq!(missing, expected);
    let excluded: BTreeSet<String> = s
        .excluded
        .iter()
        .map(|(file, r, _)| format!("{file} {r}"))
        .collect();
    assert_eq!(
        excluded,
        [
            "ShareAcknowledgeRequest.json 0",
            "ShareAcknowledgeResponse.json 0",
            "ShareFetchRequest.json 0",
            "ShareFetchResponse.json 0",
            "ShareGroupDescribeRequest.json 0",
            "ShareGroupDescribeResponse.json 0",
            "ShareGroupHeartbeatRequest.json 0",
            "ShareGroupHeartbeatResponse.json 0",
        ]
        .into_iter()
        .map(String::from)
        .collect()
    );
}

#[test]
fn totals() {
    let s = sets();
    let count = |kind: Kind| -> usize {
        s.merged
            .iter()
            .filter(|m| m.kind == kind)
            .map(|m| versions(m.valid).count())
            .sum()
    };
    let keys: BTreeSet<i16> = s
        .merged
        .iter()
        .filter(|m| !m.valid.is_empty())
        .filter_map(|m| m.api_key)
        .collect();
    assert_eq!(keys.len(), 95);
    assert_eq!(keys.last(), Some(&94));
    assert_eq!(count(Kind::Request), 364);
    assert_eq!(count(Kind::Response), 364);
    let header = s.merged.iter().find(|m| m.name == "RequestHeader");
    assert_eq!(header.map(|m| m.valid), Some(Range { min: 0, max: 2 }));
}

/// Versions only the older set has use the older set's encoding (flexible or not); where the
/// primary still has the API, they are its oldest versions.
#[test]
fn older_versions_keep_their_encoding() {
    let s = sets();
    for m in s.merged.iter().filter(|m| m.older.is_some()) {
        let older = m.older.as_ref().map_or(Range::NONE, |o| o.versions);
        let old = &s.old[&key(m)];
        let new = &s.new[&key(m)];
        for v in versions(older) {
            assert_eq!(
                m.flexible.contains(v),
                old.flexible.contains(v),
                "{} v{v}",
                m.name
            );
            if !new.valid.is_empty() {
                assert!(v < new.valid.min, "{} v{v}", m.name);
            }
        }
    }
}
