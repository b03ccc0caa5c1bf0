//! Reading Kafka's JSON message schemas into a model the emitter can walk.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde_json::Value;

use crate::header::HeaderSpan;

/// An inclusive version range; empty when `min > max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub min: i16,
    pub max: i16,
}

impl Range {
    pub const NONE: Range = Range { min: 0, max: -1 };
    pub const ALL: Range = Range {
        min: 0,
        max: i16::MAX,
    };

    /// A range in the notation of Kafka's schemas (`N`, `N-M`, `N+`, `none`), read by
    /// `kwire-notation`, the one reader of it the library and its build script share.
    pub fn parse(s: &str) -> Result<Range, String> {
        let (min, max) = kwire_notation::parse_range(s)
            .map_err(|e| format!("{:?} is refused: {e}", s.trim()))?;
        Ok(Range { min, max })
    }

    pub fn is_empty(self) -> bool {
        self.min > self.max
    }

    pub fn intersect(self, o: Range) -> Range {
        Range {
            min: self.min.max(o.min),
            max: self.max.min(o.max),
        }
    }

    /// The smallest range covering both.
    pub fn hull(self, o: Range) -> Range {
        if self.is_empty() {
            return o;
        }
        if o.is_empty() {
            return self;
        }
        Range {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    pub fn contains_range(self, o: Range) -> bool {
        o.is_empty() || (self.min <= o.min && self.max >= o.max)
    }

    pub fn contains(self, v: i16) -> bool {
        v >= self.min && v <= self.max
    }

    /// Rust source for a `VersionRange` constant.
    pub fn rust(self) -> String {
        if self.is_empty() {
            "VersionRange::NONE".to_string()
        } else {
            format!("VersionRange::new({}, {})", self.min, self.max)
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        kwire_notation::write_range(f, self.min, self.max)
    }
}

/// A primitive type, as the schemas name it.
pub use kwire_notation::Primitive as Prim;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Prim(Prim),
    Struct(String),
    Array(Box<Ty>),
}

impl Ty {
    fn parse(s: &str) -> Result<Ty, String> {
        if let Some(inner) = s.strip_prefix("[]") {
            let inner = Ty::parse(inner)?;
            if matches!(inner, Ty::Array(_)) {
                return Err(format!("arrays of arrays are not allowed: {s}"));
            }
            return Ok(Ty::Array(Box::new(inner)));
        }
        if let Some(p) = Prim::from_name(s) {
            return Ok(Ty::Prim(p));
        }
        if s.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            return Ok(Ty::Struct(s.to_string()));
        }
        Err(format!("unknown type {s}"))
    }

    pub fn json(&self) -> String {
        match self {
            Ty::Prim(p) => p.name().to_string(),
            Ty::Struct(s) => s.clone(),
            Ty::Array(t) => format!("[]{}", t.json()),
        }
    }

    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Ty::Struct(s) => Some(s),
            Ty::Array(t) => t.struct_name(),
            Ty::Prim(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub versions: Range,
    pub nullable: Range,
    pub tagged: Range,
    pub tag: Option<u32>,
    pub default: Option<String>,
    pub ignorable: bool,
    pub flexible_override: Option<Range>,
    /// `entityType`: what the value identifies (`brokerId`, `topicName`, ...), if the schema says.
    pub entity_type: Option<String>,
    /// Inline struct definition (for struct and array-of-struct fields that define their fields).
    pub fields: Option<Vec<Field>>,
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
    /// Schema path prefix used in error messages.
    pub path: String,
    pub is_common: bool,
    pub is_root: bool,
}

impl StructDef {
    /// The sibling that names the same topic as `f` where `f` is absent: a topic's name
    /// (`"entityType": "topicName"`) and its `TopicId` uuid, whose versions meet without
    /// overlapping (Produce and Fetch name topics by id from version 13, OffsetCommit from 10).
    /// `None` for every other field, and for a name and an id that coexist (Metadata,
    /// DeleteTopics), where each is a value of its own.
    pub fn topic_partner(&self, f: &Field) -> Option<&Field> {
        let names = |f: &Field| {
            matches!(f.ty, Ty::Prim(Prim::String)) && f.entity_type.as_deref() == Some("topicName")
        };
        let id = |f: &Field| matches!(f.ty, Ty::Prim(Prim::Uuid)) && f.name == "TopicId";
        let meet = |a: Range, b: Range| {
            !a.is_empty()
                && !b.is_empty()
                && (a.max.checked_add(1) == Some(b.min) || b.max.checked_add(1) == Some(a.min))
        };
        self.fields
            .iter()
            .find(|g| ((names(f) && id(g)) || (id(f) && names(g))) && meet(f.versions, g.versions))
    }

    /// The versions at which `f`'s value is carried: its own, and its
    /// [topic partner](Self::topic_partner)'s.
    pub fn carried(&self, f: &Field) -> Range {
        match self.topic_partner(f) {
            Some(g) => f.versions.hull(g.versions),
            None => f.versions,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Request,
    Response,
    Header,
    Data,
}

#[derive(Debug, Clone)]
pub struct Message {
    pub file: String,
    pub name: String,
    pub api_key: Option<i16>,
    pub kind: Kind,
    pub valid: Range,
    pub flexible: Range,
    pub fields: Vec<Field>,
    pub common: Vec<StructDef>,
    /// `latestVersionUnstable`: the highest valid version is early access, not a released protocol.
    pub latest_unstable: bool,
    /// `listeners`: the kinds of node that serve a request (`broker`, `controller`); empty for
    /// the other schemas, and for a request the schema no longer says it of.
    pub listeners: Vec<String>,
    /// `headerVersions`, checked (see [`crate::header`]): the header version of each version of a
    /// request or response, when the schema says it; derived from the flexible versions
    /// otherwise.
    pub header_map: Option<Vec<HeaderSpan>>,
    /// Versions taken from an older schema set when sets are merged (see [`crate::merge`]).
    pub older: Option<Older>,
}

/// Where a merged message's older versions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Older {
    /// The older schema's file name.
    pub file: String,
    /// The versions generated from it (the ones the primary set lacks).
    pub versions: Range,
}

impl Message {
    /// The API name: the message name without `Request`/`Response`.
    pub fn api_name(&self) -> &str {
        self.name
            .strip_suffix("Request")
            .or_else(|| self.name.strip_suffix("Response"))
            .unwrap_or(&self.name)
    }
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_string()),
        _ => None,
    }
}

const FIELD_KEYS: &[&str] = &[
    "name",
    "type",
    "versions",
    "nullableVersions",
    "taggedVersions",
    "tag",
    "default",
    "ignorable",
    "entityType",
    "mapKey",
    "zeroCopy",
    "flexibleVersions",
    "about",
    "fields",
];

fn parse_field(v: &Value, ctx: &str) -> Result<Field, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{ctx}: field is not an object"))?;
    for k in obj.keys() {
        if !FIELD_KEYS.contains(&k.as_str()) {
            return Err(format!("{ctx}: unknown field key {k}"));
        }
    }
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{ctx}: field without name"))?
        .to_string();
    let ctx = format!("{ctx}.{name}");
    let ty = Ty::parse(
        obj.get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{ctx}: no type"))?,
    )
    .map_err(|e| format!("{ctx}: {e}"))?;
    let range = |key: &str| -> Result<Option<Range>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => {
                let s = scalar_string(v).ok_or_else(|| format!("{ctx}: bad {key}"))?;
                if s.trim().is_empty() {
                    return Ok(None);
                }
                Range::parse(&s)
                    .map(Some)
                    .map_err(|e| format!("{ctx}: {e}"))
            }
        }
    };
    let tagged = range("taggedVersions")?;
    let versions = match (range("versions")?, tagged) {
        (Some(v), _) => v,
        (None, Some(t)) => t,
        (None, None) => return Err(format!("{ctx}: no versions")),
    };
    let nullable = range("nullableVersions")?.unwrap_or(Range::NONE);
    let tag = match obj.get("tag") {
        None => None,
        Some(v) => Some(
            scalar_string(v)
                .and_then(|s| s.trim().parse::<u32>().ok())
                .ok_or_else(|| format!("{ctx}: bad tag"))?,
        ),
    };
    if tag.is_some() != tagged.is_some() {
        return Err(format!("{ctx}: tag and taggedVersions must come together"));
    }
    let default = obj
        .get("default")
        .map(|v| scalar_string(v).ok_or_else(|| format!("{ctx}: bad default")))
        .transpose()?;
    let ignorable = obj
        .get("ignorable")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let flexible_override = range("flexibleVersions")?;
    let entity_type = match obj.get("entityType") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .ok_or_else(|| format!("{ctx}: entityType is not a string"))?
                .to_string(),
        ),
    };
    let fields = match obj.get("fields") {
        None => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|f| parse_field(f, &ctx))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(format!("{ctx}: fields is not an array")),
    };
    if fields.is_some() && ty.struct_name().is_none() {
        return Err(format!("{ctx}: fields on a primitive type"));
    }
    Ok(Field {
        name,
        ty,
        versions,
        nullable,
        tagged: tagged.unwrap_or(Range::NONE),
        tag,
        default,
        ignorable,
        flexible_override,
        entity_type,
        fields,
    })
}

