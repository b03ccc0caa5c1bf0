//! `kwire site`: the catalogue of every Kafka API as a static web site.
//!
//! The site is self-contained: HTML pages, one style sheet and one small script, nothing fetched
//! from elsewhere. `index.html` lists every API key; each API has a page at its highest version
//! (`<Api>.html`) and one per version (`<Api>-v<N>.html`), each showing the facts, a colour
//! legend, and for the request and the response the smallest legal frame as a byte grid and an
//! object tree. The tree's text is what `kwire page` prints, rendered by the same code. Given
//! Kafka's schema directories, the pages also carry each field's description and the message's
//! JSON schema, read when the site is written. Given the results of `kwire probe` runs, the site
//! also has `probe.html`, each broker's matrix of verdicts, linked from the index.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};

use kwire::ApiKey;
use kwire::api::{API_TABLE, ApiInfo};
use kwire::codec::VersionRange;
use kwire_schema::describe::{self, Category, DescribeError, Name, Node, Side, TypeWord, Visit};

pub mod probe;
pub mod records;

pub use probe::{ProbeApi, ProbeCell, ProbeResults};

/// Scratch space for one minimal frame.
const SCRATCH: usize = 1 << 16;

/// Descriptions longer than this are cut, with `...` in place of the rest.
const ABOUT_WIDTH: usize = 78;

/// The regions of a frame, in the legend's order: the class of their bytes and their name.
const REGIONS: [(Category, &str, &str); 7] = [
    (Category::Frame, "frame", "frame"),
    (Category::Header, "header", "rpc header"),
    (Category::RequestBody, "request", "request body"),
    (Category::RecordBatch, "batch", "RecordBatch"),
    (Category::Record, "record", "Record"),
    (Category::ResponseBody, "response", "response body"),
    (Category::Tagged, "tagged", "tagged_fields"),
];

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("site.js");

/// The class and the legend name of a node's region.
fn region(c: Category) -> (&'static str, &'static str) {
    REGIONS
        .iter()
        .find(|(cat, _, _)| *cat == c)
        .map_or(("other", "other"), |&(_, class, name)| (class, name))
}

/// What the site is written from and to.
#[derive(Debug)]
pub struct Options {
    /// The directory the site is written into (created if missing).
    pub out: PathBuf,
    /// Kafka's schema directories, searched in order for each message's JSON file.
    pub schemas: Vec<PathBuf>,
    /// The dissector built for the browser (`kwire-wasm`, `wasm32-unknown-unknown`): with it,
    /// the site has a page that dissects any pasted frame.
    pub wasm: Option<PathBuf>,
    /// The results of `kwire probe` runs: with any, the site has `probe.html`, a section per
    /// run.
    pub probe: Vec<ProbeResults>,
}

/// What was written.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// API pages written (every version of every API, and each API's highest once more).
    pub pages: usize,
    /// Messages whose schema file was found.
    pub schemas: usize,
}

/// Writes the whole site.
///
/// # Errors
///
/// A message naming what could not be written, or an API the dissector could not show.
pub fn write_site(opts: &Options) -> Result<Summary, String> {
    fs::create_dir_all(&opts.out).map_err(|e| format!("creating {}: {e}", opts.out.display()))?;
    let write = |name: &str, text: &str| {
        let path = opts.out.join(name);
        fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))
    };
    write("style.css", STYLE)?;
    write("site.js", SCRIPT)?;
    let mut scratch = vec![0u8; SCRATCH];
    let dissect = match &opts.wasm {
        Some(path) => {
            let module = fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let schemas = dissect_schemas(&opts.schemas);
            write("dissect.js", &dissect_script(&module, &schemas))?;
            write("dissect.html", &dissect_page().map_err(|e| e.to_string())?)?;
            true
        }
        None => false,
    };
    let probed = !opts.probe.is_empty();
    if probed {
        write(
            "probe.html",
            &probe::page(&opts.probe, dissect).map_err(|e| e.to_string())?,
        )?;
    }
    write("index.html", &index(dissect, probed, &mut scratch)?)?;
    let mut summary = Summary::default();
    for info in API_TABLE.iter() {
        let Some(versions) = page_versions(info) else {
            continue;
        };
        let docs = [Side::Request, Side::Response].map(|side| {
            let name = message_name(info.key, side);
            load_schema(&opts.schemas, name)
        });
        summary.schemas += docs.iter().filter(|d| d.is_some()).count();
        let top = versions.last().copied().unwrap_or_default();
        for &version in &versions {
            let html = api_page(info, version, &versions, &docs, dissect, &mut scratch)?;
            write(&format!("{}-v{version}.html", info.name), &html)?;
            summary.pages += 1;
            if version == top {
                write(&format!("{}.html", info.name), &html)?;
                summary.pages += 1;
            }
        }
    }
    Ok(summary)
}

const DISSECT_GLUE: &str = include_str!("dissect.js");

