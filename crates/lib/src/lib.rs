//! ast-edit: structural code edits with a preview -> resolve step.
//!
//! This is the library, package `ast-edit-lib` in crates/lib (crate name
//! `ast_edit`); it has no front end, and none of the crates the front ends need
//! (clap, rmcp, tokio, indicatif). The `ast-edit` binary, at the repository root,
//! holds the two front ends: the CLI (src/cli/) and the MCP server (src/mcp/).
//!
//! The library is a stack of stage folders (docs/ARCHITECTURE.md); each imports
//! only the folders below it, which `tests/it/layers.rs` checks. They are
//! private: what leaves the crate goes through `app`.
//!
//! | folder | owns |
//! | --- | --- |
//! | `shared` | errors, message texts, statuses, text budgets, atomic writes, tree walks |
//! | `request` | the one validated request, languages, rule configs as read, the walk, reading a file |
//! | `compile` | ops and rules compiled per language, the prefilter, pattern hints |
//! | `engine` | one file's rewrite: matches, minimal layout, template check, syntax check, structure guard |
//! | `diagnose` | why a pattern found nothing, and the fix |
//! | `plan` | the dry run over all files ([`app::plan::Plan`]), diffs, preview details, search, syntax trees |
//! | `rules` | ast-grep projects, rule tests and checks |
//! | `store` | pending actions on disk |
//! | `apply` | the only writer of source files: apply under "verify, don't trust", undo |
//! | [`app`] | what a front end runs: workspace, stage, resolve, custom actions |
//!
//! The API is [`app`]: the front ends' only door (tests/it/layers.rs), and
//! an embedder's. One module per use case, each re-exporting what it takes and
//! gives from the folders below:
//!
//! | use case | call | in -> out |
//! | --- | --- | --- |
//! | dry run | [`app::plan::build`] | [`app::request::RawRequest`], validated into a [`app::request::Request`] -> [`app::plan::Plan`] |
//! | preview, stage | [`app::workflow::stage`] | plan -> [`app::workflow::Preview`] ([`app::preview::PreviewDetails`]) |
//! | apply at once | [`app::workflow::apply_fresh`] | plan, [`app::apply::ApplyOptions`] -> [`app::apply::ApplyOutcome`] |
//! | resolve | [`app::resolve::resolve`] | [`app::resolve::RawResolve`] -> [`app::resolve::ResolveDetails`] |
//! | undo | [`app::apply::undo`] | the store, which record -> [`app::apply::UndoOutcome`] |
//! | pending | [`app::workspace::Workspace::store`] | -> [`app::pending::Store`], [`app::pending::PendingAction`] |
//! | search | [`app::search::search`] | [`app::search::RawSearch`] -> [`app::search::SearchResult`] |
//! | tree | [`app::tree::dump`] | code, [`app::lang::Lang`], [`app::tree::TreeOptions`] -> [`app::tree::TreeDump`] |
//! | scan | [`app::scan::rules`], then a dry run or a report | [`app::scan::ScanInput`] -> [`app::scan::ScanRules`] -> findings ([`app::report`]) |
//! | rule tests, checks | [`app::ruletest::run`], [`app::checks::run`] | project -> [`app::ruletest::TestOutcome`], [`app::checks::CheckResult`] |
//! | custom actions | [`app::resolve::resolve_with`] | [`app::custom::Handlers`] |
//!
//! Every message is an [`app::message::Text`] that a front end words through
//! its own [`app::message::Words`]; errors are [`Error`]; limits are the
//! `MAX_*` constants (docs/DESIGN.md section 7 lists every limit). No
//! signature names an ast-grep type: a language is an [`app::lang::Lang`], a
//! severity an [`app::report::RuleSeverity`] (`None` for `off`), a rule config
//! an [`app::request::Rule`], so a caller needs none of ast-grep's crates.
//!
//! What tests and benchmarks reach beyond that (the engine's rewrite of one
//! file, the walk, unified diffs, the store's entry codec) goes through one
//! door, [`testing`], not through the folders: it is no part of the API, and it
//! exists only with the cargo feature `testing` (tests/it and benches/ turn it
//! on through the root package's dev-dependency).
//!
//! `examples/` shows the main uses.

#![warn(missing_docs)]
// Every type the API's signatures name can be named through `app` (an embedder
// can write it down). The `testing` door reaches engine internals it does not
// re-export, so the check runs without it, as in a build of the binary.
#![cfg_attr(not(feature = "testing"), warn(unnameable_types))]

// The stage folders, lowest first: a folder imports only folders above it in
// this list (tests/it/layers.rs checks it).
mod shared;
mod request;
mod compile;
mod engine;
mod diagnose;
mod plan;
mod rules;
mod store;
mod apply;
pub mod app;

pub use shared::error::{Error, Result};

/// The internals that tests and benchmarks drive directly (benches/engine.rs,
/// tests/it/store.rs, tests/it/resolve.rs, tests/it/project.rs): the engine's
/// rewrite of one file and its parts, the walk, the check that a file is text,
/// unified diffs, the store's entry codec and digests, building a loaded rule
/// config. No part
/// of the API: a front end has no use for them, and they change with the engine.
/// Only with the cargo feature `testing`, which the root package's
/// dev-dependency turns on: a build of the binary has no such module. The
/// documentation shows it (`cfg(doc)`), since the store's and the plan's docs
/// link to what it re-exports.
#[cfg(any(feature = "testing", doc))]
pub mod testing {
    pub use crate::engine::{Engine, Rewrite, RewriteOptions, rewrite, splice};
    pub use crate::plan::diff::{MAX_DIFF_LINE, unified, unified_bounded};
    pub use crate::request::read::check_text;
    pub use crate::request::walk::{Candidate, Walked, walk};
    pub use crate::rules::project::{rebuild_rule, rebuild_rules};
    pub use crate::shared::hash::digest;
    pub use crate::store::pending_format::{decode_entry, encode_entry, rules_digest, rules_of};
}
