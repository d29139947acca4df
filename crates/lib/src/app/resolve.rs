//! `resolve`: applies or discards a pending action (the caller's session's newest, or
//! the one named by `id`, whichever session staged it) under the store's lock, and
//! returns the result of docs/DESIGN.md §4.1: a text, an error flag and the details. A
//! failed apply keeps the action; a resolved one leaves its record in `resolved/`
//! ([`Locked::finish`]), which a later `resolve --id` reports ([`Error::Resolved`]). An
//! `ast_edit` action's `extra` is checked once the action is picked (§4.2); its apply
//! splices the stored edits or re-runs the engine (§4.3 step 5,
//! [`ResolveResult::verified`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::custom::{CommandAction, CommandStanding, Handlers, Outcome, PendingHandler};
use crate::apply::{self, ApplyOptions};
use crate::plan::Plan;
use crate::plan::warm::Written;
use crate::shared::error::{Error, NOTHING_PENDING, Refusal, Result};
use crate::shared::message::{Name, Say, Text, Words};
use crate::shared::status::Resolution;
use crate::shared::status::{ApplyStatus, OutstandingStatus};
use crate::store::pending::{ActionKind, Locked, PendingAction, Store};

pub use crate::shared::status::Action;

/// A checked resolve request.
#[derive(Clone, Debug)]
pub struct ResolveRequest {
    /// What to do.
    pub action: Action,
    /// Why (non-empty).
    pub reason: String,
    /// Free-form options for the action's producer (a JSON object).
    pub extra: Option<Value>,
    /// Which action; `None` = the caller's session's newest.
    pub id: Option<String>,
    /// After an `ast_edit` apply, store in the scan cache what the action's
    /// rules make of the files written (`workflow::cache_written`); true
    /// unless a front end's `--no-cache` says not.
    pub cache: bool,
}

impl ResolveRequest {
    /// Validates the parts of a resolve request ([`RawResolve::check`]).
    pub fn new(action: Action, reason: Option<String>, extra: Option<Value>, id: Option<String>) -> Result<Self> {
        let verb = match action {
            Action::Apply => "apply",
            Action::Discard => "discard",
        };
        RawResolve { action: Some(verb.to_string()), reason, extra, id }.check()
    }
}

/// The arguments of `resolve` as a front end received them: the MCP tool's JSON
/// arguments, or the CLI's flags. [`RawResolve::check`] turns them into a
/// [`ResolveRequest`], its messages naming the arguments ([`Name::Argument`]).
///
/// It is also the input schema of the MCP tool `resolve` (`resolve_input_schema` in
/// the binary's src/mcp/tools.rs). The doc comments are for Rust readers; the
/// `schemars` attributes hold the schema's texts and what serde cannot say. Every
/// field is an `Option` so that a missing or wrong one gets the message of
/// [`RawResolve::check`] rather than a serde error; the schema still marks `action`
/// and `reason` required and states what `check` accepts (`enum`, `minLength`,
/// `extra` an object).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("required" = ["action", "reason"]))]
pub struct RawResolve {
    /// `apply` or `discard`.
    #[serde(default)]
    #[schemars(
        extend("enum" = ["apply", "discard"]),
        description = "apply writes the pending edit (verified against the preview); discard drops it."
    )]
    pub action: Option<String>,
    /// Why, in one sentence.
    #[serde(default)]
    #[schemars(length(min = 1), description = "Why, in one sentence.")]
    pub reason: Option<String>,
    /// Options for the action's producer: a JSON object (or null).
    #[serde(default)]
    #[schemars(
        extend("type" = "object"),
        description = "Apply options (unknown keys are errors): {\"stale\": \"skip\"} writes the unchanged files, reports the rest (default \"abort\"); {\"files\": [...]} only these, {\"exclude\": [...]} all but these (paths, folders, globs); {\"skipFlagged\": true} leaves out flagged files (files left out stay pending unless {\"close\": true}), {\"allowSyntaxErrors\"|\"allowStructureChanges\"|\"allowTemplateMismatch\": true} writes them; {\"verify\": \"rerun\"} re-runs the edit."
    )]
    pub extra: Option<Value>,
    /// The pending action to resolve; absent or empty: the caller's session's newest.
    #[serde(default)]
    #[schemars(
        description = "The pending action to resolve (the `id` of an ast_edit result, or another session's from ast_pending). Default: this session's newest."
    )]
    pub id: Option<String>,
}

