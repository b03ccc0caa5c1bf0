//! The kwire generator as a library: schema reading ([`spec`]), Rust emission ([`emit`])
//! and the whole-tree [`generate`] entry point used by the binary and the golden tests.

pub mod brokers;
pub mod emit;
pub mod header;
pub mod merge;
pub mod notes;
pub mod spec;
pub mod visitors;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use emit::{MARKER, module_name, screaming, snake};
use spec::{Field, Kind, Message, Prim, Range, Ty, collect_structs, load_dir};

/// Formats Rust source with the pinned rustfmt (edition 2024), run from `root` so that the
/// project's rustfmt configuration applies.
pub fn rustfmt(src: &str, root: &Path) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(src.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The last component of a directory path.
fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The schema set's provenance (Kafka commit and version), read from the `SOURCE.md` that sits
/// beside the schema directory; the directory name alone when there is none.
fn source_note(schemas: &Path) -> String {
    let dir = dir_name(schemas);
    let fallback = format!("schemas from `{dir}/`");
    let Ok(text) = std::fs::read_to_string(schemas.with_file_name("SOURCE.md")) else {
        return fallback;
    };
    let section_title = format!("`{dir}/`");
    let Some(start) = text
        .lines()
        .position(|l| l.starts_with("## ") && l.contains(&section_title))
    else {
        return fallback;
    };
    let mut commit = None;
    let mut version = None;
    for line in text
        .lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with("## "))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(key), Some(value)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let ticked = value.split('`').nth(1);
        if key.starts_with("Commit") && commit.is_none() {
            commit = ticked.map(|c| c.chars().take(8).collect::<String>());
        } else if key.starts_with("Kafka version") && version.is_none() {
            version = ticked.map(str::to_string);
        }
    }
    match (commit, version) {
        (Some(c), Some(v)) => format!("Apache Kafka {c}, {v}"),
        (Some(c), None) => format!("Apache Kafka {c}"),
        _ => fallback,
    }
}

/// Reads the primary schema set and, when given, merges the older set into it (see [`merge`]).
/// Returns the messages in file-name order and what the merge left out.
pub fn load(
    schemas: &Path,
    older: Option<&Path>,
) -> Result<(Vec<Message>, merge::Excluded), String> {
    let messages = load_dir(schemas)?;
    match older {
        None => Ok((messages, Vec::new())),
        Some(dir) => merge::merge_sets(&messages, &load_dir(dir)?),
    }
}

/// The older schema directory beside a primary one: `message-3.9` next to `message`.
pub fn older_beside(schemas: &Path) -> PathBuf {
    schemas.with_file_name("message-3.9")
}

/// One output file as the generator writes it, before formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// The file's text.
    pub text: String,
    /// Whether the text is Rust for rustfmt to format (the manifest and the build script's
    /// table are written as they are to stay).
    pub format: bool,
}

impl Emitted {
    fn rust(text: String) -> Self {
        Self { text, format: true }
    }

    fn verbatim(text: String) -> Self {
        Self {
            text,
            format: false,
        }
    }
}

