//! `--inspect GRANULARITY` of `scan` and `run`: a trace on stderr of the
//! project, the rules and the files a run took and set aside, in the lines
//! `ast-grep --inspect` 0.51.1 prints (`sg: <level>|<entity>: key=value,...`).
//! The library gives the traces as data (`ast_edit::app::inspect`,
//! `ast_edit::app::inspect`); this module only words them. The trace never
//! changes stdout or the exit code: a trace that cannot be made is a warning
//! (docs/RULES.md, "Tracing a scan").

use std::io::Write;
use std::path::Path;

use clap::ValueEnum;

use ast_edit::app::inspect::RuleTrace;
use ast_edit::app::inspect::{FileTrace, Traced};
use ast_edit::app::report::RuleSeverity as Severity;
use ast_edit::app::request::Request;
use ast_edit::app::request::{SkipReason, WorkLimit};

/// `--inspect`: how much of the trace to print.
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq, PartialOrd, Ord)]
pub enum Granularity {
    /// No trace (the default).
    #[default]
    Nothing,
    /// The project first (`sg: summary|project: isProject=true,projectDir=DIR`),
    /// the counts last: `sg: summary|file: scannedFileCount=N,skippedFileCount=M`
    /// (files taken; M of them not searched) and, for scan,
    /// `sg: summary|rule: effectiveRuleCount=N,skippedRuleCount=M` (rules run;
    /// rules set aside).
    Summary,
    /// summary, plus a line per rule that runs
    /// (`sg: entity|rule|ID: finalSeverity=Error`) and per file:
    /// `sg: entity|file|PATH: language=Python,appliedRuleCount=N` (the rules
    /// that take it; run: the language alone), or `skipped=REASON` (emptyFile,
    /// invalidUtf8, fileTooLarge, binary, unreadable, ...).
    Entity,
}

impl Granularity {
    fn word(self) -> &'static str {
        match self {
            Granularity::Nothing => "nothing",
            Granularity::Summary => "summary",
            Granularity::Entity => "entity",
        }
    }
}

/// The trace of one `scan` or `run`.
pub(super) struct Inspect {
    level: Granularity,
    /// A scan's rules, once loaded: their counts end the trace.
    rules: Option<RuleTrace>,
    /// A scan: a file's line also counts the rules that apply to it.
    scan: bool,
}

impl Inspect {
    /// The trace of a `scan`.
    pub(super) fn scan(level: Granularity) -> Inspect {
        Inspect { level, rules: None, scan: true }
    }

    /// The trace of a `run`.
    pub(super) fn run(level: Granularity) -> Inspect {
        Inspect { level, rules: None, scan: false }
    }

    /// The project line: its folder, or none (`run` uses no project).
    pub(super) fn project(&self, dir: Option<&Path>) {
        self.print(|w| project(w, self.level, dir));
    }

    /// The line of each rule that runs; its counts are kept for the end.
    pub(super) fn rules(&mut self, trace: RuleTrace) {
        self.print(|w| rules(w, self.level, &trace));
        self.rules = Some(trace);
    }

    /// The files of the run of `req` from `cwd`, which skipped `skipped`, when
    /// a trace is asked for (`None` otherwise, or with a warning when it cannot
    /// be made). Call it before the fixes are written.
    pub(super) fn trace_files(&self, req: &Request, cwd: &Path, skipped: &[ast_edit::app::request::Skipped]) -> Option<FileTrace> {
        if self.level == Granularity::Nothing {
            return None;
        }
        match ast_edit::app::inspect::files(req, cwd, skipped) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("warning: --inspect: cannot trace the files: {}", super::words::error(&e));
                None
            }
        }
    }

    /// The end of the trace: each file's line, then the counts of files and
    /// (scan) rules.
    pub(super) fn finish(&self, files: Option<&FileTrace>) {
        let Some(files) = files else { return };
        self.print(|w| finish(w, self.level, files, self.rules.as_ref(), self.scan));
    }

    /// Writes lines on stderr; a failed write is let go (the trace never
    /// changes the outcome).
    fn print(&self, lines: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
        if self.level == Granularity::Nothing {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = lines(&mut err);
    }
}

/// `sg: <level>|<entity>: ` when `level` shows lines of `at`.
fn head(w: &mut dyn Write, level: Granularity, at: Granularity, entity: std::fmt::Arguments) -> std::io::Result<bool> {
    if level < at {
        return Ok(false);
    }
    write!(w, "sg: {}|{entity}: ", at.word())?;
    Ok(true)
}

fn project(w: &mut dyn Write, level: Granularity, dir: Option<&Path>) -> std::io::Result<()> {
    if head(w, level, Granularity::Summary, format_args!("project"))? {
        match dir {
            Some(d) => writeln!(w, "isProject=true,projectDir={}", d.display())?,
            None => writeln!(w, "isProject=false")?,
        }
    }
    Ok(())
}

fn rules(w: &mut dyn Write, level: Granularity, trace: &RuleTrace) -> std::io::Result<()> {
    for r in &trace.rules {
        if head(w, level, Granularity::Entity, format_args!("rule|{}", r.id))? {
            writeln!(w, "finalSeverity={}", severity(&r.severity))?;
        }
    }
    Ok(())
}

