//! The command line: clap definitions (with `--help` that teaches) and the dispatch of
//! each subcommand to its file, which turns the flags into one library call and renders
//! the result. With `--json`, stdout holds exactly one JSON value and messages go to
//! stderr; without it, diffs and results go to stdout, coloured on a terminal unless
//! `NO_COLOR` is set (docs/DESIGN.md §2.10). Which file holds which subcommand:
//! docs/ARCHITECTURE.md.

mod actions;
mod edit;
pub mod exit;
mod info;
mod inspect;
mod numbered_diff;
mod print;
mod report;
mod review;
mod rule_args;
mod search;
mod shared_args;
mod test_review;
mod tree;
pub(crate) mod words;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use ast_edit::app::error::Result;
use ast_edit::app::pending::Store;
use ast_edit::app::request::WORKER_STACK_BYTES;
use ast_edit::app::workspace::Workspace;
use print::Style;
pub use rule_args::{ScanArgs, TestArgs};
pub use shared_args::{InputArgs, OutputArgs};

const ABOUT: &str = "Structural code edits you can trust: preview a pattern rewrite across a repository, then apply or discard it.";

const LONG_ABOUT: &str = "\
Structural code edits you can trust.

ast-edit matches ast-grep patterns on tree-sitter syntax trees, previews every
change as a unified diff, and stages it as a pending action. Nothing is written
until you resolve it: `resolve apply` re-checks that every file is unchanged since
the preview, re-runs the edit, proves it equals the preview, and writes atomically;
`resolve discard` drops it.

Tour:
  ast-edit run -p 'fetch_data($$$ARGS)' -r 'load_data($$$ARGS)' fixtures  # preview + stage
  ast-edit pending                                                        # what is staged
  ast-edit resolve apply --reason 'rename fetch_data to load_data'        # write it
  ast-edit undo                                                           # put it back";

/// ast-edit command line.
#[derive(Parser, Debug)]
#[command(name = "ast-edit", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    /// When to colour output.
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The subcommand.
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
    /// Always colour, with ANSI codes (as `always`; ast-grep's name).
    Ansi,
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
    /// Apply or discard a pending action (the newest of the command line's, or --id).
    #[command(long_about = "\
Apply or discard a pending action: without --id, the newest one staged from the
command line; with --id, that one, whoever staged it (an MCP server's actions are
its session's own, and taken only by id; `ast-edit pending` lists every action
with its owner).")]
    Resolve(ResolveArgs),
    /// List pending actions of every session with their owners, newest first (--clear drops them all).
    #[command(long_about = "\
List the pending actions of every session, newest first, each with the session
that staged it (`cli` for the command line, `mcp-<6 hex>` for an MCP server, with
its client's name), and say what the store keeps (undo records, resolved ids;
pending actions expire after 30 days).

--clear drops every pending action unresolved (no reject command runs); each is
remembered as cleared, so `resolve --id` says what became of it. It asks for
confirmation on a terminal; elsewhere pass --yes.")]
    Pending(PendingArgs),
    /// Show a pending action's preview (the command line's newest, or ID).
    Show(ShowArgs),
    /// Restore the files of the command line's last apply, or --id's (only those still as apply left them).
    #[command(long_about = "\
Restore the files of the last apply made from the command line, or with --id the
last apply of that action, whoever applied it (an MCP server's applies are undone
only by id). Only files that still hold the bytes the apply wrote are put back;
an apply is refused, nothing written, while a later apply of one of its files is
in the journal (undo that one first).")]
    Undo(UndoArgs),
    /// List the supported languages, their names and extensions.
    Langs(JsonFlag),
    /// Run ast-grep rules (a project's, a rule file's or inline) in one pass per file.
    #[command(long_about = "\
Run ast-grep rules (ast-grep's YAML rule language, read by ast-grep-config
0.51.1) in one pass per file: every file is parsed once and all rules of its
language are matched on the same tree. The result is one pending action whose
label names the rules (or, with -U, applied at once). Where fixes overlap, the
same edit wins as in `ast-grep scan -U`; the others are listed (`overlapped`).
Rules without `fix` report findings, drawn with their code as ast-grep draws
them. A match of a `severity: error` rule makes the run exit 1, fix or not (with
-U, only the findings: the fixes are written).

