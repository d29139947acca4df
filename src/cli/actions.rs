//! The pending-action commands: `resolve`, `pending`, `show`, `undo` and
//! `propose`. Each opens the workspace's store, makes one library call and
//! renders its result (JSON with `--json`, text otherwise).

use std::io::{IsTerminal, Write};

use super::print;
use super::words::WORDS;
use super::{ColorChoice, PendingArgs, ProposeArgs, ResolveArgs, ShowArgs, UndoArgs, open_store, spinner, style, write_json};
use ast_edit::app::apply::UndoResult;
use ast_edit::app::custom::{CUSTOM_TOOL, CommandStanding, CommandView, Handlers};
use ast_edit::app::error::Error;
use ast_edit::app::pending::{ActionKind, NewAction, PendingAction, PendingSummary, Store};
use ast_edit::app::quote::escape_controls;
use ast_edit::app::resolve::{self, RawResolve};
use ast_edit::app::session::Session;
use ast_edit::app::workflow::Preview;

/// Parses a flag holding a JSON value.
fn json_flag(flag: &str, text: &Option<String>, example: &str) -> Result<Option<serde_json::Value>, Error> {
    text.as_deref()
        .map(|s| serde_json::from_str(s).map_err(|e| Error::bad(format!("{flag} is not valid JSON ({e}); give a JSON object such as '{example}'"))))
        .transpose()
}

/// Prints a `{content, isError, details}` result: the whole JSON with `--json`;
/// otherwise the text, on stderr when it is an error.
fn print_result(out: &mut impl Write, json: bool, whole: &impl serde::Serialize, is_error: bool, content: &str) -> std::io::Result<()> {
    if json {
        write_json(out, whole)
    } else if is_error {
        eprintln!("{content}");
        Ok(())
    } else {
        writeln!(out, "{content}")
    }
}

