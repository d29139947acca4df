//! The command line: clap definitions (with `--help` that teaches) and the dispatch
//! of each subcommand onto the library. Output rules: with `--json`, stdout holds
//! exactly one JSON value and messages go to stderr; without it, diffs and results
//! go to stdout, coloured on a terminal unless `NO_COLOR` is set.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use crate::apply::{self, ApplyOptions};
use crate::error::{Error, Result};
use crate::lang;
use crate::pending::{self, ActionKind, Store};
use crate::plan;
use crate::preview;
use crate::print::{self, Style};
use crate::request::{Op, RawRequest, WalkOptions, DEFAULT_MAX_FILESIZE};
use crate::message::Front;
use crate::resolve::{self, RawResolve};
use crate::rules;

const ABOUT: &str = "Structural code edits you can trust: preview a pattern rewrite across a repository, then apply or discard it.";

const LONG_ABOUT: &str = "\
Structural code edits you can trust.

ast-edit matches ast-grep patterns on tree-sitter syntax trees, previews every
change as a unified diff, and stages it as a pending action. Nothing is written
until you resolve it: `resolve apply` re-checks that every file is unchanged since
the preview, re-runs the edit, proves it equals the preview, and writes atomically;
`resolve discard` drops it.

Tour:
  ast-edit run -p 'print($A)' -r 'log($A)' fixtures      # preview + stage
  ast-edit pending                                       # what is staged
  ast-edit resolve apply --reason 'switch to log'        # write it
  ast-edit undo                                          # put it back";

/// ast-edit command line.
#[derive(Parser, Debug)]
#[command(name = "ast-edit", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    /// When to colour output.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour on a terminal when NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Preview a rewrite and stage it as a pending action (or apply at once with -U).
    #[command(long_about = "\
Preview a structural rewrite and stage it as a pending action.

Prints a unified diff per changed file (git apply accepts them), a summary, and
how to resolve. Nothing is written unless -U is given. Zero matches is success.

Patterns use ast-grep syntax: $A matches one node, $$$ARGS any number, $_ one
node without capturing. A pattern must be a complete piece of code of the
language: C statements need their `;` (`kfree($A);`).

Examples:
  ast-edit run -p 'assertEquals($A, $B)' -r 'assertEqual($A, $B)' tests/
  ast-edit run -l c -p 'kfree($A);' -r 'kvfree($A);' drivers/
  ast-edit run -p 'foo($A)' -r 'bar($A)' -p 'baz' -r 'qux' -g '*.py' -g '!vendor/**'
  echo '{\"ops\":[{\"pat\":\"foo($A)\",\"out\":\"bar($A)\"}]}' | ast-edit run --request -")]
    Run(RunArgs),
    /// Apply or discard a pending action (the newest, or --id).
    Resolve(ResolveArgs),
    /// List pending actions, newest first.
    Pending(JsonFlag),
    /// Show a pending action's preview (the newest, or ID).
    Show(ShowArgs),
    /// Restore the files of the last applied action (only those still as apply left them).
    Undo(JsonFlag),
    /// List the supported languages, their names and extensions.
    Langs(JsonFlag),
    /// Run rule files (a codemod catalog such as queries/) in one pass per file.
    #[command(long_about = "\
Run rule files in one pass per file: every file is parsed once per language and
all rules of that language are matched on the same tree. The result is one
pending action whose label names the rules (or, with -U, applied at once).
Where edits of different rules overlap, the outermost wins and the others are
reported with their line, to be applied by a second scan.

Examples:
  ast-edit scan --rules queries/ src/
  ast-edit scan --rules queries/python/py-assert-equals.json tests/ -U")]
    Scan(ScanArgs),
    /// Check every test case of every rule file (default folder: queries/).
    Test(TestArgs),
    /// Stage a command-backed custom action, to be applied or discarded with resolve.
    #[command(long_about = "\
Stage a command-backed custom action. `resolve apply` runs the apply command with
`sh -c` in the current directory; `resolve discard` runs the reject command, if
any. Both get AST_EDIT_ACTION (apply/discard), AST_EDIT_REASON and AST_EDIT_EXTRA
(a JSON object) in their environment. The command's stdout becomes the result
text; a non-zero exit is `Apply failed: ...` and the action stays pending.

