//! `probe.html`: the matrices of `kwire probe` runs, one section per broker.
//!
//! The site does not read the probe's JSON document: the CLI owns that format and hands the
//! site these plain values. Every string in them came from a file, and is escaped.

use std::fmt::{self, Write as _};

use kwire::api::API_TABLE;

use crate::{Esc, head, page_versions, tail};

/// What one `kwire probe` run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeResults {
    /// The broker's address as given to the probe.
    pub broker: String,
    /// What the ApiVersions exchange found: `ApiVersions v5 answered`.
    pub api_versions: String,
    /// Which versions were sent: `advertised` or `all`.
    pub versions: String,
    /// The timeout of each answer, in milliseconds.
    pub timeout_ms: u64,
    /// One entry per API probed.
    pub apis: Vec<ProbeApi>,
    /// Why the probe ended early, if it did.
    pub stopped: Option<String>,
    /// The number of findings the probe counted.
    pub findings: u64,
}

/// The versions of one API.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeApi {
    /// The API's key.
    pub key: i16,
    /// The API's name.
    pub name: String,
    /// The versions the broker advertised, lowest and highest (`None`: not advertised).
    pub advertised: Option<(i16, i16)>,
    /// One entry per version probed.
    pub results: Vec<ProbeCell>,
}

/// The verdict on one version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeCell {
    /// The version.
    pub version: i16,
    /// The verdict's words, as the probe prints them (`wrong header version`).
    pub verdict: String,
    /// Whether the verdict is a non-conformance of the broker.
    pub finding: bool,
    /// What the verdict rests on (may be empty).
    pub detail: String,
}

/// The verdicts the probe knows, in the order its summary lists them, with the short word a
/// cell shows.
const VERDICTS: [(&str, &str); 12] = [
    ("ok", "ok"),
    ("not advertised", "n/a"),
    ("refused", "refused"),
    ("wrong header version", "header"),
    ("wrong correlation id", "corr id"),
    ("undecodable", "decode"),
    ("unknown error code", "code"),
    ("timeout", "timeout"),
    ("connection closed", "closed"),
    ("skipped (writes)", "skipped"),
    ("answered though not advertised", "answered"),
    ("not sent", "not sent"),
];

/// The short word of a verdict (the verdict itself when it is not one the site knows).
fn short(verdict: &str) -> &str {
    VERDICTS
        .iter()
        .find(|(name, _)| *name == verdict)
        .map_or(verdict, |&(_, word)| word)
}

/// The CSS classes of a cell: `v-` and the verdict's words joined by hyphens (`v-ok`,
/// `v-wrong-header-version`), then its group: `pass` (ok), `finding`, or `quiet` (not
/// advertised, skipped, not sent).
fn classes(cell: &ProbeCell) -> String {
    let mut slug = String::from("v-");
    let mut dash = false;
    for c in cell.verdict.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && slug.len() > 2 {
                slug.push('-');
            }
            dash = false;
            slug.push(c.to_ascii_lowercase());
        } else {
            dash = true;
        }
    }
    let group = if cell.finding {
        "finding"
    } else if cell.verdict == "ok" {
        "pass"
    } else {
        "quiet"
    };
    format!("{slug} {group}")
}

/// The summary line, as the probe's table ends: `364 versions: 153 ok, 211 not advertised.
/// The broker conforms.`
fn summary(r: &ProbeResults) -> String {
    let cells = || r.apis.iter().flat_map(|a| a.results.iter());
    let mut order: Vec<&str> = VERDICTS.iter().map(|(name, _)| *name).collect();
    for c in cells() {
        if !order.contains(&c.verdict.as_str()) {
            order.push(&c.verdict);
        }
    }
    let counts: Vec<String> = order
        .iter()
        .filter_map(|v| {
            let n = cells().filter(|c| c.verdict == *v).count();
            (n > 0).then(|| format!("{n} {v}"))
        })
        .collect();
    format!(
        "{} versions: {}. {}",
        cells().count(),
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        },
        match r.findings {
            0 => "The broker conforms.".to_string(),
            1 => "1 finding.".to_string(),
            n => format!("{n} findings."),
        }
    )
}

/// `probe.html`: a section per run.
pub(crate) fn page(runs: &[ProbeResults], dissect: bool) -> Result<String, fmt::Error> {
    let mut out = String::new();
    head(&mut out, "Probe results", "", dissect)?;
    out.push_str(
        "<h1>Probe results</h1>\n<p>What <code>kwire probe</code> found, API by API and version \
         by version. <span class=\"pass\">Green</span>: answered as the protocol requires; \
         <span class=\"finding\">red</span>: a finding (its detail on hover and under the \
         table); <span class=\"quiet\">grey</span>: not advertised, skipped as a write, or not sent.</p>\n",
    );
    if runs.len() > 1 {
        out.push_str("<ul>\n");
        for (i, r) in runs.iter().enumerate() {
            writeln!(
                out,
                "<li><a href=\"#probe-{}\">{}</a></li>",
                i + 1,
                Esc(&r.broker)
            )?;
        }
        out.push_str("</ul>\n");
    }
    for (i, r) in runs.iter().enumerate() {
        section(&mut out, i + 1, r)?;
    }
    tail(&mut out)?;
    Ok(out)
}

