//! After a write (`resolve apply`, `-U`): the written files' rewrites by the
//! plan's rules, made from their new bytes and stored in the scan cache
//! (docs/DESIGN.md section 2.14), so the next preview of the same rules finds
//! them. The old bytes' entries need no change: a key holds the bytes' hash,
//! so nothing reaches them once the file changed. The files are planned
//! exactly as a preview plans them (`plan_file`), hence their entries are the
//! ones a preview would store. Only a rule scan's files (an ad-hoc edit's are
//! not cached), at most [`MAX_WARMED_BYTES`] of them; nothing is reported and
//! nothing can fail: a file that cannot be read, or that a limit stops, is
//! not stored.

use std::path::PathBuf;

use super::{Plan, cache::EntryCache, largest_first, plan_file};
use crate::engine::Engine;
use crate::engine::budget::Budget;
use crate::request::walk::Candidate;
use crate::request::{Request, lang};

/// The most bytes of written files (by their size at preview) whose rewrites
/// one write stores; the rest are planned by the next preview.
pub const MAX_WARMED_BYTES: u64 = 16 << 20;

/// The files a write changed, with the request and the folder of the plan
/// they came from: what [`warm`] plans again.
#[derive(Clone, Debug)]
pub struct Written {
    /// The plan's request.
    pub request: Request,
    cwd: PathBuf,
    files: Vec<Candidate>,
}

impl Written {
    /// The files of `plan` named in `paths` (display paths of files written),
    /// at most [`MAX_WARMED_BYTES`] of them; `None` when there is nothing to
    /// store (no such file, or not a rule scan).
    pub fn of<'p>(plan: &Plan, paths: impl IntoIterator<Item = &'p str>) -> Option<Written> {
        plan.request.rule_set.as_ref()?;
        let paths: std::collections::HashSet<&str> = paths.into_iter().collect();
        let mut left = MAX_WARMED_BYTES;
        let mut files = Vec::new();
        for f in plan.files.iter().filter(|f| paths.contains(f.path.as_str())) {
            let Ok(lang) = lang::parse_lang(&f.lang) else { continue };
            let Some(rest) = left.checked_sub(f.size) else { break };
            left = rest;
            files.push(Candidate { path: f.abs.clone(), display: f.path.clone(), lang, size: f.size });
        }
        (!files.is_empty()).then(|| Written { request: plan.request.clone(), cwd: plan.cwd.clone(), files })
    }
}

/// Plans the files of `written` as they are now with their plan's rules,
/// storing each file's rewrite in `cache` (opened for `written.request`).
pub fn warm(written: &Written, cache: &dyn EntryCache) {
    let req = &written.request;
    let Ok(engine) = Engine::new(req, written.files.iter().map(|c| c.lang), &written.cwd) else { return };
    let names = req.rule_names();
    // Each file's plan is dropped as soon as its entry is stored: only the
    // entry is wanted, not a list of plans held to the end.
    largest_first(&written.files, |c| c.size, &Budget::of(req), |c| drop(plan_file(&engine, req, &names, c, Some(cache))));
}
