//! The one validated request type shared by the CLI and (later) the MCP server.
//!
//! Built in two stages, as ripgrep builds its flags: a [`RawRequest`] is what a user
//! typed (CLI flags or the JSON of docs/DESIGN.md section 2.1, unknown keys refused), and
//! [`RawRequest::validate`] turns it into a [`Request`] or a bad-input error that says
//! what to fix. Pattern compilation needs the languages of the files, so it happens
//! later in `compile` (per language), still before anything is staged or written.

pub mod lang;
pub mod read;
pub mod rule;
pub mod ruleset;
pub(crate) mod walk;

use std::path::Path;

use ast_grep_core::MatchStrictness;
use ast_grep_language::SupportLang;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::error::{Error, Result};
use crate::shared::message::{Say, Text};

/// Default cap on the size of a file the engine will read (bytes).
pub const DEFAULT_MAX_FILESIZE: u64 = 16 * 1024 * 1024;

// Limits on what one request may ask for (docs/DESIGN.md section 7). Past any of
// them the request is refused as bad input before any file is read or any pattern
// parsed, with a message naming the limit and its value. Each one bounds a way a
// request alone could exhaust the machine: the time and memory of compiling its
// ops, or the stack depth of ast-grep-core's recursive pattern code.

/// Most bytes of JSON in a request (`run --request`, [`RawRequest::from_json`]).
pub const MAX_REQUEST_JSON_BYTES: usize = 4 * 1024 * 1024;
/// Most ops in one request, and most rule configs in a request's `rule`: every
/// op is compiled for every language it may meet.
pub const MAX_OPS: usize = 1000;
/// Most bytes of one pattern (`pat`).
pub const MAX_PATTERN_BYTES: usize = 64 * 1024;
/// Most bytes of one rewrite (`out`).
pub const MAX_REWRITE_BYTES: usize = 64 * 1024;
/// Most bytes of all patterns and rewrites of a request together. Compile time
/// and memory grow with them, per language met: four patterns at
/// [`MAX_PATTERN_BYTES`] compile in about 4 s and 70-80 MB for the six languages
/// of `fixtures/` (a release build; 1 MiB of them took 15 s and 207 MB).
pub const MAX_OPS_BYTES: usize = 256 * 1024;
/// Deepest nesting of brackets (`(`, `[`, `{`) in one pattern or rewrite.
/// ast-grep-core turns a pattern's syntax tree into its matcher, and matches it,
/// by recursion, so a deep pattern overflows the stack; the syntax tree's depth
/// is checked too, per language ([`MAX_PATTERN_DEPTH`]).
pub const MAX_NESTING: usize = 64;
/// Most globs in a request: `globs` (`-g`) plus, in a scan, every rule's `globs`.
pub const MAX_GLOBS: usize = 1000;

/// Deepest syntax tree of a pattern, in levels below the root (docs/DESIGN.md
/// section 7). ast-grep-core turns the tree into its matcher by recursion
/// (`convert_node_to_pattern`), and its matcher, its variable listing and our
/// prefilter recurse over the result: about 600 bytes of stack per level in a
/// release build, 2.4 KB in a debug one, measured with `ulimit -s`. 256 levels keep
/// that under 650 KB, far inside the 4 MiB one file's matching may use
/// (`engine::budget`) on threads of [`WORKER_STACK_BYTES`]. Bracket nesting is refused earlier, without parsing
/// ([`MAX_NESTING`]); this catches the depth that needs no
/// brackets (`1 + 1 + ... + 1`, `a.b.c...`).
pub const MAX_PATTERN_DEPTH: usize = 256;