const TOP_KEYS: &[&str] = &[
    "apiKey",
    "type",
    "name",
    "validVersions",
    "deprecatedVersions",
    "flexibleVersions",
    "latestVersionUnstable",
    "listeners",
    "headerVersions",
    "fields",
    "commonStructs",
];

pub fn parse_message(file: &str, src: &str) -> Result<Message, String> {
    let v: Value = serde_json::from_str(&kwire_notation::uncommented(src).collect::<String>())
        .map_err(|e| format!("{file}: {e}"))?;
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{file}: not an object"))?;
    for k in obj.keys() {
        if !TOP_KEYS.contains(&k.as_str()) {
            return Err(format!("{file}: unknown key {k}"));
        }
    }
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{file}: no name"))?
        .to_string();
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some("request") => Kind::Request,
        Some("response") => Kind::Response,
        Some("header") => Kind::Header,
        Some("data") => Kind::Data,
        other => return Err(format!("{file}: unsupported type {other:?}")),
    };
    let api_key = obj.get("apiKey").and_then(Value::as_i64).map(|k| k as i16);
    let range_of = |key: &str| -> Result<Range, String> {
        match obj.get(key).and_then(scalar_string) {
            Some(s) => Range::parse(&s).map_err(|e| format!("{file}: {e}")),
            None => Ok(Range::NONE),
        }
    };
    let valid = range_of("validVersions")?;
    let flexible = range_of("flexibleVersions")?;
    let fields = match obj.get("fields") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|f| parse_field(f, &name))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
        Some(_) => return Err(format!("{file}: fields is not an array")),
    };
    let mut common = Vec::new();
    if let Some(Value::Array(a)) = obj.get("commonStructs") {
        for c in a {
            let cname = c
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{file}: common struct without name"))?;
            let cfields = c
                .get("fields")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("{file}: common struct {cname} without fields"))?
                .iter()
                .map(|f| parse_field(f, &format!("{name}.{cname}")))
                .collect::<Result<Vec<_>, _>>()?;
            common.push(StructDef {
                name: cname.to_string(),
                fields: cfields,
                path: format!("{name}.{cname}"),
                is_common: true,
                is_root: false,
            });
        }
    }
    let latest_unstable = obj
        .get("latestVersionUnstable")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let listeners = match obj.get("listeners") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|l| {
                l.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{file}: a listener is not a string"))
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(format!("{file}: listeners is not an array")),
    };
    let header_map = match obj.get("headerVersions") {
        None => None,
        Some(map) => Some(crate::header::parse_map(
            file, kind, api_key, flexible, map,
        )?),
    };
    Ok(Message {
        file: file.to_string(),
        name,
        api_key,
        kind,
        valid,
        flexible,
        fields,
        common,
        latest_unstable,
        listeners,
        header_map,
        older: None,
    })
}