impl RawResolve {
    /// Checks the arguments; every problem is bad input naming the field.
    pub fn check(self) -> Result<ResolveRequest> {
        let field = |name: &str| Text::default().name(Name::Argument(name.to_string()));
        let action = match self.action.as_deref().map(str::trim) {
            None | Some("") => {
                return Err(Error::bad(field("action").lit(" is required: \"apply\" writes the pending edit, \"discard\" drops it")));
            }
            Some("apply") => Action::Apply,
            Some("discard") => Action::Discard,
            Some(other) => return Err(Error::bad(Text::default().say(Say::ActionChoice(other.to_string())))),
        };
        let reason = self.reason.unwrap_or_default();
        if reason.trim().is_empty() {
            return Err(Error::bad(
                field("reason").lit(" is required and must not be empty: say in one sentence why you apply or discard").say(Say::HowToGiveReason),
            ));
        }
        let extra = match self.extra {
            None | Some(Value::Null) => None,
            Some(v) if v.is_object() => Some(v),
            Some(v) => {
                return Err(Error::bad(field("extra").lit(format!(" must be a JSON object, for example {{\"stale\": \"skip\"}}; got {v}"))));
            }
        };
        let id = self.id.filter(|s| !s.trim().is_empty());
        Ok(ResolveRequest { action, reason, extra, id, cache: true })
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
    /// When apply refused flagged files: which, why, and the `extra` to apply
    /// the rest or all of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default)]
    pub refused: Option<Refusal>,
}

/// How a resolve ended: what the exit code and the callers go by. Not part of
/// the JSON (which says it with `isError` and the details).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ending {
    /// Applied (every file) or discarded.
    #[default]
    Done,
    /// Applied, with something `outstanding`.
    Incomplete,
    /// Nothing pending and no standing handler.
    NothingPending,
    /// `id` names no pending action: never staged (or forgotten), or resolved
    /// already (the text then says what became of it and when).
    UnknownId,
    /// The apply or discard callback failed; the action stays pending.
    Failed,
}

/// A resolve result; a front end shows it worded ([`ResolveResult::worded`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveResult {
    /// The result text.
    pub content: Text,
    /// True for "nothing pending" and failed applies.
    pub is_error: bool,
    /// The details.
    pub details: ResolveDetails,
    /// How it ended.
    pub ending: Ending,
    /// For an `ast_edit` apply that got as far as building the new texts: how
    /// they were verified (the CLI says it on stderr).
    pub verified: Option<Verified>,
}

/// A resolve result as a front end shows it: `{content, isError, details}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WordedResult<'a> {
    /// The result text, worded.
    pub content: String,
    /// True for "nothing pending" and failed applies.
    pub is_error: bool,
    /// The details.
    pub details: &'a ResolveDetails,
}

/// How `resolve apply` built and checked the new text of an `ast_edit` action's
/// files (docs/DESIGN.md section 4.3, step 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The stored edits were spliced onto the verified bytes: the entry was staged
    /// by this build (`engineBuild`) and its request gives its `rulesDigest`.
    Spliced,
    /// The engine was re-run on every file, for this reason.
    Rerun(RerunWhy),
}

/// Why `resolve apply` re-ran the engine rather than re-using the stored plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RerunWhy {
    /// `extra.verify = "rerun"` (CLI `--verify rerun`).
    Asked,
    /// The entry records no build (the build that staged it could not read its
    /// executable).
    NoBuild,
    /// Another build staged it.
    OtherBuild,
    /// The entry has no `rulesDigest`, or its stored request does not give it.
    RulesDiffer,
}

impl Verified {
    /// The line the CLI prints on stderr after an apply (also a failed one, which
    /// it helps to explain).
    pub fn note(self) -> &'static str {
        match self {
            Verified::Spliced => "verify: stored plan re-used (staged by this build from the same rules); each file's bytes and the result's digest checked",
            Verified::Rerun(RerunWhy::Asked) => "verify: edit re-run on every file by this build (asked: verify rerun)",
            Verified::Rerun(RerunWhy::NoBuild) => "verify: edit re-run on every file by this build (the action does not record the build that staged it)",
            Verified::Rerun(RerunWhy::OtherBuild) => "verify: edit re-run on every file by this build (the action was staged by another ast-edit build)",
            Verified::Rerun(RerunWhy::RulesDiffer) => "verify: edit re-run on every file by this build (the stored request does not match its rulesDigest)",
        }
    }
}

