//! `scan --format github` (workflow commands that GitHub Actions shows as annotations)
//! and `scan --format sarif` (SARIF 2.1.0, for code-scanning upload), as
//! `ast-grep scan --format` 0.51.1 writes them (docs/RULES.md, "Reports"). SARIF is
//! built with serde-sarif, the crate ast-grep uses; its types come from the SARIF 2.1.0
//! schema.

// Ported in part from ast-grep's `crates/cli/src/print/cloud_print.rs` (0.51.1):
//
// MIT License. Copyright (c) 2022 Herrington Darkholme. Permission is hereby
// granted, free of charge, to any person obtaining a copy of this software and
// associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy,
// modify, merge, publish, distribute, sublicense, and/or sell copies of the
// Software, and to permit persons to whom the Software is furnished to do so,
// subject to the following conditions: The above copyright notice and this
// permission notice shall be included in all copies or substantial portions of
// the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
// EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
// MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
// EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
// OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
// ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.

use std::fmt;
use std::io::{self, Write};

use ast_edit::app::quote::{escape_controls, escape_in_lines};
use ast_edit::app::report::{FileReport, Match, RuleSeverity};
use serde_sarif::sarif;

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// GitHub Actions workflow commands (`::error file=…,line=…::message`);
    /// `hint` matches are left out, as ast-grep leaves them out.
    Github,
    /// One SARIF 2.1.0 log on stdout, written when the scan ends.
    Sarif,
}

/// A GitHub workflow command value, escaped as the Actions toolkit escapes it.
enum Escape<'a> {
    Data(&'a str),
    Property(&'a str),
}

impl fmt::Display for Escape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (value, property) = match self {
            Escape::Data(v) => (v, false),
            Escape::Property(v) => (v, true),
        };
        let mut start = 0;
        for (i, byte) in value.bytes().enumerate() {
            let escaped = match byte {
                b'%' => "%25",
                b'\r' => "%0D",
                b'\n' => "%0A",
                b':' if property => "%3A",
                b',' if property => "%2C",
                _ => continue,
            };
            f.write_str(&value[start..i])?;
            f.write_str(escaped)?;
            start = i + 1;
        }
        f.write_str(&value[start..])
    }
}

/// Writes one file's matches as workflow commands.
pub fn github(out: &mut impl Write, file: &FileReport) -> io::Result<()> {
    for m in &file.matches {
        let level = match m.rule.severity {
            RuleSeverity::Error => "error",
            RuleSeverity::Warning => "warning",
            RuleSeverity::Info => "notice",
            RuleSeverity::Hint => continue,
        };
        writeln!(
            out,
            "::{level} file={},line={},endLine={},title={}::{}",
            Escape::Property(&file.path),
            m.span.start_line + 1,
            m.span.end_line + 1,
            Escape::Property(&escape_controls(&m.rule.id)),
            Escape::Data(&escape_in_lines(&m.message))
        )?;
    }
    Ok(())
}

/// The `::error` annotation of a file one of ast-edit's limits left
/// unsearched, with the reason.
pub fn github_unsearched(out: &mut impl Write, path: &str, reason: &str) -> io::Result<()> {
    writeln!(out, "::error file={},title=ast-edit::{}", Escape::Property(path), Escape::Data(&format!("not searched to the end: {reason}")))
}

/// A path as a SARIF URI reference (RFC 3986): reserved bytes percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(byte as char),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn level(s: RuleSeverity) -> sarif::ResultLevel {
    match s {
        RuleSeverity::Error => sarif::ResultLevel::Error,
        RuleSeverity::Warning => sarif::ResultLevel::Warning,
        RuleSeverity::Info | RuleSeverity::Hint => sarif::ResultLevel::Note,
    }
}

/// The SARIF results of one file's matches.
pub fn sarif_results(file: &FileReport) -> Vec<sarif::Result> {
    file.matches.iter().map(|m| sarif_result(file, m)).collect()
}

