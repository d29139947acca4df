//! ast-edit: structural code edits with a preview -> resolve step.
//!
//! The pipeline is plain data from end to end (docs/DESIGN.md section 2): a
//! validated [`request::Request`] goes through the [`walk`] and the [`engine`]
//! (ast-grep-core patterns on tree-sitter trees) and becomes a [`plan::Plan`];
//! [`preview`] turns it into the details users read, [`workflow`] stages it in the
//! [`pending`] store of a [`workspace`] (or applies it at once), and [`resolve`]
//! and [`apply`] carry a staged action out. Only [`apply`] writes source files.
//!
//! What a caller of the crate uses:
//!
//! - a request: [`request::RawRequest`] (from JSON or built in code), validated
//!   into a [`request::Request`];
//! - a dry run: [`plan::build`] -> [`plan::Plan`]; its details:
//!   [`workflow::Preview`];
//! - the store: [`workspace::Workspace`] opens it, [`workflow::stage`] stages a
//!   plan, [`pending::Store`] lists and reads actions;
//! - resolve: [`resolve::RawResolve`] / [`resolve::ResolveRequest`] ->
//!   [`resolve::resolve`] or, with in-process actions and a standing handler,
//!   [`resolve::resolve_with`] and [`custom::Handlers`];
//! - apply and undo: [`apply::apply_plan`], [`apply::UndoResult`];
//! - custom actions: [`custom::PendingHandler`], [`custom::StandingHandler`].
//!
//! `examples/` shows the main uses. The front ends, [`cli`] and [`mcp`], are
//! thin layers over these.

#![warn(missing_docs)]

pub mod apply;
mod atomic;
pub mod checks;
pub mod cli;
mod compile;
mod diagnose;
pub mod custom;
pub mod diff;
pub mod engine;
pub mod error;
pub mod lang;
pub mod mcp;
pub mod message;
pub mod pending;
pub mod pending_format;
pub mod plan;
mod prefilter;
mod quote;
pub mod preview;
pub mod project;
pub mod request;
pub mod resolve;
pub mod rules;
pub mod search;
pub mod ruleset;
pub mod ruletest;
mod schema;
pub mod status;
pub mod structure;
mod text;
mod tight_ends;
pub mod tree;
pub mod walk;
pub mod workflow;
pub mod workspace;

pub use error::{Error, Result};