impl ResolveResult {
    fn new(ending: Ending, content: impl Into<Text>, details: ResolveDetails) -> Self {
        let is_error = matches!(ending, Ending::NothingPending | Ending::UnknownId | Ending::Failed);
        ResolveResult { content: content.into(), is_error, details, ending, verified: None }
    }

    /// The result as a front end shows it, its text in `words`.
    pub fn worded(&self, words: &dyn Words) -> WordedResult<'_> {
        WordedResult { content: self.content.render(words), is_error: self.is_error, details: &self.details }
    }

    /// Exit code: 0 ok, 1 nothing to resolve / apply failed, 3 applied but incomplete.
    pub fn exit_code(&self) -> i32 {
        match self.ending {
            Ending::Done => 0,
            Ending::Incomplete => 3,
            Ending::NothingPending | Ending::UnknownId | Ending::Failed => 1,
        }
    }
}

/// How to build the new texts of `action`'s files (docs/DESIGN.md section 4.3,
/// step 5): splice its stored edits when the entry proves they are what this
/// build computes from its request (the same `engineBuild` as this process, and a
/// `rulesDigest` equal to the digest of its stored request), else re-run.
pub(crate) fn verification(action: &PendingAction, plan: &Plan, opts: &ApplyOptions, state_dir: &std::path::Path) -> Verified {
    if opts.rerun {
        return Verified::Rerun(RerunWhy::Asked);
    }
    let Some(staged_by) = &action.engine_build else { return Verified::Rerun(RerunWhy::NoBuild) };
    if crate::store::pending_format::engine_build(state_dir).as_ref() != Some(staged_by) {
        return Verified::Rerun(RerunWhy::OtherBuild);
    }
    let rules = crate::store::pending_format::rules_of(&plan.request);
    if action.rules_digest.as_deref() != Some(crate::store::pending_format::rules_digest(&rules, &plan.request).as_str()) {
        return Verified::Rerun(RerunWhy::RulesDiffer);
    }
    Verified::Spliced
}

/// Applies an `ast_edit` plan with the verified writer, journalled under its id.
fn apply_ast_edit(
    plan: &Plan,
    locked: &Locked<'_>,
    action: &PendingAction,
    opts: &ApplyOptions,
    extra: Option<&Value>,
    refused: &mut Option<Refusal>,
) -> std::result::Result<apply::ApplyOutcome, Text> {
    let what = apply::Journalled { id: action.id.clone(), label: action.label.clone() };
    match apply::apply_plan(plan, opts, Some((locked, &what))) {
        Ok(report) => Ok(report),
        Err(Error::ApplyFailed(m)) => Err(m),
        Err(Error::ApplyRefused(r)) => {
            // The ways on keep the caller's own `extra` keys.
            let r = r.with_extra(extra);
            let text = r.text();
            *refused = Some(r);
            Err(text)
        }
        Err(other) => Err(other.text()),
    }
}

/// The options of an `ast_edit` action's `extra`, checked (bad input otherwise,
/// nothing done). Discard reads none of them, but `files` there would read as
/// "discard only these", and `exclude` or `skipFlagged` as "discard all but
/// these", which discard cannot do.
fn ast_edit_options(req: &ResolveRequest) -> Result<ApplyOptions> {
    let opts = ApplyOptions::from_extra(req.extra.as_ref())?;
    if req.action == Action::Discard {
        let key = if opts.only.is_some() {
            Some(("files", "selects files to apply"))
        } else if !opts.exclude.is_empty() {
            Some(("exclude", "leaves files out of an apply"))
        } else if opts.skip_flagged {
            Some(("skipFlagged", "leaves files out of an apply"))
        } else {
            None
        };
        if let Some((key, what)) = key {
            return Err(Error::bad(format!("extra.{key} {what}, but discard drops the whole action: discard without extra.{key} (nothing was dropped)")));
        }
    }
    Ok(opts)
}