For CI, --json, --format github|sarif, --files-with-matches and --report-style
print ast-grep's reports of every match and stage nothing (the README's section
\"A rule project in CI\" shows one); exit codes are ast-grep's.

The rules: the project of the nearest sgconfig.yml (from the working directory
up) or -c FILE, with its ruleDirs, utilDirs and languageGlobs; or one rule file
(-r FILE, YAML or JSON, rules separated by ---); or --inline-rules TEXT.

A rule (no-unwrap.yml) that rewrites .unwrap() outside `mod tests` only:
  id: no-unwrap
  language: rust
  rule:
    pattern: $X.unwrap()
    not: {inside: {kind: mod_item, has: {field: name, regex: ^tests$}, stopBy: end}}
  fix: $X.expect(\"checked\")

Examples:
  ast-edit scan                          # the nearest sgconfig.yml project
  ast-edit scan -r no-unwrap.yml src/
  ast-edit scan -c tools/sgconfig.yml --filter '^py-' -U
  ast-edit scan --format github          # GitHub annotations; nothing staged
  ast-edit scan --inline-rules 'id: p
  language: python
  rule: {pattern: print($A)}
  fix: log($A)' app/")]
    Scan(ScanArgs),
    /// Run an ast-grep project's rule tests (sgconfig.yml `testConfigs`), as `ast-grep test`.
    #[command(long_about = "\
Run the rule tests of an ast-grep project, with the verdicts of `ast-grep test`
0.51.1: the project is the nearest sgconfig.yml (from the working directory up)
or -c FILE. Each test file of `testConfigs` holds documents {id, valid, invalid}:
a valid case passes when the rule matches nothing, an invalid one when it
matches and its snapshot (labels of the first match, and `fixed`: the code with
that first match fixed) equals the one in <testDir>/__snapshots__/<id>-snapshot.yml.
-U writes the missing and differing snapshots; -i asks about each one. -t DIR
reads the tests from DIR instead of `testConfigs`; --include-off also tests the
rules of `severity: off`.

Then ast-edit's whole-file checks (sgconfig.yml `astEdit: {checkDirs: [...]}`):
each check's rules, run on `before`, must give exactly `after`.

PATH names the project by its folder or its config file, as -c does.

Exit codes (ast-grep's): 0 every test passed, 4 a
test failed, 3 no project or --filter matches no rule, 6 a config, rule or test
file or folder cannot be read, 8 one does not parse (or two rules share an id),
7 -i without a terminal, 2 bad flags.

Examples:
  ast-edit test
  ast-edit test -c queries/sgconfig.yml --filter '^py-'
  ast-edit test -U
  ast-edit test -i
  ast-edit test -t rule-tests/python --snapshot-dir snaps
  ast-edit test --include-off --json")]
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
    /// Serve the MCP tools on stdio (for coding agents).
    ///
    /// Six tools: `ast_edit` (preview and stage an edit), `resolve` (apply or discard
    /// it), `ast_pending` (list and page pending actions), `ast_undo` (undo the last
    /// apply), `ast_search` (count and locate, read-only) and `ast_tree` (the syntax tree
    /// of a snippet or pattern). The README's section "An agent over MCP" has the
    /// set-up for an agent.
    Mcp(McpArgs),
    /// Show the syntax tree of a snippet or a pattern (what a pattern matches).
    #[command(long_about = tree::LONG_ABOUT)]
    Tree(TreeArgs),
    /// Count and locate the matches of a pattern or rule (nothing is staged).
    #[command(long_about = search::LONG_ABOUT)]
    Search(SearchArgs),
    /// Print the man page or a shell's completion script, made from these flags.
    #[command(long_about = "\
Print the man page (roff) or a shell's completion script on stdout, made from the
same definitions as --help, so they never differ from the binary.

Examples:
  ast-edit generate man > /usr/local/share/man/man1/ast-edit.1
  ast-edit generate bash > ~/.local/share/bash-completion/completions/ast-edit
  ast-edit generate zsh > ~/.zfunc/_ast-edit
  ast-edit generate fish > ~/.config/fish/completions/ast-edit.fish")]
    Generate(GenerateArgs),
}

/// `generate` arguments.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// What to print.
    #[arg(value_enum)]
    pub kind: GenerateKind,
}

