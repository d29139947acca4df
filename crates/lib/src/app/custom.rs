//! Custom pending actions (docs/DESIGN.md §3.5): anything a tool wants applied or
//! discarded through `resolve`, not only `ast_edit` previews. A [`PendingHandler`] is a
//! label, an `apply(reason, extra)`, an optional `reject(reason, extra)` and a
//! `sourceToolName`; in-process ones are registered in [`Handlers`]; a
//! [`StandingHandler`] is consulted only when the caller's session has nothing pending.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::shared::status::Action;

/// Default `sourceToolName` of custom actions.
pub const CUSTOM_TOOL: &str = "custom_tool";

/// What an apply or reject callback returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The result text.
    pub text: String,
    /// Details, reported as `sourceResultDetails`.
    pub details: Option<Value>,
}

/// A pending action's behaviour.
pub trait PendingHandler: Send {
    /// Human label (shown by `pending` and in `Discarded: <label>. ...`).
    fn label(&self) -> String;
    /// The tool that staged it.
    fn source_tool_name(&self) -> String {
        CUSTOM_TOOL.to_string()
    }
    /// Free-form details shown with the action.
    fn details(&self) -> Option<Value> {
        None
    }
    /// Carries the action out. `Err(message)` becomes `Apply failed: <message>`
    /// and the action stays pending.
    fn apply(&mut self, reason: &str, extra: Option<&Value>) -> Result<Outcome, String>;
    /// Called on discard. `Ok(None)` gives the default `Discarded: ...` text;
    /// `Err(message)` keeps the action and reports `Discard failed: <message>`.
    fn reject(&mut self, _reason: &str, _extra: Option<&Value>) -> Result<Option<Outcome>, String> {
        Ok(None)
    }
}

/// Consulted by `resolve` without an id only when the caller's session has
/// nothing pending (the store's session, and no in-process action).
pub trait StandingHandler: Send {
    /// Its label.
    fn label(&self) -> String;
    /// Its tool name.
    fn source_tool_name(&self) -> String {
        "standing_handler".to_string()
    }
    /// Handles `action`. `Err` is a failure.
    fn handle(&mut self, action: Action, reason: &str, extra: Option<&Value>) -> Result<Outcome, String>;
}

/// An in-process pending action registered with [`Handlers::push`].
pub(crate) struct InProcess {
    /// Its id (`ae-mem<N>`).
    pub(crate) id: String,
    /// Its place in the LIFO order shared with the actions on disk.
    pub(crate) order: u64,
    /// What it does.
    pub(crate) handler: Box<dyn PendingHandler>,
}

/// In-process actions and the standing handler, for library users.
#[derive(Default)]
pub struct Handlers {
    pub(crate) custom: Vec<InProcess>,
    /// The standing handler, if any.
    pub standing: Option<Box<dyn StandingHandler>>,
}

impl Handlers {
    /// Registers an in-process pending action; it takes its place in the same LIFO
    /// order as the actions on disk (the store's next order, and newer than every
    /// in-process action already registered). Returns its id, `ae-mem<order>`.
    pub fn push(&mut self, store: &crate::store::pending::Store, action: Box<dyn PendingHandler>) -> crate::Result<String> {
        let on_disk = store.lock()?.next_order()?;
        let order = self.custom.iter().map(|c| c.order.saturating_add(1)).fold(on_disk, u64::max);
        let id = format!("ae-mem{order}");
        self.custom.push(InProcess { id: id.clone(), order, handler: action });
        Ok(id)
    }

    /// The ids of the in-process actions, newest first.
    pub fn ids(&self) -> Vec<String> {
        let mut v: Vec<_> = self.custom.iter().map(|c| (c.order, c.id.clone())).collect();
        v.sort_by_key(|a| std::cmp::Reverse(a.0));
        v.into_iter().map(|x| x.1).collect()
    }
}

