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
pub mod scan;
pub mod workflow;
pub mod workspace;

/// A request: the one validated input of a dry run or a search, its limits,
/// and why a file was skipped.
pub mod request {
    pub use crate::request::read::{SkipReason, Skipped, WorkLimit};
    pub use crate::request::rule::{Rule, Util};
    pub use crate::request::ruleset::RuleSet;
    pub use crate::request::{
        CONTEXT, DEFAULT_MAX_FILESIZE, IgnoreKind, IgnoreOff, MAX_CONTEXT_LINES, MAX_FILE_STEPS, MAX_OPS_BYTES, MAX_PATTERN_BYTES, MAX_REQUEST_JSON_BYTES, Op,
        RawRequest, Request, SERVED_TIME_LIMIT, Strictness, WORKER_STACK_BYTES, WalkOptions, check_context,
    };
}

/// The languages and their names: a [`lang::Lang`] is parsed from a name
/// ([`lang::Lang::parse`]) or inferred from a file's extension.
pub mod lang {
    pub use crate::request::lang::{Lang, LangRow, other_names, rows};
}

/// The dry run: [`plan::build`] and the [`plan::Plan`] it makes, with what
/// its files hold.
pub mod plan {
    pub use crate::plan::warning::{MAX_NOTES, Warning};
    pub use crate::plan::{
        BrokenFile, Edit, FilePlan, Finding, MAX_BROKEN_BEFORE_LISTED, MAX_EXCERPT_CHARS, MAX_SYNTAX_ERRORS_LISTED, MAX_TEMPLATE_NOTES_LISTED, Overlapped,
        Plan, RuleCount, StructureChange, SyntaxError, TemplateNote, Work, build, build_with, build_with_progress, full_diff,
    };
}

/// A plan's details as previewed.
pub mod preview {
    pub use crate::plan::preview::{PreviewDetails, PreviewFile, SkippedFile, details, label};
}

/// Findings of a rule scan, as the front ends render them.
pub mod report {
    pub use crate::plan::report::{
        Capture, Captures, FileReport, Label, Match, Replacement, RuleInfo, RuleSeverity, Span, Summary, findings_of, report, report_text,
    };
}

/// The scan cache (docs/DESIGN.md section 2.14): what reports, previews,
/// searches and rule tests keep of each file or case, in the state folder.
pub mod cache {
    pub use crate::plan::cache::EntryCache;
    pub use crate::plan::warm::{MAX_WARMED_BYTES, Written, warm};
    pub use crate::store::scan_cache::{MAX_CACHE_BYTES, MAX_PACKS, ScanCache};
}

/// The traces of `--inspect`: files, then rules.
pub mod inspect {
    pub use crate::plan::inspect::{FileTrace, Traced, TracedFile, files};
    pub use crate::rules::inspect::{RuleTrace, RulesFrom, TracedRule};
}

/// A search: matches without edits.
pub mod search {
    pub use crate::plan::search::{
        DEFAULT_LIMIT, MAX_LIMIT, MAX_MATCH_TEXT_CHARS, MAX_WARNINGS, RawSearch, Search, SearchMatch, SearchOp, SearchResult, search, search_with,
    };
}

/// Syntax trees.
pub mod tree {
    pub use crate::plan::tree::{
        MAX_CODE_BYTES, MAX_LEAF_CHARS, MAX_TREE_CHARS, MAX_TREE_DEPTH, MAX_TREE_NODES, Pos, TreeDump, TreeNode, TreeOptions, dump, dump_named, render,
    };
}

/// An ast-grep project (`sgconfig.yml`) and its rules.
pub mod project {
    pub use crate::rules::project::{
        CONFIG_FILE_NAMES, LoadedRule, LoadedRules, MAX_RULE_FILE_BYTES, NoIgnoreConfig, Project, TestConfig, Utils, discover, find_config, load_rule_file,
        parse_filter, parse_inline,
    };
}

/// Rule options ast-grep retired.
pub mod retired {
    pub use crate::rules::retired::refuse;
}

/// Severity overrides of the command line. A severity is a
/// [`report::RuleSeverity`], the one
/// severity type of the API; `off` is `None`.
pub mod overwrite {
    pub use crate::rules::overwrite::{Overwrite, parse_severity};
}

/// Rule tests (`ast-edit test`).
pub mod ruletest {
    pub use crate::rules::ruletest::{
        CaseKind, CaseOutcome, Evaluated, LabelSnapshot, LabelStyle, MissingRule, Options, RuleOutcome, TestOutcome, TestSnapshot, Verdict, evaluate, run,
        to_yaml,
    };
}

/// The checks of a project's rules (`ast-edit check`).
pub mod checks {
    pub use crate::rules::checks::{CheckResult, run};
}

/// Applying and undoing.
pub mod apply {
    pub use crate::apply::{
        AppliedFile, ApplyOptions, ApplyOutcome, MAX_LISTED_WRITTEN, NOTHING_TO_UNDO, Outstanding, UndoChoice, UndoOutcome, UndoResult, pick_undo, selects,
        selects_none, undo,
    };
}

/// Pending actions on disk, and the limits the store keeps them within.
pub mod pending {
    pub use crate::store::pending::{ActionKind, LOCK_QUIET_WAIT, LOCK_WAIT_MESSAGE, Locked, NewAction, PendingAction, PendingSummary, ResolvedRecord, Store};
    pub use crate::store::{
        JOURNAL_MAX_BYTES, JOURNAL_MAX_RECORDS, Kept, MAX_ENTRY_BYTES, PENDING_MAX_AGE_DAYS, PENDING_MAX_BYTES, PENDING_MAX_COUNT, RESOLVED_MAX_AGE_DAYS,
        RESOLVED_MAX_COUNT,
    };
}

/// The session that stages and resolves, and how an action's owner is named
/// and shown: the whole of `store/session.rs`, whose every public item the
/// store's records refer to.
pub use crate::store::session;

/// Errors.
pub mod error {
    pub use crate::shared::error::{Error, MAX_REFUSED_LISTED, ProjectFault, Refusal, RefusalCause, RefusedFile, Result, resolved_text};
}

/// Messages and the words a front end gives them.
pub mod message {
    pub use crate::shared::message::{Input, Name, Part, Plain, Say, Text, Words};
}

/// Quoting for display.
pub mod quote {
    pub use crate::shared::quote::{display_name, escape_controls, escape_in_lines, shown_source};
}

/// Text budgets and counts.
pub mod text {
    pub use crate::shared::text::{Fit, Hidden, PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET, Unit, cut, cut_with_note, plural};
}

/// The statuses of previews, files and applies.
pub mod status {
    pub use crate::shared::status::{ApplyStatus, FileStatus, OutstandingStatus, PreviewStatus, Resolution, UndoStatus};
}

/// Reading a named file safely, the cap on the ignore files a walk reads, and
/// the working folder.
pub mod files {
    pub use crate::shared::ignore_files::MAX_IGNORE_FILE_BYTES;
    pub use crate::shared::named::{FileKind, Unread, open_regular, read_capped, read_capped_text};
    pub use crate::shared::paths::current_dir;
}