Example:
  ast-edit propose --label 'Regenerate bindings' --apply-cmd 'make bindings' \\
      --reject-cmd 'git checkout -- bindings/'")]
    Propose(ProposeArgs),
    /// Serve the MCP tools `ast_edit` and `resolve` on stdio (for coding agents).
    Mcp(McpArgs),
}

/// `mcp` flags.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// The folder the server works in; paths outside it are refused (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `propose` flags.
#[derive(Args, Debug)]
pub struct ProposeArgs {
    /// Human label of the action.
    #[arg(long)]
    pub label: String,
    /// Shell command run on apply.
    #[arg(long, value_name = "CMD")]
    pub apply_cmd: String,
    /// Shell command run on discard.
    #[arg(long, value_name = "CMD")]
    pub reject_cmd: Option<String>,
    /// sourceToolName of the action (default: custom_tool).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// JSON details kept with the action.
    #[arg(long, value_name = "JSON")]
    pub details: Option<String>,
    /// Print the staged action as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Which files to search: flags shared by `run` and `scan`.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Include or exclude files (`!` excludes), as ripgrep -g. Repeatable.
    #[arg(short = 'g', long = "glob", value_name = "GLOB", allow_hyphen_values = true)]
    pub globs: Vec<String>,
    /// Skip (and report) files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILESIZE)]
    pub max_filesize: u64,
    /// Search hidden files and folders too.
    #[arg(long)]
    pub hidden: bool,
    /// Do not respect .gitignore/.ignore files.
    #[arg(long)]
    pub no_ignore: bool,
}

impl InputArgs {
    fn walk(&self) -> WalkOptions {
        WalkOptions { hidden: self.hidden, no_ignore: self.no_ignore }
    }
}

/// What to do with the plan: flags shared by `run` and `scan`.
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// Print the preview details as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Apply at once (no pending action): same engine, same verified writer, journalled for undo.
    #[arg(short = 'U', long = "update-all")]
    pub update_all: bool,
    /// Review each file's diff in the terminal and apply the accepted ones
    /// (y = yes, n = no, a = this and all the rest, q = stop).
    #[arg(short = 'i', long, conflicts_with_all = ["update_all", "json"])]
    pub interactive: bool,
    /// Print every diff line in full (no preview budget).
    #[arg(long)]
    pub full: bool,
}

impl OutputArgs {
    fn emit(&self, color: ColorChoice) -> Emit {
        Emit { json: self.json, update_all: self.update_all, interactive: self.interactive, style: style(color, self.full) }
    }
}

/// `scan` flags.
#[derive(Args, Debug)]
pub struct ScanArgs {
    /// A rule file, or a folder searched recursively for *.json rule files.
    #[arg(long, value_name = "FILE|DIR", required = true)]
    pub rules: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Files or directories to search (default: .).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

/// `test` arguments.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// Rule file or folder (default: queries).
    #[arg(value_name = "FILE|DIR", default_value = "queries")]
    pub dir: PathBuf,
}