/// Pattern `pat` parsed as ast-grep-core parses it for `lang` (tree-sitter
/// parses without recursion), and the depth of its syntax tree (measured
/// without recursion): what [`MAX_PATTERN_DEPTH`] is checked on before
/// anything turns the tree into a matcher.
pub(crate) fn parse_pattern(pat: &str, lang: SupportLang) -> (ast_grep_core::AstGrep<ast_grep_core::tree_sitter::StrDoc<SupportLang>>, usize) {
    use ast_grep_core::tree_sitter::LanguageExt;
    let processed = ast_grep_core::Language::pre_process_pattern(&lang, pat);
    let snippet = lang.ast_grep(processed.as_ref());
    let depth = crate::shared::nodes::tree_depth(snippet.root().get_inner_node(), usize::MAX);
    (snippet, depth)
}

/// The deepest nesting of brackets in `text`: how many of `(`, `[`, `{` are open
/// at once at most (a closer without its opener counts for nothing).
pub(crate) fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The limits one op must keep ([`MAX_PATTERN_BYTES`], [`MAX_REWRITE_BYTES`],
/// [`MAX_NESTING`]): `Err((field, message))` names the field at fault (`pat` or
/// `out`), the limit and its value. Checked by [`RawRequest::validate`], and by
/// `compile::compile_op` before it parses anything, so rule files keep them too.
pub(crate) fn check_op_limits(index: usize, op: &Op) -> std::result::Result<(), (&'static str, String)> {
    let fields = [
        ("pat", "pattern", &op.pat, MAX_PATTERN_BYTES, "match a smaller piece of code ($$$ matches any run of nodes)"),
        ("out", "rewrite", &op.out, MAX_REWRITE_BYTES, "write a shorter rewrite, or split the edit"),
    ];
    for (field, what, text, _, _) in fields {
        let depth = bracket_depth(text);
        if depth > MAX_NESTING {
            return Err((
                field,
                format!(
                    "ops[{index}].{field} nests brackets {depth} deep; the limit is {MAX_NESTING} per {what}: let a metavariable ($A) stand for the inner levels"
                ),
            ));
        }
    }
    for (field, what, text, max, fix) in fields {
        if text.len() > max {
            return Err((field, format!("ops[{index}].{field} is {} bytes; the limit is {max} bytes per {what}: {fix}", text.len())));
        }
    }
    Ok(())
}

/// The limits on a request's totals: `ops` ops ([`MAX_OPS`]) whose patterns and
/// rewrites are `bytes` bytes together ([`MAX_OPS_BYTES`]), and `globs` globs
/// ([`MAX_GLOBS`]). `Err` names the field at fault (`ops` or `globs`) and holds
/// the message naming the limit broken.
pub(crate) fn check_totals(ops: usize, bytes: usize, globs: usize) -> std::result::Result<(), (&'static str, String)> {
    if ops > MAX_OPS {
        return Err(("ops", too_many_ops(ops)));
    }
    if bytes > MAX_OPS_BYTES {
        return Err(("ops", too_many_op_bytes(bytes)));
    }
    if globs > MAX_GLOBS {
        return Err(("globs", too_many_globs(globs)));
    }
    Ok(())
}

/// The message for too many ops.
fn too_many_ops(n: usize) -> String {
    format!("too many ops: {n}; the limit is {MAX_OPS} ops per request: split the edit into several runs")
}

/// The message for too many bytes of patterns and rewrites.
fn too_many_op_bytes(n: usize) -> String {
    format!("the patterns and rewrites are {n} bytes together; the limit is {MAX_OPS_BYTES} bytes per request: split the edit into several runs")
}

/// The message for too many globs.
fn too_many_globs(n: usize) -> String {
    format!("too many globs: {n}; the limit is {MAX_GLOBS} globs per request: merge them (`*.{{js,ts}}`, `src/**`) or narrow the paths")
}

/// One pattern -> rewrite pair.
// Its doc comments are for Rust readers; the `schemars` descriptions are the texts
// of the MCP input schema of `ast_edit` (`ast_edit_input` in the binary's
// src/mcp/schema.rs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Op {
    /// ast-grep pattern (`$A`, `$$$ARGS`, `$_`).
    #[schemars(description = "ast-grep pattern: $A one node, $$$ARGS zero or more, $_ one uncaptured. Example: self.assertEquals($A, $B)")]
    pub pat: String,
    /// Rewrite template; may use the pattern's metavariables. Empty deletes the match.
    #[schemars(description = "Rewrite; may use the pattern's metavariables. Empty deletes the match. Example: self.assertEqual($A, $B)")]
    pub out: String,
}

