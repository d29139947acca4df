//! What a run did with each file, for a front end that traces it as `ast-grep scan
//! --inspect` 0.51.1 does (docs/RULES.md, "Tracing a scan"): every file taken, in path
//! order, with its language and how many rules apply to it, or why it was not searched;
//! the rule side is [`crate::rules::inspect`]. It walks the request's paths again
//! (`plan::prepare`), reads only the files that can embed code of another language, and
//! takes skip reasons from the run's own `skipped` list. Call it before the run's fixes
//! are written: a file a fix emptied would be traced as empty.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::request::Request;
use crate::request::lang::Lang;
use crate::request::read::{SkipReason, Skipped};
use crate::request::walk::Candidate;
use crate::shared::error::Result;

/// What became of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Traced {
    /// Searched as `language`. `rules` rules (or ops) apply to it: those of its
    /// language whose `files`/`ignores` admit it; the checks of
    /// `ast-grep-ignore` comments are not counted, as ast-grep does not count them.
    Searched {
        /// The language it was parsed as.
        language: Lang,
        /// How many rules apply to it.
        rules: usize,
        /// Each region of embedded code in it (a script in HTML), in the
        /// order ast-grep meets them: its language and how many rules apply
        /// to it.
        embedded: Vec<(Lang, usize)>,
    },
    /// Empty: nothing to match (ast-grep skips an empty file too).
    Empty,
    /// Not searched, and why.
    Skipped(SkipReason),
}

/// One file of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedFile {
    /// Display path (relative to the working directory, as the run shows it;
    /// the git-quoted form for a name that is not UTF-8).
    pub path: String,
    /// What became of it.
    pub traced: Traced,
}

/// Every file a run took, by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTrace {
    /// The files, sorted by path.
    pub files: Vec<TracedFile>,
}

impl FileTrace {
    /// Files the run took, searched or not (ast-grep's `scannedFileCount`).
    pub fn taken(&self) -> usize {
        self.files.len()
    }

    /// Files not searched: empty or skipped (ast-grep's `skippedFileCount`).
    pub fn skipped(&self) -> usize {
        self.files.iter().filter(|f| !matches!(f.traced, Traced::Searched { .. })).count()
    }
}

/// The trace of the files of `req` run from `cwd`; `skipped` is what the run
/// skipped ([`super::Plan::skipped`], or a report's
/// [`super::report::Summary::skipped`]).
pub fn files(req: &Request, cwd: &Path, skipped: &[Skipped]) -> Result<FileTrace> {
    let (_, walked, engine) = super::prepare(req, cwd)?;
    let reasons: HashMap<&str, &SkipReason> = skipped.iter().map(|s| (s.path.as_str(), &s.reason)).collect();
    let mut files: Vec<TracedFile> = walked
        .files
        .iter()
        .map(|c| {
            let traced = match reasons.get(c.display.as_str()) {
                Some(reason) => Traced::Skipped((*reason).clone()),
                None if is_empty(c) => Traced::Empty,
                None => {
                    let rules = |lang| engine.ops_for(lang, &c.path).iter().filter(|op| op.check.is_none()).count();
                    let text = || crate::request::read::read_text(&c.path, req.max_filesize).ok().and_then(|b| String::from_utf8(b).ok());
                    let embedded = match engine.can_embed(c.lang).then(text).flatten() {
                        Some(text) => engine.embedded_langs(c.lang, &text).into_iter().map(|l| (Lang::of(l), rules(l))).collect(),
                        None => Vec::new(),
                    };
                    Traced::Searched { language: Lang::of(c.lang), rules: rules(c.lang), embedded }
                }
            };
            TracedFile { path: c.display.clone(), traced }
        })
        .collect();
    // The files skipped before they were candidates: a name that is not UTF-8,
    // a path named that is not a regular file.
    let taken: HashSet<&str> = walked.files.iter().map(|c| c.display.as_str()).collect();
    files.extend(
        skipped.iter().filter(|s| !taken.contains(s.path.as_str())).map(|s| TracedFile { path: s.path.clone(), traced: Traced::Skipped(s.reason.clone()) }),
    );
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(FileTrace { files })
}

/// True when `c` is empty (the walk's size, checked again when it says 0,
/// which it also says when it could not tell).
fn is_empty(c: &Candidate) -> bool {
    c.size == 0 && std::fs::metadata(&c.path).is_ok_and(|m| m.len() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Op, RawRequest, WalkOptions};
    use ast_grep_language::SupportLang;

    /// A searched file with its language, an empty one, one the run skipped
    /// (not UTF-8), and a file of another language, which the run does not take.
    #[test]
    fn each_file_the_run_took_is_searched_empty_or_skipped_by_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.py"), "f(1)\n").unwrap();
        std::fs::write(dir.path().join("a.py"), "").unwrap();
        std::fs::write(dir.path().join("c.py"), b"caf\xe9 = f(1)\n").unwrap();
        std::fs::write(dir.path().join("d.rs"), "fn main() {}\n").unwrap();
        let raw = RawRequest { ops: vec![Op { pat: "f($A)".into(), out: "g($A)".into() }], lang: Some("python".into()), ..Default::default() };
        let req = raw.validate(dir.path(), WalkOptions::default(), 1 << 20).unwrap();
        let plan = super::super::build(&req, dir.path()).unwrap();
        let t = files(&req, dir.path(), &plan.skipped).unwrap();
        let got: Vec<(&str, &Traced)> = t.files.iter().map(|f| (f.path.as_str(), &f.traced)).collect();
        assert_eq!(
            got,
            [
                ("a.py", &Traced::Empty),
                ("b.py", &Traced::Searched { language: Lang::of(SupportLang::Python), rules: 1, embedded: Vec::new() }),
                ("c.py", &Traced::Skipped(SkipReason::NotUtf8 { offset: 3 })),
            ]
        );
        assert_eq!((t.taken(), t.skipped()), (3, 2));
    }
}