/// What `generate` prints.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum GenerateKind {
    /// The man page, ast-edit(1), in roff.
    Man,
    /// Bash completions.
    Bash,
    /// Zsh completions.
    Zsh,
    /// Fish completions.
    Fish,
    /// PowerShell completions.
    Powershell,
    /// Elvish completions.
    Elvish,
}

/// Prints the man page or a completion script for `kind`.
fn generate(a: GenerateArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let shell = match a.kind {
        GenerateKind::Man => {
            clap_mangen::Man::new(cmd).render(out)?;
            return Ok(0);
        }
        GenerateKind::Bash => clap_complete::Shell::Bash,
        GenerateKind::Zsh => clap_complete::Shell::Zsh,
        GenerateKind::Fish => clap_complete::Shell::Fish,
        GenerateKind::Powershell => clap_complete::Shell::PowerShell,
        GenerateKind::Elvish => clap_complete::Shell::Elvish,
    };
    clap_complete::generate(shell, &mut cmd, "ast-edit", out);
    Ok(0)
}

/// `search` flags.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// ast-grep pattern to find (repeatable: matches of every pattern are listed together).
    #[arg(short = 'p', long = "pattern", value_name = "PAT", allow_hyphen_values = true)]
    pub pattern: Vec<String>,
    /// Language of the files (name or alias); without it each file's language comes from its extension.
    #[arg(short = 'l', long = "lang", value_name = "LANG")]
    pub lang: Option<String>,
    /// Tree-sitter node kind to match inside the pattern (as ast-grep --selector).
    #[arg(long, value_name = "KIND")]
    pub selector: Option<String>,
    /// Match strictness: cst, smart (default), ast, relaxed, signature.
    #[arg(long, value_name = "S")]
    pub strictness: Option<String>,
    /// Find the matches of the rules in FILE (ast-grep rule YAML; a `fix` is ignored) instead of -p.
    #[arg(long = "rule", value_name = "FILE", conflicts_with_all = ["pattern", "inline_rules"])]
    pub rule: Option<PathBuf>,
    /// Find the matches of rules given as YAML text (`---` between rules) instead of -p.
    #[arg(long, value_name = "TEXT", conflicts_with = "pattern")]
    pub inline_rules: Option<String>,
    /// Matches listed (default 20, at most 200).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Matches skipped before the list (default 0): the next page starts where the last ended.
    #[arg(long, value_name = "N")]
    pub offset: Option<u64>,
    /// Read no stored count or page and store none (the scan cache). By
    /// default a search of rules (--rule, --inline-rules) keeps each file's
    /// count and listed matches in the state folder, under the build, the
    /// rules, the file's path and a hash of its bytes; the result is the same.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the result as one JSON value.
    #[arg(long)]
    pub json: bool,
    /// Which files to search.
    #[command(flatten)]
    pub input: InputArgs,
    /// Files or directories to search (default: .).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

/// `tree` arguments.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("input").required(true).args(["code", "file"]))]
pub struct TreeArgs {
    /// Language of the code (name or alias: py, rs, ts, c, ...); with -f, its extension says it by default.
    #[arg(short = 'l', long = "lang", value_name = "LANG")]
    pub lang: Option<String>,
    /// Parse the code as an ast-grep pattern ($A, $$$ARGS) and say what its root node is.
    #[arg(long)]
    pub pattern: bool,
    /// Show unnamed nodes too (punctuation, keywords), quoted.
    #[arg(long)]
    pub all: bool,
    /// Print the tree as one JSON value.
    #[arg(long)]
    pub json: bool,
    /// Read the code from FILE.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The code, or `-` to read it from stdin.
    #[arg(value_name = "CODE", allow_hyphen_values = true)]
    pub code: Option<String>,
}