/// `--json` alone.
#[derive(Args, Debug)]
pub struct JsonFlag {
    /// Print one JSON value on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `run` flags.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// ast-grep pattern to match (repeat with -r for several ops applied in one pass).
    #[arg(short = 'p', long = "pattern", value_name = "PAT", allow_hyphen_values = true)]
    pub pattern: Vec<String>,
    /// Rewrite for the pattern at the same position; may use its metavariables. '' deletes.
    #[arg(short = 'r', long = "rewrite", value_name = "REW", allow_hyphen_values = true)]
    pub rewrite: Vec<String>,
    /// Language of the files (name or alias: py, rs, ts, tsx, js, c, cpp, go, ...).
    /// Without it each file's language comes from its extension.
    #[arg(short = 'l', long = "lang", value_name = "LANG")]
    pub lang: Option<String>,
    /// Tree-sitter node kind to match inside the pattern (as ast-grep --selector).
    #[arg(long, value_name = "KIND")]
    pub selector: Option<String>,
    /// Match strictness: cst, smart (default), ast, relaxed, signature.
    #[arg(long, value_name = "S")]
    pub strictness: Option<String>,
    /// Search at most N files (in path order); reaching the cap is reported.
    #[arg(long, value_name = "N")]
    pub max_files: Option<u64>,
    /// Read the JSON request (contract section 2) from FILE, or stdin with `-`.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["pattern", "rewrite", "lang", "selector", "strictness", "globs", "max_files", "paths"])]
    pub request: Option<String>,
    /// Parse every file instead of skipping those that lack the pattern's literal
    /// tokens (slower; the edits are the same, which this flag lets you check, and
    /// so are the warnings unless a match sits around a parse error).
    #[arg(long)]
    pub no_prefilter: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Files or directories to search (default: .).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

/// `resolve` arguments.
#[derive(Args, Debug)]
pub struct ResolveArgs {
    /// apply or discard.
    #[arg(value_name = "apply|discard")]
    pub action: String,
    /// Why, in one sentence (required).
    #[arg(long)]
    pub reason: Option<String>,
    /// JSON object of options: {"stale":"skip"}, {"files":[...]}, {"allowSyntaxErrors":true}.
    #[arg(long, value_name = "JSON")]
    pub extra: Option<String>,
    /// Resolve this action instead of the newest.
    #[arg(long)]
    pub id: Option<String>,
    /// Shell command consulted only when nothing is pending (also AST_EDIT_STANDING_CMD).
    #[arg(long, value_name = "CMD")]
    pub standing_cmd: Option<String>,
    /// Print the result {content, isError, details} as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `show` arguments.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Action id (default: the newest).
    pub id: Option<String>,
    /// Print the preview details as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print every diff line in full.
    #[arg(long)]
    pub full: bool,
}

fn cwd() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| Error::io("cannot read the working directory", e))
}

/// Opens the workspace's store, first cleaning up after an apply that was killed
/// half-way; that and any unreadable pending entry are reported on stderr.
fn store(cwd: &Path) -> Result<Store> {
    let store = Store::open(pending::state_dir(cwd))?;
    let locked = store.lock()?;
    for msg in apply::recover(&locked)?.into_iter().chain(locked.problems()?) {
        eprintln!("warning: {msg}");
    }
    drop(locked);
    Ok(store)
}

fn style(color: ColorChoice, full: bool) -> Style {
    let on = match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    Style { color: on, full }
}

/// Writes `v` as pretty JSON and a newline, streaming (a preview can be large).
fn write_json(out: &mut impl Write, v: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, v).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// Runs the CLI; returns the exit code. Output errors (a closed pipe) surface as
/// `io::Error` for `main` to treat.
pub fn run(cli: Cli, out: &mut impl Write) -> anyhow::Result<i32> {
    match cli.command {
        Command::Run(a) => cmd_run(a, cli.color, out),
        Command::Resolve(a) => cmd_resolve(a, out),
        Command::Pending(a) => cmd_pending(a, out),
        Command::Show(a) => cmd_show(a, cli.color, out),
        Command::Undo(a) => cmd_undo(a, out),
        Command::Langs(a) => cmd_langs(a, out),
        Command::Scan(a) => cmd_scan(a, cli.color, out),
        Command::Test(a) => cmd_test(a, cli.color, out),
        Command::Propose(a) => cmd_propose(a, out),
        Command::Mcp(a) => {
            let root = match a.root {
                Some(r) => r,
                None => cwd()?,
            };
            crate::mcp::serve(&root)?;
            Ok(0)
        }
    }
}

fn build_raw(a: &RunArgs) -> Result<RawRequest> {
    if let Some(src) = &a.request {
        let text = if src == "-" {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| Error::io("cannot read the request from stdin", e))?;
            s
        } else {
            std::fs::read_to_string(src).map_err(|e| Error::bad(format!("cannot read the request file {src}: {e}")))?
        };
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
    })
}

