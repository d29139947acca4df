//! The integration tests, as one test binary (`it`): each module is the file
//! of the same name beside this one, and `common` is the harness they share
//! (docs/DESIGN.md section 8). One binary links the crate graph once, where a
//! binary per file linked it 48 times. Its tests run on the threads of one
//! process, so none changes process-wide state (the environment, the working
//! directory): a test hands what a run needs to the child it starts
//! (`Command::env`, `current_dir`), and a test that rewrites a doc under
//! `UPDATE_DOCS` holds it ([`common::doc_lock`]).
//!
//! `cargo test --test it` runs them all; a filter runs the tests whose path
//! holds it, such as one module's (`cargo test --test it mcp_session`), and
//! `--exact` one test (`cargo test --test it -- --exact
//! cli::apply_writes_exactly_the_previewed_diff`).

mod common;

mod apply;
mod apply_window;
mod catalog;
mod cli;
mod compat;
mod custom;
mod diagnose;
mod diagnose_zero;
mod doc_examples;
mod embedded;
mod exit_codes;
mod first_hour;
mod generated;
mod hostile_files;
mod hostile_rules;
mod inspect;
mod layers;
mod limits;
mod located;
mod mcp;
mod mcp_backpressure;
mod mcp_bounded;
mod mcp_cache;
mod mcp_overlaps;
mod mcp_project;
mod mcp_refusal;
mod mcp_review;
mod mcp_schemas;
mod mcp_sdk;
mod mcp_session;
mod mcp_words;
mod minimal;
mod names;
mod parity;
mod pgo;
mod plain_messages;
mod project;
mod prop;
mod prop_suppression;
mod resolve;
mod review;
mod rules;
mod ruletest;
mod ruletest_flags;
mod scan;
mod scan_cache;
mod scan_dropin;
mod scan_report;
mod search;
mod sessions;
mod store;
mod structure;
mod template_check;
mod tree;
mod upgrade;