/// Every output file (relative path → text, unformatted) from the schemas in `schemas`,
/// merged with the older set in `older` when given: what [`generate`] formats.
pub fn emit(
    schemas: &Path,
    older: Option<&Path>,
    root: &Path,
) -> Result<BTreeMap<PathBuf, Emitted>, String> {
    let (messages, _) = load(schemas, older)?;
    let source = source_note(schemas);
    let older_note = older.map(|o| (dir_name(o), source_note(o)));
    let mut files = BTreeMap::new();
    let mut modules = Vec::new();
    for m in &messages {
        let structs = collect_structs(m)?;
        let text = emit::emit_message(
            m,
            &structs,
            &dir_name(schemas),
            &source,
            older_note.as_ref().map(|(d, s)| (d.as_str(), s.as_str())),
        )?;
        let module = module_name(m);
        files.insert(
            PathBuf::from(format!("src/messages/{module}.rs")),
            Emitted::rust(text),
        );
        modules.push((module, m));
    }
    notes::check(notes::schema_paths(&messages)?.iter().map(String::as_str))?;
    files.insert(
        PathBuf::from("src/messages/mod.rs"),
        Emitted::rust(emit_messages_mod(&modules)),
    );
    files.insert(
        PathBuf::from("src/api/generated.rs"),
        Emitted::rust(emit_api(&messages)?),
    );
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .map_err(|e| format!("{}: {e}", root.join("Cargo.toml").display()))?;
    files.insert(
        PathBuf::from("Cargo.toml"),
        Emitted::verbatim(splice_features(&manifest, &apis(&messages)?)?),
    );
    files.insert(
        PathBuf::from("schema/src/tables.rs"),
        Emitted::rust(emit_tables(&messages)?),
    );
    files.insert(
        PathBuf::from("build/apis.rs"),
        Emitted::verbatim(emit_build_apis(&messages)?),
    );
    Ok(files)
}

/// Generates every output file (relative path → formatted text) from the schemas in `schemas`,
/// merged with the older set in `older` when given. The files are formatted in parallel, one
/// rustfmt process per file and per available core at a time.
pub fn generate(
    schemas: &Path,
    older: Option<&Path>,
    root: &Path,
) -> Result<BTreeMap<PathBuf, String>, String> {
    let files: Vec<(PathBuf, Emitted)> = emit(schemas, older, root)?.into_iter().collect();
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    let format = |(path, file): &(PathBuf, Emitted)| -> Result<(PathBuf, String), String> {
        let text = if file.format {
            rustfmt(&file.text, root).map_err(|e| format!("{}: {e}", path.display()))?
        } else {
            file.text.clone()
        };
        Ok((path.clone(), text))
    };
    std::thread::scope(|scope| {
        // Worker k formats files k, k + workers, ...
        let handles: Vec<_> = (0..workers)
            .map(|k| {
                let files = &files;
                scope.spawn(move || {
                    files
                        .iter()
                        .skip(k)
                        .step_by(workers)
                        .map(format)
                        .collect::<Result<Vec<_>, String>>()
                })
            })
            .collect();
        let mut formatted = BTreeMap::new();
        for handle in handles {
            let done = handle
                .join()
                .map_err(|_| "a formatting thread panicked".to_string())??;
            formatted.extend(done);
        }
        Ok(formatted)
    })
}

/// Generates one message module, formatted (for golden tests).
pub fn generate_message(path: &Path, root: &Path) -> Result<String, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let m = spec::parse_message(&file, &src)?;
    let structs = collect_structs(&m)?;
    let dir = path.parent().map(dir_name).unwrap_or_default();
    let source = path.parent().map(source_note).unwrap_or_default();
    rustfmt(
        &emit::emit_message(&m, &structs, &dir, &source, None)?,
        root,
    )
}

/// The versions of a (possibly merged) message that the primary (current) schema set defines: its
/// valid versions less the older ones, which are always the lowest.
fn current(m: &Message) -> Range {
    match &m.older {
        None => m.valid,
        Some(o) if o.versions.is_empty() => m.valid,
        Some(o) if o.versions.max >= m.valid.max => Range::NONE,
        Some(o) => Range {
            min: o.versions.max + 1,
            max: m.valid.max,
        },
    }
}

fn emit_messages_mod(modules: &[(String, &Message)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER}");
    // The module's documentation is hand-written, on its declaration in the crate root.
    out.push('\n');
    for (module, m) in modules {
        let _ = writeln!(out, "{}pub mod {module};", feature_gate(m));
    }
    out.push('\n');
    for (module, m) in modules {
        let _ = writeln!(out, "{}pub use {module}::{};", feature_gate(m), m.name);
    }
    out
}