fn cmd_run(a: RunArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = cwd()?;
    let mut req = build_raw(&a)?.validate(&cwd, a.input.walk(), a.input.max_filesize)?;
    req.no_prefilter = a.no_prefilter;
    let how = a.output.emit(color);
    check_interactive(&how)?;
    let started = std::time::Instant::now();
    let plan = build_plan(&req, &cwd)?;
    emit(plan, &cwd, how, started, out)
}

fn check_interactive(how: &Emit) -> Result<()> {
    if how.interactive && !std::io::stdin().is_terminal() {
        return Err(Error::bad(
            "--interactive needs a terminal on stdin; without one, preview and `resolve`, or apply everything with -U",
        ));
    }
    Ok(())
}

/// A spinner on stderr while a long step runs, when stderr is a terminal.
fn spinner(msg: &'static str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner().with_message(msg);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

/// Plans with a progress bar on stderr when it is a terminal.
fn build_plan(req: &crate::request::Request, cwd: &Path) -> Result<plan::Plan> {
    if !std::io::stderr().is_terminal() {
        return plan::build(req, cwd);
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} planning {pos}/{len} files [{elapsed}]")
            .expect("valid template"),
    );
    let plan = plan::build_with_progress(req, cwd, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    plan
}

/// How to present a plan.
struct Emit {
    json: bool,
    update_all: bool,
    interactive: bool,
    style: Style,
}

/// Stages (or with -U applies, or with -i reviews) a plan and prints it: shared
/// by `run` and `scan`.
fn emit(plan: plan::Plan, cwd: &Path, how: Emit, started: std::time::Instant, out: &mut impl Write) -> anyhow::Result<i32> {
    // The end-of-run table goes to stderr after everything else (stdout flushed
    // first, so on a terminal it really comes last).
    let table = (!how.json).then(|| (preview::details(&plan, None, "no_changes"), started.elapsed()));
    let code = emit_plan(plan, cwd, &how, out)?;
    if let Some((d, elapsed)) = table {
        out.flush()?;
        print::table(&mut std::io::stderr(), &d, elapsed)?;
    }
    Ok(code)
}

fn emit_plan(plan: plan::Plan, cwd: &Path, how: &Emit, out: &mut impl Write) -> anyhow::Result<i32> {
    let per_rule = plan.per_rule();
    if how.interactive {
        return review(plan, cwd, how.style, out);
    }
    if how.update_all {
        return run_update_all(plan, how.json, cwd, how.style, out);
    }
    let store = store(cwd)?;
    let details = pending::stage(&store, plan)?;
    if how.json {
        write_json(out, &details)?;
        return Ok(0);
    }
    print::diffs(out, &details, how.style)?;
    print::per_rule(out, &per_rule)?;
    print::summary(out, &details, how.style)?;
    match &details.id {
        Some(id) => print::how_to_resolve(out, id)?,
        None => writeln!(out, "No changes: nothing staged.")?,
    }
    Ok(0)
}

fn cmd_scan(a: ScanArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = cwd()?;
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
    let req = rules::request(&rules, probe.paths, probe.globs, walk, a.input.max_filesize);
    let how = a.output.emit(color);
    check_interactive(&how)?;
    let started = std::time::Instant::now();
    let plan = build_plan(&req, &cwd)?;
    emit(plan, &cwd, how, started, out)
}

/// Interactive review: per file, the diff and a question; the accepted files are
/// applied with the verified writer (journalled for undo).
fn review(plan: plan::Plan, cwd: &Path, style: Style, out: &mut impl Write) -> anyhow::Result<i32> {
    let details = preview::details(&plan, None, "pending");
    if plan.files.is_empty() {
        print::summary(out, &details, style)?;
        writeln!(out, "No changes: nothing to review.")?;
        return Ok(0);
    }
    let stdin = std::io::stdin();
    let mut accepted: Vec<String> = Vec::new();
    let n = details.files.len();
    let mut all = false;
    for (k, f) in details.files.iter().enumerate() {
        if all {
            accepted.push(f.path.clone());
            continue;
        }
        let one = preview::PreviewDetails { files: vec![f.clone()], ..details.clone() };
        print::diffs(out, &one, style)?;
        let answer = loop {
            write!(out, "[{}/{n}] Apply this change to {}? [y]es [n]o [a]ll remaining [q]uit: ", k + 1, f.path)?;
            out.flush()?;
            let mut line = String::new();
            if stdin.read_line(&mut line)? == 0 {
                break 'q';
            }
            match line.trim().chars().next().map(|c| c.to_ascii_lowercase()) {
                Some(c @ ('y' | 'n' | 'a' | 'q')) => break c,
                _ => writeln!(out, "Please answer y, n, a or q.")?,
            }
        };
        match answer {
            'y' => accepted.push(f.path.clone()),
            'a' => {
                all = true;
                accepted.push(f.path.clone());
            }
            'q' => break,
            _ => {}
        }
    }
    if accepted.is_empty() {
        writeln!(out, "Nothing accepted: nothing written.")?;
        return Ok(0);
    }
    let store = store(cwd)?;
    let locked = store.lock()?;
    let opts = ApplyOptions { only: Some(accepted), trust_plan: true, ..Default::default() };
    let report = match apply::apply_plan(&plan, &opts, Some((&locked, "review"))) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return Ok(1);
        }
    };
    drop(locked);
    let declined = report.outstanding.iter().filter(|o| o.status == "not_selected").count();
    let mut text = format!(
        "Applied {} in {}.",
        preview::plural(report.total_replacements, "replacement"),
        preview::plural(report.files_touched, "file")
    );
    for f in report.files.iter().filter(|f| f.status == "applied") {
        text.push_str(&format!("\n  applied  {}", f.path));
    }
    if declined > 0 {
        text.push_str(&format!("\nDeclined: {} left unchanged.", preview::plural(declined, "file")));
    }
    let problems: Vec<_> = report.outstanding.iter().filter(|o| o.status != "not_selected").collect();
    for o in &problems {
        text.push_str(&format!("\n  {:<8} {}: {}", o.status, o.path, o.reason));
    }
    writeln!(out, "{text}")?;
    Ok(if problems.is_empty() { 0 } else { 3 })
}