/// A request as typed: the JSON of docs/DESIGN.md section 2.1, or the same built from flags.
///
/// It is also the input schema of the MCP tool `ast_edit` (`ast_edit_input_schema`
/// in the binary's src/mcp/tools.rs). The doc comments are for Rust readers; the
/// `schemars` attributes hold the schema's texts and what serde cannot say. `ops`
/// is required and non-empty there, although serde defaults it: a missing or empty
/// `ops` then gets the message of [`RawRequest::validate`] rather than a serde
/// error. The `enum` of `strictness` lists the names [`Strictness::parse`] accepts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawRequest {
    /// Pattern -> rewrite pairs applied in one pass.
    #[serde(default)]
    #[schemars(length(min = 1), description = "Pattern -> rewrite pairs, applied in one pass. At least one (or give `rule`).")]
    pub ops: Vec<Op>,
    /// Instead of `ops`: ast-grep rule configs (a YAML string, an object, or an
    /// array of objects), read by `request::ruleset::parse_input`.
    #[serde(default)]
    #[schemars(
        with = "Option<String>",
        description = "Instead of ops: ast-grep rule config(s), YAML text (--- between rules) or a JSON object/array. `lang` fills a missing language."
    )]
    pub rule: Option<serde_json::Value>,
    /// Rewrite the matches nested inside a rewritten match too (docs/DESIGN.md
    /// section 2.5), instead of leaving them for a second run.
    #[serde(default)]
    #[schemars(description = "Also rewrite matches nested in a rewritten match (default false: outermost wins).")]
    pub rewrite_nested: Option<bool>,
    /// Write the template output as ast-grep writes it, instead of the minimal
    /// rewrite that keeps the matched code's layout (docs/DESIGN.md section 2.5.9).
    #[serde(default)]
    #[schemars(description = "Write ast-grep's output as is (no minimal edit).")]
    pub verbatim: Option<bool>,
    /// Files or directories, relative to the working directory (default `["."]`).
    #[serde(default)]
    #[schemars(description = "Files or folders inside the root (default [\".\"]).")]
    pub paths: Vec<String>,
    /// Language name or alias; absent: inferred per file from its extension.
    #[serde(default)]
    #[schemars(description = "Language or alias (py, rs, ts, tsx, js, c, cpp, go, java, ...); default: by file extension.")]
    pub lang: Option<String>,
    /// Tree-sitter node kind to match inside the pattern (ast-grep `--selector`).
    #[serde(default)]
    #[schemars(description = "Node kind to match inside the pattern, e.g. call_expression (ast_tree shows the kinds).")]
    pub selector: Option<String>,
    /// `cst`, `smart` (default), `ast`, `relaxed`, `signature`.
    #[serde(default)]
    #[schemars(
        extend("enum" = ["cst", "smart", "ast", "relaxed", "signature"]),
        description = "cst: every node; smart (default): skips unnamed nodes in the code; ast: named only; relaxed: also skips comments; signature: kinds only."
    )]
    pub strictness: Option<String>,
    /// Include/exclude globs (`!` excludes), as ripgrep `-g`.
    #[serde(default)]
    #[schemars(description = "Include/exclude globs from the root (`!` excludes; no `/`: any folder), e.g. [\"*.py\", \"!tests/**\"].")]
    pub globs: Vec<String>,
    /// Cap on files searched; reaching it is reported.
    #[serde(default)]
    #[schemars(range(min = 1), description = "Search at most this many files (in path order); reaching it is reported.")]
    pub max_files: Option<u64>,
    /// Lines of context around each change in the diffs (default 3, at most
    /// [`crate::request::MAX_CONTEXT_LINES`]).
    #[serde(default)]
    #[schemars(range(max = 10), description = "Diff context lines, 0 to 10 (default 3).")]
    pub context_lines: Option<u64>,
    /// Instead of `ops` or `rule`: the path of an ast-grep project's config
    /// file (`sgconfig.yml`), of a folder holding one, or of one rule file,
    /// whose rules run as `scan` runs them. Loaded by the front end through
    /// `crate::app::project_rules` ([`RawRequest::validate`] refuses it).
    #[serde(default)]
    #[schemars(description = "Instead of ops/rule: an ast-grep project's sgconfig.yml, its folder (\".\": the root's), or a rule file.")]
    pub project: Option<String>,
    /// With `project`: a regular expression; only the rules whose id it
    /// matches run (as `scan --filter`).
    #[serde(default)]
    #[schemars(description = "With project: rule ids to run (regex).")]
    pub filter: Option<String>,
}