fn sarif_result(file: &FileReport, m: &Match) -> sarif::Result {
    let s = &m.span;
    let region = sarif::Region::builder()
        .start_line((s.start_line + 1) as i64)
        .start_column((s.start_column + 1) as i64)
        .end_line((s.end_line + 1) as i64)
        .end_column((s.end_column + 1) as i64)
        .byte_offset(s.start as i64)
        .byte_length((s.end - s.start) as i64)
        .snippet(sarif::ArtifactContent::builder().text(file.text[s.start..s.end].to_string()).build())
        .build();
    let location = sarif::Location::builder()
        .physical_location(
            sarif::PhysicalLocation::builder().artifact_location(sarif::ArtifactLocation::builder().uri(uri(&file.path)).build()).region(region).build(),
        )
        .build();
    let mut result = sarif::Result::builder().message(sarif::Message::builder().text(m.message.clone()).build()).build();
    result.rule_id = Some(m.rule.id.clone());
    result.level = Some(level(m.rule.severity));
    result.locations = Some(vec![location]);
    if let Some(r) = &m.replacement {
        let mut deleted = sarif::Region::builder().byte_offset(r.start as i64).byte_length((r.end - r.start) as i64).build();
        // Lines and columns only where the fix replaces exactly the match
        // (`expandStart`/`expandEnd` widen it), as ast-grep.
        if (r.start, r.end) == (s.start, s.end) {
            deleted.start_line = Some((s.start_line + 1) as i64);
            deleted.start_column = Some((s.start_column + 1) as i64);
            deleted.end_line = Some((s.end_line + 1) as i64);
            deleted.end_column = Some((s.end_column + 1) as i64);
        }
        let replacement = sarif::Replacement {
            deleted_region: deleted,
            inserted_content: Some(sarif::ArtifactContent::builder().text(r.text.clone()).build()),
            properties: None,
        };
        let change = sarif::ArtifactChange {
            artifact_location: sarif::ArtifactLocation::builder().uri(uri(&file.path)).build(),
            replacements: vec![replacement],
            properties: None,
        };
        result.fixes = Some(vec![sarif::Fix {
            description: Some(sarif::Message::builder().text("Apply suggested fix".to_string()).build()),
            artifact_changes: vec![change],
            properties: None,
        }]);
    }
    result
}

/// Writes the SARIF log of `results` (pretty JSON and a newline).
///
/// `unsearched`: the files one of ast-edit's limits left unsearched, with the
/// reason; when there are any the run's invocation is not successful and
/// holds one error notification per file (ast-grep writes no invocation).
pub fn sarif_log(out: &mut impl Write, results: Vec<sarif::Result>, unsearched: &[(&str, String)]) -> io::Result<()> {
    let driver = sarif::ToolComponent::builder().name("ast-edit").version(env!("CARGO_PKG_VERSION")).build();
    let mut run = sarif::Run::builder().tool(sarif::Tool::builder().driver(driver).build()).build();
    run.results = Some(results);
    if !unsearched.is_empty() {
        let notes = unsearched
            .iter()
            .map(|(path, reason)| {
                let at = sarif::Location::builder()
                    .physical_location(sarif::PhysicalLocation::builder().artifact_location(sarif::ArtifactLocation::builder().uri(uri(path)).build()).build())
                    .build();
                sarif::Notification::builder()
                    .message(sarif::Message::builder().text(format!("not searched to the end: {reason}")).build())
                    .level(serde_json::json!("error"))
                    .locations(vec![at])
                    .build()
            })
            .collect::<Vec<_>>();
        run.invocations = Some(vec![sarif::Invocation::builder().execution_successful(false).tool_execution_notifications(notes).build()]);
    }
    let log = sarif::Sarif::builder().version(serde_json::json!(sarif::Version::V2_1_0.to_string())).runs(vec![run]).build();
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}