fn cmd_test(a: TestArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let rules = rules::load(&a.dir)?;
    let style = style(color, false);
    let (mut passed, mut failed) = (0usize, 0usize);
    for r in &rules {
        let results = rules::test_rule(r);
        let bad: Vec<_> = results.iter().filter(|c| c.failure.is_some()).collect();
        passed += results.len() - bad.len();
        failed += bad.len();
        if bad.is_empty() {
            writeln!(out, "{} {} ({})", print::paint(style.color, "32", "PASS"), r.def.id, preview::plural(results.len(), "case"))?;
        }
        for c in bad {
            writeln!(
                out,
                "{} {} {} ({})\n{}",
                print::paint(style.color, "31", "FAIL"),
                c.rule,
                c.case,
                r.file.display(),
                c.failure.as_deref().unwrap_or_default()
            )?;
        }
    }
    writeln!(out, "\n{} checked", preview::plural(rules.len(), "rule"))?;
    writeln!(out, "test: {passed} passed, {failed} failed")?;
    Ok(if failed == 0 { 0 } else { 1 })
}

fn run_update_all(plan: plan::Plan, json: bool, cwd: &Path, style: Style, out: &mut impl Write) -> anyhow::Result<i32> {
    let mut details = preview::details(&plan, None, "no_changes");
    if plan.files.is_empty() {
        if json {
            write_json(out, &details)?;
        } else {
            print::summary(out, &details, style)?;
            writeln!(out, "No changes: nothing written.")?;
        }
        return Ok(0);
    }
    let store = store(cwd)?;
    let locked = store.lock()?;
    let bar = spinner("applying (verifying and writing files)");
    let opts = ApplyOptions { trust_plan: true, ..Default::default() };
    let report = apply::apply_plan(&plan, &opts, Some((&locked, "run-U")));
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    drop(locked);
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            details.status = "failed".into();
            details.warnings.push(e.to_string());
            if json {
                write_json(out, &details)?;
            } else {
                eprintln!("error: {e}");
            }
            return Ok(1);
        }
    };
    details.status = report.status.clone();
    details.applied = report.applied;
    for o in &report.outstanding {
        details.warnings.push(format!("{}: {} ({})", o.path, o.reason, o.status));
    }
    if json {
        write_json(out, &details)?;
    } else {
        print::diffs(out, &details, style)?;
        print::summary(out, &details, style)?;
        writeln!(out, "{}", report.text())?;
    }
    Ok(if report.status == "incomplete" { 3 } else { 0 })
}

