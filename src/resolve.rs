//! `resolve`: applies or discards a pending action (the newest, or the one named by
//! `id`) and returns the result of contract section 5: a text, an error flag and the
//! details `{action, reason, extra?, sourceToolName, label, sourceResultDetails?}`.
//!
//! The whole resolve runs under the store's lock, so an action is applied once even
//! when two processes resolve it at the same time. A failed apply keeps the action.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::apply::{self, ApplyOptions};
use crate::error::{Error, Result, NOTHING_PENDING};
use crate::pending::{ActionKind, Store};

/// `apply` or `discard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Carry the action out.
    Apply,
    /// Drop it.
    Discard,
}

impl Action {
    /// Parses `apply` / `discard`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "apply" => Ok(Action::Apply),
            "discard" => Ok(Action::Discard),
            _ => Err(Error::bad(format!("action must be `apply` or `discard`, not `{s}`"))),
        }
    }
}

/// A checked resolve request.
#[derive(Clone, Debug)]
pub struct ResolveRequest {
    /// What to do.
    pub action: Action,
    /// Why (non-empty).
    pub reason: String,
    /// Free-form options for the action's producer (a JSON object).
    pub extra: Option<Value>,
    /// Which action; `None` = the newest.
    pub id: Option<String>,
}

impl ResolveRequest {
    /// Validates the parts of a resolve request.
    pub fn new(action: Action, reason: Option<String>, extra: Option<Value>, id: Option<String>) -> Result<Self> {
        let reason = reason.unwrap_or_default();
        if reason.trim().is_empty() {
            return Err(Error::bad(
                "reason is required and must not be empty: say in one sentence why you apply or discard (--reason TEXT)",
            ));
        }
        if let Some(e) = &extra {
            if !e.is_object() {
                return Err(Error::bad(format!(
                    "extra must be a JSON object, for example {{\"stale\":\"skip\"}}; got {e}"
                )));
            }
        }
        Ok(ResolveRequest { action, reason, extra, id })
    }
}

/// The details of every resolve result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveDetails {
    /// What was asked.
    pub action: Action,
    /// Why.
    pub reason: String,
    /// The extra object, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<Value>,
    /// The producer of the action (absent when nothing was pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_tool_name: Option<String>,
    /// The action's label (absent when nothing was pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What the apply/reject callback returned (for `ast_edit`: the apply report).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_result_details: Option<Value>,
}

/// A resolve result: `{content, isError, details}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveResult {
    /// The result text.
    pub content: String,
    /// True for "nothing pending" and failed applies.
    pub is_error: bool,
    /// The details.
    pub details: ResolveDetails,
}

impl ResolveResult {
    /// Exit code: 0 ok, 1 nothing to resolve / apply failed, 3 applied but incomplete.
    pub fn exit_code(&self) -> i32 {
        if self.is_error {
            return 1;
        }
        let incomplete = self
            .details
            .source_result_details
            .as_ref()
            .and_then(|d| d.get("status"))
            .and_then(|s| s.as_str())
            == Some("incomplete");
        if incomplete { 3 } else { 0 }
    }
}

/// Resolves one pending action in `store`.
pub fn resolve(store: &Store, req: &ResolveRequest) -> Result<ResolveResult> {
    let mut details = ResolveDetails {
        action: req.action,
        reason: req.reason.clone(),
        extra: req.extra.clone(),
        source_tool_name: None,
        label: None,
        source_result_details: None,
    };
    let locked = store.lock()?;
    let Some(action) = locked.get(req.id.as_deref())? else {
        let content = match &req.id {
            Some(id) => Error::UnknownId(id.clone()).to_string(),
            None => NOTHING_PENDING.to_string(),
        };
        return Ok(ResolveResult { content, is_error: true, details });
    };
    details.source_tool_name = Some(action.source_tool_name.clone());
    details.label = Some(action.label.clone());
    match req.action {
        Action::Discard => {
            locked.remove(&action.id)?;
            Ok(ResolveResult {
                content: format!("Discarded: {}. Reason: {}", action.label, req.reason),
                is_error: false,
                details,
            })
        }
        Action::Apply => {
            let outcome = match &action.kind {
                ActionKind::AstEdit { plan } => ApplyOptions::from_extra(req.extra.as_ref())
                    .and_then(|opts| apply::apply_plan(plan, &opts, Some((&locked, &action.id)))),
            };
            match outcome {
                Ok(report) => {
                    locked.remove(&action.id)?;
                    details.source_result_details = Some(serde_json::to_value(&report).expect("serializes"));
                    Ok(ResolveResult { content: report.text(), is_error: false, details })
                }
                Err(e) => {
                    let msg = match e {
                        Error::ApplyFailed(_) => e.to_string(),
                        other => format!("Apply failed: {other}"),
                    };
                    Ok(ResolveResult { content: msg, is_error: true, details })
                }
            }
        }
    }
}