/// The `cfg` attribute (with its line break) that compiles a request or response schema only with
/// its API's feature; nothing for headers and data schemas, which are always compiled.
fn feature_gate(m: &Message) -> String {
    match m.api_key {
        Some(_) => format!("#[cfg(feature = {:?})]\n", m.api_name()),
        None => String::new(),
    }
}

/// The first and last lines of the generated block of API features in `Cargo.toml`.
const FEATURES_BEGIN: &str =
    "# @generated by kwire-codegen: one feature per API key, named as the API.";
const FEATURES_END: &str = "# End of the generated API features.";

/// `Cargo.toml` with its block of API features replaced by one generated from `apis`: a feature
/// per API key, and `all-apis` enabling all of them.
fn splice_features(manifest: &str, apis: &[Api<'_>]) -> Result<String, String> {
    let begin = manifest
        .find(FEATURES_BEGIN)
        .ok_or_else(|| format!("Cargo.toml lacks the line {FEATURES_BEGIN:?}"))?;
    let end = manifest[begin..]
        .find(FEATURES_END)
        .map(|i| begin + i)
        .ok_or_else(|| format!("Cargo.toml lacks the line {FEATURES_END:?}"))?;
    let mut block = String::new();
    let _ = writeln!(block, "{FEATURES_BEGIN}");
    block.push_str("all-apis = [\n");
    for a in apis {
        let _ = writeln!(block, "    {:?},", a.name);
    }
    block.push_str("]\n");
    for a in apis {
        let _ = writeln!(block, "{} = []", a.name);
    }
    Ok(format!("{}{block}{}", &manifest[..begin], &manifest[end..]))
}

struct Api<'m> {
    key: i16,
    name: String,
    request: Option<&'m Message>,
    response: Option<&'m Message>,
}

fn apis(messages: &[Message]) -> Result<Vec<Api<'_>>, String> {
    let mut by_key: BTreeMap<i16, Api<'_>> = BTreeMap::new();
    for m in messages {
        let Some(key) = m.api_key else { continue };
        let e = by_key.entry(key).or_insert_with(|| Api {
            key,
            name: m.api_name().to_string(),
            request: None,
            response: None,
        });
        match m.kind {
            Kind::Request => e.request = Some(m),
            Kind::Response => e.response = Some(m),
            _ => return Err(format!("{}: apiKey on a {:?} schema", m.file, m.kind)),
        }
    }
    let list: Vec<Api<'_>> = by_key.into_values().collect();
    for (i, a) in list.iter().enumerate() {
        if a.key as usize != i {
            return Err(format!("API keys are not contiguous at {}", a.key));
        }
        if a.request.is_none() || a.response.is_none() {
            return Err(format!("API {} lacks a request or response schema", a.name));
        }
    }
    Ok(list)
}

/// The tables of `build.rs`: each API's name, key and valid request versions (lowest,
/// highest), against which it checks `KWIRE_VERSIONS`, and the APIs whose responses name brokers
/// (see [`brokers`]), for its cfg `kwire_names_brokers`.
fn emit_build_apis(messages: &[Message]) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER}");
    out.push_str("// The API tables of `build.rs`.\n\n");
    out.push_str("/// `(name, key, lowest valid request version, highest)` of every API.\n");
    out.push_str("const APIS: &[(&str, i16, i16, i16)] = &[\n");
    for a in apis(messages)? {
        let valid = a.request.map_or(Range::NONE, |m| m.valid);
        let _ = writeln!(
            out,
            "    ({:?}, {}, {}, {}),",
            a.name, a.key, valid.min, valid.max
        );
    }
    out.push_str("];\n\n");
    out.push_str("/// The APIs (cargo features) whose responses name brokers, which `io::relay::address`\n/// rewrites.\n");
    out.push_str("const BROKER_APIS: &[&str] = &[\n");
    for (_, name, _) in brokers::broker_apis(&brokers::broker_structs(messages)?) {
        let _ = writeln!(out, "    {name:?},");
    }
    out.push_str("];\n");
    Ok(out)
}