/// How the walk treats ignore files, hidden files and links (CLI flags, as
/// ripgrep's and ast-grep's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// Search hidden files and folders too.
    pub hidden: bool,
    /// Do not respect any ignore file (`.gitignore`, `.ignore`, git's
    /// exclude and global files, those of parent folders).
    pub no_ignore: bool,
    /// The kinds of ignore files left unread one at a time (`--no-ignore
    /// dot|vcs|exclude|global|parent`).
    pub ignore_off: IgnoreOff,
    /// Search hidden files (`.eslintrc.js`) but not hidden folders, as
    /// `ast-grep scan` does.
    pub hidden_files: bool,
    /// Respect `.gitignore` files only inside a git repository (ripgrep's and
    /// ast-grep's rule, the default); `false` counts them everywhere.
    pub require_git: bool,
    /// Follow symbolic links to folders and files (`--follow`); a file reached
    /// through a link is read and written at its real path.
    pub follow: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions { hidden: false, no_ignore: false, ignore_off: IgnoreOff::default(), hidden_files: false, require_git: true, follow: false }
    }
}

/// One kind a walk may leave unread: ast-grep's `--no-ignore KIND` and a
/// project's `noIgnore` entries (ast-grep's `IgnoreFile`); `hidden` walks
/// hidden files and folders.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum IgnoreKind {
    /// Hidden files and folders are walked.
    Hidden,
    /// `.ignore` files.
    Dot,
    /// The repository's `.git/info/exclude`.
    Exclude,
    /// Git's global excludes file (`core.excludesFile`).
    Global,
    /// The ignore files of the folders above each root.
    Parent,
    /// `.gitignore` files (and git's exclude and global files).
    Vcs,
}

impl WalkOptions {
    /// This walk with `kind` left unread too.
    pub fn leave_unread(&mut self, kind: IgnoreKind) {
        let o = &mut self.ignore_off;
        match kind {
            IgnoreKind::Hidden => self.hidden = true,
            IgnoreKind::Dot => o.dot = true,
            IgnoreKind::Exclude => o.exclude = true,
            IgnoreKind::Global => o.global = true,
            IgnoreKind::Parent => o.parent = true,
            IgnoreKind::Vcs => o.vcs = true,
        }
    }
}

/// Kinds of ignore files a walk leaves unread (ast-grep's and ripgrep's
/// `--no-ignore` kinds), each on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IgnoreOff {
    /// `.ignore` files.
    pub dot: bool,
    /// Version control ignore files: `.gitignore`, git's exclude and global
    /// files, in every folder.
    pub vcs: bool,
    /// The repository's `.git/info/exclude`.
    pub exclude: bool,
    /// Git's global excludes file (`core.excludesFile`).
    pub global: bool,
    /// The ignore files of the folders above each root.
    pub parent: bool,
}

impl IgnoreOff {
    /// True when some kind is left unread.
    pub fn any(&self) -> bool {
        self.dot || self.vcs || self.exclude || self.global || self.parent
    }
}