fn finish(w: &mut dyn Write, level: Granularity, files: &FileTrace, rules: Option<&RuleTrace>, scan: bool) -> std::io::Result<()> {
    for f in &files.files {
        if !head(w, level, Granularity::Entity, format_args!("file|{}", f.path))? {
            break;
        }
        match &f.traced {
            Traced::Searched { language, rules, embedded } if scan => {
                writeln!(w, "language={language},appliedRuleCount={rules}")?;
                // As ast-grep: a line of its own for each region of embedded code.
                for (language, rules) in embedded {
                    head(w, level, Granularity::Entity, format_args!("file|{}", f.path))?;
                    writeln!(w, "language={language},appliedRuleCount={rules}")?;
                }
            }
            Traced::Searched { language, .. } => writeln!(w, "language={language}")?,
            Traced::Empty => writeln!(w, "skipped=emptyFile")?,
            Traced::Skipped(reason) => writeln!(w, "skipped={}", skip_word(reason))?,
        }
    }
    if head(w, level, Granularity::Summary, format_args!("file"))? {
        writeln!(w, "scannedFileCount={},skippedFileCount={}", files.taken(), files.skipped())?;
    }
    if let Some(r) = rules
        && head(w, level, Granularity::Summary, format_args!("rule"))?
    {
        writeln!(w, "effectiveRuleCount={},skippedRuleCount={}", r.rules.len(), r.skipped)?;
    }
    Ok(())
}

/// A severity as ast-grep's trace spells it.
fn severity(s: &Option<Severity>) -> &'static str {
    match s {
        None => "Off",
        Some(Severity::Hint) => "Hint",
        Some(Severity::Info) => "Info",
        Some(Severity::Warning) => "Warning",
        Some(Severity::Error) => "Error",
    }
}

/// Why a file was skipped, in one word: ast-grep's word where it has the
/// reason (`invalidUtf8`, `fileTooLarge`; `error` for anything else), else
/// ast-edit's own, in the same style (docs/RULES.md, "Tracing a scan").
fn skip_word(reason: &SkipReason) -> &'static str {
    match reason {
        SkipReason::NotUtf8 { .. } => "invalidUtf8",
        SkipReason::TooLarge { .. } => "fileTooLarge",
        SkipReason::Binary => "binary",
        SkipReason::Unreadable { .. } => "unreadable",
        SkipReason::NotRegular { .. } => "notRegularFile",
        SkipReason::NameNotUtf8 => "nameNotUtf8",
        SkipReason::TreeTooDeep { .. } => "treeTooDeep",
        SkipReason::ReplacementTooLarge { .. } => "replacementTooLarge",
        SkipReason::OverLimit { what: WorkLimit::Steps, .. } => "tooManySteps",
        SkipReason::OverLimit { what: WorkLimit::Stack, .. } => "recursionTooDeep",
        SkipReason::OverLimit { what: WorkLimit::Text, .. } => "textTooLarge",
        SkipReason::TookTooLong { .. } => "tookTooLong",
        SkipReason::Stopped => "stopped",
        SkipReason::Worded(_) => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_edit::app::inspect::TracedFile;
    use ast_edit::app::inspect::TracedRule;
    use ast_edit::app::lang::Lang;

    fn text(f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> String {
        let mut buf = Vec::new();
        f(&mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    /// The lines of ast-grep 0.51.1's trace, level by level; tests/it/inspect.rs
    /// compares them with the peer's through the binary.
    #[test]
    fn each_level_prints_its_lines_and_those_below() {
        let files = FileTrace {
            files: vec![
                TracedFile { path: "a.py".into(), traced: Traced::Searched { language: Lang::parse("python").unwrap(), rules: 2, embedded: Vec::new() } },
                TracedFile { path: "b.py".into(), traced: Traced::Empty },
                TracedFile { path: "c.py".into(), traced: Traced::Skipped(SkipReason::Binary) },
            ],
        };
        let rules = RuleTrace { rules: vec![TracedRule { id: "no-print".into(), severity: Some(Severity::Warning) }], skipped: 1 };
        let all = |level| {
            text(|w| project(w, level, Some(Path::new("/p"))))
                + &text(|w| super::rules(w, level, &rules))
                + &text(|w| finish(w, level, &files, Some(&rules), true))
        };
        assert_eq!(all(Granularity::Nothing), "");
        assert_eq!(
            all(Granularity::Summary),
            "sg: summary|project: isProject=true,projectDir=/p\n\
             sg: summary|file: scannedFileCount=3,skippedFileCount=2\n\
             sg: summary|rule: effectiveRuleCount=1,skippedRuleCount=1\n"
        );
        assert_eq!(
            all(Granularity::Entity),
            "sg: summary|project: isProject=true,projectDir=/p\n\
             sg: entity|rule|no-print: finalSeverity=Warning\n\
             sg: entity|file|a.py: language=Python,appliedRuleCount=2\n\
             sg: entity|file|b.py: skipped=emptyFile\n\
             sg: entity|file|c.py: skipped=binary\n\
             sg: summary|file: scannedFileCount=3,skippedFileCount=2\n\
             sg: summary|rule: effectiveRuleCount=1,skippedRuleCount=1\n"
        );
        // `run`: no project, no rule counts, a file's language alone.
        let run = text(|w| project(w, Granularity::Entity, None)) + &text(|w| finish(w, Granularity::Entity, &files, None, false));
        assert!(run.starts_with("sg: summary|project: isProject=false\nsg: entity|file|a.py: language=Python\n"), "{run}");
        assert!(run.ends_with("sg: summary|file: scannedFileCount=3,skippedFileCount=2\n"), "{run}");
    }
}
