//! What a front end runs, written once for both, and the only folder the front
//! ends import (tests/it/layers.rs): where it works (`workspace`), staging a
//! plan or applying it at once (`workflow`), resolving a pending action
//! (`resolve`), custom actions (`custom`), a request's `project`
//! (`project_rules`); and below, each use case's entry points and the types
//! they take and give, named from the folders that hold them. An item a front
//! end needs is added here, deliberately.

pub mod custom;
pub mod project_rules;
pub mod resolve;
pub mod workflow;
pub mod workspace;

/// A request: the one validated input of a dry run or a search, its limits,
/// and why a file was skipped.
pub mod request {
    pub use crate::request::read::{SkipReason, Skipped, WorkLimit};
    pub use crate::request::ruleset::RuleSet;
    pub use crate::request::{
        DEFAULT_MAX_FILESIZE, MAX_FILE_STEPS, MAX_OPS_BYTES, MAX_REQUEST_JSON_BYTES, Op, RawRequest, Request, SERVED_TIME_LIMIT, Strictness,
        WORKER_STACK_BYTES, WalkOptions, check_context,
    };
}

/// The languages and their names.
pub mod lang {
    pub use crate::request::lang::{infer, other_names, parse_lang, rows};
}

/// The dry run: [`plan::build`] and the [`plan::Plan`] it makes.
pub mod plan {
    pub use crate::plan::{
        BrokenFile, MAX_BROKEN_BEFORE_LISTED, MAX_EXCERPT_CHARS, MAX_SYNTAX_ERRORS_LISTED, Plan, RuleCount, SyntaxError, Work, build, build_with,
        build_with_progress, full_diff,
    };
}

/// A plan's details as previewed.
pub mod preview {
    pub use crate::plan::preview::{PreviewDetails, PreviewFile, SkippedFile, details, label};
}

/// Findings of a rule scan, as the front ends render them.
pub mod report {
    pub use crate::plan::report::{Capture, FileReport, Match, RuleSeverity, Span, findings_of, replacement_diff, report, report_text};
}

/// The traces of `--inspect`: files, then rules.
pub mod inspect {
    pub use crate::plan::inspect::{FileTrace, Traced, TracedFile, files};
    pub use crate::rules::inspect::{RuleTrace, RulesFrom, TracedRule};
}

/// A search: matches without edits.
pub mod search {
    pub use crate::plan::search::{DEFAULT_LIMIT, MAX_LIMIT, RawSearch, SearchOp, SearchResult, search, search_with};
}

/// Syntax trees.
pub mod tree {
    pub use crate::plan::tree::{MAX_CODE_BYTES, TreeDump, TreeOptions, dump, dump_named, render};
}

/// An ast-grep project (`sgconfig.yml`) and its rules.
pub mod project {
    pub use crate::rules::project::{CONFIG_FILE_NAMES, Project, TestConfig, Utils, discover, find_config, load_rule_file, parse_filter, parse_inline};
}

/// Rule options ast-grep retired.
pub mod retired {
    pub use crate::rules::retired::refuse;
}

/// Suppression comments.
pub mod suppression {
    pub use crate::rules::suppression::{NO_SUPPRESS_ALL, UNUSED, rules_for};
}

/// Severity overrides of the command line.
pub mod overwrite {
    pub use crate::rules::overwrite::{Overwrite, Severity};
}

/// Rule tests (`ast-edit test`).
pub mod ruletest {
    pub use crate::rules::ruletest::{CaseKind, CaseReport, MissingRule, Options, Report, RuleReport, Verdict, evaluate, run, to_yaml};
}

/// The checks of a project's rules (`ast-edit check`).
pub mod checks {
    pub use crate::rules::checks::{CheckResult, run};
}

/// Applying and undoing.
pub mod apply {
    pub use crate::apply::{ApplyOptions, ApplyReport, UndoReport, UndoResult, pick_undo, selects, undo};
}

/// Pending actions on disk.
pub mod pending {
    pub use crate::store::pending::{ActionKind, NewAction, PendingAction, PendingSummary, Store};
}

/// The session that stages and resolves.
pub mod session {
    pub use crate::store::session::Session;
}

/// Errors.
pub mod error {
    pub use crate::shared::error::{Error, ProjectFault, Result, resolved_text};
}

/// Messages and the words a front end gives them.
pub mod message {
    pub use crate::shared::message::{Input, Name, Say, Text, Words};
}

/// Quoting for display.
pub mod quote {
    pub use crate::shared::quote::{display_name, escape_controls};
}

/// Text budgets and counts.
pub mod text {
    pub use crate::shared::text::{Fit, Hidden, PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET, Unit, cut, cut_with_note, plural};
}

/// The statuses of previews, files and applies.
pub mod status {
    pub use crate::shared::status::{ApplyStatus, FileStatus, OutstandingStatus, PreviewStatus};
}

/// Reading a named file safely, and the working folder.
pub mod files {
    pub use crate::shared::named::{Unread, open_regular, read_capped_text};
    pub use crate::shared::paths::current_dir;
}