fn cmd_resolve(a: ResolveArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let extra = match &a.extra {
        None => None,
        Some(s) => Some(serde_json::from_str::<serde_json::Value>(s).map_err(|e| {
            Error::bad(format!("--extra is not valid JSON ({e}); give a JSON object such as '{{\"stale\":\"skip\"}}'"))
        })?),
    };
    let req = RawResolve { action: Some(a.action), reason: a.reason, extra, id: a.id }.check(Front::Cli)?;
    let cwd = cwd()?;
    let store = store(&cwd)?;
    let bar = spinner("resolving (verifying and writing files)");
    let result = match &a.standing_cmd {
        Some(cmd) => {
            let mut handlers = crate::custom::Handlers::default();
            handlers.standing = Some(Box::new(crate::custom::CommandStanding { cmd: cmd.clone(), cwd: cwd.clone() }));
            resolve::resolve_with(&store, &req, &mut handlers)?
        }
        None => resolve::resolve(&store, &req)?,
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if a.json {
        write_json(out, &result)?;
    } else if result.is_error {
        eprintln!("{}", result.content);
    } else {
        writeln!(out, "{}", result.content)?;
    }
    Ok(result.exit_code())
}

fn cmd_pending(a: JsonFlag, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = cwd()?;
    let store = store(&cwd)?;
    let list = store.lock()?.list()?;
    if a.json {
        let rows: Vec<_> = list.iter().map(|p| p.summary()).collect();
        write_json(out, &rows)?;
        return Ok(0);
    }
    if list.is_empty() {
        writeln!(out, "No pending actions.")?;
    }
    for p in &list {
        writeln!(out, "{}  {}  {}  [{}]", p.id, p.created_at, p.label, p.source_tool_name)?;
    }
    Ok(0)
}

fn cmd_show(a: ShowArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = cwd()?;
    let store = store(&cwd)?;
    let Some(action) = store.lock()?.get(a.id.as_deref())? else {
        let msg = match &a.id {
            Some(id) => Error::UnknownId(id.clone()).to_string(),
            None => "No pending actions.".to_string(),
        };
        eprintln!("{msg}");
        return Ok(1);
    };
    let plan = match &action.kind {
        ActionKind::AstEdit { plan } => plan,
        ActionKind::Command { .. } => {
            let shown = ProposedCommand::of(&action).expect("a command action");
            if a.json {
                write_json(out, &shown)?;
            } else {
                writeln!(out, "{}  {}  {}  [{}]", shown.id, shown.created_at, shown.label, shown.source_tool_name)?;
                writeln!(out, "  apply:   sh -c {:?}  (in {})", shown.apply_cmd, shown.cwd.display())?;
                if let Some(r) = &shown.reject_cmd {
                    writeln!(out, "  discard: sh -c {r:?}")?;
                }
                print::how_to_resolve(out, &action.id)?;
            }
            return Ok(0);
        }
    };
    let mut details = preview::details(plan, Some(action.id.clone()), "pending");
    if a.full {
        for (shown, f) in details.files.iter_mut().zip(&plan.files) {
            if f.diff_lines_cut > 0 {
                match plan::full_diff(f) {
                    Some(d) => shown.diff = d,
                    None => eprintln!("warning: {} changed since the preview; its diff stays cut", f.path),
                }
            }
        }
    }
    if a.json {
        write_json(out, &details)?;
        return Ok(0);
    }
    let style = style(color, a.full);
    writeln!(out, "{}  {}  [{}]", action.id, action.created_at, action.source_tool_name)?;
    print::diffs(out, &details, style)?;
    print::summary(out, &details, style)?;
    print::how_to_resolve(out, &action.id)?;
    Ok(0)
}

impl ProposedCommand {
    /// The shown form of a command-backed action; `None` for other kinds.
    fn of(action: &pending::PendingAction) -> Option<Self> {
        let ActionKind::Command { apply_cmd, reject_cmd, cwd, details } = &action.kind else { return None };
        Some(ProposedCommand {
            id: action.id.clone(),
            label: action.label.clone(),
            source_tool_name: action.source_tool_name.clone(),
            created_at: action.created_at.clone(),
            apply_cmd: apply_cmd.clone(),
            reject_cmd: reject_cmd.clone(),
            cwd: cwd.clone(),
            details: details.clone(),
        })
    }
}

/// `show --json` and `propose --json` output for a command-backed action.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProposedCommand {
    id: String,
    label: String,
    source_tool_name: String,
    created_at: String,
    apply_cmd: String,
    reject_cmd: Option<String>,
    cwd: PathBuf,
    details: Option<serde_json::Value>,
}

