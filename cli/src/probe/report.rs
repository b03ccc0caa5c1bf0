//! The matrix of a probe: API × version × verdict, as a table or a JSON document.

use std::fmt::Write as _;

use kwire::ApiKey;
use kwire::codec::VersionRange;
use serde_json::Value;

use super::opening::Hello;
use super::requests::Versions;
use super::verdict::{Outcome, Verdict};

/// What a probe found.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The broker's address as given.
    pub broker: String,
    /// The ApiVersions exchange.
    pub api_versions: Hello,
    /// Which versions were sent.
    pub versions: Versions,
    /// The timeout of each answer, in milliseconds.
    pub timeout_ms: u64,
    /// One entry per API probed, by key.
    pub apis: Vec<ApiReport>,
    /// Why the probe ended early: the broker took no new connection (a finding).
    pub stopped: Option<String>,
}

/// The versions of one API.
#[derive(Debug, Clone)]
pub struct ApiReport {
    /// The API's key.
    pub key: ApiKey,
    /// The API's name.
    pub name: &'static str,
    /// The versions the broker advertised (`None`: not advertised).
    pub advertised: Option<VersionRange>,
    /// One entry per version probed, in order.
    pub versions: Vec<VersionReport>,
}

/// The verdict on one version.
#[derive(Debug, Clone)]
pub struct VersionReport {
    /// The version.
    pub version: i16,
    /// The verdict and its detail.
    pub outcome: Outcome,
}

impl ApiReport {
    /// The versions grouped into runs of one verdict: `0-2 not advertised, 3-13 ok`.
    #[must_use]
    pub fn runs(&self) -> String {
        let mut runs: Vec<(i16, i16, Verdict)> = Vec::new();
        for v in &self.versions {
            match runs.last_mut() {
                Some((_, last, verdict))
                    if *verdict == v.outcome.verdict && last.checked_add(1) == Some(v.version) =>
                {
                    *last = v.version;
                }
                _ => runs.push((v.version, v.version, v.outcome.verdict)),
            }
        }
        runs.iter()
            .map(|(a, b, verdict)| {
                if a == b {
                    format!("{a} {}", verdict.name())
                } else {
                    format!("{a}-{b} {}", verdict.name())
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Probe {
    /// The number of findings: verdicts that are non-conformances, and an early end.
    #[must_use]
    pub fn findings(&self) -> usize {
        self.results()
            .filter(|v| v.outcome.verdict.is_finding())
            .count()
            + usize::from(self.stopped.is_some())
    }

    fn results(&self) -> impl Iterator<Item = &VersionReport> {
        self.apis.iter().flat_map(|a| a.versions.iter())
    }

    /// How many versions got `verdict`.
    #[must_use]
    pub fn count(&self, verdict: Verdict) -> usize {
        self.results()
            .filter(|v| v.outcome.verdict == verdict)
            .count()
    }

    /// The matrix as a table: a line per API (key, name, advertised versions, verdicts by
    /// runs of versions), the detail of each finding under its API, and a summary.
    #[must_use]
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "broker {}: {}; {} APIs probed",
            self.broker,
            self.api_versions.sentence(),
            self.apis.len()
        );
        let width = self
            .apis
            .iter()
            .map(|a| a.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(t, "key  {:<width$}  advertised  verdicts", "name");
        for api in &self.apis {
            let _ = writeln!(
                t,
                "{:>3}  {:<width$}  {:<10}  {}",
                api.key.0,
                api.name,
                range_text(api.advertised),
                api.runs()
            );
            for v in &api.versions {
                if v.outcome.verdict.is_finding() {
                    let _ = writeln!(
                        t,
                        "       v{}: {}: {}",
                        v.version,
                        v.outcome.verdict.name(),
                        v.outcome.detail
                    );
                }
            }
        }
        if let Some(why) = &self.stopped {
            let _ = writeln!(t, "The probe ended early: {why}.");
        }
        let counts: Vec<String> = Verdict::ALL
            .iter()
            .filter_map(|v| {
                let n = self.count(*v);
                (n > 0).then(|| format!("{n} {}", v.name()))
            })
            .collect();
        let findings = self.findings();
        let _ = writeln!(
            t,
            "{} versions: {}. {}",
            self.results().count(),
            if counts.is_empty() {
                "none".to_string()
            } else {
                counts.join(", ")
            },
            match findings {
                0 => "The broker conforms.".to_string(),
                1 => "1 finding.".to_string(),
                n => format!("{n} findings."),
            }
        );
        t
    }

    /// The matrix as a JSON document.
    #[must_use]
    pub fn json(&self) -> String {
        let mut j = String::new();
        let _ = write!(
            j,
            "{{\"broker\":{},\"api_versions\":{{\"asked\":[{}],\"summary\":{}}},\"versions\":{},\
             \"timeout_ms\":{},\"apis\":[",
            quote(&self.broker),
            self.api_versions
                .asked
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
            quote(&self.api_versions.sentence()),
            quote(match self.versions {
                Versions::Advertised => "advertised",
                Versions::All => "all",
            }),
            self.timeout_ms,
        );
        for (i, api) in self.apis.iter().enumerate() {
            if i > 0 {
                j.push(',');
            }
            let advertised = api.advertised.map_or_else(
                || "null".to_string(),
                |r| format!("{{\"min\":{},\"max\":{}}}", r.min, r.max),
            );
            let _ = write!(
                j,
                "\n{{\"key\":{},\"name\":{},\"advertised\":{advertised},\"results\":[",
                api.key.0,
                quote(api.name)
            );
            for (k, v) in api.versions.iter().enumerate() {
                if k > 0 {
                    j.push(',');
                }
                let _ = write!(
                    j,
                    "{{\"version\":{},\"verdict\":{},\"finding\":{},\"detail\":{}}}",
                    v.version,
                    quote(v.outcome.verdict.name()),
                    v.outcome.verdict.is_finding(),
                    quote(&v.outcome.detail)
                );
            }
            j.push_str("]}");
        }
        let stopped = self
            .stopped
            .as_deref()
            .map_or_else(|| "null".to_string(), quote);
        let _ = writeln!(
            j,
            "],\n\"stopped\":{stopped},\"results\":{},\"findings\":{}}}",
            self.results().count(),
            self.findings()
        );
        j
    }
}

/// The versions of `range` as `min-max` (or `none`).
#[must_use]
pub fn range_text(range: Option<VersionRange>) -> String {
    range.map_or_else(|| "none".into(), |r| r.to_string())
}

/// A JSON document [`Probe::json`] wrote, read back for `kwire site --probe`.
///
/// # Errors
///
/// What is not as [`Probe::json`] writes it: not JSON, or a member missing or of another type.
pub fn parse_json(text: &str) -> Result<kwire_site::ProbeResults, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let apis = array(&doc, "apis")?
        .iter()
        .map(|api| {
            let advertised = match member(api, "advertised")? {
                Value::Null => None,
                r => Some((int(r, "min")?, int(r, "max")?)),
            };
            let results = array(api, "results")?
                .iter()
                .map(|r| {
                    Ok(kwire_site::ProbeCell {
                        version: int(r, "version")?,
                        verdict: string(r, "verdict")?,
                        finding: member(r, "finding")?
                            .as_bool()
                            .ok_or("\"finding\" is not true or false")?,
                        detail: string(r, "detail")?,
                    })
                })
                .collect::<Result<_, String>>()?;
            Ok(kwire_site::ProbeApi {
                key: int(api, "key")?,
                name: string(api, "name")?,
                advertised,
                results,
            })
        })
        .collect::<Result<_, String>>()?;
    Ok(kwire_site::ProbeResults {
        broker: string(&doc, "broker")?,
        api_versions: string(member(&doc, "api_versions")?, "summary")?,
        versions: string(&doc, "versions")?,
        timeout_ms: member(&doc, "timeout_ms")?
            .as_u64()
            .ok_or("\"timeout_ms\" is not a count")?,
        apis,
        stopped: match member(&doc, "stopped")? {
            Value::Null => None,
            _ => Some(string(&doc, "stopped")?),
        },
        findings: member(&doc, "findings")?
            .as_u64()
            .ok_or("\"findings\" is not a count")?,
    })
}

fn member<'v>(v: &'v Value, name: &str) -> Result<&'v Value, String> {
    v.get(name).ok_or_else(|| format!("no \"{name}\""))
}

fn string(v: &Value, name: &str) -> Result<String, String> {
    member(v, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("\"{name}\" is not a string"))
}

fn int(v: &Value, name: &str) -> Result<i16, String> {
    member(v, name)?
        .as_i64()
        .and_then(|n| i16::try_from(n).ok())
        .ok_or_else(|| format!("\"{name}\" is not an int16"))
}

fn array<'v>(v: &'v Value, name: &str) -> Result<&'v Vec<Value>, String> {
    member(v, name)?
        .as_array()
        .ok_or_else(|| format!("\"{name}\" is not an array"))
}

