//! The flags `run`, `scan` and `search` share, kept apart from the commands'
//! own in mod.rs: which files to search (`InputArgs`, `NoIgnore`), and what
//! to do with the plan (`OutputArgs`).

use clap::Args;

use super::inspect;
use ast_edit::app::request::{DEFAULT_MAX_FILESIZE, IgnoreKind, IgnoreOff, MAX_FILE_STEPS, Request, WalkOptions};

/// `--no-ignore`'s kinds, as ast-grep's (`all`, the flag alone: every kind
/// of ignore file, hidden files still skipped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NoIgnore {
    /// Every ignore file (the flag without a value).
    #[value(hide = true)]
    All,
    /// Search hidden files and folders.
    Hidden,
    /// Leave `.ignore` files unread.
    Dot,
    /// Leave the repository's `.git/info/exclude` unread.
    Exclude,
    /// Leave git's global excludes file (`core.excludesFile`) unread.
    Global,
    /// Leave the ignore files of the folders above each path unread.
    Parent,
    /// Leave `.gitignore` files unread (and git's exclude and global files).
    Vcs,
}

impl NoIgnore {
    /// The library's kind (`None` for `all`, every ignore file).
    fn kind(self) -> Option<IgnoreKind> {
        Some(match self {
            NoIgnore::All => return None,
            NoIgnore::Hidden => IgnoreKind::Hidden,
            NoIgnore::Dot => IgnoreKind::Dot,
            NoIgnore::Exclude => IgnoreKind::Exclude,
            NoIgnore::Global => IgnoreKind::Global,
            NoIgnore::Parent => IgnoreKind::Parent,
            NoIgnore::Vcs => IgnoreKind::Vcs,
        })
    }
}

/// Which files to search: flags shared by `run` and `scan`.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Include or exclude files (`!` excludes), as ripgrep -g. Repeatable;
    /// when several match a file, the last wins. `--globs` is ast-grep's name.
    #[arg(short = 'g', long = "glob", visible_alias = "globs", value_name = "GLOB", allow_hyphen_values = true)]
    pub globs: Vec<String>,
    /// Skip (and report) files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILESIZE)]
    pub max_filesize: u64,
    /// Search hidden files and folders too (as `--no-ignore hidden`).
    #[arg(long)]
    pub hidden: bool,
    /// Do not respect ignore files: alone, none of them (.gitignore, .ignore,
    /// git's exclude and global files, those of parent folders); with a kind,
    /// that kind only, as ast-grep's `--no-ignore KIND` (repeatable): `hidden`
    /// searches hidden files and folders, `dot` leaves .ignore files unread,
    /// `exclude` .git/info/exclude, `global` git's core.excludesFile, `parent`
    /// the ignore files above each path, `vcs` .gitignore files (and git's
    /// exclude and global files).
    #[arg(long, value_name = "KIND", num_args = 0..=1, default_missing_value = "all", action = clap::ArgAction::Append)]
    pub no_ignore: Vec<NoIgnore>,
    /// Search hidden files (`.eslintrc.js`) but not hidden folders, as
    /// ast-grep does (`scan` always does).
    #[arg(long)]
    pub hidden_files: bool,
    /// Respect .gitignore files outside a git repository too (by default
    /// they count only inside one, as in ripgrep and ast-grep).
    #[arg(long, overrides_with = "require_git")]
    pub no_require_git: bool,
    /// The default: .gitignore files count only inside a git repository.
    #[arg(long, hide = true, overrides_with = "no_require_git")]
    pub require_git: bool,
    /// Follow symbolic links to folders and files; a file reached through a
    /// link is read and written at its real path (the link stays a link), and
    /// searched once however many links reach it.
    #[arg(long)]
    pub follow: bool,
    /// Threads that read and match files (default 0: one per core).
    #[arg(short = 'j', long = "threads", value_name = "NUM", default_value_t = 0)]
    pub threads: usize,
    /// The most steps matching one file may take (node visits, siblings
    /// passed over): a file that needs more is skipped with the reason and
    /// the run fails. Raise it for a huge generated file.
    #[arg(long, value_name = "NUM", default_value_t = MAX_FILE_STEPS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Stop matching after this many seconds: the files not done by then are
    /// skipped with the reason and the run fails. Without it there is no time
    /// limit, so a command gives the same result on an idle and a busy machine.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
}