/// The schemas the dissect page describes fields with, as a JSON object: by API key, the
/// request's and the response's schema text (`null` for one not found).
fn dissect_schemas(dirs: &[PathBuf]) -> String {
    let mut by_key = serde_json::Map::new();
    for info in API_TABLE.iter() {
        let [request, response] = [Side::Request, Side::Response].map(|side| {
            load_schema(dirs, message_name(info.key, side)).map(|d| d.json().to_owned())
        });
        if request.is_some() || response.is_some() {
            by_key.insert(
                info.key.0.to_string(),
                serde_json::json!([request, response]),
            );
        }
    }
    serde_json::Value::Object(by_key).to_string()
}

/// `dissect.js`: the module, embedded in base64 (a page opened from a file may not fetch
/// one), the schemas (`schemas`, from [`dissect_schemas`]), and the code that runs them.
fn dissect_script(module: &[u8], schemas: &str) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(module);
    format!(
        "\"use strict\";\nconst KWIRE_WASM = \"{encoded}\";\nconst KWIRE_SCHEMAS = {schemas};\n\
         {DISSECT_GLUE}"
    )
}

/// `dissect.html`: a frame in hex, request or response (with its API and version), and its
/// grid and tree, as kwire compiled to WebAssembly reads it.
fn dissect_page() -> Result<String, fmt::Error> {
    let mut out = String::new();
    head(&mut out, "Dissect a Kafka frame", "", true)?;
    out.push_str(
        "<h1>Dissect a frame</h1>\n<p>Paste a whole frame in hex, size prefix first (spaces and \
         line breaks are ignored). A request's header names its API and version; a response's \
         must be given. The frame is read in this page by kwire compiled to WebAssembly; \
         nothing is sent anywhere. A link to this page can carry a frame: \
         <code>dissect.html?request=HEX</code> or \
         <code>dissect.html?response=HEX&amp;api=39&amp;version=2</code>.</p>\n\
         <form id=\"dissect\">\n<p><label for=\"frame\">Frame (hex)</label><br>\
         <textarea id=\"frame\" name=\"frame\" rows=\"6\" cols=\"80\" spellcheck=\"false\">\
         </textarea></p>\n<p><label><input type=\"radio\" name=\"direction\" value=\"request\" \
         checked> request</label> <label><input type=\"radio\" name=\"direction\" \
         value=\"response\"> response of</label> \
         <label for=\"api\">API</label> <select id=\"api\" name=\"api\">\
         <option value=\"\">(choose)</option>",
    );
    for info in API_TABLE.iter().filter(|i| !i.request_versions.is_empty()) {
        write!(
            out,
            "<option value=\"{}\">{} ({})</option>",
            info.key.0,
            Esc(info.name),
            info.key.0
        )?;
    }
    out.push_str(
        "</select> <label for=\"version\">version</label> <input id=\"version\" \
         name=\"version\" type=\"number\" min=\"0\" max=\"32767\"> \
         <button type=\"submit\">Dissect</button></p>\n</form>\n",
    );
    legend(&mut out);
    out.push_str(
        "<section class=\"side\" id=\"result\" aria-live=\"polite\"></section>\n\
         <script src=\"dissect.js\" defer></script>\n",
    );
    tail(&mut out)?;
    Ok(out)
}

/// The versions an API has a page at: those both of its sides define.
fn page_versions(info: &ApiInfo) -> Option<Vec<i16>> {
    let r = info.request_versions;
    if r.is_empty() {
        return None;
    }
    let v: Vec<i16> = (r.min..=r.max)
        .filter(|&v| describe::page_version(info.key, Some(v)).is_ok())
        .collect();
    (!v.is_empty()).then_some(v)
}

fn message_name(api: ApiKey, side: Side) -> &'static str {
    let schema = match side {
        Side::Request => kwire_schema::request(api),
        Side::Response => kwire_schema::response(api),
    };
    schema.map_or("", |s| s.name)
}

/// `text` escaped for HTML content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    Esc(text).to_string()
}

/// Escapes text for HTML content and attribute values.
struct Esc<'a>(&'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The start of every page, up to and with the navigation bar.
fn head(out: &mut String, title: &str, nav: &str, dissect: bool) -> fmt::Result {
    let dissect = if dissect {
        "<a href=\"dissect.html\">Dissect a frame</a>"
    } else {
        ""
    };
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n\
         <script src=\"site.js\" defer></script>\n</head>\n<body>\n\
         <nav><a class=\"home\" href=\"index.html\">All Kafka APIs</a>{dissect}{nav}</nav>\n<main>\n",
        Esc(title)
    )
}

fn tail(out: &mut String) -> fmt::Result {
    out.write_str("</main>\n</body>\n</html>\n")
}

fn minimal_len(api: ApiKey, version: i16, side: Side, scratch: &mut [u8]) -> String {
    describe::write_minimal_frame(api, version, side, scratch)
        .map_or_else(|_| "-".into(), |n| n.to_string())
}