fn cmd_propose(a: ProposeArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    if a.label.trim().is_empty() {
        return Err(Error::bad("--label must not be empty: say what the action does").into());
    }
    if a.apply_cmd.trim().is_empty() {
        return Err(Error::bad("--apply-cmd must not be empty: give the shell command that applies the action").into());
    }
    let details = match &a.details {
        None => None,
        Some(s) => Some(serde_json::from_str::<serde_json::Value>(s).map_err(|e| Error::bad(format!("--details is not valid JSON: {e}")))?),
    };
    let cwd = cwd()?;
    let store = store(&cwd)?;
    let locked = store.lock()?;
    let source = a.source.clone().unwrap_or_else(|| crate::custom::CUSTOM_TOOL.to_string());
    let action = locked.push(pending::NewAction {
        label: a.label.clone(),
        source_tool_name: source,
        files: Vec::new(),
        kind: ActionKind::Command { apply_cmd: a.apply_cmd.clone(), reject_cmd: a.reject_cmd.clone(), cwd: cwd.clone(), details },
    })?;
    if a.json {
        let shown = ProposedCommand::of(&action).expect("staged just above");
        write_json(out, &shown)?;
    } else {
        print::how_to_resolve(out, &action.id)?;
    }
    Ok(0)
}

/// `undo --json` output.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UndoResult {
    content: String,
    is_error: bool,
    details: Option<apply::UndoReport>,
}

fn cmd_undo(a: JsonFlag, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = cwd()?;
    let store = store(&cwd)?;
    let report = apply::undo(&store.lock()?)?;
    let (res, code) = match report {
        None => (
            UndoResult { content: "Nothing to undo: no applied action in the journal.".into(), is_error: true, details: None },
            1,
        ),
        Some(r) => {
            let code = if r.status == "restored" { 0 } else { 3 };
            (UndoResult { content: r.text(), is_error: false, details: Some(r) }, code)
        }
    };
    if a.json {
        write_json(out, &res)?;
    } else if res.is_error {
        eprintln!("{}", res.content);
    } else {
        writeln!(out, "{}", res.content)?;
    }
    Ok(code)
}

/// `langs --json` row.
#[derive(Serialize)]
struct LangRow {
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: Vec<String>,
}

fn cmd_langs(a: JsonFlag, out: &mut impl Write) -> anyhow::Result<i32> {
    let rows: Vec<LangRow> = lang::all()
        .into_iter()
        .map(|i| LangRow { name: i.aliases[0], aliases: i.aliases, extensions: i.extensions })
        .collect();
    if a.json {
        write_json(out, &rows)?;
        return Ok(0);
    }
    writeln!(out, "{:<12} {:<28} extensions", "language", "names")?;
    for r in rows {
        writeln!(out, "{:<12} {:<28} {}", r.name, r.aliases.join(", "), r.extensions.iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(" "))?;
    }
    Ok(0)
}