/// The fields of the responses that name brokers, and the versions that have them (see
/// [`brokers`]), for `io::relay::address`.
fn emit_broker_addresses(messages: &[Message]) -> Result<String, String> {
    let structs = brokers::broker_structs(messages)?;
    let mut out = String::new();
    out.push_str("/// The schema path of every field of a response that names a broker a client connects to:\n/// the `Host` and `Port` of each struct (or top level) that has them beside a broker id, in an\n/// API that brokers serve. By API key, then in field order. For `io::relay::address`.\n");
    out.push_str(
        "#[cfg(feature = \"std\")]\npub(crate) const BROKER_ADDRESS_FIELDS: &[&str] = &[\n",
    );
    for s in &structs {
        let _ = writeln!(
            out,
            "{:?},\n{:?},",
            format!("{}.Host", s.path),
            format!("{}.Port", s.path)
        );
    }
    out.push_str("];\n\n");
    out.push_str("/// True if a response of `api_key` at `version` has a field of `BROKER_ADDRESS_FIELDS`,\n/// whether or not the API's feature is enabled. For `io::relay::address`.\n#[cfg(feature = \"std\")]\n#[must_use]\npub(crate) const fn names_brokers(api_key: ApiKey, version: i16) -> bool {\n");
    let apis = brokers::broker_apis(&structs);
    if apis.iter().all(|(_, _, ranges)| ranges == &[Range::ALL]) {
        out.push_str("let _ = version;\n");
    }
    out.push_str("match api_key {\n");
    for (_, name, ranges) in apis {
        let versions: Vec<String> = ranges
            .iter()
            .map(|r| match (r.min, r.max) {
                (min, i16::MAX) => format!("{min}.."),
                (min, max) if min == max => min.to_string(),
                (min, max) => format!("{min}..={max}"),
            })
            .collect();
        let test = if ranges == [Range::ALL] {
            "true".to_string()
        } else {
            format!("matches!(version, {})", versions.join(" | "))
        };
        let _ = writeln!(out, "ApiKey::{} => {test},", screaming(&name));
    }
    out.push_str("_ => false,\n}\n}\n\n");
    Ok(out)
}