/// `index.html`: every API key, the current ones first, then those Kafka 4.0 removed.
fn index(dissect: bool, probed: bool, scratch: &mut [u8]) -> Result<String, String> {
    let mut out = String::new();
    let nav = if probed {
        "<a href=\"probe.html\">Probe results</a>"
    } else {
        ""
    };
    head(&mut out, "All Kafka APIs", nav, dissect).map_err(|e| e.to_string())?;
    let current: Vec<&ApiInfo> = API_TABLE
        .iter()
        .filter(|i| !i.current_request_versions.is_empty())
        .collect();
    let removed: Vec<&ApiInfo> = API_TABLE
        .iter()
        .filter(|i| i.current_request_versions.is_empty() && !i.request_versions.is_empty())
        .collect();
    let _ = write!(
        out,
        "<h1>All Kafka APIs</h1>\n<p>Every API key of the Kafka protocol with the versions kwire \
         speaks: {} keys of the current release and {} that Kafka 4.0 removed. Each page shows the \
         smallest legal request and response of one version, byte by byte. Sizes are of the whole \
         frame at the highest version, its int32 size prefix included. Click a column heading to \
         sort.</p>\n",
        current.len(),
        removed.len()
    );
    api_table(&mut out, "Current APIs", "current", &current, scratch);
    api_table(
        &mut out,
        "APIs removed in Kafka 4.0",
        "removed",
        &removed,
        scratch,
    );
    tail(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn api_table(out: &mut String, title: &str, id: &str, apis: &[&ApiInfo], scratch: &mut [u8]) {
    let _ = write!(
        out,
        "<section id=\"{id}\">\n<h2>{}</h2>\n<table class=\"apis sortable\">\n<thead><tr>\
         <th>Key</th><th>API</th><th>Request versions</th><th>Response versions</th>\
         <th>Flexible versions</th><th>Headers</th><th>Request size</th><th>Response size</th>\
         </tr></thead>\n<tbody>\n",
        Esc(title)
    );
    for info in apis {
        let top = info.request_versions.max;
        let older = older_versions(info)
            .map(|r| format!(" <span class=\"older\">(v{r} removed in Kafka 4.0)</span>"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td>{key}</td><td><a href=\"{name}.html\">{name}</a>{older}</td><td>{req}</td>\
             <td>{resp}</td><td>{flex}</td><td class=\"nowrap\">req v{hreq}, resp v{hresp}</td><td>{rs}</td>\
             <td>{ps}</td></tr>",
            key = info.key.0,
            name = Esc(info.name),
            req = info.request_versions,
            resp = info.response_versions,
            flex = flexible(info),
            hreq = Side::Request.header_version(info.key, top),
            hresp = Side::Response.header_version(info.key, top),
            rs = minimal_len(info.key, top, Side::Request, scratch),
            ps = minimal_len(info.key, top, Side::Response, scratch),
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn flexible(info: &ApiInfo) -> String {
    if info.request_flexible == info.response_flexible {
        info.request_flexible.to_string()
    } else {
        format!(
            "request {}, response {}",
            info.request_flexible, info.response_flexible
        )
    }
}

/// The versions of an API that Kafka 4.0 removed while keeping the API.
fn older_versions(info: &ApiInfo) -> Option<String> {
    let (all, current) = (info.request_versions, info.current_request_versions);
    (!current.is_empty() && current.min > all.min)
        .then(|| VersionRange::new(all.min, current.min.saturating_sub(1)).to_string())
}

fn current(range: VersionRange) -> String {
    if range.is_empty() {
        "none (Kafka 4.0 removed this API)".into()
    } else {
        range.to_string()
    }
}

/// One API's page at `version`.
fn api_page(
    info: &ApiInfo,
    version: i16,
    versions: &[i16],
    docs: &[Option<SchemaDoc>; 2],
    dissect: bool,
    scratch: &mut [u8],
) -> Result<String, String> {
    let api = info.key;
    let fail = |e: DescribeError| format!("{} v{version}: {e}", info.name);
    let request_len =
        describe::write_minimal_frame(api, version, Side::Request, scratch).map_err(fail)?;
    let response_len =
        describe::write_minimal_frame(api, version, Side::Response, scratch).map_err(fail)?;
    let mut switcher = String::from("<span class=\"versions\">version");
    for &v in versions {
        if v == version {
            let _ = write!(switcher, " <strong class=\"current\">v{v}</strong>");
        } else {
            let _ = write!(
                switcher,
                " <a href=\"{}-v{v}.html\">v{v}</a>",
                Esc(info.name)
            );
        }
    }
    switcher.push_str("</span>");
    let mut out = String::new();
    head(
        &mut out,
        &format!("{} v{version}", info.name),
        &switcher,
        dissect,
    )
    .map_err(|e| e.to_string())?;
    let flexible_now = info.request_flexible.contains(version);
    let encoding = if flexible_now {
        format!(
            "Version {version} is flexible: every struct ends with a count of tagged fields (an \
             unsigned varint), and strings, bytes and arrays carry compact lengths, the length \
             plus one as an unsigned varint."
        )
    } else {
        format!(
            "Version {version} is not flexible: strings carry int16 lengths, bytes and arrays \
             int32 lengths, and there are no tagged fields."
        )
    };
    let _ = write!(
        out,
        "<h1>{name}</h1>\n<p class=\"explain\">The smallest legal request and response of \
         {name} v{version}: numbers are zero, strings and bytes empty, each array holds one \
         element, and a records field holds one empty record batch (61 bytes, magic 2). \
         {encoding} The sizes count the whole frame, its int32 size prefix included.</p>\n",
        name = Esc(info.name)
    );
    let older = older_versions(info).map_or_else(String::new, |r| {
        format!(
            "<dt>Older versions</dt><dd>{r} (removed in Kafka 4.0; older brokers speak them)</dd>"
        )
    });
    let _ = write!(
        out,
        "<dl class=\"facts\">\n<dt>API key</dt><dd>{key}</dd>\n<dt>Encoded at</dt><dd>v{version}</dd>\n\
         <dt>Flexible versions</dt><dd>{flex}</dd>\n<dt>Headers</dt><dd>req v{hreq}, resp v{hresp}</dd>\n\
         <dt>Request versions</dt><dd>{req}</dd>\n<dt>Response versions</dt><dd>{resp}</dd>\n\
         <dt>Request size</dt><dd>{request_len} bytes</dd>\n<dt>Response size</dt><dd>{response_len} bytes</dd>\n\
         {older}</dl>\n",
        key = api.0,
        flex = flexible(info),
        hreq = Side::Request.header_version(api, version),
        hresp = Side::Response.header_version(api, version),
        req = current(info.current_request_versions),
        resp = current(info.current_response_versions),
    );
    legend(&mut out);
    for (side, doc) in [Side::Request, Side::Response].into_iter().zip(docs) {
        side_section(&mut out, api, version, side, doc.as_ref(), scratch).map_err(fail)?;
    }
    tail(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn legend(out: &mut String) {
    out.push_str("<ul class=\"legend\" aria-label=\"regions\">");
    for (_, class, name) in REGIONS {
        let _ = write!(out, "<li class=\"r-{class}\">{}</li>", Esc(name));
    }
    out.push_str("</ul>\n");
}

/// A tree node as the page needs it.
#[derive(Debug)]
struct Info {
    depth: usize,
    /// The field name (an element's array name), for finding the description.
    name: String,
    offset: usize,
    size: Option<usize>,
    category: Category,
    /// The description the dissector gives (framing, headers, batches), if any.
    about: String,
    /// An element of an array, which has no description of its own.
    element: bool,
    /// The element count of an array.
    count: bool,
}

/// Collects the nodes of a tree.
#[derive(Debug, Default)]
struct Collect {
    nodes: Vec<Info>,
    /// Whether the node at each depth on the way to the current one is an array.
    arrays: Vec<bool>,
}

impl Visit for Collect {
    fn node(&mut self, n: &Node<'_>) -> fmt::Result {
        let name = match n.name {
            Name::Plain(s) | Name::Indexed(s, _) => s.to_string(),
            _ => String::new(),
        };
        self.arrays.truncate(n.depth);
        let in_array = n
            .depth
            .checked_sub(1)
            .and_then(|p| self.arrays.get(p))
            .copied()
            .unwrap_or(false);
        self.arrays.push(matches!(n.ty, TypeWord::Array(_)));
        self.nodes.push(Info {
            count: in_array && n.name == Name::Plain("length"),
            depth: n.depth,
            name,
            offset: n.offset,
            size: n.size,
            category: n.category,
            about: n.about.to_string(),
            element: matches!(n.name, Name::Indexed(..)),
        });
        Ok(())
    }
}

/// The tree's text lines, one per node, and the lines after them (a decoding error's); with a
/// schema, each body field's description fills the description column, as the reference pages
/// show it. `sample`: the tree is a page's smallest legal instance, whose arrays hold one
/// sample element each.
fn tree_lines<'t>(
    text: &'t str,
    nodes: &[Info],
    doc: Option<&SchemaDoc>,
    sample: bool,
) -> (Vec<(String, Option<String>)>, Vec<&'t str>) {
    let mut lines = text.lines();
    let node_lines: Vec<&str> = lines.by_ref().take(nodes.len()).collect();
    // The description column: where the dissector's own descriptions start.
    let column = node_lines
        .iter()
        .zip(nodes)
        .find(|(_, n)| !n.about.is_empty())
        .map(|(l, n)| l.chars().count().saturating_sub(n.about.chars().count()));
    let mut parents: Vec<&str> = Vec::new();
    let mut out = Vec::with_capacity(node_lines.len());
    for (line, n) in node_lines.iter().zip(nodes) {
        parents.truncate(n.depth);
        let parent = parents.last().copied().unwrap_or("");
        let about = match (doc, n.category) {
            (Some(_), Category::RequestBody | Category::ResponseBody | Category::Tagged)
                if sample && n.count =>
            {
                Some("one sample element follows".to_owned())
            }
            (Some(d), Category::RequestBody | Category::ResponseBody | Category::Tagged)
                if n.about.is_empty() && !n.element =>
            {
                d.about(parent, &n.name)
            }
            _ => None,
        };
        parents.push(&n.name);
        let mut text = (*line).to_string();
        if let (Some(about), Some(column)) = (&about, column) {
            let width = text.chars().count();
            text.extend(std::iter::repeat_n(
                ' ',
                column.saturating_sub(width).max(2),
            ));
            text.push_str(&cut(about));
        }
        out.push((text, about));
    }
    (out, lines.collect())
}

/// A description cut to [`ABOUT_WIDTH`] characters.
fn cut(about: &str) -> String {
    if about.chars().count() <= ABOUT_WIDTH {
        return about.to_string();
    }
    let mut s: String = about.chars().take(ABOUT_WIDTH - 3).collect();
    s.push_str("...");
    s
}

/// Which frame a section shows, and so how its header is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// A request frame: its header names the API and version.
    Request,
    /// A response frame of `api` at `version`.
    Response {
        /// The API the request named.
        api: ApiKey,
        /// The version the request named.
        version: i16,
    },
}

/// A frame's tree: its text and the nodes it is made of, which both stop at the same failure.
struct Dissection {
    text: String,
    nodes: Vec<Info>,
    /// The decoding error, if the frame has one.
    result: Result<(), DescribeError>,
}

/// Dissects `frame`; errors other than a decoding error end it.
fn dissect(frame: &[u8], kind: Frame) -> Result<Dissection, DescribeError> {
    let mut text = String::new();
    let mut nodes = Collect::default();
    let (result, _) = match kind {
        Frame::Request => (
            describe::write_request_frame(frame, &mut text),
            describe::visit_request_frame(frame, &mut nodes),
        ),
        Frame::Response { api, version } => (
            describe::write_response_frame(frame, api, version, &mut text),
            describe::visit_response_frame(frame, api, version, &mut nodes),
        ),
    };
    match result {
        Err(e) if !matches!(e, DescribeError::Decode(_)) => Err(e),
        result => Ok(Dissection {
            text,
            nodes: nodes.nodes,
            result,
        }),
    }
}

impl Dissection {
    /// The tree of a page's smallest legal instance as text, with each body field's
    /// description from `doc` in the last column: the tree `kwire page --schemas` prints and the
    /// pages show.
    fn described_text(&self, doc: Option<&SchemaDoc>) -> String {
        let (lines, rest) = tree_lines(&self.text, &self.nodes, doc, true);
        let mut out = String::with_capacity(self.text.len());
        for line in lines.iter().map(|(l, _)| l.as_str()).chain(rest) {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// The reference page of `api` at `version` (default: the highest) as `kwire page` prints it;
/// with schema directories, each tree also carries the fields' descriptions, as on the site.
///
/// # Errors
///
/// A message naming an API or version there is no page for.
pub fn page_text(api: ApiKey, version: Option<i16>, schemas: &[PathBuf]) -> Result<String, String> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut text = String::new();
    describe::page(api, version, &mut scratch, &mut text).map_err(|e| e.to_string())?;
    if schemas.is_empty() {
        return Ok(text);
    }
    let (_, version) = describe::page_version(api, version).map_err(|e| e.to_string())?;
    for (side, kind) in [
        (Side::Request, Frame::Request),
        (Side::Response, Frame::Response { api, version }),
    ] {
        let doc = load_schema(schemas, message_name(api, side));
        let n = describe::write_minimal_frame(api, version, side, &mut scratch)
            .map_err(|e| e.to_string())?;
        let frame = scratch.get(..n).unwrap_or_default();
        let tree = dissect(frame, kind).map_err(|e| e.to_string())?;
        tree.result.as_ref().map_err(ToString::to_string)?;
        // The page holds the tree exactly as the same renderer wrote it here.
        text = text.replacen(&tree.text, &tree.described_text(doc.as_ref()), 1);
    }
    Ok(text)
}

/// Writes the byte grid and the object tree of `frame`, as a page shows them: a grid cell per
/// byte, coloured and titled by the region of the deepest node over it, and a tree line per
/// node, each knowing its bytes. A malformed frame is shown up to the failure, with the error
/// line the dissector adds, and the error is returned.
///
/// # Errors
///
/// The dissector's error for a frame it cannot read to the end.
pub fn write_frame(
    out: &mut String,
    frame: &[u8],
    kind: Frame,
    doc: Option<&SchemaDoc>,
) -> Result<(), DescribeError> {
    write_tree(out, frame, kind, doc, false)
}

/// [`write_frame`], for a page's smallest legal instance when `sample`.
fn write_tree(
    out: &mut String,
    frame: &[u8],
    kind: Frame,
    doc: Option<&SchemaDoc>,
    sample: bool,
) -> Result<(), DescribeError> {
    let Dissection {
        text,
        nodes,
        result,
    } = dissect(frame, kind)?;
    let (lines, rest) = tree_lines(&text, &nodes, doc, sample);
    // The deepest node over each byte (children come after their parents).
    let mut owner = vec![0usize; frame.len()];
    for (i, node) in nodes.iter().enumerate() {
        let end = node.offset.saturating_add(node.size.unwrap_or(0));
        for slot in owner
            .get_mut(node.offset..end.min(frame.len()))
            .unwrap_or_default()
        {
            *slot = i;
        }
    }
    let _ = writeln!(
        out,
        "<h3>byte layout ({} bytes, {} bytes per row)</h3>",
        frame.len(),
        describe::ROW
    );
    out.push_str("<table class=\"layout\">\n<thead><tr><th scope=\"col\">offset</th>");
    for c in 0..describe::ROW {
        let _ = write!(out, "<th scope=\"col\">{c:X}</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (row, bytes) in frame.chunks(describe::ROW).enumerate() {
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{:04x}</th>",
            row * describe::ROW
        );
        for (k, b) in bytes.iter().enumerate() {
            let at = row * describe::ROW + k;
            let i = owner.get(at).copied().unwrap_or(0);
            let node = nodes.get(i);
            let (class, region_name) = region(node.map_or(Category::Frame, |n| n.category));
            let name = node.map_or("", |n| n.name.as_str());
            let _ = write!(
                out,
                "<td class=\"r-{class}\" data-o=\"{at}\" data-n=\"{i}\" title=\"{region_name}: \
                 {} at {at:#06x}\">{b:02x}</td>",
                Esc(name)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n<h3>object tree</h3>\n<pre class=\"tree\">");
    for ((line, about), node) in lines.iter().zip(&nodes) {
        let (class, region_name) = region(node.category);
        let title = about.as_deref().unwrap_or(region_name);
        let _ = writeln!(
            out,
            "<span class=\"node r-{class}\" tabindex=\"0\" data-o=\"{}\" data-l=\"{}\" \
             title=\"{}\">{}</span>",
            node.offset,
            node.size.unwrap_or(0),
            Esc(title),
            Esc(line)
        );
    }
    for line in rest {
        let _ = writeln!(out, "<span class=\"error\">{}</span>", Esc(line));
    }
    out.push_str("</pre>\n");
    result
}

/// The request or response part of a page: title, the smallest frame's grid and tree, and
/// the schema.
fn side_section(
    out: &mut String,
    api: ApiKey,
    version: i16,
    side: Side,
    doc: Option<&SchemaDoc>,
    scratch: &mut [u8],
) -> Result<(), DescribeError> {
    let n = describe::write_minimal_frame(api, version, side, scratch)?;
    let frame = scratch.get(..n).unwrap_or_default();
    let (title, id, kind) = match side {
        Side::Request => ("Request", "request", Frame::Request),
        Side::Response => ("Response", "response", Frame::Response { api, version }),
    };
    let _ = writeln!(
        out,
        "<section class=\"side\" id=\"{id}\">\n<h2>{title}</h2>\n<p>{} v{version}, {} header \
         v{}, {n} bytes on the wire</p>",
        Esc(message_name(api, side)),
        side.name(),
        side.header_version(api, version),
    );
    write_tree(out, frame, kind, doc, true)?;
    if let Some(doc) = doc {
        let _ = write!(
            out,
            "<h3>kafka message schema (.json)</h3>\n<pre class=\"schema\">{}</pre>\n",
            Esc(doc.json())
        );
    }
    out.push_str("</section>\n");
    Ok(())
}

/// A message's JSON schema, as read from Kafka's schema directory.
#[derive(Debug)]
pub struct SchemaDoc {
    /// The file as it is, comments included.
    text: String,
    /// Descriptions by (enclosing field or message name, field name).
    abouts: HashMap<(String, String), String>,
    /// Descriptions by field name alone, the first of each name.
    by_name: HashMap<String, String>,
}

impl SchemaDoc {
    /// Parses a schema file's text (comments allowed, as Kafka writes them); `None` when it is
    /// not a message schema.
    pub fn parse(text: String) -> Option<Self> {
        let stripped: String = kwire_notation::uncommented(&text).collect();
        let value: serde_json::Value = serde_json::from_str(&stripped).ok()?;
        let mut doc = Self {
            text,
            abouts: HashMap::new(),
            by_name: HashMap::new(),
        };
        let common: HashMap<&str, &serde_json::Value> = value
            .get("commonStructs")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| Some((s.get("name")?.as_str()?, s.get("fields")?)))
            .collect();
        let name = value.get("name").and_then(serde_json::Value::as_str)?;
        if let Some(fields) = value.get("fields") {
            doc.collect(fields, name, &common, 0);
        }
        Some(doc)
    }

    fn collect(
        &mut self,
        fields: &serde_json::Value,
        parent: &str,
        common: &HashMap<&str, &serde_json::Value>,
        depth: usize,
    ) {
        // Common structs may refer to each other; no schema nests deeper than this.
        if depth > 16 {
            return;
        }
        for f in fields.as_array().into_iter().flatten() {
            let Some(name) = f.get("name").and_then(serde_json::Value::as_str) else {
                continue;
            };
            if let Some(about) = f.get("about").and_then(serde_json::Value::as_str) {
                self.abouts
                    .insert((parent.to_string(), name.to_string()), about.to_string());
                self.by_name
                    .entry(name.to_string())
                    .or_insert_with(|| about.to_string());
            }
            let ty = f
                .get("type")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("");
            let inner = f
                .get("fields")
                .or_else(|| common.get(ty.trim_start_matches("[]")).copied());
            if let Some(inner) = inner {
                self.collect(inner, name, common, depth + 1);
            }
        }
    }

    /// The schema from its opening brace: the file without the licence comment before it.
    fn json(&self) -> &str {
        let start = self.text.find('{').unwrap_or(0);
        self.text.get(start..).unwrap_or_default().trim_end()
    }

    /// The description of field `name` inside `parent`.
    fn about(&self, parent: &str, name: &str) -> Option<String> {
        self.abouts
            .get(&(parent.to_string(), name.to_string()))
            .or_else(|| self.by_name.get(name))
            .cloned()
    }
}

/// The schema of message `name` from the first directory that has `<name>.json`.
fn load_schema(dirs: &[PathBuf], name: &str) -> Option<SchemaDoc> {
    if name.is_empty() {
        return None;
    }
    dirs.iter().find_map(|d: &PathBuf| {
        let path: PathBuf = Path::new(d).join(format!("{name}.json"));
        SchemaDoc::parse(fs::read_to_string(path).ok()?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
    }

    /// The object tree of one side of a reference page in `../shared/seeds`.
    fn seed_tree(seed: &str, side: &str) -> Option<String> {
        let text = fs::read_to_string(shared().join("seeds").join(seed)).ok()?;
        let start = text.find(&format!("\n{side}\n"))?;
        let rest = &text[start..];
        // A tree of lines between blank lines, or one on a line of its own.
        if let Some(at) = rest.find("object tree\n\n") {
            let tree = at + "object tree\n\n".len();
            let end = rest[tree..].find("\n\n")?;
            return Some(rest[tree..tree + end].to_string());
        }
        let tree = rest.find("object tree\n")? + "object tree\n".len();
        let end = rest[tree..].find('\n')?;
        Some(rest[tree..tree + end].to_string())
    }

    /// The text of the tree on a page: the node lines without their markup.
    fn page_tree(html: &str, side: &str) -> String {
        tree_text(&html[html.find(&format!("id=\"{side}\"")).unwrap()..])
    }

    /// The text of the first tree in `html`: the node lines without their markup.
    fn tree_text(html: &str) -> String {
        let open = "<pre class=\"tree\">";
        let pre = &html[html.find(open).unwrap() + open.len()..];
        let pre = &pre[..pre.find("</pre>").unwrap()];
        pre.lines()
            .filter_map(|l| {
                let open = l.find("\">")? + 2;
                let close = l.rfind("</span>")?;
                Some(unescape(&l[open..close]))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn unescape(s: &str) -> String {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    fn page(api: ApiKey, version: i16, schemas: &[PathBuf]) -> String {
        let info = api.info().unwrap();
        let versions = page_versions(info).unwrap();
        let docs = [Side::Request, Side::Response]
            .map(|side| load_schema(schemas, message_name(api, side)));
        let mut scratch = vec![0u8; SCRATCH];
        api_page(info, version, &versions, &docs, false, &mut scratch).unwrap()
    }

    #[test]
    fn the_tree_is_what_kwire_page_prints() {
        for api in [ApiKey::RENEW_DELEGATION_TOKEN, ApiKey::FETCH, ApiKey(4)] {
            let info = api.info().unwrap();
            for version in page_versions(info).unwrap() {
                let html = page(api, version, &[]);
                let mut scratch = vec![0u8; SCRATCH];
                for (side, id) in [(Side::Request, "request"), (Side::Response, "response")] {
                    let n =
                        describe::write_minimal_frame(api, version, side, &mut scratch).unwrap();
                    let mut text = String::new();
                    match side {
                        Side::Request => describe::write_request_frame(&scratch[..n], &mut text),
                        Side::Response => {
                            describe::write_response_frame(&scratch[..n], api, version, &mut text)
                        }
                    }
                    .unwrap();
                    assert_eq!(page_tree(&html, id), text.trim_end(), "{api:?} v{version}");
                    // A cell per byte, and every byte in a region.
                    let section = &html[html.find(&format!("id=\"{id}\"")).unwrap()..];
                    let grid = &section[..section.find("</table>").unwrap()];
                    assert_eq!(grid.matches("<td class=\"r-").count(), n);
                    assert!(!grid.contains("r-other"));
                }
            }
        }
    }

    #[test]
    fn with_the_schemas_the_seed_trees_are_reproduced() {
        let schemas = [shared().join("kafka-schemas/message")];
        if !schemas[0].is_dir() {
            panic!("the schemas are missing at {}", schemas[0].display());
        }
        let html = page(ApiKey::RENEW_DELEGATION_TOKEN, 2, &schemas);
        for (side, id) in [("Request", "request"), ("Response", "response")] {
            let seed = seed_tree("RenewDelegationToken-v2.txt", side).unwrap();
            assert_eq!(page_tree(&html, id), seed);
        }
        assert!(html.contains("<h3>kafka message schema (.json)</h3>"));
        assert!(html.contains("&quot;name&quot;: &quot;RenewDelegationTokenRequest&quot;"));
        // The seed's trees are stored on one line: compared word by word.
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let html = page(ApiKey::UPDATE_FEATURES, 2, &schemas);
        for (side, id) in [("Request", "request"), ("Response", "response")] {
            let seed = seed_tree("UpdateFeatures-v2.txt", side).unwrap();
            assert_eq!(
                words(&page_tree(&html, id)),
                words(&seed),
                "UpdateFeatures {side}"
            );
        }
    }

    #[test]
    fn with_a_module_the_site_has_its_dissect_page() {
        let dir = std::env::temp_dir().join(format!("kwire-site-wasm-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let module = dir.join("m.wasm");
        fs::write(&module, b"\0asm").unwrap();
        let out = dir.join("site");
        write_site(&Options {
            out: out.clone(),
            schemas: Vec::new(),
            wasm: Some(module),
            probe: Vec::new(),
        })
        .unwrap();
        let script = fs::read_to_string(out.join("dissect.js")).unwrap();
        assert!(script.contains("const KWIRE_WASM = \"AGFzbQ==\";"));
        // Without schemas, no descriptions.
        assert!(script.contains("const KWIRE_SCHEMAS = {};"));
        let page = fs::read_to_string(out.join("dissect.html")).unwrap();
        assert!(page.contains("<form id=\"dissect\">"));
        // A response's API and version start unchosen: the page refuses one without them.
        assert!(
            page.contains("<select id=\"api\" name=\"api\"><option value=\"\">(choose)</option>")
        );
        assert!(page.contains("max=\"32767\"> <button"));
        assert!(page.contains("<option value=\"39\">RenewDelegationToken (39)</option>"));
        let index = fs::read_to_string(out.join("index.html")).unwrap();
        assert!(index.contains("<a href=\"dissect.html\">Dissect a frame</a>"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_dissect_page_describes_the_fields_as_the_pages_do() {
        let schemas = [shared().join("kafka-schemas/message")];
        assert_eq!(dissect_schemas(&[]), "{}");
        // What dissect.js carries, as the page hands it to the module.
        let by_key: serde_json::Value = serde_json::from_str(&dissect_schemas(&schemas)).unwrap();
        let api = ApiKey::RENEW_DELEGATION_TOKEN;
        let html = page(api, 2, &schemas);
        let mut scratch = vec![0u8; SCRATCH];
        for (i, side, id, kind) in [
            (0, Side::Request, "request", Frame::Request),
            (
                1,
                Side::Response,
                "response",
                Frame::Response { api, version: 2 },
            ),
        ] {
            let text = by_key["39"][i].as_str().unwrap();
            let doc = SchemaDoc::parse(text.to_owned()).unwrap();
            let n = describe::write_minimal_frame(api, 2, side, &mut scratch).unwrap();
            let mut dissected = String::new();
            write_frame(&mut dissected, &scratch[..n], kind, Some(&doc)).unwrap();
            let tree = tree_text(&dissected);
            // Its messages have no arrays, whose sample count lines only the pages describe.
            assert_eq!(tree, page_tree(&html, id), "{id}");
            let about = [
                "The HMAC of the delegation token to be renewed.",
                "The timestamp",
            ][i];
            assert!(tree.contains(about), "{tree}");
        }
    }

    #[test]
    fn the_index_headers_stay_on_one_line() {
        let html = index(false, false, &mut vec![0u8; SCRATCH]).unwrap();
        let rows = html.matches("<tr><td>").count();
        assert!(rows > 90, "{rows} rows");
        assert_eq!(html.matches("<td class=\"nowrap\">req v").count(), rows);
        assert!(STYLE.contains(".nowrap { white-space: nowrap; }"));
    }

    #[test]
    fn kwire_page_with_the_schemas_prints_the_seed_trees() {
        let schemas = [shared().join("kafka-schemas/message")];
        let text = page_text(ApiKey::RENEW_DELEGATION_TOKEN, Some(2), &schemas).unwrap();
        for side in ["Request", "Response"] {
            let seed = seed_tree("RenewDelegationToken-v2.txt", side).unwrap();
            assert!(text.contains(&seed), "{side}");
        }
        let mut plain = String::new();
        describe::page(ApiKey::FETCH, None, &mut vec![0u8; SCRATCH], &mut plain).unwrap();
        assert_eq!(page_text(ApiKey::FETCH, None, &[]).unwrap(), plain);
    }

    #[test]
    fn long_descriptions_are_cut() {
        let long = "x".repeat(100);
        assert_eq!(cut(&long).chars().count(), ABOUT_WIDTH);
        assert!(cut(&long).ends_with("..."));
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn the_site_has_every_page_and_links_that_resolve() {
        let dir = std::env::temp_dir().join(format!("kwire-site-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let summary = write_site(&Options {
            out: dir.clone(),
            schemas: Vec::new(),
            wasm: None,
            probe: Vec::new(),
        })
        .unwrap();
        let expected: usize = API_TABLE
            .iter()
            .filter_map(page_versions)
            .map(|v| v.len() + 1)
            .sum();
        assert_eq!(summary.pages, expected);
        assert_eq!(summary.schemas, 0);
        let index = fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(index.contains("APIs removed in Kafka 4.0"));
        assert!(!index.contains("dissect.html") && !dir.join("dissect.html").exists());
        assert!(index.contains("<a href=\"LeaderAndIsr.html\">LeaderAndIsr</a>"));
        // Every local link of the index and of one page names a file that exists.
        let page = fs::read_to_string(dir.join("Fetch.html")).unwrap();
        for html in [&index, &page] {
            for link in html.split("href=\"").skip(1) {
                let target = &link[..link.find('"').unwrap()];
                assert!(dir.join(target).is_file(), "{target}");
            }
            assert!(!html.contains("http://") && !html.contains("https://"));
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
