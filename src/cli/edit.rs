//! `run` and `scan`: build the request (from flags, a JSON request or rule files),
//! plan it with a progress bar, then stage it (the preview), apply it at once
//! (`-U`) or hand it to the interactive review (`-i`), and render the result.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::time::Instant;

use super::print::{self, Style};
use super::{open_store, review, spinner, style, write_json, ColorChoice, OutputArgs, RunArgs, ScanArgs};
use crate::error::{Error, Result};
use crate::plan::{self, Plan};
use crate::request::{Op, RawRequest, Request};
use crate::rules;
use crate::workflow::{self, Preview};
use crate::workspace;

/// How to present a plan.
pub(super) struct Emit {
    json: bool,
    update_all: bool,
    interactive: bool,
    style: Style,
}

impl OutputArgs {
    fn emit(&self, color: ColorChoice) -> Result<Emit> {
        if self.interactive && !std::io::stdin().is_terminal() {
            return Err(Error::bad(
                "--interactive needs a terminal on stdin; without one, preview and `resolve`, or apply everything with -U",
            ));
        }
        Ok(Emit { json: self.json, update_all: self.update_all, interactive: self.interactive, style: style(color, self.full) })
    }

    /// `-C N`, checked against [`crate::diff::MAX_CONTEXT_LINES`]; it overrides a
    /// `--request`'s `contextLines`.
    fn context_lines(&self) -> Result<Option<usize>> {
        self.context.map(|n| crate::diff::check_context(n, "-C")).transpose()
    }
}

/// `ast-edit run`.
pub(super) fn run(a: RunArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = workspace::current_dir()?;
    let context = a.output.context_lines()?;
    let mut req = build_raw(&a)?.validate(&cwd, a.input.walk(), a.input.max_filesize)?;
    req.no_prefilter = a.no_prefilter;
    req.context_lines = context.unwrap_or(req.context_lines);
    let how = a.output.emit(color)?;
    let started = Instant::now();
    let plan = build_plan(&req, &cwd)?;
    emit(plan, how, started, out)
}

/// `ast-edit scan`.
pub(super) fn scan(a: ScanArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = workspace::current_dir()?;
    let context = a.output.context_lines()?;
    let rules = rules::load(&a.rules)?;
    let walk = a.input.walk();
    // The same checks as `run` for the paths and globs, then the rules' ops.
    let probe = RawRequest {
        ops: vec![Op { pat: "x".into(), out: "x".into() }],
        paths: a.paths.clone(),
        globs: a.input.globs.clone(),
        ..Default::default()
    }
    .validate(&cwd, walk, a.input.max_filesize)?;
    let mut req = rules::request(&rules, probe.paths, probe.globs, walk, a.input.max_filesize);
    req.context_lines = context.unwrap_or(req.context_lines);
    let how = a.output.emit(color)?;
    let started = Instant::now();
    let plan = build_plan(&req, &cwd)?;
    emit(plan, how, started, out)
}

fn build_raw(a: &RunArgs) -> Result<RawRequest> {
    if let Some(src) = &a.request {
        // Read one byte past the limit at most: `from_json` refuses the rest.
        let cap = crate::request::MAX_REQUEST_JSON_BYTES as u64 + 1;
        let mut text = String::new();
        if src == "-" {
            std::io::stdin().take(cap).read_to_string(&mut text).map_err(|e| Error::io("cannot read the request from stdin", e))?;
        } else {
            std::fs::File::open(src)
                .and_then(|f| f.take(cap).read_to_string(&mut text))
                .map_err(|e| Error::bad(format!("cannot read the request file {src}: {e}")))?;
        }
        return RawRequest::from_json(&text);
    }
    if a.pattern.is_empty() {
        return Err(Error::bad("no ops given: pass a pattern and a rewrite (`-p PAT -r REW`) or a JSON request (`--request FILE`)"));
    }
    if a.pattern.len() != a.rewrite.len() {
        return Err(Error::bad(format!(
            "got {} pattern(s) (-p) but {} rewrite(s) (-r): give one -r for each -p, in the same order (`-r ''` deletes the match)",
            a.pattern.len(),
            a.rewrite.len()
        )));
    }
    Ok(RawRequest {
        ops: a.pattern.iter().zip(&a.rewrite).map(|(p, r)| Op { pat: p.clone(), out: r.clone() }).collect(),
        paths: a.paths.clone(),
        lang: a.lang.clone(),
        selector: a.selector.clone(),
        strictness: a.strictness.clone(),
        globs: a.input.globs.clone(),
        max_files: a.max_files,
        context_lines: None,
    })
}

/// Plans with a progress bar on stderr when it is a terminal.
fn build_plan(req: &Request, cwd: &Path) -> Result<Plan> {
    if !std::io::stderr().is_terminal() {
        return plan::build(req, cwd);
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} planning {pos}/{len} files [{elapsed}]").expect("valid template"),
    );
    let plan = plan::build_with_progress(req, cwd, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    plan
}

/// Stages (or with -U applies, or with -i reviews) a plan and prints it, then the
/// end-of-run table on stderr (after stdout is flushed, so on a terminal it
/// really comes last; it holds a time, so it is not part of the output proper).
fn emit(plan: Plan, how: Emit, started: Instant, out: &mut impl Write) -> anyhow::Result<i32> {
    let (code, details) = if how.interactive {
        review::review(plan, how.style, out)?
    } else if how.update_all {
        update_all(plan, how.json, how.style, out)?
    } else {
        let (_, store) = open_store()?;
        let shown = workflow::stage(&store, plan)?;
        if how.json {
            write_json(out, &shown.details)?;
        } else {
            print_preview(out, &shown, how.style)?;
            match &shown.details.id {
                Some(id) => print::how_to_resolve(out, id)?,
                None => writeln!(out, "No changes: nothing staged.")?,
            }
        }
        (0, shown.details)
    };
    if !how.json {
        out.flush()?;
        print::table(&mut std::io::stderr(), &details, started.elapsed())?;
    }
    Ok(code)
}

fn print_preview(out: &mut impl Write, shown: &Preview, style: Style) -> std::io::Result<()> {
    print::diffs(out, &shown.details, style)?;
    print::per_rule(out, &shown.per_rule)?;
    print::summary(out, &shown.details, style)
}

/// `-U`: the plan applied at once with the verified writer, journalled for undo.
fn update_all(plan: Plan, json: bool, style: Style, out: &mut impl Write) -> anyhow::Result<(i32, crate::preview::PreviewDetails)> {
    let mut shown = Preview::of(&plan);
    if plan.files.is_empty() {
        if json {
            write_json(out, &shown.details)?;
        } else {
            print::summary(out, &shown.details, style)?;
            writeln!(out, "No changes: nothing written.")?;
        }
        return Ok((0, shown.details));
    }
    let (_, store) = open_store()?;
    let bar = spinner("applying (verifying and writing files)");
    let applied = workflow::apply_fresh(&store, &plan, None, "run-U");
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let report = match applied {
        Ok(r) => r,
        Err(e) => {
            shown.details.record_failure(e.to_string());
            if json {
                write_json(out, &shown.details)?;
            } else {
                eprintln!("error: {e}");
            }
            return Ok((1, shown.details));
        }
    };
    shown.details.record_apply(&report);
    if json {
        write_json(out, &shown.details)?;
    } else {
        print::diffs(out, &shown.details, style)?;
        print::summary(out, &shown.details, style)?;
        writeln!(out, "{}", report.text())?;
    }
    let code = if report.status == crate::status::ApplyStatus::Incomplete { 3 } else { 0 };
    Ok((code, shown.details))
}