fn emit_api(messages: &[Message]) -> Result<String, String> {
    let apis = apis(messages)?;
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER}");
    out.push_str("//! API key constants, the version table and the request/response enums.\n\n");
    let live: Vec<&Api<'_>> = apis
        .iter()
        .filter(|a| !a.request.unwrap().valid.is_empty())
        .collect();
    // `cfg(any(...))` over the features of the APIs that have a body type: the message imports
    // are needed with one of them; with none, the enums keep their lifetime through a hidden
    // variant that cannot be built.
    let any = format!(
        "any({})",
        live.iter()
            .map(|a| format!("feature = {:?}", a.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let none = format!("#[cfg(not({any}))]\n");
    let any = format!("#[cfg({any})]\n");
    let _ = write!(
        out,
        "use super::{{ApiInfo, HeaderVersions}};\nuse crate::codec::{{self as c, VersionRange}};\nuse crate::error::{{DecodeError, EncodeError}};\n{any}use crate::messages as m;\nuse crate::wire::ApiKey;\n\n"
    );
    out.push_str(&emit_broker_addresses(messages)?);
    out.push_str("impl ApiKey {\n");
    for a in &apis {
        let _ = writeln!(
            out,
            "/// `{}` (key {}).\npub const {}: Self = Self({});",
            a.name,
            a.key,
            screaming(&a.name),
            a.key
        );
    }
    out.push_str("/// True when this build holds the message types of this API: its feature, named as the\n/// API (such as `Produce`), is enabled, alone or through `all-apis`.\n#[must_use]\npub const fn is_enabled(self) -> bool {\nmatch self.0 {\n");
    for a in &apis {
        let _ = writeln!(out, "#[cfg(feature = {:?})]\n{} => true,", a.name, a.key);
    }
    out.push_str("_ => false,\n}\n}\n");
    out.push_str("}\n\n");
    let _ = writeln!(
        out,
        "/// Every API key Kafka has assigned, indexed by key.\npub static API_TABLE: [ApiInfo; {}] = [",
        apis.len()
    );
    for a in &apis {
        let (rq, rs) = (a.request.unwrap(), a.response.unwrap());
        let _ = writeln!(
            out,
            "ApiInfo {{ key: ApiKey({}), name: {:?}, request_versions: {}, response_versions: {}, current_request_versions: {}, current_response_versions: {}, request_flexible: {}, response_flexible: {}, request_headers: HeaderVersions::new({:?}), response_headers: HeaderVersions::new({:?}) }},",
            a.key,
            a.name,
            rq.valid.rust(),
            rs.valid.rust(),
            current(rq).rust(),
            current(rs).rust(),
            if rq.valid.is_empty() {
                Range::NONE
            } else {
                rq.flexible
            }
            .rust(),
            if rs.valid.is_empty() {
                Range::NONE
            } else {
                rs.flexible
            }
            .rust(),
            header::first_versions(rq)?,
            header::first_versions(rs)?,
        );
    }
    out.push_str("];\n\n");
    let gate = |a: &Api<'_>| format!("#[cfg(feature = {:?})]\n", a.name);
    for (kind, enum_name) in [(Kind::Request, "Request"), (Kind::Response, "Response")] {
        let pick = |a: &Api<'_>| {
            if kind == Kind::Request {
                a.request.unwrap().name.clone()
            } else {
                a.response.unwrap().name.clone()
            }
        };
        let _ = writeln!(
            out,
            "/// Any {} body, by API key: one variant per API whose feature is enabled.\n#[derive(Debug, Clone, Copy, PartialEq)]\n#[cfg_attr(feature = \"defmt\", derive(defmt::Format))]\n#[non_exhaustive]\n#[allow(clippy::large_enum_variant, reason = \"bodies are borrowed views decoded in place; boxing would need an allocator\")]\npub enum {enum_name}<'a> {{",
            enum_name.to_lowercase()
        );
        for a in &live {
            let _ = writeln!(
                out,
                "/// A `{}` body.\n{}{}(m::{}<'a>),",
                pick(a),
                gate(a),
                a.name,
                pick(a)
            );
        }
        let _ = writeln!(out, "#[doc(hidden)]\n{none}__NoApi(super::NoApi<'a>),");
        out.push_str("}\n\n");
        let unreachable = format!("{none}Self::__NoApi(n) => match n.0 {{}},\n");
        let _ = writeln!(out, "impl<'a> {enum_name}<'a> {{");
        let _ = writeln!(
            out,
            "/// Decodes a {} body of `api_key` at `version` from `r` (the arguments in the order of\n/// [`Decode::decode`](c::Decode::decode), the reader first).\n///\n/// # Errors\n///\n/// `UnknownApiKey` for a key without a valid version, `ApiNotEnabled` for an API whose\n/// feature is off, `UnsupportedVersion`, and any body error.\npub fn decode(r: &mut c::Reader<'a>, api_key: ApiKey, version: i16) -> Result<Self, DecodeError> {{\nlet _ = version;\nmatch api_key.0 {{",
            enum_name.to_lowercase()
        );
        for a in &live {
            let _ = writeln!(
                out,
                "{}{} => c::read_fast_or_read_as::<m::{3}<'a>, _>(r, version, Self::{2}),",
                gate(a),
                a.key,
                a.name,
                pick(a)
            );
        }
        let _ = writeln!(
            out,
            "_ => {{\nlet c::Failed = super::missing_api(r, api_key, {enum_name:?});\nErr(r.take_error())\n}}\n}}\n}}\n"
        );
        out.push_str("/// The API key of this body.\n#[must_use]\npub const fn api_key(&self) -> ApiKey {\nmatch *self {\n");
        for a in &live {
            let _ = writeln!(out, "{}Self::{}(_) => ApiKey({}),", gate(a), a.name, a.key);
        }
        out.push_str(&unreachable);
        out.push_str("}\n}\n\n");
        out.push_str("/// The versions this build encodes this body at: its schema's valid versions, unless the\n/// build narrowed them (see [`c::Message::BUILT_VERSIONS`]).\n#[must_use]\npub const fn valid_versions(&self) -> VersionRange {\nmatch *self {\n");
        for a in &live {
            let _ = writeln!(
                out,
                "{}Self::{}(_) => <m::{}<'_> as c::Message>::BUILT_VERSIONS,",
                gate(a),
                a.name,
                pick(a)
            );
        }
        out.push_str(&unreachable);
        out.push_str("}\n}\n}\n\n");
        let _ = writeln!(out, "impl c::Encode for {enum_name}<'_> {{");
        // Each method passes to the body's own. `encode` and `encode_lenient` too, so that an
        // encode chooses the body once rather than in each of its passes.
        let methods = [
            (
                "fn encoded_len(&self, version: i16) -> Result<usize, EncodeError>",
                "version",
                "encoded_len(b, version)",
            ),
            (
                "fn write(&self, w: &mut c::Writer<'_>, version: i16)",
                "(&w, version)",
                "write(b, w, version)",
            ),
            (
                "fn dropped_field(&self, version: i16) -> Option<c::DroppedField>",
                "version",
                "dropped_field(b, version)",
            ),
            (
                "fn encode(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError>",
                "(version, &out)",
                "encode(b, version, out)",
            ),
            (
                "fn encode_lenient(&self, version: i16, out: &mut [u8]) -> Result<usize, EncodeError>",
                "(version, &out)",
                "encode_lenient(b, version, out)",
            ),
        ];
        for (signature, unused, call) in methods {
            let _ = writeln!(out, "{signature} {{\nlet _ = {unused};\nmatch *self {{");
            for a in &live {
                let _ = writeln!(
                    out,
                    "{}Self::{}(ref b) => c::Encode::{call},",
                    gate(a),
                    a.name
                );
            }
            out.push_str(&unreachable);
            out.push_str("}\n}\n\n");
        }
        out.push_str("}\n\n");
        for a in &live {
            let _ = writeln!(
                out,
                "{2}impl<'a> From<m::{0}<'a>> for {enum_name}<'a> {{\nfn from(b: m::{0}<'a>) -> Self {{ Self::{1}(b) }}\n}}\n",
                pick(a),
                a.name,
                gate(a)
            );
        }
    }
    Ok(out)
}

fn prim_variant(p: Prim) -> &'static str {
    match p {
        Prim::Bool => "Bool",
        Prim::Int8 => "Int8",
        Prim::Int16 => "Int16",
        Prim::Uint16 => "Uint16",
        Prim::Int32 => "Int32",
        Prim::Uint32 => "Uint32",
        Prim::Int64 => "Int64",
        Prim::Float64 => "Float64",
        Prim::Uuid => "Uuid",
        Prim::String => "String",
        Prim::Bytes => "Bytes",
        Prim::Records => "Records",
    }
}

