//! The flags of the commands that run ast-grep projects, `scan` and `test`
//! (their reports, severity overrides, custom languages and rule tests), kept
//! apart from the other commands' flags in mod.rs.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{InputArgs, OutputArgs, report};

/// `--custom-languages`: what to do with a project's `customLanguages` (native
/// tree-sitter libraries named by its sgconfig.yml).
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum CustomLanguages {
    /// Ignore them with a warning; their rules are refused (ast-grep's default).
    #[default]
    Ignore,
    /// Load them: refused, ast-edit never loads a library from a project.
    Allow,
}

impl CustomLanguages {
    /// Refuses `allow` for a project that has custom languages.
    pub(super) fn check(self, p: &ast_edit::app::project::Project) -> ast_edit::app::error::Result<()> {
        if self == CustomLanguages::Allow && !p.custom_languages.is_empty() {
            return Err(ast_edit::app::error::Error::bad(format!(
                "--custom-languages allow: ast-edit cannot load the custom languages of {} ({}): it runs rules on its built-in languages only and never loads a native library from a project; run this project with ast-grep, or drop the flag to ignore them",
                p.config_file.display(),
                p.custom_languages.join(", ")
            )));
        }
        Ok(())
    }
}

/// `scan` flags.
#[derive(Args, Debug)]
pub struct ScanArgs {
    /// The project's config file (default: the nearest sgconfig.yml or
    /// sgconfig.yaml, from the working directory up). Its `ruleDirs` give the rules.
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run the rules of one rule file instead of a project's (YAML or JSON, one or
    /// more documents separated by `---`). `--rules` is an old name of this flag.
    #[arg(short = 'r', long = "rule", visible_alias = "rules", value_name = "FILE", conflicts_with = "config")]
    pub rule: Option<PathBuf>,
    /// Run the rules given as YAML text (`---` between rules) instead of a project's.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["rule", "config"])]
    pub inline_rules: Option<String>,
    /// Only the rules whose id matches REGEX (matching no rule is an error).
    #[arg(long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// The project's `customLanguages`: `ignore` them with a warning (the
    /// default, as ast-grep), or `allow`, which ast-edit refuses: it never loads
    /// a native library from a project.
    #[arg(long, value_name = "POLICY", default_value = "ignore")]
    pub custom_languages: CustomLanguages,
    /// Also rewrite the matches nested inside a rewritten match, in the same preview.
    #[arg(long)]
    pub rewrite_nested: bool,
    /// Write the rewrite as ast-grep writes it (its template output) instead of
    /// the minimal rewrite, which keeps the matched code's own layout.
    #[arg(long)]
    pub verbatim: bool,
    /// Print every match of every rule as JSON records, as `ast-grep scan --json`
    /// does (`pretty`: one array, the default; `stream`: one object per line;
    /// `compact`: one array on one line). A report: nothing is staged. With
    /// -U, as ast-grep: the same records, nothing written, and a match of a
    /// rule with a fix fails nothing.
    #[arg(long, value_name = "STYLE", num_args = 0..=1, require_equals = true, default_missing_value = "pretty",
          conflicts_with_all = ["interactive", "preview_json"])]
    pub json: Option<report::JsonStyle>,
    /// With --json: add each rule's `metadata` to its records.
    #[arg(long, requires = "json")]
    pub include_metadata: bool,
    /// Print every match for a CI service: `github` (workflow annotations) or
    /// `sarif` (SARIF 2.1.0, for code-scanning upload). A report: nothing is
    /// staged (with -U too, as --json).
    #[arg(long, value_name = "FORMAT", conflicts_with_all = ["json", "interactive", "preview_json"])]
    pub format: Option<report::Format>,
    /// Print the path of each file with a match, once. A report: nothing is staged.
    #[arg(long, conflicts_with_all = ["json", "format", "update_all", "interactive", "preview_json"])]
    pub files_with_matches: bool,
    /// Print every match as `ast-grep scan` does, each fix as a diff under its
    /// rule's severity and message (`rich`: code frames, labels and notes;
    /// `medium`: a line and the note; `short`: a line). A report: nothing is
    /// staged. Without it (and the other reports), `scan` previews and stages the
    /// fixes.
    #[arg(long, value_name = "STYLE", conflicts_with_all = ["json", "format", "files_with_matches", "update_all", "interactive", "preview_json"])]
    pub report_style: Option<report::ReportStyle>,
    /// With a report: show the first NUM matches (in path order, then by
    /// position), count only those for the exit code, and stop there.
    #[arg(long, value_name = "NUM", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_results: Option<u16>,
    /// With --report-style: lines of code shown after each match.
    #[arg(short = 'A', long = "after", value_name = "NUM", requires = "report_style", conflicts_with = "context")]
    pub after: Option<u16>,
    /// With --report-style: lines of code shown before each match.
    #[arg(short = 'B', long = "before", value_name = "NUM", requires = "report_style", conflicts_with = "context")]
    pub before: Option<u16>,
    /// Run every rule as `severity: error` (`--error`), or the rule RULE_ID
    /// (`--error=RULE_ID`, repeatable). As ast-grep; the same for --warning,
    /// --info, --hint and --off (which sets rules aside). An id named wins over
    /// every rule; for one id, the last of error, warning, info, hint, off wins.
    #[arg(long, value_name = "RULE_ID", num_args = 0.., require_equals = true, action = clap::ArgAction::Append)]
    pub error: Option<Vec<String>>,
    /// Run every rule, or the rule RULE_ID, as `severity: warning` (see --error).
    #[arg(long, value_name = "RULE_ID", num_args = 0.., require_equals = true, action = clap::ArgAction::Append)]
    pub warning: Option<Vec<String>>,
    /// Run every rule, or the rule RULE_ID, as `severity: info` (see --error).
    #[arg(long, value_name = "RULE_ID", num_args = 0.., require_equals = true, action = clap::ArgAction::Append)]
    pub info: Option<Vec<String>>,
    /// Run every rule, or the rule RULE_ID, as `severity: hint` (see --error).
    #[arg(long, value_name = "RULE_ID", num_args = 0.., require_equals = true, action = clap::ArgAction::Append)]
    pub hint: Option<Vec<String>>,
    /// Set every rule, or the rule RULE_ID, aside (`severity: off`; see --error).
    #[arg(long, value_name = "RULE_ID", num_args = 0.., require_equals = true, action = clap::ArgAction::Append)]
    pub off: Option<Vec<String>>,
    /// Set aside the rules whose severity (after the flags above) is below
    /// SEVERITY: hint, info, warning or error.
    #[arg(long, value_name = "SEVERITY")]
    pub min_severity: Option<String>,
    /// Scan the code on standard input instead of files, as the language of
    /// the first rule (give the rules with -r or --inline-rules); matches are
    /// shown under the name STDIN. A report (--report-style rich unless another
    /// report flag is given): nothing is staged or written.
    #[arg(long, conflicts_with_all = ["update_all", "interactive", "preview_json", "paths", "config"])]
    pub stdin: bool,
    /// Print the preview details (what `run --json` prints) as JSON: the fixes
    /// as diffs, and the findings; stages the fixes as a pending action (with
    /// -U: applies them).
    #[arg(long, conflicts_with = "interactive")]
    pub preview_json: bool,
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

