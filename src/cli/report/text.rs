//! `scan --report-style rich|medium|short`: each match as `ast-grep scan` prints
//! it. A match of a rule without a fix is a diagnostic drawn by
//! codespan-reporting, the crate and configuration ast-grep uses (code frame,
//! labels, note); a match of a rule with a fix is its path, severity, rule and
//! message above ast-grep's numbered diff of that one fix. A note is markdown,
//! rendered by termimad as ast-grep renders it (docs/RULES.md, "Reports").

use std::collections::HashMap;
use std::io::{self, Write};

use ast_edit::app::report::{FileReport, Match, RuleSeverity};
use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, DisplayStyle, termcolor};

use ast_edit::app::quote::{display_name, escape_controls, escape_in_lines, shown_source};

use crate::cli::numbered_diff;
use crate::cli::print::{self, Style};

/// `--report-style`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportStyle {
    /// A code frame for each match, with its labels and the rule's note; a
    /// fix as a diff.
    Rich,
    /// `path:line:column: severity[rule]: message` and the rule's note.
    Medium,
    /// `path:line:column: severity[rule]: message`.
    Short,
}

/// How findings are drawn.
pub struct Text {
    config: term::Config,
    style: ReportStyle,
    print: Style,
    /// Lines of code around a fix's change (`-B`, else 3: ast-grep's choice).
    diff_context: usize,
}

impl Text {
    /// `before`/`after`: lines of code shown around each match (`-B`, `-A`, `-C`).
    pub fn new(style: ReportStyle, before: usize, after: usize, print: Style) -> Text {
        let config = term::Config {
            display_style: match style {
                ReportStyle::Rich => DisplayStyle::Rich,
                ReportStyle::Medium => DisplayStyle::Medium,
                ReportStyle::Short => DisplayStyle::Short,
            },
            start_context_lines: before,
            end_context_lines: after,
            ..term::Config::default()
        };
        Text { config, style, print, diff_context: if before == 0 { 3 } else { before } }
    }

    /// Writes one file's matches.
    pub fn file(&self, out: &mut impl Write, file: &FileReport) -> io::Result<()> {
        // Nothing in the file or the rule reaches the terminal raw: the code
        // frame's text with same-length stand-ins, the rule's strings escaped.
        let shown = shown_source(&file.text);
        let source = SimpleFile::new(display_name(&file.path).into_owned(), shown.as_ref());
        // As ast-grep: of one rule's fixes that overlap, only the first is shown.
        let mut shown_to: HashMap<&str, usize> = HashMap::new();
        for m in &file.matches {
            match &m.replacement {
                None => self.diagnostic(out, &source, m)?,
                Some(r) => {
                    let end = shown_to.entry(&m.rule.id).or_insert(0);
                    if r.start < *end {
                        continue;
                    }
                    *end = r.end;
                    self.fix(out, file, m)?;
                }
            }
        }
        Ok(())
    }

    fn diagnostic(&self, out: &mut impl Write, source: &SimpleFile<String, &str>, m: &Match) -> io::Result<()> {
        let severity = match m.rule.severity {
            RuleSeverity::Error => Severity::Error,
            RuleSeverity::Warning => Severity::Warning,
            RuleSeverity::Info => Severity::Note,
            RuleSeverity::Hint => Severity::Help,
        };
        let labels = m
            .labels
            .iter()
            .map(|l| {
                let label = if l.primary { Label::primary((), l.span.start..l.span.end) } else { Label::secondary((), l.span.start..l.span.end) };
                match &l.message {
                    Some(msg) => label.with_message(escape_in_lines(msg)),
                    None => label,
                }
            })
            .collect();
        let diagnostic = Diagnostic::new(severity)
            .with_code(escape_controls(&m.rule.id))
            .with_message(escape_in_lines(&m.message))
            .with_notes(m.rule.note.iter().map(|n| note_text(n, self.print.color)).collect())
            .with_labels(labels);
        let drawn = if self.print.color {
            term::emit_to_write_style(&mut termcolor::Ansi::new(&mut *out), &self.config, source, &diagnostic)
        } else {
            term::emit_to_io_write(&mut *out, &self.config, source, &diagnostic)
        };
        drawn.map_err(|e| match e {
            codespan_reporting::files::Error::Io(e) => e,
            other => io::Error::other(other.to_string()),
        })
    }

    fn fix(&self, out: &mut impl Write, file: &FileReport, m: &Match) -> io::Result<()> {
        let (word, code) = match m.rule.severity {
            RuleSeverity::Error => ("error", "1;31"),
            RuleSeverity::Warning => ("warning", "1;33"),
            RuleSeverity::Info => ("note", "1;32"),
            RuleSeverity::Hint => ("help", "1;36"),
        };
        let title = format!("{}: {}", print::paint(self.print.color, code, &format!("{word}[{}]", escape_controls(&m.rule.id))), escape_in_lines(&m.message));
        if self.style == ReportStyle::Rich {
            writeln!(out, "{}", display_name(&file.path))?;
            writeln!(out, "{title}")?;
            let r = m.replacement.as_ref().expect("a fix has a replacement");
            let new = format!("{}{}{}", &file.text[..r.start], r.text, &file.text[r.end..]);
            numbered_diff::draw(out, &file.text, &new, self.diff_context, self.print.color)?;
        } else {
            writeln!(out, "{}:{}:{}: {title}", display_name(&file.path), m.span.start_line + 1, m.span.start_column + 1)?;
        }
        if self.style != ReportStyle::Short
            && let Some(note) = &m.rule.note
        {
            writeln!(out, "{}", print::paint(self.print.color, "3", "Note:"))?;
            writeln!(out, "{}", note_text(note, self.print.color))?;
        }
        Ok(())
    }
}

/// A rule's note as shown: its markdown rendered as ast-grep renders it
/// (termimad, with no style when not coloured: `` `code` ``, `*x*`, `**b**`,
/// `~~s~~` lose their marks, a list item starts with `•`, a heading loses its
/// `#`), what could drive the terminal escaped first.
fn note_text(note: &str, color: bool) -> String {
    let note = escape_in_lines(note);
    let skin = if !color {
        termimad::MadSkin::no_style()
    } else if light_background() {
        termimad::MadSkin::default_light()
    } else {
        termimad::MadSkin::default_dark()
    };
    skin.text(&note, None).to_string()
}

/// True when `COLORFGBG` says the terminal's background is light (white,
/// light grey or a bright colour), as ast-grep reads it; ast-edit never asks
/// the terminal itself, so without it the colours are for a dark one.
fn light_background() -> bool {
    let Ok(v) = std::env::var("COLORFGBG") else { return false };
    let bg = v.rsplit(';').next().and_then(|b| b.trim().parse::<u8>().ok());
    matches!(bg, Some(7 | 10 | 11 | 14 | 15))
}
