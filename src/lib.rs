//! ast-edit: structural code edits with a preview -> resolve step.
//!
//! The pipeline is plain data from end to end: a validated [`request::Request`]
//! goes through the [`walk`], the [`engine`] (ast-grep-core patterns on tree-sitter
//! trees) and becomes a [`plan::Plan`]; [`preview`] and [`print`] render it,
//! [`pending`] stages it, [`resolve`] and [`apply`] carry it out. Only [`apply`]
//! writes source files.

pub mod apply;
pub mod cli;
pub mod compile;
pub mod diff;
pub mod engine;
pub mod error;
pub mod lang;
pub mod message;
pub mod pending;
pub mod pending_format;
pub mod plan;
pub mod prefilter;
mod tight_ends;
pub mod preview;
pub mod print;
pub mod request;
pub mod resolve;
pub mod walk;

pub use error::{Error, Result};
pub mod rules;
pub mod custom;
pub mod mcp;