fn section(out: &mut String, n: usize, r: &ProbeResults) -> fmt::Result {
    write!(
        out,
        "<section id=\"probe-{n}\">\n<h2>{}: {}</h2>\n<p>{} APIs probed, {} versions, \
         timeout {} ms.</p>\n",
        Esc(&r.broker),
        Esc(&r.api_versions),
        r.apis.len(),
        Esc(&r.versions),
        r.timeout_ms
    )?;
    let top = r
        .apis
        .iter()
        .flat_map(|a| a.results.iter().map(|c| c.version))
        .max();
    let bottom = r
        .apis
        .iter()
        .flat_map(|a| a.results.iter().map(|c| c.version))
        .min()
        .unwrap_or(0)
        .min(0);
    let columns: Vec<i16> = top.map_or_else(Vec::new, |top| (bottom..=top).collect());
    out.push_str(
        "<table class=\"apis probe\">\n<thead><tr><th>Key</th><th>API</th><th>Advertised</th>",
    );
    for v in &columns {
        write!(out, "<th>v{v}</th>")?;
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut findings = Vec::new();
    for api in &r.apis {
        // The link goes to this build's page of the API with that key, when there is one.
        let page = API_TABLE
            .iter()
            .find(|i| i.key.0 == api.key)
            .filter(|i| page_versions(i).is_some());
        let name = match page {
            Some(info) => format!("<a href=\"{}.html\">{}</a>", Esc(info.name), Esc(&api.name)),
            None => Esc(&api.name).to_string(),
        };
        let advertised = api
            .advertised
            .map_or_else(|| "none".to_string(), |(a, b)| format!("{a}-{b}"));
        write!(
            out,
            "<tr><td>{}</td><td>{name}</td><td>{advertised}</td>",
            api.key
        )?;
        for v in &columns {
            match api.results.iter().find(|c| c.version == *v) {
                Some(cell) => {
                    let title = if cell.detail.is_empty() {
                        format!("v{v}: {}", cell.verdict)
                    } else {
                        format!("v{v}: {}: {}", cell.verdict, cell.detail)
                    };
                    write!(
                        out,
                        "<td class=\"{}\" title=\"{}\">{}</td>",
                        Esc(&classes(cell)),
                        Esc(&title),
                        Esc(short(&cell.verdict))
                    )?;
                    if cell.finding {
                        findings.push((api, cell));
                    }
                }
                None => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    if !findings.is_empty() {
        out.push_str("<h3>Findings</h3>\n<ul class=\"findings\">\n");
        for (api, cell) in findings {
            write!(
                out,
                "<li><span class=\"finding\">{} v{}: {}</span>",
                Esc(&api.name),
                cell.version,
                Esc(&cell.verdict)
            )?;
            if !cell.detail.is_empty() {
                write!(out, ": {}", Esc(&cell.detail))?;
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
    }
    if let Some(why) = &r.stopped {
        writeln!(
            out,
            "<p class=\"finding\">The probe ended early: {}.</p>",
            Esc(why)
        )?;
    }
    writeln!(
        out,
        "<p class=\"summary\">{}</p>\n</section>",
        Esc(&summary(r))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(version: i16, verdict: &str, finding: bool, detail: &str) -> ProbeCell {
        ProbeCell {
            version,
            verdict: verdict.into(),
            finding,
            detail: detail.into(),
        }
    }

    #[test]
    fn cells_carry_a_class_per_verdict_and_escaped_details() {
        let r = ProbeResults {
            broker: "<b>:1".into(),
            api_versions: "ApiVersions v5 answered".into(),
            versions: "all".into(),
            timeout_ms: 1000,
            apis: vec![ProbeApi {
                key: 12,
                name: "Heartbeat".into(),
                advertised: Some((0, 4)),
                results: vec![
                    cell(0, "ok", false, ""),
                    cell(1, "wrong header version", true, "a \"v1\" <header>"),
                    cell(5, "not advertised", false, ""),
                ],
            }],
            stopped: None,
            findings: 1,
        };
        let html = page(&[r], false).unwrap();
        assert!(
            html.contains("<h2>&lt;b&gt;:1: ApiVersions v5 answered</h2>"),
            "{html}"
        );
        assert!(html.contains("<td><a href=\"Heartbeat.html\">Heartbeat</a></td><td>0-4</td>"));
        assert!(html.contains("<td class=\"v-ok pass\" title=\"v0: ok\">ok</td>"));
        assert!(html.contains(
            "<td class=\"v-wrong-header-version finding\" title=\"v1: wrong header version: \
             a &quot;v1&quot; &lt;header&gt;\">header</td>"
        ));
        assert!(html.contains("<td></td><td></td><td></td><td class=\"v-not-advertised quiet\""));
        assert!(html.contains("Heartbeat v1: wrong header version</span>: a &quot;v1&quot;"));
        assert!(
            html.contains("3 versions: 1 ok, 1 not advertised, 1 wrong header version. 1 finding.")
        );
        assert!(!html.contains("<b>"));
    }
}