/// `ast-edit resolve`.
pub(super) fn resolve(a: ResolveArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let mut extra = json_flag("--extra", &a.extra, r#"{"stale":"skip"}"#)?;
    if let Some(mode) = &a.verify {
        if a.action.trim() != "apply" {
            return Err(Error::bad(format!("--verify {mode} applies to `resolve apply` only: discard builds no new text")).into());
        }
        let mode = serde_json::Value::String(mode.clone());
        match &mut extra {
            None => extra = Some(serde_json::json!({ "verify": mode })),
            Some(serde_json::Value::Object(m)) => match m.get("verify") {
                Some(given) if *given != mode => {
                    return Err(Error::bad(format!("--verify {mode} contradicts extra.verify {given}: give one of them")).into());
                }
                _ => {
                    m.insert("verify".into(), mode);
                }
            },
            // Not an object: RawResolve::check says so.
            Some(_) => {}
        }
    }
    let mut req = RawResolve { action: Some(a.action), reason: a.reason, extra, id: a.id }.check()?;
    req.cache = !a.no_cache;
    let (ws, store) = open_store()?;
    let bar = spinner("resolving (verifying and writing files)");
    let result = match &a.standing_cmd {
        Some(cmd) => {
            let standing = CommandStanding { cmd: cmd.clone(), cwd: ws.root().to_path_buf() };
            let mut handlers = Handlers::default();
            handlers.standing = Some(Box::new(standing));
            resolve::resolve_with(&store, &req, &mut handlers)?
        }
        None => resolve::resolve(&store, &req)?,
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let shown = result.worded(WORDS);
    print_result(out, a.json, &shown, shown.is_error, &shown.content)?;
    if let Some(v) = result.verified {
        eprintln!("{}", v.note());
    }
    Ok(result.exit_code())
}

/// `ast-edit pending`.
pub(super) fn pending(a: PendingArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let (_, store) = open_store()?;
    if a.clear {
        return clear(&a, &store, out);
    }
    let (list, kept) = {
        let locked = store.lock()?;
        let (list, damaged) = locked.listed()?;
        for msg in damaged {
            eprintln!("warning: {msg}");
        }
        (list, locked.kept())
    };
    if a.json {
        let rows: Vec<_> = list.iter().map(|p| p.summary(store.session())).collect();
        write_json(out, &rows)?;
        return Ok(0);
    }
    if list.is_empty() {
        writeln!(out, "No pending actions.")?;
    }
    for p in &list {
        writeln!(out, "{}", row(p, store.session()))?;
    }
    writeln!(out, "{}", kept.footer())?;
    Ok(0)
}

/// One line of `pending` (and the head of `show`): id, time, label, tool and owner (`, yours` for the
/// command line's own, which `resolve` takes without `--id`).
fn row(p: &PendingAction, session: &Session) -> String {
    let mine = if session.owns(&p.owner) { ", yours" } else { "" };
    let label = escape_controls(&p.label);
    let label = match p.what() {
        Some(w) => format!("{label} ({})", escape_controls(&w)),
        None => label.into_owned(),
    };
    format!("{}  {}  {label}  [{}]  by {}{mine}", p.id, p.created_at, p.source_tool_name, p.owner_label())
}

/// Pending actions listed in the confirmation of `pending --clear`.
const CLEAR_LISTED: usize = 20;

/// `ast-edit pending --clear [--yes] [--json]`: drops every pending action after
/// the confirmation (on a terminal) or `--yes`. Only the actions confirmed are
/// dropped: one staged while the question was open stays.
fn clear(a: &PendingArgs, store: &Store, out: &mut impl Write) -> anyhow::Result<i32> {
    #[derive(serde::Serialize)]
    struct Cleared {
        dropped: Vec<PendingSummary>,
    }
    let list = store.lock()?.list()?;
    let ids: Vec<String> = list.iter().map(|p| p.id.clone()).collect();
    if !list.is_empty() && !a.yes {
        let what = ast_edit::app::text::plural(list.len(), "pending action");
        if !std::io::stdin().is_terminal() {
            return Err(
                Error::bad(format!("pending --clear would drop {what} ({}); confirm with --yes (stdin is not a terminal to ask on)", ids.join(", "))).into()
            );
        }
        for p in list.iter().take(CLEAR_LISTED) {
            eprintln!("  {}", row(p, store.session()));
        }
        if list.len() > CLEAR_LISTED {
            eprintln!("  ... and {} more", list.len() - CLEAR_LISTED);
        }
        eprint!("Drop these {what} unresolved (no command runs)? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
            if a.json {
                write_json(out, &Cleared { dropped: Vec::new() })?;
            } else {
                writeln!(out, "Nothing dropped.")?;
            }
            return Ok(0);
        }
    }
    let dropped = if ids.is_empty() { Vec::new() } else { store.lock()?.clear(&ids)? };
    if a.json {
        write_json(out, &Cleared { dropped: dropped.iter().map(|p| p.summary(store.session())).collect() })?;
    } else if dropped.is_empty() {
        writeln!(out, "No pending actions: nothing to clear.")?;
    } else {
        let ids: Vec<&str> = dropped.iter().map(|p| p.id.as_str()).collect();
        writeln!(out, "Dropped {}: {}.", ast_edit::app::text::plural(dropped.len(), "pending action"), ids.join(", "))?;
    }
    Ok(0)
}

/// `ast-edit show`.
pub(super) fn show(a: ShowArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let ShowArgs { id, json, full, path } = a;
    let (_, store) = open_store()?;
    let (found, resolved) = {
        let locked = store.lock()?;
        // Read-only: without an id, the command line's newest, else anyone's.
        let found = match locked.get(id.as_deref())? {
            None if id.is_none() => locked.list()?.into_iter().next(),
            found => found,
        };
        let resolved = match (&found, &id) {
            (None, Some(id)) => locked.resolution(id)?,
            _ => None,
        };
        (found, resolved)
    };
    let Some(action) = found else {
        let msg = match (&id, resolved) {
            (Some(id), Some(r)) => super::words::error(&Error::Resolved { id: id.clone(), resolution: r.resolution, at: r.at, by: r.superseded_by }),
            (Some(id), None) => super::words::error(&Error::UnknownId(id.clone())),
            (None, _) => "No pending actions.".to_string(),
        };
        eprintln!("{msg}");
        return Ok(1);
    };
    let plan = match &action.kind {
        ActionKind::AstEdit { plan } => plan,
        ActionKind::Command { .. } => {
            let shown = CommandView::of(&action).expect("a command action");
            if json {
                write_json(out, &shown)?;
            } else {
                writeln!(out, "{}", row(&action, store.session()))?;
                writeln!(out, "  apply:   sh -c {:?}  (in {})", shown.apply_cmd, shown.cwd.display())?;
                if let Some(r) = &shown.reject_cmd {
                    writeln!(out, "  discard: sh -c {r:?}")?;
                }
                print::how_to_resolve(out, &action.id)?;
            }
            return Ok(0);
        }
    };
    let mut details = Preview::of(plan, WORDS).details.staged(action.id.clone());
    if full {
        for (shown, f) in details.files.iter_mut().zip(&plan.files) {
            if f.diff_lines_cut > 0 {
                match ast_edit::app::plan::full_diff(f) {
                    Some(d) => shown.diff = d,
                    None => eprintln!("warning: {} changed since the preview; its diff stays cut", ast_edit::app::quote::display_name(&f.path)),
                }
            }
        }
    }
    let all = details.files.len();
    if !path.is_empty() {
        select_files(&mut details.files, &path, &action.id)?;
    }
    if json {
        write_json(out, &details)?;
        return Ok(0);
    }
    let style = style(color, full);
    writeln!(out, "{}", row(&action, store.session()))?;
    if !path.is_empty() {
        writeln!(out, "Showing {} of {all} files (selected by --path).", details.files.len())?;
    }
    print::diffs(out, &details, style)?;
    print::summary(out, &details, style)?;
    print::how_to_resolve(out, &action.id)?;
    Ok(0)
}

/// Keeps the `files` that one of `paths` selects (a file, a folder or a glob, as
/// `extra.files`); a path that selects none is bad input naming the files there are.
fn select_files(files: &mut Vec<ast_edit::app::preview::PreviewFile>, paths: &[String], id: &str) -> Result<(), Error> {
    for p in paths {
        if !files.iter().any(|f| ast_edit::app::apply::selects(p, &f.path)) {
            let all: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
            return Err(Error::bad(ast_edit::app::apply::selects_none("--path", p, &all, id)));
        }
    }
    files.retain(|f| paths.iter().any(|p| ast_edit::app::apply::selects(p, &f.path)));
    Ok(())
}

/// `ast-edit propose`.
pub(super) fn propose(a: ProposeArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    if a.label.trim().is_empty() {
        return Err(Error::bad("--label must not be empty: say what the action does").into());
    }
    if a.apply_cmd.trim().is_empty() {
        return Err(Error::bad("--apply-cmd must not be empty: give the shell command that applies the action").into());
    }
    let details = match &a.details {
        None => None,
        Some(s) => Some(serde_json::from_str::<serde_json::Value>(s).map_err(|e| Error::bad(format!("--details is not valid JSON: {e}")))?),
    };
    let (ws, store) = open_store()?;
    let action = store.lock()?.push(NewAction {
        label: a.label.clone(),
        source_tool_name: a.source.clone().unwrap_or_else(|| CUSTOM_TOOL.to_string()),
        files: Vec::new(),
        kind: ActionKind::Command { apply_cmd: a.apply_cmd.clone(), reject_cmd: a.reject_cmd.clone(), cwd: ws.root().to_path_buf(), details },
    })?;
    if a.json {
        write_json(out, &CommandView::of(&action).expect("staged just above"))?;
    } else {
        print::how_to_resolve(out, &action.id)?;
    }
    Ok(0)
}

/// `ast-edit undo [--id ID]`.
pub(super) fn undo(a: UndoArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let (_, store) = open_store()?;
    let id = a.id.as_deref().map(str::trim).filter(|id| !id.is_empty());
    let res = UndoResult::run(&store.lock()?, id, WORDS)?;
    print_result(out, a.json, &res, res.is_error, &res.content)?;
    Ok(res.exit_code())
}