/// Match strictness, as ast-grep's `--strictness`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strictness {
    /// Every node, including trivia, must match.
    Cst,
    /// Unnamed nodes in the code may be skipped (default).
    #[default]
    Smart,
    /// Only named nodes are compared.
    Ast,
    /// Named nodes, ignoring comments.
    Relaxed,
    /// Named nodes' kinds only, ignoring text.
    Signature,
}

impl Strictness {
    /// Parses a strictness name.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "cst" => Strictness::Cst,
            "smart" => Strictness::Smart,
            "ast" => Strictness::Ast,
            "relaxed" => Strictness::Relaxed,
            "signature" => Strictness::Signature,
            _ => {
                return Err(Error::bad(format!("unknown strictness `{s}`; use one of: cst, smart, ast, relaxed, signature")));
            }
        })
    }

    /// The ast-grep-core value.
    pub(crate) fn to_core(self) -> MatchStrictness {
        match self {
            Strictness::Cst => MatchStrictness::Cst,
            Strictness::Smart => MatchStrictness::Smart,
            Strictness::Ast => MatchStrictness::Ast,
            Strictness::Relaxed => MatchStrictness::Relaxed,
            Strictness::Signature => MatchStrictness::Signature,
        }
    }
}

/// A checked request. Everything in it has been validated except the patterns
/// themselves, which are compiled per language (the `compile` module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// At least one op, no duplicate patterns.
    pub ops: Vec<Op>,
    /// Paths as given (relative to the working directory), each existing.
    pub paths: Vec<String>,
    /// Forced language, or `None` to infer per file ([`Request::lang`]).
    pub(crate) lang: Option<SupportLang>,
    /// Selector node kind.
    pub selector: Option<String>,
    /// Strictness.
    pub strictness: Strictness,
    /// Include/exclude globs.
    pub globs: Vec<String>,
    /// Cap on files searched.
    pub max_files: Option<usize>,
    /// Walk options.
    pub walk: WalkOptions,
    /// Files larger than this are skipped with a reason.
    pub max_filesize: u64,
    /// Parse every file, without the literal prefilter (to check the prefilter).
    pub no_prefilter: bool,
    /// The request's rules instead of ops (`rule`, `scan` of rule files): ast-grep
    /// rule configs. `ops` is then empty.
    pub rule_set: Option<crate::request::ruleset::RuleSet>,
    /// Rewrite matches nested inside a rewritten match in the same preview.
    pub rewrite_nested: bool,
    /// Write ast-grep's template output as is rather than the minimal rewrite
    /// (docs/DESIGN.md section 2.5.9).
    pub verbatim: bool,
    /// Lines of context around each change in the diffs ([`crate::request::CONTEXT`]
    /// unless asked; stored only when it differs).
    pub context_lines: usize,
    /// The request's time limit, if it has one (`engine::budget`): the MCP
    /// server's; the CLI's only when asked. Not stored: an apply re-runs
    /// without one.
    pub time_limit: Option<std::time::Duration>,
    /// The most steps matching one file may take (`engine::budget`): past
    /// them the file is skipped with the reason ([`MAX_FILE_STEPS`] unless
    /// asked; stored only when it differs).
    pub max_steps: u64,
}

/// Most steps (node visits, a sibling passed over, a child listed, 64 bytes
/// of a node's text read) matching
/// one file may take, by default ([`Request::max_steps`]; the CLI's
/// `--max-steps`). No file of the Linux kernel, Django, sympy or tokio comes
/// within a tenth of it with any rule of `queries/` or
/// `benches/scan-project/` (`benches/results/work_margin.md`), and a public
/// rule project's heaviest file (a quadratic relational rule on 10,000 lines
/// of C) needs a sixth of it; at the slowest step measured it is about a
/// minute of work.
pub const MAX_FILE_STEPS: u64 = 1 << 30;

/// The rule id of op `i` of an ad-hoc request (`ops[i]`): `op-N`, as the
/// rule config it becomes, its findings and its dropped matches name it.
pub(crate) fn op_id(i: usize) -> String {
    format!("op-{i}")
}

