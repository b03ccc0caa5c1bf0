//! The library's layers, as its imports keep them: each module may name modules of the layers
//! below it, never one of its own layer or above. The layers are read from the crate docs'
//! "Layers" table (`src/lib.rs`), and `docs/architecture.md` must draw the same; a module the
//! table does not place fails the test, so a new module is placed on purpose. A module's
//! names are what the compiler resolves: `crate::` and `$crate::` paths anywhere in its code,
//! the crate root's re-exports by the module they come from, and `super::` in a top-level file,
//! which is the crate root.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first, as the "Layers" table of the crate docs lists them: the modules
/// named in backquotes in each row's first cell.
fn layers() -> Vec<Vec<String>> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let table = lib
        .split("//! ## Layers")
        .nth(1)
        .and_then(|rest| rest.split("//! ## ").next())
        .expect("lib.rs has a Layers section");
    let rows: Vec<Vec<String>> = table
        .lines()
        .filter_map(|line| line.strip_prefix("//! | "))
        .filter_map(|row| row.split(" | ").next())
        .map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .filter(|names| !names.is_empty())
        .collect();
    assert!(rows.len() >= 8, "the Layers table has {} rows", rows.len());
    rows
}

fn layer_of(layers: &[Vec<String>], module: &str) -> Option<usize> {
    layers.iter().position(|l| l.iter().any(|m| m == module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate-root names `lib.rs` re-exports, with the module each comes from
/// (`pub use api::{ApiKey, ...}` gives `ApiKey` → `api`).
fn root_reexports() -> Vec<(String, String)> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = Vec::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim();
            if !name.is_empty() {
                out.push((name.to_string(), module.to_string()));
            }
        }
    }
    out
}

/// The code of a file without its comments and its unit tests (a trailing `mod tests` under
/// `#[cfg(test)]` or `#[cfg(all(test, ...))]`, which may use anything).
fn code(text: &str) -> String {
    let tests = text.match_indices("#[cfg(").map(|(at, _)| at).find(|&at| {
        let rest = &text[at..];
        let attribute = rest.split_once('\n').map_or(rest, |(line, _)| line);
        (attribute == "#[cfg(test)]" || attribute.starts_with("#[cfg(all(test, "))
            && rest[attribute.len()..].starts_with("\nmod tests")
    });
    let text = match tests {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a file's code names through `crate::` (or `$crate::` in macros), and through
/// `super::` when `top_level` (a file directly under `src/`, or a `mod.rs` there, whose parent
/// is the crate root).
fn named_modules(code: &str, roots: &[(String, String)], top_level: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut paths: Vec<usize> = code
        .match_indices("crate::")
        .map(|(at, _)| at + "crate::".len())
        .collect();
    if top_level {
        paths.extend(
            code.match_indices("super::")
                .filter(|(at, _)| !code[..*at].ends_with("::"))
                .map(|(at, _)| at + "super::".len()),
        );
    }
    paths.sort_unstable();
    for at in paths {
        let name: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let module = match roots.iter().find(|(n, _)| *n == name) {
            Some((_, m)) => m.clone(),
            None => name,
        };
        if !out.contains(&module) {
            out.push(module);
        }
    }
    out
}

#[test]
fn every_module_imports_only_its_layer_and_those_below() {
    let layers = layers();
    let roots = root_reexports();
    assert!(
        roots.iter().any(|(n, m)| n == "ApiKey" && m == "wire"),
        "lib.rs re-exports ApiKey from wire: {roots:?}"
    );
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    let mut violations = Vec::new();
    let mut checked = 0;
    for path in paths {
        let rel = path.strip_prefix(src()).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let module = first.trim_end_matches(".rs");
        // The crate root, and the unit tests' fixtures (compiled only under `cfg(test)`).
        if module == "lib" || module == "testdata" {
            continue;
        }
        let Some(own) = layer_of(&layers, module) else {
            violations.push(format!("{}: module {module} is in no layer", rel.display()));
            continue;
        };
        let text = fs::read_to_string(&path).unwrap();
        let top_level = rel.components().count() == 1
            || rel.ends_with("mod.rs") && rel.components().count() == 2;
        for named in named_modules(&code(&text), &roots, top_level) {
            match layer_of(&layers, &named) {
                Some(l) if l < own || named == module => {}
                Some(l) if l == own => violations.push(format!(
                    "{}: {module} imports {named}, a module of its own layer",
                    rel.display()
                )),
                Some(_) => violations.push(format!(
                    "{}: {module} imports {named}, a layer above it",
                    rel.display()
                )),
                // A name the crate root defines itself (a macro, `heapless`).
                None => {}
            }
        }
        checked += 1;
    }
    assert!(checked > 200, "only {checked} files checked");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The drawing of `docs/architecture.md` names the table's modules, top first.
#[test]
fn the_architecture_drawing_is_the_table() {
    let doc = fs::read_to_string(src().join("../docs/architecture.md")).unwrap();
    let drawing = doc
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/architecture.md draws the layers");
    // A layer's line starts with its modules, two spaces in; the lines that go on start deeper.
    let mut drawn: Vec<Vec<String>> = drawing
        .lines()
        .filter_map(|line| line.strip_prefix("  "))
        .filter(|line| line.starts_with(|c: char| c.is_ascii_lowercase()))
        .map(|line| {
            let names = line.split("  ").next().unwrap_or_default();
            names.split_whitespace().map(String::from).collect()
        })
        .collect();
    drawn.reverse();
    assert_eq!(drawn, layers());
}

#[test]
fn the_check_sees_imports_and_only_code() {
    let roots = vec![("ApiKey".to_string(), "wire".to_string())];
    let text = "use crate::api::Request;\n// crate::describe in a comment\n\
                let k: crate::ApiKey = $crate::codec::Reader::new(b);\n\
                #[cfg(test)]\nmod tests {\n    use crate::schema;\n}\n";
    assert_eq!(
        named_modules(&code(text), &roots, false),
        ["api", "wire", "codec"].map(String::from)
    );
    let text = "use crate::codec::Reader;\n\
                #[cfg(all(test, feature = \"all-apis\"))]\nmod tests {\n    use crate::describe;\n}\n";
    assert_eq!(
        named_modules(&code(text), &roots, false),
        ["codec"].map(String::from)
    );
    // `super::` in a top-level file is the crate root; deeper, it is the module itself.
    let text = "use super::frame::payload;
use crate::codec::Reader;
";
    assert_eq!(
        named_modules(&code(text), &roots, true),
        ["frame", "codec"].map(String::from)
    );
    assert_eq!(
        named_modules(&code(text), &roots, false),
        ["codec"].map(String::from)
    );
}
