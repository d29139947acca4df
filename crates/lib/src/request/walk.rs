//! Finds the files a request searches: `ignore`'s parallel walker (`.gitignore` and
//! `.ignore` respected even outside a git repository, hidden files skipped, symlinks
//! not followed, unless the walk options say otherwise: `hidden_files` and
//! `require_git` give `ast-grep scan`'s choice), the request's globs, and the
//! language of each file. Each ignore file is checked before `ignore` reads it
//! (`shared::ignore_files`): one that is not a regular file under its cap
//! refuses the walk. The result is sorted by path so every later stage is
//! deterministic at any thread count.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use ast_grep_language::SupportLang;
use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};

use crate::request::Request;
use crate::request::lang;
use crate::request::read::{FileKind, SkipReason, Skipped};
use crate::shared::error::{Error, Result};
use crate::shared::{ignore_files, quote};

/// A file to search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Path used to read the file (absolute).
    pub path: PathBuf,
    /// Path shown to users: relative to the working directory, valid UTF-8 (see
    /// `display_path`); the exact name, quoted only when printed for people.
    pub display: String,
    /// Language the file is parsed as.
    pub lang: SupportLang,
    /// Size in bytes when walked (0 if unknown): the plan starts the largest files
    /// first so no big file is left to run alone at the end.
    pub size: u64,
}

/// The walk's result.
#[derive(Debug, Default)]
pub struct Walked {
    /// Files to search, sorted by display path (the caller applies `maxFiles`).
    pub files: Vec<Candidate>,
    /// How many candidate files the walk found before the cap.
    pub total: usize,
    /// Problems met while walking (unreadable folders, broken ignore files).
    pub errors: Vec<String>,
    /// Files never read, with the reason, sorted by path: a path named explicitly
    /// that is not a regular file (no language), a candidate whose name is not
    /// valid UTF-8 (with the language it would have been searched as).
    pub skipped: Vec<(Option<SupportLang>, Skipped)>,
}

impl Walked {
    /// True when `maxFiles` cut the list.
    pub fn limit_reached(&self) -> bool {
        self.files.len() < self.total
    }
}

/// Lexically normalises `p` (drops `.`, folds `..`) without touching the disk.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path users see for `abs`: relative to `cwd` when inside it. On Windows the
/// separators become `/`; elsewhere `\` is an ordinary character of a file name
/// and stays, so `back\slash.py` and `back/slash.py` are two files (docs/DESIGN.md
/// §2.2). `Err` holds the git-quoted form of a path that is not valid UTF-8
/// (`"\377.py"`): JSON cannot carry it exactly, so such a file is skipped.
pub(crate) fn display_path(abs: &Path, cwd: &Path) -> std::result::Result<String, String> {
    let rel = abs.strip_prefix(cwd).unwrap_or(abs);
    let Some(s) = rel.to_str() else { return Err(quoted_os(rel)) };
    #[cfg(windows)]
    let s = s.replace('\\', "/");
    #[cfg(not(windows))]
    let s = s.to_string();
    Ok(if s.is_empty() { ".".to_string() } else { s })
}

/// The git-quoted form of a path that is not valid UTF-8: its bytes, every one
/// from 0x80 as an octal escape.
fn quoted_os(p: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        quote::quote_bytes(p.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        quote::quote_bytes(p.to_string_lossy().as_bytes())
    }
}

