//! `resolve`: applies or discards a pending action (the newest, or the one named by
//! `id`) and returns the result of contract section 5: a text, an error flag and the
//! details `{action, reason, extra?, sourceToolName, label, sourceResultDetails?}`.
//!
//! The whole resolve runs under the store's lock, so an action is applied once even
//! when two processes resolve it at the same time. A failed apply keeps the action;
//! a successful apply or discard of an action on disk leaves its record in
//! `resolved/` ([`Locked::finish`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::apply::{self, ApplyOptions};
use crate::custom::{CommandAction, CommandStanding, Handlers, Outcome, PendingHandler};
use crate::error::{Error, Result, NOTHING_PENDING};
use crate::message::Front;
use crate::pending::{ActionKind, Locked, PendingAction, Resolution, Store};

/// `apply` or `discard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Carry the action out.
    Apply,
    /// Drop it.
    Discard,
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
    /// Validates the parts of a resolve request (messages name the fields as the
    /// CLI does; front ends use [`RawResolve::check`]).
    pub fn new(action: Action, reason: Option<String>, extra: Option<Value>, id: Option<String>) -> Result<Self> {
        let verb = match action {
            Action::Apply => "apply",
            Action::Discard => "discard",
        };
        RawResolve { action: Some(verb.to_string()), reason, extra, id }.check(Front::Cli)
    }
}

/// The arguments of `resolve` as a front end received them: the MCP tool's JSON
/// arguments, or the CLI's flags. [`RawResolve::check`] turns them into a
/// [`ResolveRequest`] with messages in the words of that front end.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawResolve {
    /// `apply` or `discard`.
    #[serde(default)]
    pub action: Option<String>,
    /// Why, in one sentence.
    #[serde(default)]
    pub reason: Option<String>,
    /// Options for the action's producer: a JSON object (or null).
    #[serde(default)]
    pub extra: Option<Value>,
    /// The pending action to resolve; absent or empty: the newest.
    #[serde(default)]
    pub id: Option<String>,
}

impl RawResolve {
    /// Checks the arguments; every problem is bad input naming the field.
    pub fn check(self, front: Front) -> Result<ResolveRequest> {
        let field = |name: &str| front.field(name);
        let action = match self.action.as_deref().map(str::trim) {
            None | Some("") => {
                return Err(Error::bad(format!(
                    "{} is required: \"apply\" writes the pending edit, \"discard\" drops it",
                    field("action")
                )));
            }
            Some("apply") => Action::Apply,
            Some("discard") => Action::Discard,
            Some(other) => {
                return Err(Error::bad(match front {
                    Front::Cli => format!("action must be `apply` or `discard`, not `{other}`"),
                    Front::Mcp => format!("`action` must be \"apply\" or \"discard\", not \"{other}\""),
                }));
            }
        };
        let reason = self.reason.unwrap_or_default();
        if reason.trim().is_empty() {
            let how = match front {
                Front::Cli => " (--reason TEXT)",
                Front::Mcp => "",
            };
            return Err(Error::bad(format!(
                "{} is required and must not be empty: say in one sentence why you apply or discard{how}",
                field("reason")
            )));
        }
        let extra = match self.extra {
            None | Some(Value::Null) => None,
            Some(v) if v.is_object() => Some(v),
            Some(v) => {
                return Err(Error::bad(format!(
                    "{} must be a JSON object, for example {{\"stale\": \"skip\"}}; got {v}",
                    field("extra")
                )));
            }
        };
        let id = self.id.filter(|s| !s.trim().is_empty());
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

/// The built-in `ast_edit` action: applies its plan with the verified writer.
struct AstEditAction<'a> {
    label: String,
    plan: &'a crate::plan::Plan,
    locked: &'a Locked<'a>,
    id: String,
}

impl PendingHandler for AstEditAction<'_> {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn source_tool_name(&self) -> String {
        crate::preview::SOURCE_TOOL.to_string()
    }
    fn apply(&mut self, _reason: &str, extra: Option<&Value>) -> std::result::Result<Outcome, String> {
        let opts = ApplyOptions::from_extra(extra).map_err(|e| e.to_string())?;
        match apply::apply_plan(self.plan, &opts, Some((self.locked, &self.id))) {
            Ok(report) => Ok(Outcome {
                text: report.text(),
                details: Some(serde_json::to_value(&report).expect("serializes")),
            }),
            Err(Error::ApplyFailed(m)) => Err(m),
            Err(other) => Err(other.to_string()),
        }
    }
}