/// The stack of each thread that matches files: one file's matching may use
/// 4 MiB of it (`engine::budget`; docs/DESIGN.md section 7), the rest is room
/// for the engine's own work around it. Only the pages a thread touches
/// become memory; the rest is address space. The front ends build their
/// worker threads with it.
pub const WORKER_STACK_BYTES: usize = 64 << 20;

/// The time limit of a request whose client waits for the answer (a server's;
/// [`Request::time_limit`]): past it, the files not done are skipped with the
/// reason.
pub const SERVED_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Lines of context around each hunk, by default (`contextLines` / `-C` change it).
pub const CONTEXT: usize = 3;

/// Most lines of context a request may ask for (`contextLines`, `-C`): more
/// makes every preview longer without showing anything an editor would not.
pub const MAX_CONTEXT_LINES: usize = 10;

/// Refuses a context above [`MAX_CONTEXT_LINES`], naming the limit and the
/// field (`contextLines` in JSON, `-C` on the command line).
pub fn check_context(lines: u64, field: &str) -> Result<usize> {
    if lines > MAX_CONTEXT_LINES as u64 {
        return Err(Error::bad(format!(
            "{field} is {lines}; the limit is {MAX_CONTEXT_LINES} context lines: give 0 to {MAX_CONTEXT_LINES} (default {CONTEXT})"
        )));
    }
    Ok(lines as usize)
}

impl Request {
    /// The rule id of each op or rule, by index: a rule config's `id`, the rule
    /// of a rule file's op, or `op-N`.
    pub fn rule_names(&self) -> Vec<String> {
        if let Some(set) = &self.rule_set {
            return set
                .rules
                .iter()
                .enumerate()
                .map(|(i, r)| match r.id() {
                    "" => format!("rule-{i}"),
                    id => id.to_string(),
                })
                .collect();
        }
        (0..self.ops.len()).map(op_id).collect()
    }

    /// The forced language, or `None` when it is inferred per file.
    pub fn lang(&self) -> Option<lang::Lang> {
        self.lang.map(lang::Lang::of)
    }

    /// The same request with the time limit `limit` ([`Request::time_limit`]).
    pub fn with_time_limit(self, limit: std::time::Duration) -> Request {
        Request { time_limit: Some(limit), ..self }
    }

    /// The severity of rule `i` (a rule config's, default `hint` as in ast-grep).
    pub fn severity(&self, i: usize) -> String {
        self.rule_set
            .as_ref()
            .and_then(|s| s.rules.get(i))
            .and_then(|r| serde_json::to_value(&r.config().severity).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "hint".to_string())
    }

    /// The limits of docs/DESIGN.md section 7 that a request must keep
    /// ([`MAX_OPS`], [`MAX_OPS_BYTES`], [`MAX_GLOBS`] and the per-op ones of
    /// [`check_op_limits`]). [`RawRequest::validate`] checks them on what a user
    /// typed; `plan::build_with` checks them again on every request, which covers
    /// the requests that rule files build (`rules::request`).
    pub(crate) fn check_limits(&self) -> Result<()> {
        let bytes: usize = self.ops.iter().map(|o| o.pat.len() + o.out.len()).sum();
        check_totals(self.ops.len(), bytes, self.globs.len()).map_err(|(_, msg)| Error::bad(msg))?;
        for (i, op) in self.ops.iter().enumerate() {
            check_op_limits(i, op).map_err(|(_, msg)| Error::bad(msg))?;
        }
        Ok(())
    }
}

impl RawRequest {
    /// Parses the JSON request (docs/DESIGN.md section 2.1). Unknown keys are refused.
    pub fn from_json(text: &str) -> Result<Self> {
        if text.len() > MAX_REQUEST_JSON_BYTES {
            return Err(Error::bad(format!(
                "the request JSON is too large: the limit is {MAX_REQUEST_JSON_BYTES} bytes per request; split the edit into several requests"
            )));
        }
        serde_json::from_str(text).map_err(|e| {
            Error::bad(format!(
                "invalid request JSON: {e}. Expected an object like {{\"ops\":[{{\"pat\":\"foo($A)\",\"out\":\"bar($A)\"}}],\"paths\":[\"src\"]}}"
            ))
        })
    }