fn default_table(f: &Field) -> Result<String, String> {
    let Some(d) = f.default.as_deref() else {
        return Ok("DefaultValue::Implicit".into());
    };
    if d == "null" {
        return Ok("DefaultValue::Null".into());
    }
    Ok(match &f.ty {
        Ty::Prim(Prim::Bool) => format!("DefaultValue::Bool({})", d.eq_ignore_ascii_case("true")),
        Ty::Prim(Prim::Float64) => {
            let v: f64 = d.trim().parse().map_err(|e| format!("{}: {e}", f.name))?;
            format!("DefaultValue::Float({v:?})")
        }
        Ty::Prim(p) if p.is_number() => {
            let t = d.trim();
            let (neg, t) = t.strip_prefix('-').map_or((false, t), |r| (true, r));
            let v = if let Some(h) = t.strip_prefix("0x") {
                i64::from_str_radix(h, 16).map_err(|e| e.to_string())?
            } else {
                t.parse::<i64>().map_err(|e| e.to_string())?
            };
            format!("DefaultValue::Int({})", if neg { -v } else { v })
        }
        Ty::Prim(Prim::String) => format!("DefaultValue::Str({d:?})"),
        Ty::Prim(Prim::Uuid) if d.trim_end_matches('=').chars().all(|c| c == 'A') => {
            "DefaultValue::Implicit".into()
        }
        _ if d.is_empty() => "DefaultValue::Implicit".into(),
        _ => return Err(format!("{}: unsupported default {d:?} in tables", f.name)),
    })
}

