//! `scan --json[=pretty|stream|compact]`: one record per match, in the shape and
//! key order of `ast-grep scan --json` 0.51.1 (docs/RULES.md, "Reports"), so a
//! script written for ast-grep reads ast-edit's output unchanged.

use std::collections::BTreeMap;
use std::io::{self, Write};

use ast_edit::app::report::{Capture, FileReport, Match, Span};
use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;

/// How the records are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JsonStyle {
    /// One pretty-printed JSON array (the default of `--json`).
    Pretty,
    /// One compact JSON object per line, written as each file is done.
    Stream,
    /// One JSON array on one line.
    Compact,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct Offsets {
    start: usize,
    end: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Range {
    byte_offset: Offsets,
    start: Position,
    end: Position,
}

impl From<&Span> for Range {
    fn from(s: &Span) -> Range {
        Range {
            byte_offset: Offsets { start: s.start, end: s.end },
            start: Position { line: s.start_line, column: s.start_column },
            end: Position { line: s.end_line, column: s.end_column },
        }
    }
}

#[derive(Serialize)]
struct Node<'a> {
    text: &'a str,
    range: Range,
}

impl<'a> From<&'a Capture> for Node<'a> {
    fn from(c: &'a Capture) -> Node<'a> {
        Node { text: &c.text, range: Range::from(&c.span) }
    }
}

#[derive(Serialize)]
struct MetaVariables<'a> {
    single: BTreeMap<&'a str, Node<'a>>,
    multi: BTreeMap<&'a str, Vec<Node<'a>>>,
    transformed: BTreeMap<&'a str, &'a str>,
}

#[derive(Serialize)]
struct CharCount {
    leading: usize,
    trailing: usize,
}

#[derive(Serialize)]
struct LabelRecord<'a> {
    text: &'a str,
    range: Range,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    style: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    text: &'a str,
    range: Range,
    file: &'a str,
    lines: &'a str,
    char_count: CharCount,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement_offsets: Option<Offsets>,
    language: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    meta_variables: Option<MetaVariables<'a>>,
    rule_id: &'a str,
    severity: &'static str,
    note: Option<&'a str>,
    message: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    labels: Vec<LabelRecord<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Value>,
}

/// The whole lines a match spans, and how many characters of them lie before
/// and after it (ast-grep's `lines` and `charCount`).
fn lines_around(text: &str, span: &Span) -> (usize, usize) {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i);
    (start, end)
}

fn record<'a>(file: &'a FileReport, m: &'a Match, metadata: bool) -> Record<'a> {
    let (from, to) = lines_around(&file.text, &m.span);
    Record {
        text: &file.text[m.span.start..m.span.end],
        range: Range::from(&m.span),
        file: &file.path,
        lines: &file.text[from..to],
        char_count: CharCount { leading: file.text[from..m.span.start].chars().count(), trailing: file.text[m.span.end..to].chars().count() },
        replacement: m.replacement.as_ref().map(|r| r.text.as_str()),
        replacement_offsets: m.replacement.as_ref().map(|r| Offsets { start: r.start, end: r.end }),
        language: &file.language,
        meta_variables: m.captures.as_ref().map(|c| MetaVariables {
            single: c.single.iter().map(|(k, v)| (k.as_str(), Node::from(v))).collect(),
            multi: c.multi.iter().map(|(k, v)| (k.as_str(), v.iter().map(Node::from).collect())).collect(),
            transformed: c.transformed.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        }),
        rule_id: &m.rule.id,
        severity: m.rule.severity.as_str(),
        note: m.rule.note.as_deref(),
        message: &m.message,
        labels: m
            .labels
            .iter()
            .map(|l| LabelRecord {
                text: &file.text[l.span.start..l.span.end],
                range: Range::from(&l.span),
                message: l.message.as_deref(),
                style: if l.primary { "primary" } else { "secondary" },
            })
            .collect(),
        metadata: if metadata { m.rule.metadata.as_ref() } else { None },
    }
}

/// Writes the records as they come, file by file, in ast-grep's layout for
/// `style` (the array's brackets and separators included).
pub struct Writer {
    style: JsonStyle,
    metadata: bool,
    written: bool,
}

impl Writer {
    /// Starts the output (`[` for an array).
    pub fn start(out: &mut impl Write, style: JsonStyle, metadata: bool) -> io::Result<Writer> {
        if style != JsonStyle::Stream {
            out.write_all(b"[")?;
        }
        Ok(Writer { style, metadata, written: false })
    }

    /// Writes the records of one file.
    pub fn file(&mut self, out: &mut impl Write, file: &FileReport) -> io::Result<()> {
        for m in &file.matches {
            let r = record(file, m, self.metadata);
            match self.style {
                JsonStyle::Pretty => {
                    out.write_all(if self.written { b",\n" } else { b"\n" })?;
                    serde_json::to_writer_pretty(&mut *out, &r)?;
                }
                JsonStyle::Compact => {
                    if self.written {
                        out.write_all(b",")?;
                    }
                    serde_json::to_writer(&mut *out, &r)?;
                }
                JsonStyle::Stream => {
                    serde_json::to_writer(&mut *out, &r)?;
                    out.write_all(b"\n")?;
                }
            }
            self.written = true;
        }
        Ok(())
    }

    /// Ends the output (`]` and a newline for an array).
    pub fn finish(self, out: &mut impl Write) -> io::Result<()> {
        match self.style {
            JsonStyle::Stream => Ok(()),
            JsonStyle::Pretty if self.written => out.write_all(b"\n]\n"),
            _ => out.write_all(b"]\n"),
        }
    }
}