    /// Stage two: check every field, resolve `paths` against `cwd`. A message
    /// leaves a clause only a front end can word ([`Say`]) to the one that shows it.
    pub fn validate(mut self, cwd: &Path, walk: WalkOptions, max_filesize: u64) -> Result<Request> {
        if self.project.is_some() {
            return Err(Error::bad("`project` names rule files, which `ast_edit::app::project_rules::validate` loads: check the request there"));
        }
        if self.filter.is_some() {
            return Err(Error::bad("`filter` picks rules of a `project` by id: give `project` too, or leave `filter` out"));
        }
        if let Some(rule) = &self.rule {
            if !self.ops.is_empty() {
                return Err(Error::bad("give either `ops` or `rule`, not both: a rule config carries its own pattern and fix"));
            }
            if self.selector.is_some() || self.strictness.is_some() {
                return Err(Error::bad(
                    "`selector` and `strictness` apply to `ops` only: inside a rule, write `pattern: {context: ..., selector: KIND, strictness: ...}`",
                ));
            }
            let lang = self.lang.as_deref().map(lang::parse_lang).transpose()?;
            let rules = crate::request::ruleset::parse_input(rule, lang)?;
            let set = || {
                let rules = crate::request::ruleset::typed(rules)?;
                Ok(crate::request::ruleset::RuleSet { rules, utils: Vec::new(), base: None, language_globs: Vec::new(), language_injections: Vec::new() })
            };
            return RawRequest { rule: None, ..self }.validate_rules(set, cwd, walk, max_filesize);
        }
        if self.ops.is_empty() {
            return Err(Error::bad(Text::from("no ops given: pass at least one pattern and rewrite (").say(Say::HowToGiveOps).lit("), or a `rule`")));
        }
        // The counts first (what follows costs time per op), then each op, then
        // the bytes of all ops, so that one op too large is named as such.
        check_totals(self.ops.len(), 0, self.globs.len()).map_err(|(_, msg)| Error::bad(msg))?;
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, op) in self.ops.iter().enumerate() {
            if op.pat.trim().is_empty() {
                return Err(Error::bad(format!("ops[{i}].pat is empty: give an ast-grep pattern such as `foo($A)`")));
            }
            check_op_limits(i, op).map_err(|(_, msg)| Error::bad(msg))?;
            if let Some(j) = seen.insert(&op.pat, i) {
                return Err(Error::bad(format!("ops[{i}] repeats the pattern of ops[{j}] (`{}`): give each pattern once", op.pat)));
            }
        }
        let bytes: usize = self.ops.iter().map(|o| o.pat.len() + o.out.len()).sum();
        check_totals(self.ops.len(), bytes, self.globs.len()).map_err(|(_, msg)| Error::bad(msg))?;
        let ops = std::mem::take(&mut self.ops);
        Ok(Request { ops, ..self.validate_settings(cwd, walk, max_filesize)? })
    }

    /// A request that runs the rule set `rules` gives (a project's rules, a rule
    /// file, a request's `rule`) on this request's paths, with its globs and
    /// output settings, which are checked first: `rules` runs only when they
    /// hold. `ops`, `rule`, `selector` and `strictness` belong to ad-hoc edits
    /// and are refused here.
    pub fn validate_rules(
        self,
        rules: impl FnOnce() -> Result<crate::request::ruleset::RuleSet>,
        cwd: &Path,
        walk: WalkOptions,
        max_filesize: u64,
    ) -> Result<Request> {
        if !self.ops.is_empty() || self.rule.is_some() {
            return Err(Error::bad("give either `ops` or `rule`, not both: a rule config carries its own pattern and fix"));
        }
        let req = self.validate_settings(cwd, walk, max_filesize)?;
        Ok(Request { rule_set: Some(rules()?), ..req })
    }

    /// Every field but `ops` and `rule` checked: a request without rules yet.
    fn validate_settings(self, cwd: &Path, walk: WalkOptions, max_filesize: u64) -> Result<Request> {
        check_totals(0, 0, self.globs.len()).map_err(|(_, msg)| Error::bad(msg))?;
        let paths = if self.paths.is_empty() { vec![".".to_string()] } else { self.paths };
        for p in &paths {
            if p.trim().is_empty() {
                return Err(Error::bad("a path is empty: give a file or directory, or omit paths to search `.`"));
            }
            let full = cwd.join(p);
            if std::fs::symlink_metadata(&full).is_err() {
                return Err(Error::bad(path_not_found(p, cwd)));
            }
        }
        let lang = self.lang.as_deref().map(lang::parse_lang).transpose()?;
        let strictness = match self.strictness.as_deref() {
            Some(s) => Strictness::parse(s)?,
            None => Strictness::Smart,
        };
        let selector = match self.selector {
            Some(s) if s.trim().is_empty() => {
                return Err(Error::bad("selector is empty: give a tree-sitter node kind such as `call_expression`, or omit it"));
            }
            other => other,
        };
        for g in &self.globs {
            if g.trim().is_empty() || g.trim() == "!" {
                return Err(Error::bad("a glob is empty: give a glob such as `*.py` or `!tests/**`"));
            }
        }
        let max_files = match self.max_files {
            Some(0) => return Err(Error::bad("maxFiles must be at least 1 (omit it for no cap)")),
            Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            None => None,
        };
        Ok(Request {
            ops: Vec::new(),
            paths,
            lang,
            selector,
            strictness,
            globs: self.globs,
            max_files,
            walk,
            max_filesize,
            no_prefilter: false,
            rule_set: None,
            rewrite_nested: self.rewrite_nested.unwrap_or(false),
            verbatim: self.verbatim.unwrap_or(false),
            context_lines: crate::request::check_context(self.context_lines.unwrap_or(crate::request::CONTEXT as u64), "contextLines")?,
            time_limit: None,
            max_steps: MAX_FILE_STEPS,
        })
    }
}