impl InputArgs {
    /// Sets the limits of one file's work and the time limit of `req`.
    pub(super) fn limit(&self, req: &mut Request) {
        req.max_steps = self.max_steps;
        req.time_limit = self.timeout.map(std::time::Duration::from_secs);
    }

    pub(super) fn walk(&self) -> WalkOptions {
        let mut walk = WalkOptions {
            hidden: self.hidden,
            no_ignore: self.no_ignore.contains(&NoIgnore::All),
            ignore_off: IgnoreOff::default(),
            hidden_files: self.hidden_files,
            require_git: !self.no_require_git,
            follow: self.follow,
        };
        for k in self.no_ignore.iter().filter_map(|k| k.kind()) {
            walk.leave_unread(k);
        }
        walk
    }
}

/// What to do with the plan: flags shared by `run` and `scan`.
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// Apply at once (no pending action): same engine, same verified writer, journalled for undo.
    #[arg(short = 'U', long = "update-all")]
    pub update_all: bool,
    /// With -U: leave out (and list) every file whose rewrite is flagged (adds
    /// syntax errors, moves code, or does not say what its template says) and
    /// write the others. Without it, one flagged file stops the whole apply.
    #[arg(long, requires = "update_all", conflicts_with = "allow_flagged")]
    pub skip_flagged: bool,
    /// With -U: write flagged files too (as `resolve --extra
    /// '{"allowSyntaxErrors":true,"allowStructureChanges":true,"allowTemplateMismatch":true}'`).
    #[arg(long, requires = "update_all")]
    pub allow_flagged: bool,
    /// Review each file's diff in the terminal and apply the accepted ones
    /// (y = yes, n = no, a = this and all the rest, q = stop).
    #[arg(short = 'i', long, conflicts_with_all = ["update_all", "json"])]
    pub interactive: bool,
    /// Print every diff line in full (no preview budget).
    #[arg(long)]
    pub full: bool,
    /// After the run, print on stderr how many files were searched, changed and
    /// skipped (with the reasons counted), the most steps, stack and transform
    /// text one file took (with the file and the limit), and how long it took.
    #[arg(long)]
    pub stats: bool,
    /// Lines of context around each change in the diffs, 0 to 10 (default 3;
    /// overrides a --request's contextLines).
    #[arg(short = 'C', long = "context", value_name = "N")]
    pub context: Option<u64>,
    /// Trace on stderr which files (and, for scan, which rules) were taken and
    /// which set aside, in ast-grep's `--inspect` lines.
    ///
    /// The lines are those `ast-grep --inspect` 0.51.1 prints,
    /// `sg: <level>|<entity>: key=value,...`, with the files in path order;
    /// stdout and the exit code stay those of the run without the flag. `run`
    /// uses no project: its project line says `isProject=false`. The skip
    /// reasons, and where the trace differs from ast-grep's: RULES.md, "Tracing
    /// a scan" (the README's "Read next" links it).
    #[arg(long, value_name = "GRANULARITY", default_value = "nothing")]
    pub inspect: inspect::Granularity,
    /// Read no stored result and store none (the scan cache). By default a
    /// run of rules (`scan`'s, or a `run --request` with `rule` or `project`)
    /// keeps what it computed of each file (a report's matches, a preview's
    /// rewrite) in the state folder, under the build, the rules, the file's
    /// path and a hash of its bytes; a later run of the same rules does not
    /// parse that file again, and with -U the files written are stored as the
    /// rules make them. The output is the same. Patterns are not cached.
    #[arg(long)]
    pub no_cache: bool,
}