/// `mcp` flags.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// The folder the server works in; paths outside it are refused (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Read no stored result and store none. By default the server keeps
    /// what `ast_edit` and `ast_search` compute of each file with rules
    /// (`rule` or `project`) in the workspace's state folder, as `scan`
    /// does, and `resolve` stores what its rules make of the files it
    /// wrote; the results are the same.
    #[arg(long)]
    pub no_cache: bool,
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
    /// Read the JSON request (REFERENCE.md "JSON", linked from the README's "Read next") from FILE, or stdin with `-`.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["pattern", "rewrite", "lang", "selector", "strictness", "globs", "max_files", "paths", "rewrite_nested"])]
    pub request: Option<String>,
    /// Parse every file instead of skipping those that lack the pattern's literal
    /// tokens (slower; the edits are the same, which this flag lets you check, and
    /// so are the warnings unless a match sits around a parse error).
    #[arg(long)]
    pub no_prefilter: bool,
    /// Also rewrite the matches nested inside a rewritten match (`$A.unwrap()` in
    /// `a.unwrap().b.unwrap()`), in the same preview, instead of leaving them for a
    /// second run (the outermost match wins otherwise, as in ast-grep).
    #[arg(long)]
    pub rewrite_nested: bool,
    /// Write the rewrite as ast-grep writes it (its template output) instead of
    /// the minimal rewrite, which keeps the matched code's own layout.
    #[arg(long)]
    pub verbatim: bool,
    /// Print the preview details as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Which files to search.
    #[command(flatten)]
    pub input: InputArgs,
    /// What to do with the plan.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Files or directories to search (default: .).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