/// `s` as a JSON string.
#[must_use]
pub fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(q, "\\u{:04x}", u32::from(c));
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(quote("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }

    #[test]
    fn the_json_document_reads_back() {
        let probe = Probe {
            broker: "b:1 \"<x>\"".into(),
            api_versions: Hello { asked: vec![5, 4] },
            versions: Versions::All,
            timeout_ms: 250,
            apis: vec![ApiReport {
                key: ApiKey::FETCH,
                name: "Fetch",
                advertised: None,
                versions: vec![VersionReport {
                    version: 0,
                    outcome: Outcome::new(Verdict::Timeout, "no answer\nin time"),
                }],
            }],
            stopped: Some("gone".into()),
        };
        let r = parse_json(&probe.json()).unwrap();
        assert_eq!(r.broker, "b:1 \"<x>\"");
        assert_eq!(r.api_versions, probe.api_versions.sentence());
        assert_eq!((r.versions.as_str(), r.timeout_ms), ("all", 250));
        assert_eq!(r.stopped.as_deref(), Some("gone"));
        assert_eq!(r.findings, 2);
        let api = &r.apis[0];
        assert_eq!(
            (api.key, api.name.as_str(), api.advertised),
            (1, "Fetch", None)
        );
        assert_eq!(
            api.results,
            [kwire_site::ProbeCell {
                version: 0,
                verdict: "timeout".into(),
                finding: true,
                detail: "no answer\nin time".into(),
            }]
        );
        assert!(parse_json("{}").unwrap_err().contains("no \"apis\""));
    }

    #[test]
    fn versions_group_into_runs() {
        let v = |version, verdict| VersionReport {
            version,
            outcome: Outcome::new(verdict, ""),
        };
        let api = ApiReport {
            key: ApiKey::FETCH,
            name: "Fetch",
            advertised: Some(VersionRange::new(2, 3)),
            versions: vec![
                v(0, Verdict::NotAdvertised),
                v(1, Verdict::NotAdvertised),
                v(2, Verdict::Ok),
                v(3, Verdict::Timeout),
            ],
        };
        assert_eq!(api.runs(), "0-1 not advertised, 2 ok, 3 timeout");
    }
}