/// Runs `sh -c cmd` in `cwd` for `action` with the reason and extra in its
/// environment. Stdout (trailing newline trimmed) is the result text; a non-zero
/// exit is an error naming the status and stderr.
pub(crate) fn run_command(cmd: &str, cwd: &Path, action: Action, reason: &str, extra: Option<&Value>) -> Result<Outcome, String> {
    let extra_json = extra.map(|v| v.to_string()).unwrap_or_else(|| "{}".into());
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(cwd)
        .env("AST_EDIT_ACTION", action.as_str())
        .env("AST_EDIT_REASON", reason)
        .env("AST_EDIT_EXTRA", &extra_json)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{cmd}` in {}: {e}", cwd.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim_end_matches(['\n', '\r']).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    let code = out.status.code();
    if !out.status.success() {
        let status = code.map(|c| format!("exit status {c}")).unwrap_or_else(|| "killed by a signal".into());
        let tail = if stderr.is_empty() { String::new() } else { format!(": {stderr}") };
        return Err(format!("`{cmd}` failed with {status}{tail}"));
    }
    Ok(Outcome { text: stdout.clone(), details: Some(json!({"command": cmd, "exitCode": code, "stdout": stdout, "stderr": stderr})) })
}

/// A command-backed action as staged by `ast-edit propose`.
pub(crate) struct CommandAction {
    /// Label.
    pub label: String,
    /// Tool name.
    pub source_tool_name: String,
    /// Apply command.
    pub apply_cmd: String,
    /// Reject command.
    pub reject_cmd: Option<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Details.
    pub details: Option<Value>,
}

impl PendingHandler for CommandAction {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn source_tool_name(&self) -> String {
        self.source_tool_name.clone()
    }
    fn details(&self) -> Option<Value> {
        self.details.clone()
    }
    fn apply(&mut self, reason: &str, extra: Option<&Value>) -> Result<Outcome, String> {
        let mut o = run_command(&self.apply_cmd, &self.cwd, Action::Apply, reason, extra)?;
        if o.text.is_empty() {
            o.text = format!("Applied: {}. Reason: {}", crate::shared::quote::escape_controls(&self.label), crate::shared::quote::escape_controls(reason));
        }
        Ok(o)
    }
    fn reject(&mut self, reason: &str, extra: Option<&Value>) -> Result<Option<Outcome>, String> {
        let Some(cmd) = &self.reject_cmd else { return Ok(None) };
        let o = run_command(cmd, &self.cwd, Action::Discard, reason, extra)?;
        Ok(if o.text.is_empty() { None } else { Some(o) })
    }
}

/// How a command-backed action is shown (`show --json`, `propose --json`).
#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandView {
    /// Id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Tool name.
    pub source_tool_name: String,
    /// When staged.
    pub created_at: String,
    /// Run with `sh -c` on apply.
    pub apply_cmd: String,
    /// Run with `sh -c` on discard.
    pub reject_cmd: Option<String>,
    /// Where the commands run.
    pub cwd: PathBuf,
    /// Details given at `propose`.
    pub details: Option<Value>,
}

impl CommandView {
    /// The view of `action`; `None` when it is not command-backed.
    pub fn of(action: &crate::store::pending::PendingAction) -> Option<Self> {
        let crate::store::pending::ActionKind::Command { apply_cmd, reject_cmd, cwd, details } = &action.kind else { return None };
        Some(CommandView {
            id: action.id.clone(),
            label: action.label.clone(),
            source_tool_name: action.source_tool_name.clone(),
            created_at: action.created_at.clone(),
            apply_cmd: apply_cmd.clone(),
            reject_cmd: reject_cmd.clone(),
            cwd: cwd.clone(),
            details: details.clone(),
        })
    }
}

/// A standing handler backed by a shell command (`--standing-cmd` or
/// `AST_EDIT_STANDING_CMD`), run in `cwd` like a proposed action's commands.
pub struct CommandStanding {
    /// The command.
    pub cmd: String,
    /// Where it runs.
    pub cwd: PathBuf,
}

impl StandingHandler for CommandStanding {
    fn label(&self) -> String {
        format!("Standing handler: {}", self.cmd)
    }
    fn handle(&mut self, action: Action, reason: &str, extra: Option<&Value>) -> Result<Outcome, String> {
        run_command(&self.cmd, &self.cwd, action, reason, extra)
    }
}