pub fn load_dir(dir: &Path) -> Result<Vec<Message>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let src = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let file = p.file_name().unwrap().to_string_lossy().into_owned();
        out.push(parse_message(&file, &src)?);
    }
    Ok(out)
}

/// Every struct of a message, in definition order (root first, then inline structs depth first,
/// then common structs), with the version hull in which each can appear.
pub struct Structs {
    pub list: Vec<StructDef>,
    pub hull: BTreeMap<String, Range>,
}

pub fn collect_structs(m: &Message) -> Result<Structs, String> {
    let mut list = Vec::new();
    let root = StructDef {
        name: m.name.clone(),
        fields: m.fields.clone(),
        path: m.name.clone(),
        is_common: false,
        is_root: true,
    };
    fn inline(fields: &[Field], path: &str, list: &mut Vec<StructDef>) {
        for f in fields {
            if let (Some(sub), Some(sn)) = (&f.fields, f.ty.struct_name()) {
                let p = format!("{path}.{}", f.name);
                list.push(StructDef {
                    name: sn.to_string(),
                    fields: sub.clone(),
                    path: p.clone(),
                    is_common: false,
                    is_root: false,
                });
                inline(sub, &p, list);
            }
        }
    }
    list.push(root);
    inline(&m.fields, &m.name, &mut list);
    for c in &m.common {
        list.push(c.clone());
        inline(&c.fields, &c.path, &mut list);
    }
    let mut seen = std::collections::BTreeSet::new();
    for s in &list {
        if !seen.insert(s.name.clone()) {
            return Err(format!("{}: struct {} defined twice", m.file, s.name));
        }
    }
    for s in &list {
        for f in &s.fields {
            if let Some(sn) = f.ty.struct_name()
                && !seen.contains(sn)
            {
                return Err(format!(
                    "{}: {}.{} references unknown struct {sn}",
                    m.file, s.path, f.name
                ));
            }
        }
    }
    // Version hulls: where each struct can be reached from the root.
    let mut hull: BTreeMap<String, Range> = BTreeMap::new();
    fn visit(name: &str, r: Range, list: &[StructDef], hull: &mut BTreeMap<String, Range>) {
        if r.is_empty() {
            return;
        }
        let h = hull.entry(name.to_string()).or_insert(Range::NONE);
        if !h.is_empty() && h.contains_range(r) {
            return;
        }
        *h = h.hull(r);
        let s = list.iter().find(|s| s.name == name).unwrap();
        for f in &s.fields {
            if let Some(sn) = f.ty.struct_name() {
                visit(sn, f.versions.intersect(r), list, hull);
            }
        }
    }
    visit(&m.name, m.valid, &list, &mut hull);
    for s in &list {
        hull.entry(s.name.clone()).or_insert(Range::NONE);
    }
    // Tags must be numbered from 0 without gaps within each struct.
    for s in &list {
        let mut tags: Vec<u32> = s.fields.iter().filter_map(|f| f.tag).collect();
        tags.sort_unstable();
        for (i, t) in tags.iter().enumerate() {
            if *t as usize != i {
                return Err(format!(
                    "{}: tags of {} are not contiguous from 0",
                    m.file, s.path
                ));
            }
        }
    }
    Ok(Structs { list, hull })
}