/// Resolves one pending action in `store`, with the standing handler configured
/// by `AST_EDIT_STANDING_CMD` (a shell command run in the working directory), if set.
pub fn resolve(store: &Store, req: &ResolveRequest) -> Result<ResolveResult> {
    let mut handlers = Handlers::default();
    if let Some(cmd) = std::env::var("AST_EDIT_STANDING_CMD").ok().filter(|c| !c.trim().is_empty()) {
        let cwd = crate::shared::paths::current_dir()?;
        handlers.standing = Some(Box::new(CommandStanding { cmd, cwd }));
    }
    resolve_with(store, req, &mut handlers)
}

/// Where the chosen action lives.
enum Chosen {
    Disk(Box<PendingAction>),
    Memory(usize),
}

/// Resolves the newest pending action of the store's session (or `req.id`,
/// whichever session staged it) among the actions on disk and the in-process ones
/// of `handlers` (which are the session's own); with none, the standing handler;
/// with no standing handler, the nothing-pending error, naming the other sessions'
/// pending actions. Runs under the store's lock; once it is let go, the files an
/// `ast_edit` apply wrote are stored in the scan cache as its rules make them
/// (`req.cache`, `workflow::cache_written`).
pub fn resolve_with(store: &Store, req: &ResolveRequest, handlers: &mut Handlers) -> Result<ResolveResult> {
    let mut written = None;
    let result = resolve_locked(store, req, handlers, &mut written)?;
    if let Some(written) = written.filter(|_| req.cache) {
        crate::app::workflow::cache_written(store.dir(), &written);
    }
    Ok(result)
}

/// [`resolve_with`] under the lock; `written` gets the files an `ast_edit`
/// apply wrote.
fn resolve_locked(store: &Store, req: &ResolveRequest, handlers: &mut Handlers, written: &mut Option<Written>) -> Result<ResolveResult> {
    let mut details = ResolveDetails {
        action: req.action,
        reason: req.reason.clone(),
        extra: req.extra.clone(),
        source_tool_name: None,
        label: None,
        source_result_details: None,
        refused: None,
    };
    let locked = store.lock()?;
    let Some(chosen) = choose(&locked, req, handlers)? else {
        if let Some(id) = &req.id
            && let Some(record) = locked.resolution(id)?
        {
            let text = crate::shared::error::resolved_text(id, record.resolution, &record.at, record.superseded_by.as_deref());
            return Ok(ResolveResult::new(Ending::UnknownId, text, details));
        }
        return resolve_standing(&locked, req, handlers, details);
    };
    let (label, source) = match &chosen {
        Chosen::Memory(i) => (handlers.custom[*i].handler.label(), handlers.custom[*i].handler.source_tool_name()),
        Chosen::Disk(a) => (a.label.clone(), a.source_tool_name.clone()),
    };
    details.source_tool_name = Some(source);
    details.label = Some(label.clone());
    let ast_plan = match &chosen {
        Chosen::Disk(a) => match &a.kind {
            ActionKind::AstEdit { plan } => Some((plan, a.as_ref())),
            ActionKind::Command { .. } => None,
        },
        Chosen::Memory(_) => None,
    };
    let mut verified = None;
    let mut wrote = false;
    let mut rest: Vec<String> = Vec::new();
    let outcome = match (&chosen, ast_plan) {
        (_, Some((plan, action))) => resolve_ast_edit(plan, action, &locked, req, &mut verified, &mut details.refused, (&mut wrote, &mut rest, written))?,
        (Chosen::Disk(a), None) => {
            let ActionKind::Command { apply_cmd, reject_cmd, cwd, details } = &a.kind else { unreachable!("matched above") };
            let mut command = CommandAction {
                label: a.label.clone(),
                source_tool_name: a.source_tool_name.clone(),
                apply_cmd: apply_cmd.clone(),
                reject_cmd: reject_cmd.clone(),
                cwd: cwd.clone(),
                details: details.clone(),
            };
            run_handler(&mut command, req)
        }
        (Chosen::Memory(i), None) => run_handler(handlers.custom[*i].handler.as_mut(), req),
    };
    let (ending, outcome) = match outcome {
        Err(m) => {
            let verb = if req.action == Action::Apply { "Apply" } else { "Discard" };
            let mut result = ResolveResult::new(Ending::Failed, m.after(format!("{verb} failed: ")), details);
            result.verified = verified;
            return Ok(result);
        }
        Ok(o) => o,
    };
    let undo_id = match &chosen {
        Chosen::Disk(a) if wrote => Some(a.id.clone()),
        _ => None,
    };
    match &chosen {
        // Files the options left out stay pending under the action's id.
        Chosen::Disk(a) if !rest.is_empty() => {
            keep_rest(&locked, a, &rest)?;
            let _ = locked.prune_journal();
        }
        _ => finish(&locked, chosen, req, handlers, verified.is_some())?,
    }
    let mut content = Text::from(match outcome {
        Some(o) => {
            details.source_result_details = o.details;
            o.text
        }
        None => format!("Discarded: {}. Reason: {}", crate::shared::quote::escape_controls(&label), crate::shared::quote::escape_controls(&req.reason)),
    });
    // Every write names the way back (docs/DESIGN.md section 5.3).
    if let Some(id) = undo_id {
        content = content.lit("\nTo undo: ").say(Say::UndoById(id));
    }
    let mut result = ResolveResult::new(ending, content, details);
    result.verified = verified;
    Ok(result)
}