/// The message for a path that does not exist: for one holding a glob
/// character, that paths are files and folders and where the glob goes.
fn path_not_found(p: &str, cwd: &Path) -> Text {
    let base = Text::from(format!("path not found: {p} (relative to {})", cwd.display()));
    if !p.contains(['*', '?', '[', '{']) {
        return base.lit("; check the spelling or give an existing file or directory");
    }
    base.say(Say::GlobIsNotAPath(p.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> RawRequest {
        RawRequest::from_json(json).unwrap()
    }

    #[test]
    fn unknown_keys_are_refused() {
        let e = RawRequest::from_json(r#"{"ops":[],"bogus":1}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `bogus`"), "{e}");
    }

    #[test]
    fn empty_ops_duplicate_patterns_and_zero_cap_are_bad_input() {
        let cwd = std::env::current_dir().unwrap();
        let v = |j: &str| raw(j).validate(&cwd, WalkOptions::default(), 1).unwrap_err().to_string();
        assert!(v(r#"{"ops":[]}"#).contains("no ops given"));
        assert!(v(r#"{"ops":[{"pat":"a","out":"b"},{"pat":"a","out":"c"}]}"#).contains("repeats the pattern"));
        assert!(v(r#"{"ops":[{"pat":"a","out":"b"}],"maxFiles":0}"#).contains("maxFiles"));
        assert!(v(r#"{"ops":[{"pat":"a","out":"b"}],"paths":["nope/nope"]}"#).contains("path not found: nope/nope"));
        assert!(v(r#"{"ops":[{"pat":"a","out":"b"}],"strictness":"loose"}"#).contains("unknown strictness"));
    }

    #[test]
    fn paths_default_to_the_working_directory() {
        let cwd = std::env::current_dir().unwrap();
        let r = raw(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py"}"#).validate(&cwd, WalkOptions::default(), 5).unwrap();
        assert_eq!(r.paths, vec!["."]);
    }
}
