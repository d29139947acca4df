//! Finds the files a request searches: `ignore`'s walker (`.gitignore` and
//! `.ignore` respected even outside a git repository, hidden files skipped, symlinks
//! not followed, unless the walk options say otherwise: `hidden_files` and
//! `require_git` give `ast-grep scan`'s choice), the request's globs, and the
//! language of each file. Each ignore file is checked before `ignore` reads it
//! (`shared::ignore_files`): one that is not a regular file under its cap
//! refuses the walk. A small tree is walked on the calling thread, a larger one
//! by `ignore`'s parallel walker ([`SERIAL_WALK_MAX_ENTRIES`]); the result is
//! sorted by path, so it is the same either way and every later stage is
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
#[derive(Debug, Default, PartialEq)]
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

/// The most folder entries a tree may hold (dot-folders not counted) to be
/// walked on the calling thread. `ignore`'s parallel walker starts its own
/// threads, and an idle one sleeps 1 ms at a time until the others finish: a
/// 12-file project's whole scan took 12-15% less time walked serially
/// (docs/DESIGN.md §2.2), while on the kernel's 55,000 files the serial walk
/// made a cached scan 9% slower. Counting up to this many entries
/// costs well under a millisecond; the walk's result does not depend on it.
pub const SERIAL_WALK_MAX_ENTRIES: usize = 1024;

/// Walks the request's paths from `cwd`.
pub fn walk(req: &Request, cwd: &Path) -> Result<Walked> {
    walk_as(req, cwd, None)
}

/// [`walk`], serially or in parallel as `parallel` says (`None`: by the tree's
/// size, [`small_tree`]).
fn walk_as(req: &Request, cwd: &Path, parallel: Option<bool>) -> Result<Walked> {
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
    let visitor = || {
        let found = &found;
        let errors = &errors;
        let skipped = &skipped;
        let cwd = &cwd;
        move |entry: std::result::Result<ignore::DirEntry, ignore::Error>| {
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
            // A path named through a link is taken as what it leads to (its type
            // and size), as the parallel walker gives it (the serial one gives
            // the link): one stat of the target, read once.
            let target = if explicit { std::fs::metadata(path).ok() } else { None };
            let ft = target.as_ref().map_or(ft, |m| m.file_type());
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
                        let size = if explicit { target.as_ref().map_or(0, |m| m.len()) } else { entry.metadata().map_or(0, |m| m.len()) };
                        found.lock().unwrap().push(Candidate { path: abs, display, lang, size });
                    }
                    shown => {
                        let path = shown.err().unwrap_or_else(|| quoted_os(&abs));
                        skipped.lock().unwrap().push((Some(lang), Skipped { path, reason: SkipReason::NameNotUtf8 }));
                    }
                }
            }
            WalkState::Continue
        }
    };
    if parallel.unwrap_or_else(|| !small_tree(&roots, SERIAL_WALK_MAX_ENTRIES)) {
        builder.build_parallel().run(|| Box::new(visitor()));
    } else {
        let visit = visitor();
        for entry in builder.build() {
            visit(entry);
        }
    }
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

/// True when `roots` hold at most `budget` folder entries, dot-folders not
/// entered and links not followed: a guess at the walk's size, read from the
/// folder listings alone (no file is opened, no ignore file read). A root that
/// is not a folder counts as one entry, a folder that cannot be listed as none.
fn small_tree(roots: &[PathBuf], budget: usize) -> bool {
    let mut left = budget;
    let mut folders: Vec<PathBuf> = Vec::new();
    for root in roots {
        if root.is_dir() {
            folders.push(root.clone());
        } else if left == 0 {
            return false;
        } else {
            left -= 1;
        }
    }
    while let Some(folder) = folders.pop() {
        let Ok(listing) = std::fs::read_dir(&folder) else { continue };
        for entry in listing.flatten() {
            if left == 0 {
                return false;
            }
            left -= 1;
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !entry.file_name().as_encoded_bytes().starts_with(b".") {
                folders.push(entry.path());
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{RawRequest, WalkOptions};

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("a.rs", "fn a() {}"),
            ("b.py", "b = 1"),
            ("sub/c.rs", "fn c() {}"),
            ("sub/deep/d.go", "package d"),
            (".hidden.rs", "fn h() {}"),
            (".hdir/e.rs", "fn e() {}"),
            ("ignored/f.rs", "fn f() {}"),
            (".ignore", "ignored/\n"),
            (".gitignore", "*.py\n"),
            ("sub/.ignore", "deep/\n"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            std::fs::write(root.join(path), text).unwrap();
        }
        for i in 0..40 {
            std::fs::write(root.join(format!("sub/n{i}.rs")), "fn n() {}").unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("sub"), root.join("link")).unwrap();
            std::os::unix::fs::symlink(root.join("a.rs"), root.join("alink.rs")).unwrap();
        }
        dir
    }

    #[test]
    fn the_serial_and_the_parallel_walk_find_the_same_files() {
        let dir = tree();
        let cwd = dir.path();
        let hidden = WalkOptions { hidden: true, ..WalkOptions::default() };
        let hidden_files = WalkOptions { hidden_files: true, ..WalkOptions::default() };
        let no_ignore = WalkOptions { no_ignore: true, ..WalkOptions::default() };
        let follow = WalkOptions { follow: true, ..WalkOptions::default() };
        let no_git = WalkOptions { require_git: false, ..WalkOptions::default() };
        let ops = r#""ops":[{"pat":"a","out":"b"}]"#;
        for (json, walk) in [
            (format!("{{{ops}}}"), WalkOptions::default()),
            (format!("{{{ops}}}"), hidden),
            (format!("{{{ops}}}"), hidden_files),
            (format!("{{{ops}}}"), no_ignore),
            (format!("{{{ops}}}"), follow),
            (format!("{{{ops}}}"), no_git),
            (format!(r#"{{{ops},"globs":["*.rs","!sub/n1*"]}}"#), WalkOptions::default()),
            (format!(r#"{{{ops},"paths":["sub","a.rs","link","alink.rs"]}}"#), WalkOptions::default()),
            (format!(r#"{{{ops},"paths":["link"]}}"#), WalkOptions::default()),
            (format!(r#"{{{ops},"paths":["alink.rs"]}}"#), WalkOptions::default()),
        ] {
            let req = RawRequest::from_json(&json).unwrap().validate(cwd, walk, 1).unwrap();
            let serial = walk_as(&req, cwd, Some(false)).unwrap();
            assert!(!serial.files.is_empty(), "{json}");
            for _ in 0..3 {
                assert_eq!(walk_as(&req, cwd, Some(true)).unwrap(), serial, "{json}");
            }
        }
    }

    #[test]
    fn a_tree_is_small_up_to_its_budget_of_entries_outside_dot_folders() {
        let dir = tree();
        let root = [dir.path().to_path_buf()];
        // 10 entries at the top (a.rs, b.py, sub, .hidden.rs, .hdir, ignored,
        // .ignore, .gitignore and the links link and alink.rs), 43 in sub (c.rs,
        // deep, .ignore, 40 files), 1 in deep, 1 in ignored; .hdir not entered,
        // link not followed.
        let entries = 10 + (1 + 1 + 1 + 40) + 1 + 1 - 2 * usize::from(cfg!(not(unix)));
        assert!(small_tree(&root, entries));
        assert!(!small_tree(&root, entries - 1));
        assert!(small_tree(&[dir.path().join("a.rs")], 1) && !small_tree(&[dir.path().join("a.rs")], 0));
    }
}