/// Resolves one pending action in `store`, with the standing handler configured
/// by `AST_EDIT_STANDING_CMD` (a shell command run in the working directory), if set.
pub fn resolve(store: &Store, req: &ResolveRequest) -> Result<ResolveResult> {
    let mut handlers = Handlers::default();
    if let Some(cmd) = std::env::var("AST_EDIT_STANDING_CMD").ok().filter(|c| !c.trim().is_empty()) {
        let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read the working directory", e))?;
        handlers.standing = Some(Box::new(CommandStanding { cmd, cwd }));
    }
    resolve_with(store, req, &mut handlers)
}

/// Where the chosen action lives.
enum Chosen {
    Disk(PendingAction),
    Memory(usize),
}

/// Resolves the newest pending action (or `req.id`) among the actions on disk and
/// the in-process ones of `handlers`; with none, the standing handler; with no
/// standing handler, the nothing-pending error. Runs under the store's lock.
pub fn resolve_with(store: &Store, req: &ResolveRequest, handlers: &mut Handlers) -> Result<ResolveResult> {
    let mut details = ResolveDetails {
        action: req.action,
        reason: req.reason.clone(),
        extra: req.extra.clone(),
        source_tool_name: None,
        label: None,
        source_result_details: None,
    };
    let locked = store.lock()?;
    let disk = locked.get(req.id.as_deref())?;
    let memory = handlers
        .custom
        .iter()
        .enumerate()
        .filter(|(_, (id, _, _))| req.id.as_deref().is_none_or(|want| want == id))
        .max_by_key(|(_, (_, order, _))| *order)
        .map(|(i, (_, order, _))| (i, *order));
    let chosen = match (disk, memory) {
        (Some(d), Some((i, order))) => {
            if order > d.order { Chosen::Memory(i) } else { Chosen::Disk(d) }
        }
        (Some(d), None) => Chosen::Disk(d),
        (None, Some((i, _))) => Chosen::Memory(i),
        (None, None) => {
            if let Some(id) = &req.id {
                return Ok(ResolveResult { content: Error::UnknownId(id.clone()).to_string(), is_error: true, details });
            }
            let Some(standing) = handlers.standing.as_mut() else {
                return Ok(ResolveResult { content: NOTHING_PENDING.to_string(), is_error: true, details });
            };
            details.source_tool_name = Some(standing.source_tool_name());
            details.label = Some(standing.label());
            let verb = match req.action {
                Action::Apply => "apply",
                Action::Discard => "discard",
            };
            return Ok(match standing.handle(verb, &req.reason, req.extra.as_ref()) {
                Ok(o) => {
                    details.source_result_details = o.details;
                    ResolveResult { content: o.text, is_error: false, details }
                }
                Err(m) => ResolveResult { content: format!("{} failed: {m}", if verb == "apply" { "Apply" } else { "Discard" }), is_error: true, details },
            });
        }
    };
    // The handler of the chosen action.
    let mut command;
    let mut ast;
    let handler: &mut dyn PendingHandler = match &chosen {
        Chosen::Memory(i) => handlers.custom[*i].2.as_mut(),
        Chosen::Disk(a) => match &a.kind {
            ActionKind::AstEdit { plan } => {
                ast = AstEditAction { label: a.label.clone(), plan, locked: &locked, id: a.id.clone() };
                &mut ast
            }
            ActionKind::Command { apply_cmd, reject_cmd, cwd, details } => {
                command = CommandAction {
                    label: a.label.clone(),
                    source_tool_name: a.source_tool_name.clone(),
                    apply_cmd: apply_cmd.clone(),
                    reject_cmd: reject_cmd.clone(),
                    cwd: cwd.clone(),
                    details: details.clone(),
                };
                &mut command
            }
        },
    };
    let label = handler.label();
    details.source_tool_name = Some(handler.source_tool_name());
    details.label = Some(label.clone());
    let outcome = match req.action {
        Action::Apply => handler.apply(&req.reason, req.extra.as_ref()).map(Some).map_err(|m| format!("Apply failed: {m}")),
        Action::Discard => handler.reject(&req.reason, req.extra.as_ref()).map_err(|m| format!("Discard failed: {m}")),
    };
    match outcome {
        Err(content) => Ok(ResolveResult { content, is_error: true, details }),
        Ok(o) => {
            match chosen {
                Chosen::Disk(a) => {
                    let resolution = match req.action {
                        Action::Apply => Resolution::Applied,
                        Action::Discard => Resolution::Discarded,
                    };
                    locked.finish(&a, resolution)?;
                }
                Chosen::Memory(i) => {
                    handlers.custom.remove(i);
                }
            }
            let content = match o {
                Some(o) => {
                    details.source_result_details = o.details;
                    o.text
                }
                None => format!("Discarded: {label}. Reason: {}", req.reason),
            };
            Ok(ResolveResult { content, is_error: false, details })
        }
    }
}