/// Walks the request's paths from `cwd`.
pub fn walk(req: &Request, cwd: &Path) -> Result<Walked> {
    let cwd = normalize(cwd);
    let roots: Vec<PathBuf> = req.paths.iter().map(|p| normalize(&cwd.join(p))).collect();
    let mut builder = WalkBuilder::new(&roots[0]);
    for r in &roots[1..] {
        builder.add(r);
    }
    let (all, off) = (req.walk.no_ignore, req.walk.ignore_off);
    // As ast-grep's `--no-ignore KIND`: `vcs` also leaves git's exclude and
    // global files unread.
    builder
        .hidden(!req.walk.hidden && !req.walk.hidden_files)
        .ignore(!all && !off.dot)
        .git_ignore(!all && !off.vcs)
        .git_global(!all && !off.vcs && !off.global)
        .git_exclude(!all && !off.vcs && !off.exclude)
        .parents(!all && !off.parent)
        .require_git(req.walk.require_git)
        .follow_links(req.walk.follow)
        .threads(rayon::current_num_threads().max(1));
    // Hidden files are searched, hidden folders below a root are not.
    let skip_hidden_folders = req.walk.hidden_files && !req.walk.hidden;
    let keep = move |e: &ignore::DirEntry| {
        !skip_hidden_folders || e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) || !e.file_name().as_encoded_bytes().starts_with(b".")
    };
    let refused = |r: ignore_files::Refused| Error::bad(r.message(&display_path(&r.path, &cwd).unwrap_or_else(|q| q)));
    let checked = ignore_files::guard(&mut builder, &roots, !req.walk.no_ignore, keep).map_err(refused)?;
    if !req.globs.is_empty() {
        let mut ob = OverrideBuilder::new(&cwd);
        for g in &req.globs {
            ob.add(g).map_err(|e| Error::bad(format!("invalid glob `{g}`: {e}")))?;
        }
        builder.overrides(ob.build().map_err(|e| Error::bad(format!("invalid globs: {e}")))?);
    }
    let found: Mutex<Vec<Candidate>> = Mutex::new(Vec::new());
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let skipped: Mutex<Vec<(Option<SupportLang>, Skipped)>> = Mutex::new(Vec::new());
    let forced = req.lang;
    let follow = req.walk.follow;
    let custom = crate::request::ruleset::LanguageGlobs::of(req.rule_set.as_ref().map_or(&[][..], |s| &s.language_globs[..]))?;
    let custom = &custom;
    builder.build_parallel().run(|| {
        let found = &found;
        let errors = &errors;
        let skipped = &skipped;
        let cwd = &cwd;
        Box::new(move |entry| {
            let entry = match entry {
                Ok(e) => e,
                Err(err) => {
                    errors.lock().unwrap().push(err.to_string());
                    return WalkState::Continue;
                }
            };
            let Some(ft) = entry.file_type() else { return WalkState::Continue };
            let path = entry.path();
            let explicit = entry.depth() == 0;
            if !ft.is_file() {
                // A folder is walked; anything else found inside one is not a
                // candidate, but one named explicitly gets a reason, not silence.
                if explicit && !ft.is_dir() {
                    let s = match display_path(path, cwd) {
                        Ok(display) => Skipped { path: display, reason: SkipReason::NotRegular { file: FileKind::of(&ft) } },
                        Err(q) => Skipped { path: q, reason: SkipReason::NameNotUtf8 },
                    };
                    skipped.lock().unwrap().push((None, s));
                }
                return WalkState::Continue;
            }
            let inferred = custom.lang_of(path).or_else(|| lang::infer(path));
            let lang = match (forced, inferred) {
                // A file that can embed code of the forced language (a script in
                // HTML) is searched there, as ast-grep searches it.
                (Some(f), Some(i)) if lang::embedded_in(i).contains(&f) => Some(i),
                (Some(f), _) if explicit => Some(f),
                (Some(f), Some(i)) if f == i => Some(f),
                (Some(_), _) => None,
                (None, i) => i,
            };
            if let Some(lang) = lang {
                // Through a link (`--follow`), the file is read and written at
                // its real path: a write replaces the file, never the link.
                let abs = if follow { std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()) } else { path.to_path_buf() };
                // Never a lossy name: U+FFFD would name another file (or none).
                // (The absolute path is checked too: the store keeps it as a string.)
                match display_path(path, cwd) {
                    Ok(display) if abs.to_str().is_some() => {
                        let size = entry.metadata().map_or(0, |m| m.len());
                        found.lock().unwrap().push(Candidate { path: abs, display, lang, size });
                    }
                    shown => {
                        let path = shown.err().unwrap_or_else(|| quoted_os(&abs));
                        skipped.lock().unwrap().push((Some(lang), Skipped { path, reason: SkipReason::NameNotUtf8 }));
                    }
                }
            }
            WalkState::Continue
        })
    });
    checked.outcome().map_err(refused)?;
    let mut files = found.into_inner().unwrap();
    files.sort_by(|a, b| a.display.cmp(&b.display));
    // One file reached by two ways (two roots that overlap, or with `--follow`
    // a link beside its target) is searched once, under the first of its names.
    let mut seen = std::collections::HashSet::new();
    files.retain(|c| seen.insert(c.path.clone()));
    let total = files.len();
    let mut errors = errors.into_inner().unwrap();
    errors.sort();
    let mut skipped = skipped.into_inner().unwrap();
    skipped.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    skipped.dedup();
    Ok(Walked { files, total, errors, skipped })
}