/// Applies or discards an `ast_edit` action. Its `extra` is checked first (a
/// custom action's `extra` belongs to it), before anything is read or written;
/// `verified` says which apply path ran, `wrote` whether a file was written,
/// `rest` gets the files the options left out (`files`, `exclude`,
/// `skipFlagged`), which stay pending unless `extra.close`, and `written` the
/// files written, to store in the scan cache. `Err` inside is the apply's
/// failure.
fn resolve_ast_edit(
    plan: &Plan,
    action: &PendingAction,
    locked: &Locked<'_>,
    req: &ResolveRequest,
    verified: &mut Option<Verified>,
    refused: &mut Option<Refusal>,
    (wrote, rest, written): (&mut bool, &mut Vec<String>, &mut Option<Written>),
) -> Result<std::result::Result<(Ending, Option<Outcome>), Text>> {
    let mut opts = ast_edit_options(req)?;
    if req.action == Action::Discard {
        return Ok(Ok((Ending::Done, None)));
    }
    // Bad input (exit 2), not a failed apply: checked before anything is read.
    opts.check_paths(plan)?;
    let how = verification(action, plan, &opts, locked.dir());
    opts.trust_plan = how == Verified::Spliced;
    *verified = Some(how);
    Ok(apply_ast_edit(plan, locked, action, &opts, req.extra.as_ref(), refused).map(|report| {
        *wrote = report.applied;
        *written = crate::app::workflow::written_by(plan, &report);
        let ending = if report.status == ApplyStatus::Incomplete { Ending::Incomplete } else { Ending::Done };
        if !opts.close {
            *rest = report.outstanding.iter().filter(|o| o.status == OutstandingStatus::NotSelected).map(|o| o.path.clone()).collect();
        }
        let mut text = report.text();
        if ending == Ending::Incomplete && rest.is_empty() {
            text.push_str("\nThe action is resolved: the files not applied are no longer pending (preview them again to edit them).");
        } else if ending == Ending::Incomplete {
            let gone = report.outstanding.len() - rest.len();
            text.push_str(&format!(
                "\nThe {} left out {} pending as {}: apply or discard {} with its id",
                crate::shared::text::plural(rest.len(), "file"),
                if rest.len() == 1 { "stays" } else { "stay" },
                action.id,
                if rest.len() == 1 { "it" } else { "them" }
            ));
            if gone > 0 {
                text.push_str(&format!("; the other {} not applied are no longer pending", crate::shared::text::plural(gone, "file")));
            }
            text.push_str(" (extra {\"close\": true} ends an action with its apply).");
        }
        (ending, Some(Outcome { text, details: Some(serde_json::to_value(&report).expect("serializes")) }))
    }))
}

