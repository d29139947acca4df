//! ast-edit: structural code edits with a preview -> resolve step.
//!
//! This is the library, package `ast-edit-lib` in crates/lib (crate name
//! `ast_edit`); it has no front end, and none of the crates the front ends need
//! (clap, rmcp, tokio, indicatif). The `ast-edit` binary, at the repository root,
//! holds the two front ends: the CLI (src/cli/) and the MCP server (src/mcp/).
//!
//! The library is a stack of stage folders (docs/ARCHITECTURE.md); each imports
//! only the folders below it, which `tests/it/layers.rs` checks:
//!
//! | folder | owns |
//! | --- | --- |
//! | [`shared`] | errors, message texts, statuses, text budgets, atomic writes, tree walks |
//! | [`request`] | the one validated request, languages, rule configs as read, the walk, reading a file |
//! | `compile` | ops and rules compiled per language, the prefilter, pattern hints |
//! | `engine` | one file's rewrite: matches, minimal layout, template check, syntax check, structure guard |
//! | `diagnose` | why a pattern found nothing, and the fix |
//! | [`plan`] | the dry run over all files ([`plan::Plan`]), diffs, preview details, search, syntax trees |
//! | [`rules`] | ast-grep projects, rule tests and checks |
//! | [`store`] | pending actions on disk |
//! | [`apply`] | the only writer of source files: apply under "verify, don't trust", undo |
//! | [`app`] | what a front end runs: workspace, stage, resolve, custom actions |
//!
//! What a caller of the crate uses:
//!
//! - a request: [`request::RawRequest`] (from JSON or built in code), validated
//!   into a [`request::Request`];
//! - a dry run: [`plan::build`] -> [`plan::Plan`]; its details:
//!   [`app::workflow::Preview`];
//! - the store: [`app::workspace::Workspace`] opens it, [`app::workflow::stage`]
//!   stages a plan, [`store::pending::Store`] lists and reads actions;
//! - resolve: [`app::resolve::RawResolve`] / [`app::resolve::ResolveRequest`] ->
//!   [`app::resolve::resolve`] or, with in-process actions and a standing
//!   handler, [`app::resolve::resolve_with`] and [`app::custom::Handlers`];
//! - apply and undo: [`apply::apply_plan`], [`apply::UndoResult`];
//! - custom actions: [`app::custom::PendingHandler`],
//!   [`app::custom::StandingHandler`];
//! - messages: every message is a [`shared::message::Text`]; a front end words it
//!   through its own [`shared::message::Words`] ([`shared::message::Plain`] is
//!   the library's own words, and errors' `Display`);
//! - what the front ends render: the preview's details ([`plan::preview`]),
//!   search results ([`plan::search`]), syntax trees ([`plan::tree`]), warnings
//!   ([`plan::warning`]), the traces of `--inspect` ([`plan::inspect`],
//!   [`rules::inspect`]), skip reasons ([`request::read::SkipReason`]), the
//!   statuses ([`shared::status`]), text budgets and quoting ([`shared::text`],
//!   [`shared::quote`]), languages ([`request::lang`]), typed rule configs
//!   ([`request::rule`], [`request::ruleset`]), projects, rule tests and checks
//!   ([`rules`]);
//! - the documented limits: the `MAX_*` constants of the public folders
//!   (docs/DESIGN.md §7 lists every limit, these and the internal ones).
//!
//! What tests and benchmarks reach beyond that (the engine's rewrite of one
//! file, the walk, unified diffs, the store's entry codec) goes through one
//! door, [`testing`], not through the folders: it is no part of the API.
//!
//! `examples/` shows the main uses.

#![warn(missing_docs)]

// The stage folders, lowest first: a folder imports only folders above it in
// this list (tests/it/layers.rs checks it).
pub mod shared;
pub mod request;
mod compile;
mod engine;
mod diagnose;
pub mod plan;
pub mod rules;
pub mod store;
pub mod apply;
pub mod app;

pub use shared::error::{Error, Result};

/// The internals that tests and benchmarks drive directly (benches/engine.rs,
/// tests/it/store.rs, tests/it/resolve.rs): the engine's rewrite of one file and its
/// parts, the walk, unified diffs, the store's entry codec and digests. No part
/// of the API: a front end has no use for them, and they change with the engine.
pub mod testing {
    pub use crate::engine::{Engine, Rewrite, RewriteOptions, digest, rewrite, splice};
    pub use crate::plan::diff::{MAX_DIFF_LINE, unified, unified_bounded};
    pub use crate::request::walk::{Candidate, Walked, walk};
    pub use crate::store::pending_format::{decode_entry, encode_entry, rules_digest, rules_of};
}