/// `test` arguments.
#[derive(Args, Debug)]
pub struct TestArgs {
    /// The project's config file (default: the nearest sgconfig.yml or
    /// sgconfig.yaml, from the working directory up).
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The project's `customLanguages`: `ignore` (default) or `allow`, which
    /// ast-edit refuses (see `scan --help`).
    #[arg(long, value_name = "POLICY", default_value = "ignore")]
    pub custom_languages: CustomLanguages,
    /// Only the rules and tests whose id matches REGEX (matching no rule is an error).
    #[arg(short = 'f', long, value_name = "REGEX")]
    pub filter: Option<String>,
    /// Write the snapshot of every case whose snapshot differs or is missing.
    #[arg(short = 'U', long = "update-all", conflicts_with = "skip_snapshot_tests")]
    pub update_all: bool,
    /// Review each failing case in the terminal: accept or skip each new
    /// snapshot (y = yes, n = no, a = this and all the rest, q = stop; Enter
    /// goes on past a case with no snapshot to take). The accepted snapshots
    /// are written. Needs a terminal on stdin; wins over -U, as in ast-grep.
    #[arg(short = 'i', long, conflicts_with = "json")]
    pub interactive: bool,
    /// Judge invalid cases by "the rule matches" alone, without snapshots.
    #[arg(long)]
    pub skip_snapshot_tests: bool,
    /// Read the test files from DIR (relative to the working directory)
    /// instead of the project's `testConfigs`; the rules are still the project's.
    #[arg(short = 't', long = "test-dir", value_name = "DIR")]
    pub test_dir: Option<PathBuf>,
    /// The snapshot folder of --test-dir, relative to it (default
    /// __snapshots__). Without --test-dir it is ignored, with a warning, as
    /// ast-grep ignores it.
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,
    /// Also run the tests of the rules with `severity: off`.
    #[arg(long)]
    pub include_off: bool,
    /// Follow symbolic links while walking the test folders.
    #[arg(long)]
    pub follow: bool,
    /// Read no stored case result and store none (the scan cache). By
    /// default whether a rule matches a case, or the snapshot it gives, is
    /// kept in the state folder under the build, the rule (with the
    /// project's utilities) and a hash of the case's code; the verdicts are
    /// the same.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the results as one JSON value on stdout.
    #[arg(long)]
    pub json: bool,
    /// The project: a folder holding sgconfig.yml, or the config file (as -c).
    #[arg(value_name = "DIR|FILE")]
    pub dir: Option<PathBuf>,
}