/// Keeps the files `rest` of the applied `action` pending under its id: the
/// entry is rewritten with their plan only and a label that counts them.
fn keep_rest(locked: &Locked<'_>, action: &PendingAction, rest: &[String]) -> Result<()> {
    let ActionKind::AstEdit { plan } = &action.kind else { return Ok(()) };
    let mut plan = plan.clone();
    let rest: std::collections::HashSet<&str> = rest.iter().map(String::as_str).collect();
    plan.files.retain(|f| rest.contains(f.path.as_str()));
    let mut kept = action.clone();
    kept.label = crate::plan::preview::plan_label(&plan, &plan.per_rule());
    kept.files = plan.files.iter().map(|f| f.path.clone()).collect();
    kept.kind = ActionKind::AstEdit { plan };
    locked.save(&kept)
}

/// Takes a resolved action off the stack: a stored one gets its resolved record
/// (and, after an apply, the journal is kept within its retention now; what
/// cannot be removed is retried, and reported, when the store is next opened);
/// an in-process one is dropped.
fn finish(locked: &Locked<'_>, chosen: Chosen, req: &ResolveRequest, handlers: &mut Handlers, applied: bool) -> Result<()> {
    match chosen {
        Chosen::Disk(a) => {
            let resolution = match req.action {
                Action::Apply => Resolution::Applied,
                Action::Discard => Resolution::Discarded,
            };
            locked.finish(&a, resolution)?;
            if applied {
                let _ = locked.prune_journal();
            }
        }
        Chosen::Memory(i) => {
            handlers.custom.remove(i);
        }
    }
    Ok(())
}

/// The session's newest action (or `req.id`) among those on disk and the
/// in-process ones.
fn choose(locked: &Locked<'_>, req: &ResolveRequest, handlers: &Handlers) -> Result<Option<Chosen>> {
    let disk = locked.get(req.id.as_deref())?;
    let memory = handlers
        .custom
        .iter()
        .enumerate()
        .filter(|(_, c)| req.id.as_deref().is_none_or(|want| want == c.id))
        .max_by_key(|(_, c)| c.order)
        .map(|(i, c)| (i, c.order));
    Ok(match (disk, memory) {
        (Some(d), Some((i, order))) => Some(if order > d.order { Chosen::Memory(i) } else { Chosen::Disk(Box::new(d)) }),
        (Some(d), None) => Some(Chosen::Disk(Box::new(d))),
        (None, Some((i, _))) => Some(Chosen::Memory(i)),
        (None, None) => None,
    })
}

/// Runs a custom action's apply or reject callback.
fn run_handler(handler: &mut dyn PendingHandler, req: &ResolveRequest) -> std::result::Result<(Ending, Option<Outcome>), Text> {
    match req.action {
        Action::Apply => handler.apply(&req.reason, req.extra.as_ref()).map(|o| (Ending::Done, Some(o))),
        Action::Discard => handler.reject(&req.reason, req.extra.as_ref()).map(|o| (Ending::Done, o)),
    }
    .map_err(Text::from)
}

/// Nothing of the caller's session is pending (or nothing has `id`): the
/// unknown-id message, the standing handler, or the nothing-pending message
/// followed by the other sessions' pending actions, if any
/// ([`crate::store::session::pending_elsewhere`]).
fn resolve_standing(locked: &Locked<'_>, req: &ResolveRequest, handlers: &mut Handlers, mut details: ResolveDetails) -> Result<ResolveResult> {
    if let Some(id) = &req.id {
        return Ok(ResolveResult::new(Ending::UnknownId, crate::shared::error::unknown_id(id), details));
    }
    let Some(standing) = handlers.standing.as_mut() else {
        let text = Text::from(NOTHING_PENDING).then(crate::store::session::pending_elsewhere(&locked.others()?));
        return Ok(ResolveResult::new(Ending::NothingPending, text, details));
    };
    details.source_tool_name = Some(standing.source_tool_name());
    details.label = Some(standing.label());
    Ok(match standing.handle(req.action, &req.reason, req.extra.as_ref()) {
        Ok(o) => {
            details.source_result_details = o.details;
            ResolveResult::new(Ending::Done, o.text, details)
        }
        Err(m) => {
            let verb = if req.action == Action::Apply { "Apply" } else { "Discard" };
            ResolveResult::new(Ending::Failed, format!("{verb} failed: {m}"), details)
        }
    })
}
