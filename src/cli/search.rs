//! `ast-edit search`: count and locate the matches of patterns or rules
//! ([`ast_edit::app::search`]), as text or JSON. Nothing is staged or written.

use std::io::Write;

use super::words::WORDS;
use super::{SearchArgs, write_json};
use ast_edit::app::cache::EntryCache;
use ast_edit::app::error::Result;
use ast_edit::app::request::MAX_OPS_BYTES;
use ast_edit::app::search::{self, RawSearch, SearchOp};
use ast_edit::app::text::{PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET};
use ast_edit::app::workspace::Workspace;

/// `search --help`.
pub(super) const LONG_ABOUT: &str = "\
Count and locate the matches of ast-grep patterns (or rules) without staging
anything: every match is counted, and one page of them is listed as
`path:line:column: text`, with the function, method or class around it. The same
walk and matching as `run`, so it finds what an edit would rewrite (nested matches
included). Exit 0 also when nothing matches; 2 on bad input.

Example:
  $ ast-edit search -p 'fetch_data($$$ARGS)' src/
  Found 3 matches in 2 files (searched 14 files)
  src/app.py:4:12: fetch_data(url) (in function load)
  src/app.py:9:5: fetch_data(url, retries=3) (in class Client)
  src/jobs.py:2:1: fetch_data(\"nightly\")

More:
  ast-edit search -p '$A.unwrap()' -l rs --limit 50 --offset 50   # the next page
  ast-edit search --rule no-unwrap.yml crates/                      # a rule's matches
  ast-edit search -p 'print($A)' --json                             # the structured value";

/// `ast-edit search`.
pub(super) fn search(a: SearchArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = ast_edit::app::files::current_dir()?;
    let rule = match (&a.rule, &a.inline_rules) {
        (Some(file), _) => Some(serde_json::Value::String(read_rule_file(file)?)),
        (None, Some(text)) => Some(serde_json::Value::String(text.clone())),
        (None, None) => None,
    };
    let raw = RawSearch {
        ops: a.pattern.iter().map(|p| SearchOp { pat: p.clone() }).collect(),
        rule,
        lang: a.lang.clone(),
        paths: a.paths.clone(),
        globs: a.input.globs.clone(),
        selector: a.selector.clone(),
        strictness: a.strictness.clone(),
        limit: a.limit,
        offset: a.offset,
        project: None,
        filter: None,
    };
    let mut s = raw.validate(&cwd, a.input.walk(), a.input.max_filesize)?;
    a.input.limit(&mut s.request);
    let cache = (!a.no_cache).then(|| Workspace::new(&cwd).scan_cache(&s.request));
    let result = search::search(&s, &cwd, WORDS, cache.as_ref().map(|c| c as &dyn EntryCache));
    if let Some(c) = &cache {
        c.finish();
    }
    let mut result = result?;
    // The page the MCP tool would list, so both front ends print the same.
    result.fit(WORDS, PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET);
    if a.json {
        write_json(out, &result)?;
    } else {
        out.write_all(result.render(WORDS).as_bytes())?;
        out.write_all(b"\n")?;
    }
    if result.skipped_by_limits > 0 {
        out.flush()?;
        eprintln!("{}", super::exit::limit_skipped_line(result.skipped_by_limits));
        return Ok(super::exit::LIMIT_SKIPPED);
    }
    Ok(0)
}

/// The text of a rule file, at most [`MAX_OPS_BYTES`] (the limit on a request's
/// rules) read.
fn read_rule_file(file: &std::path::Path) -> Result<String> {
    super::read_named(file, MAX_OPS_BYTES, "the rule file", "that is the most rules one search takes; split it")
}