fn emit_tables(messages: &[Message]) -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER}");
    out.push_str("//! Static descriptions of every schema: messages, structs and fields.\n\n");
    out.push_str("use super::{DefaultValue, FieldSchema, FieldType, MessageSchema, Primitive, StructSchema};\nuse kwire::codec::{MessageKind, VersionRange};\n\n");
    let mut all = Vec::new();
    for m in messages {
        let structs = collect_structs(m)?;
        let prefix = screaming(&m.name);
        let sname = |s: &str| format!("{prefix}__{}", screaming(s));
        for s in &structs.list {
            let _ = writeln!(
                out,
                "static {}: StructSchema = StructSchema {{ name: {:?}, path: {:?}, versions: {}, fields: &[",
                sname(&s.name),
                s.name,
                s.path,
                structs.hull[&s.name].rust()
            );
            for f in &s.fields {
                let ty = match &f.ty {
                    Ty::Prim(p) => format!("FieldType::Primitive(Primitive::{})", prim_variant(*p)),
                    Ty::Struct(n) => format!("FieldType::Struct(&{})", sname(n)),
                    Ty::Array(inner) => match &**inner {
                        Ty::Prim(p) => format!("FieldType::Array(Primitive::{})", prim_variant(*p)),
                        Ty::Struct(n) => format!("FieldType::StructArray(&{})", sname(n)),
                        Ty::Array(_) => return Err("array of arrays".into()),
                    },
                };
                let _ = writeln!(
                    out,
                    "FieldSchema {{ name: {:?}, ty: {ty}, versions: {}, nullable_versions: {}, tagged_versions: {}, tag: {:?}, default: {}, ignorable: {}, flexible_versions: {} }},",
                    f.name,
                    f.versions.rust(),
                    f.nullable.rust(),
                    f.tagged.rust(),
                    f.tag,
                    default_table(f)?,
                    f.ignorable,
                    match f.flexible_override {
                        Some(r) => format!("Some({})", r.rust()),
                        None => "None".into(),
                    }
                );
            }
            out.push_str("] };\n\n");
        }
        let kind = match m.kind {
            Kind::Request => "Request",
            Kind::Response => "Response",
            Kind::Header => "Header",
            Kind::Data => "Data",
        };
        let _ = writeln!(
            out,
            "/// The `{}` schema.\npub static {prefix}: MessageSchema = MessageSchema {{ name: {:?}, api_key: {}, kind: MessageKind::{kind}, valid_versions: {}, flexible_versions: {}, root: &{} }};\n",
            m.name,
            m.name,
            m.api_key.unwrap_or(-1),
            m.valid.rust(),
            m.flexible.rust(),
            sname(&m.name)
        );
        all.push(prefix);
    }
    let _ = writeln!(
        out,
        "/// Every schema, in file-name order.\npub static MESSAGES: [&MessageSchema; {}] = [",
        all.len()
    );
    for p in &all {
        let _ = writeln!(out, "&{p},");
    }
    out.push_str("];\n");
    let _ = snake;
    Ok(out)
}