/// `pending` arguments.
#[derive(Args, Debug)]
pub struct PendingArgs {
    /// Print one JSON value on stdout.
    #[arg(long)]
    pub json: bool,
    /// Drop every pending action unresolved, after confirming how many.
    #[arg(long)]
    pub clear: bool,
    /// With --clear: do not ask (needed when stdin is not a terminal).
    #[arg(long, requires = "clear")]
    pub yes: bool,
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
    /// JSON object of options. An edit's action takes only these keys:
    /// "stale": "skip" or "abort" (a file changed since the preview is left out,
    /// or nothing is written); "files": [...] and "exclude": [...] (paths,
    /// folders or globs: apply only these, or all but these); "skipFlagged":
    /// true (leave out the files the checks flagged); "allowSyntaxErrors",
    /// "allowStructureChanges", "allowTemplateMismatch": true (write flagged
    /// files of that kind); "verify": "rerun" (as --verify); "close": true (end
    /// the action with this apply: without it, the files "files", "exclude" or
    /// "skipFlagged" left out stay pending under its id). A custom action
    /// (`propose`) takes its own.
    #[arg(long, value_name = "JSON")]
    pub extra: Option<String>,
    /// How apply proves the new text: `rerun` re-runs the edit on every file
    /// (the same as extra {"verify":"rerun"}); by default the stored plan is
    /// re-used when this build staged it from the same rules.
    #[arg(long, value_name = "MODE", value_parser = ["rerun"])]
    pub verify: Option<String>,
    /// Resolve this action (any session's) instead of the command line's newest.
    #[arg(long)]
    pub id: Option<String>,
    /// Shell command consulted only when the command line has nothing pending (also AST_EDIT_STANDING_CMD).
    #[arg(long, value_name = "CMD")]
    pub standing_cmd: Option<String>,
    /// After applying an edit of rules, store nothing in the scan cache. By
    /// default what the rules make of each file written is stored, so the
    /// next scan of the same rules does not parse those files again.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the result {content, isError, details} as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `undo` arguments.
#[derive(Args, Debug)]
pub struct UndoArgs {
    /// Undo the last apply of this action (default: the command line's last apply).
    #[arg(long)]
    pub id: Option<String>,
    /// Print the result {content, isError, details} as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `show` arguments.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Action id (default: the command line's newest, else the newest of all).
    pub id: Option<String>,
    /// Print the preview details as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print every diff line in full.
    #[arg(long)]
    pub full: bool,
    /// Only the files PATH selects: a file, a folder or a glob (`*_test.py` by
    /// name, `src/**/*.py` by path), as `resolve --extra '{"files": [...]}'`
    /// takes them. Repeatable.
    #[arg(long, value_name = "PATH")]
    pub path: Vec<String>,
}

/// Opens the store of the working directory's workspace, reporting the clean-up
/// after an interrupted apply on stderr.
/// A file named on the command line (`--request FILE`, `search --rule`, `tree
/// -f`), read as text: a regular file of at most `cap` bytes, opened without
/// waiting (`ast_edit::app::files`); `what` names it in the error, and
/// `fix` says what to do about a file over the cap.
fn read_named(path: &std::path::Path, cap: usize, what: &str, fix: &str) -> Result<String> {
    ast_edit::app::files::read_capped_text(path, cap as u64).map_err(|e| named_error(path, what, &e, fix))
}

/// [`read_named`]'s open alone, for a reader that applies its own limit.
fn open_named(path: &std::path::Path, what: &str) -> Result<std::fs::File> {
    ast_edit::app::files::open_regular(path).map(|(f, _)| f).map_err(|e| named_error(path, what, &e, ""))
}

fn named_error(path: &std::path::Path, what: &str, e: &ast_edit::app::files::Unread, fix: &str) -> ast_edit::app::error::Error {
    use ast_edit::app::files::Unread;
    let tail = match e {
        Unread::TooLarge { .. } => format!(": {fix}"),
        Unread::NotRegular(_) => ": name a regular file".to_string(),
        Unread::Io(_) => String::new(),
    };
    ast_edit::app::error::Error::bad(format!("{what} {} {}{tail}", path.display(), e.reason()))
}

fn open_store() -> Result<(Workspace, Store)> {
    let ws = Workspace::current()?;
    let store = ws.store(&mut |msg| eprintln!("warning: {}", msg.render(words::WORDS)))?;
    Ok((ws, store))
}

fn style(color: ColorChoice, full: bool) -> Style {
    let on = match color {
        ColorChoice::Always | ColorChoice::Ansi => true,
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

/// A spinner on stderr while a long step runs, when stderr is a terminal.
fn spinner(msg: &'static str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner().with_message(msg);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(bar)
}

/// `err` and its causes as `a: b: c` (as anyhow's `{:#}` shows them), each
/// library error in the CLI's words.
pub fn worded_chain(err: &anyhow::Error) -> String {
    let parts: Vec<String> = err.chain().map(|c| c.downcast_ref::<ast_edit::Error>().map_or_else(|| c.to_string(), words::error)).collect();
    parts.join(": ")
}

/// Runs the CLI; returns the exit code. Output errors (a closed pipe) surface as
/// `io::Error` for `main` to treat. `ast-edit mcp` runs `serve_mcp` on the root
/// folder: the binary passes the MCP server's `serve` (the two front ends never
/// import each other; tests/it/layers.rs).
pub fn run(cli: Cli, out: &mut impl Write, serve_mcp: impl FnOnce(&std::path::Path, bool) -> anyhow::Result<()>) -> anyhow::Result<i32> {
    // Every command that matches files does so on rayon's pool: its threads
    // get the stack one file's matching may use (`-j` sizes it).
    let threads = match &cli.command {
        Command::Run(a) => a.input.threads,
        Command::Scan(a) => a.input.threads,
        Command::Search(a) => a.input.threads,
        _ => 0,
    };
    if !matches!(cli.command, Command::Mcp(_)) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK_BYTES)
            .build_global()
            .map_err(|e| anyhow::anyhow!("cannot start {threads} threads (-j): {e}"))?;
    }
    match cli.command {
        Command::Run(a) => edit::run(a, cli.color, out),
        Command::Scan(a) => edit::scan(a, cli.color, out),
        Command::Resolve(a) => actions::resolve(a, out),
        Command::Pending(a) => actions::pending(a, out),
        Command::Show(a) => actions::show(a, cli.color, out),
        Command::Undo(a) => actions::undo(a, out),
        Command::Propose(a) => actions::propose(a, out),
        Command::Langs(a) => info::langs(a, out),
        Command::Test(a) => info::test(a, cli.color, out),
        Command::Tree(a) => tree::tree(a, out),
        Command::Search(a) => search::search(a, out),
        Command::Generate(a) => generate(a, out),
        Command::Mcp(a) => {
            let root = match a.root {
                Some(r) => r,
                None => ast_edit::app::files::current_dir()?,
            };
            serve_mcp(&root, !a.no_cache)?;
            Ok(0)
        }
    }
}
