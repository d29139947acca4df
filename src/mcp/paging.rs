//! Bounded `structuredContent`, and the pages of `ast_pending`. A client puts a tool
//! result into a model's context whole, and some clients show the model only
//! `structuredContent`, so every `structuredContent` of the server stays within
//! [`STRUCTURED_CHAR_BUDGET`] characters of compact JSON, with `truncated` and
//! `filesOmitted` saying what was cut. What goes first past the budget (never the counts;
//! notes keep their first entries; a preview's `files` a prefix in path order, so
//! `fileOffset` goes on where they stop; an apply or undo report its diffs first):
//! docs/DESIGN.md §5.5 and §5.6; the budgets: §7. The CLI's `--json` is not bounded.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use ast_edit::app::apply::UndoOutcome;
use ast_edit::app::pending::{ActionKind, PendingAction};
use ast_edit::app::preview::PreviewDetails;
use ast_edit::app::resolve::ResolveDetails;
use ast_edit::app::session::Session;
use ast_edit::app::text::{self, STRUCTURED_CHAR_BUDGET, Unit};

/// Files of one `ast_pending` page when `limit` is not given.
pub const PAGE_FILES: usize = 20;

/// Most files of one `ast_pending` page (`limit`); both budgets may end a page
/// sooner.
pub const MAX_PAGE_FILES: usize = 100;

/// The share of the budget that each list of notes (`skipped`, `warnings`,
/// `outstanding`) may take once a result is over the budget.
const NOTES_SHARE: usize = STRUCTURED_CHAR_BUDGET / 8;

/// Longest string of a note entry (a reason, a warning) once a result is over
/// the budget.
const MAX_NOTE_CHARS: usize = 400;

/// Room kept for the warning that says how to page the rest.
const PAGING_NOTE_RESERVE: usize = 400;

/// Characters of `v` as compact JSON, as the result goes on the wire.
pub fn json_chars(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

/// The arguments of `ast_pending`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PendingArgs {
    /// The action to page through; absent: list the pending actions.
    #[serde(default)]
    pub id: Option<String>,
    /// The first file of the page (0-based, in path order).
    #[serde(default)]
    pub file_offset: Option<u64>,
    /// Most files of the page.
    #[serde(default)]
    pub limit: Option<u64>,
    /// Only the files this selects: a path, a folder or a glob (as `extra.files`).
    #[serde(default)]
    pub path: Option<String>,
    /// The first line of the page file's diff (0-based): the page holds that one
    /// file, its diff from this line on, as much as fits.
    #[serde(default)]
    pub diff_offset: Option<u64>,
}

/// The arguments of `ast_undo`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// The action whose last apply to undo (any session's); absent: this
    /// session's last apply.
    #[serde(default)]
    pub id: Option<String>,
}

/// `truncated` and `filesOmitted`, set on `obj`.
fn mark(obj: &mut Map<String, Value>, truncated: bool, omitted: usize) {
    obj.insert("truncated".into(), Value::Bool(truncated));
    obj.insert("filesOmitted".into(), json!(omitted));
}

/// How many of `sizes` (each entry's characters) fit, from the first, in `room`
/// characters of a JSON array (a comma between entries).
fn prefix_fitting(sizes: impl IntoIterator<Item = usize>, room: usize) -> usize {
    let mut used = 0usize;
    let mut n = 0;
    for s in sizes {
        let add = s + usize::from(n > 0);
        if used + add > room {
            break;
        }
        used += add;
        n += 1;
    }
    n
}

/// Cuts every string in `v` (an entry of a note list) to [`MAX_NOTE_CHARS`].
fn cut_strings(v: &mut Value) {
    match v {
        Value::String(s) if text::cut(s, MAX_NOTE_CHARS, Unit::Chars).is_some() => {
            *s = text::cut_with_note(s, MAX_NOTE_CHARS, Unit::Chars, "");
        }
        Value::Array(a) => a.iter_mut().for_each(cut_strings),
        Value::Object(o) => o.values_mut().for_each(cut_strings),
        _ => {}
    }
}

/// Keeps the first entries of the list `obj[key]` within [`NOTES_SHARE`], each
/// string cut to [`MAX_NOTE_CHARS`]; returns how many entries were left out.
fn cap_notes(obj: &mut Map<String, Value>, key: &str) -> usize {
    cap_notes_within(obj, key, NOTES_SHARE)
}

/// [`cap_notes`] within `share` characters.
fn cap_notes_within(obj: &mut Map<String, Value>, key: &str, share: usize) -> usize {
    let Some(Value::Array(list)) = obj.get_mut(key) else { return 0 };
    if json_chars(&Value::Array(list.clone())) <= share {
        return 0;
    }
    list.iter_mut().for_each(cut_strings);
    let keep = prefix_fitting(list.iter().map(json_chars), share);
    let omitted = list.len() - keep;
    list.truncate(keep);
    omitted
}

/// Appends a warning to `obj["warnings"]`.
fn warn(obj: &mut Map<String, Value>, msg: String) {
    if let Some(Value::Array(w)) = obj.get_mut("warnings") {
        w.push(Value::String(msg));
    }
}

/// Where the whole list can be seen, for a note on what was left out.
fn see_all(id: Option<&str>) -> String {
    match id {
        Some(_) => "an MCP result holds no more of them (the pending action keeps them all)".into(),
        None => "an MCP result holds no more of them".into(),
    }
}

/// `diff` cut at a line so that the entry `entry` (holding it) takes at most
/// `room` characters, with a last line saying how to see the rest. Returns false
/// when the entry fits as it is (and is left so).
fn cut_diff(entry: &mut Value, room: usize, id: &str) -> bool {
    if json_chars(entry) <= room {
        return false;
    }
    let Some(diff) = entry.get("diff").and_then(Value::as_str).map(str::to_owned) else { return false };
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let note = |n: usize| {
        format!(
            "… {} more diff lines cut to keep this result under {STRUCTURED_CHAR_BUDGET} characters; the pending action {id} holds the whole diff (`ast_pending` with its id pages through it, \"diffOffset\" on from a cut), and apply writes it whole\n",
            n
        )
    };
    entry["diff"] = Value::String(String::new());
    let bare = json_chars(entry);
    let mut kept = String::new();
    let mut used = bare + json_chars(&Value::String(note(lines.len()))) - 2;
    for line in &lines {
        let add = json_chars(&Value::String((*line).to_string())) - 2;
        if used + add > room {
            break;
        }
        used += add;
        kept.push_str(line);
    }
    let shown = kept.split_inclusive('\n').count();
    kept.push_str(&note(lines.len() - shown));
    entry["diff"] = Value::String(kept);
    true
}

/// Keeps whole entries of `files` within `room`, a prefix in path order; when not
/// even the first fits, the first with its diff cut. Returns (entries kept, true
/// when a diff was cut).
fn fit_whole_entries(files: &mut Vec<Value>, room: usize, id: &str) -> (usize, bool) {
    let keep = prefix_fitting(files.iter().map(json_chars), room);
    if keep == 0 && !files.is_empty() {
        files.truncate(1);
        return (1, cut_diff(&mut files[0], room, id));
    }
    files.truncate(keep);
    (keep, false)
}

/// The `structuredContent` of an `ast_edit` result: the preview details (without
/// `id` when nothing was staged: the output schema has one type per key), bounded.
pub fn preview(d: &PreviewDetails) -> Value {
    let mut v = serde_json::to_value(d).expect("preview details serialize");
    let obj = v.as_object_mut().expect("an object");
    if obj.get("id").is_some_and(Value::is_null) {
        obj.remove("id");
    }
    mark(obj, false, 0);
    if json_chars(&v) <= STRUCTURED_CHAR_BUDGET {
        return v;
    }
    let obj = v.as_object_mut().expect("an object");
    mark(obj, true, 0);
    let id = d.id.clone();
    // The files a limit left unsearched are kept first: they fail the run.
    if let Some(Value::Array(list)) = obj.get_mut("skipped") {
        list.sort_by_key(|s| s["limit"] != Value::Bool(true));
    }
    let skipped = cap_notes(obj, "skipped");
    let warnings = cap_notes(obj, "warnings");
    if warnings > 0 {
        warn(obj, format!("… and {warnings} more warnings; {}", see_all(id.as_deref())));
    }
    if skipped > 0 {
        warn(obj, format!("structuredContent.skipped leaves out {skipped} more skipped files; {}", see_all(id.as_deref())));
    }
    // Without a changed file, the findings are the result: half the budget.
    let findings_share = if d.files.is_empty() { STRUCTURED_CHAR_BUDGET / 2 } else { NOTES_SHARE };
    let left = cap_notes_within(obj, "findings", findings_share);
    if left > 0 {
        warn(
            obj,
            format!(
                "structuredContent.findings leaves out {left} more findings; `ast_search` with the same `rule` or `project` (and paths, globs) lists every match with its rule and message, page by page"
            ),
        );
    }
    for (key, what) in [("overlapped", "overlapped matches"), ("brokenBefore", "files broken before the edit")] {
        let left = cap_notes(obj, key);
        if left > 0 {
            warn(obj, format!("structuredContent.{key} leaves out {left} more {what}; {}", see_all(id.as_deref())));
        }
    }
    let Some(Value::Array(mut files)) = obj.remove("files") else { return v };
    let total = files.len();
    obj.insert("files".into(), Value::Array(Vec::new()));
    let room = STRUCTURED_CHAR_BUDGET.saturating_sub(json_chars(&v) + PAGING_NOTE_RESERVE);
    let page_id = id.as_deref().unwrap_or("ID");
    let (kept, cut) = fit_whole_entries(&mut files, room, page_id);
    let obj = v.as_object_mut().expect("an object");
    obj.insert("files".into(), Value::Array(files));
    mark(obj, true, total - kept);
    if kept < total || cut {
        warn(
            obj,
            format!(
                "structuredContent lists the first {kept} of {total} changed files (the {STRUCTURED_CHAR_BUDGET}-character budget); page through the rest with `ast_pending` {{\"id\": \"{page_id}\", \"fileOffset\": {kept}}}"
            ),
        );
    }
    shrink(&mut v, STRUCTURED_CHAR_BUDGET);
    v
}

/// The `structuredContent` of a `resolve` result: the resolve details, bounded.
/// An `ast_edit` apply report drops its diffs first, then file entries
/// (`outstanding` keeps its first entries within a share of the budget); any
/// other details (a command's output) have their longest strings cut.
pub fn resolve(d: &ResolveDetails) -> Value {
    let mut v = serde_json::to_value(d).expect("resolve details serialize");
    let obj = v.as_object_mut().expect("an object");
    // The preview showed the diffs: an apply report's files keep their status
    // only (docs/DESIGN.md section 7).
    if let Some(Value::Array(files)) = obj.get_mut("sourceResultDetails").and_then(|r| r.get_mut("files")) {
        for f in files.iter_mut().filter_map(Value::as_object_mut) {
            f.remove("diff");
        }
    }
    // A refusal keeps every count and its ways on; its files within half the
    // budget, counted and marked `truncated` when some do not fit.
    let mut refused_cut = false;
    if let Some(Value::Object(refused)) = obj.get_mut("refused") {
        let left = cap_notes_within(refused, "files", STRUCTURED_CHAR_BUDGET / 2);
        if left > 0 {
            refused.insert("filesOmitted".into(), Value::from(left));
            refused_cut = true;
        }
    }
    mark(obj, refused_cut, 0);
    if json_chars(&v) <= STRUCTURED_CHAR_BUDGET {
        return v;
    }
    let mut omitted = 0;
    let obj = v.as_object_mut().expect("an object");
    let report = obj.remove("sourceResultDetails");
    mark(obj, true, 0);
    if let Some(mut report) = report {
        if let Some(r) = report.as_object_mut().filter(|r| r.get("files").is_some_and(Value::is_array)) {
            let room = STRUCTURED_CHAR_BUDGET.saturating_sub(json_chars(&v) + 30);
            omitted = bound_status_lists(r, "files", room);
        }
        v["sourceResultDetails"] = report;
    }
    mark(v.as_object_mut().expect("an object"), true, omitted);
    shrink(&mut v, STRUCTURED_CHAR_BUDGET);
    v
}

/// The `structuredContent` of an `ast_undo` result: the undo report, bounded
/// (`outstanding` within a share of the budget, then `restored` from the first).
pub fn undo(r: &UndoOutcome) -> Value {
    let mut v = serde_json::to_value(r).expect("undo report serializes");
    let obj = v.as_object_mut().expect("an object");
    mark(obj, false, 0);
    if json_chars(&v) <= STRUCTURED_CHAR_BUDGET {
        return v;
    }
    let obj = v.as_object_mut().expect("an object");
    mark(obj, true, 0);
    let omitted = bound_status_lists(obj, "restored", STRUCTURED_CHAR_BUDGET);
    mark(v.as_object_mut().expect("an object"), true, omitted);
    shrink(&mut v, STRUCTURED_CHAR_BUDGET);
    v
}

/// Bounds a report (an object) to `room` characters: its `outstanding` list
/// within [`NOTES_SHARE`], then the list `key` (per-file statuses): the `diff`
/// strings go first, from the first that does not fit, then entries past the
/// room. Returns how many entries of both lists were left out.
fn bound_status_lists(report: &mut Map<String, Value>, key: &str, room: usize) -> usize {
    let outstanding = cap_notes(report, "outstanding");
    let Some(Value::Array(mut list)) = report.remove(key) else { return outstanding };
    report.insert(key.into(), Value::Array(Vec::new()));
    let room = room.saturating_sub(json_chars(&Value::Object(report.clone())));
    let diffs: Vec<Option<Value>> = list.iter_mut().map(|e| e.get_mut("diff").map(|d| std::mem::replace(d, Value::String(String::new())))).collect();
    let bare: Vec<usize> = list.iter().map(json_chars).collect();
    let keep = prefix_fitting(bare.iter().copied(), room);
    list.truncate(keep);
    // Room left once every kept entry is there: diffs go back in order while they fit.
    let mut used = bare[..keep].iter().sum::<usize>() + keep.saturating_sub(1);
    for (entry, diff) in list.iter_mut().zip(diffs) {
        let Some(diff) = diff else { continue };
        let add = json_chars(&diff) - 2;
        if used + add > room {
            break;
        }
        used += add;
        entry["diff"] = diff;
    }
    let omitted = bare.len() - keep + outstanding;
    report.insert(key.into(), Value::Array(list));
    omitted
}

/// The last net: while `v` is over `budget`, cuts its longest string (when longer
/// than 64 characters) or drops the tail of its longest array. The bounded shapes
/// above fit without it; it bounds what they do not know (a command's output, a
/// huge `extra`, a label of long rule names).
fn shrink(v: &mut Value, budget: usize) {
    for _ in 0..64 {
        let size = json_chars(v);
        if size <= budget {
            return;
        }
        let excess = size - budget;
        if let Some(s) = longest_string(v).filter(|s| s.chars().count() > 64) {
            let n = s.chars().count();
            let keep = n.saturating_sub(excess + 64).max(32);
            *s = text::cut_with_note(s, keep, Unit::Chars, "");
            continue;
        }
        let Some(a) = longest_array(v).filter(|a| !a.is_empty()) else { return };
        let mut freed = 0;
        while freed < excess {
            let Some(last) = a.pop() else { break };
            freed += json_chars(&last) + 1;
        }
    }
}

fn longest_string(v: &mut Value) -> Option<&mut String> {
    match v {
        Value::String(s) => Some(s),
        Value::Array(a) => a.iter_mut().filter_map(longest_string).max_by_key(|s| s.len()),
        Value::Object(o) => o.values_mut().filter_map(longest_string).max_by_key(|s| s.len()),
        _ => None,
    }
}

fn longest_array(v: &mut Value) -> Option<&mut Vec<Value>> {
    if v.is_array() {
        return v.as_array_mut();
    }
    match v {
        Value::Object(o) => o.values_mut().filter_map(longest_array).max_by_key(|a| a.len()),
        _ => None,
    }
}

/// One row of the list of pending actions, as `session` sees it: `owner` (the
/// session that staged it), `ownerClient` (its client's name, or null) and
/// `mine` (this session's own: `resolve` takes it without `id`).
fn summary_row(a: &PendingAction, session: &Session) -> Value {
    json!({"id": a.id, "label": a.label, "what": a.what(), "sourceToolName": a.source_tool_name, "createdAt": a.created_at, "fileCount": a.files.len(),
        "owner": a.owner, "ownerClient": a.owner_client, "mine": session.owns(&a.owner)})
}

/// The `structuredContent` of `ast_pending` without `id`: the pending actions of
/// every session, newest first (`actions`), those that fit; `actionsOmitted`
/// counts the rest.
pub fn action_list(actions: &[PendingAction], session: &Session) -> (Value, usize) {
    let rows: Vec<Value> = actions.iter().map(|a| summary_row(a, session)).collect();
    let keep = prefix_fitting(rows.iter().map(json_chars), STRUCTURED_CHAR_BUDGET - 100);
    let omitted = rows.len() - keep;
    let rows = rows.into_iter().take(keep).collect::<Vec<_>>();
    (json!({"actions": rows, "actionsOmitted": omitted, "truncated": omitted > 0}), keep)
}

/// One page of an action's files: which ones, and what was cut.
#[derive(Debug)]
pub struct Page {
    /// The `structuredContent`.
    pub value: Value,
    /// The first file of the page.
    pub offset: usize,
    /// The entries of the page (with a cut diff when one was cut).
    pub files: Vec<ast_edit::app::preview::PreviewFile>,
    /// Files of the action (those `path` selects, when given).
    pub total: usize,
    /// The `path` that selected the files.
    pub path: Option<String>,
    /// The part of the one file's diff the page shows, when it does not show it whole.
    pub diff: Option<DiffSlice>,
}

/// The lines of one file's diff that a page shows: `start..start + shown` of `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffSlice {
    /// The first line shown (0-based).
    pub start: usize,
    /// Lines shown.
    pub shown: usize,
    /// Lines of the whole diff.
    pub total: usize,
}

impl DiffSlice {
    /// The `diffOffset` of the rest, when lines remain.
    pub fn next(&self) -> Option<usize> {
        let next = self.start + self.shown;
        (next < self.total).then_some(next)
    }
}

/// What a page's text may hold: the room for its files, and what one diff line
/// costs there (the text cuts long lines).
pub struct TextRoom<'a> {
    /// Characters the files may take.
    pub room: usize,
    /// Characters one diff line takes (with its newline).
    pub line: &'a dyn Fn(&str) -> usize,
}

/// The lines of `entry`'s diff from `start` that fit both `room` characters of
/// the entry's JSON and `text.room` of text, at least one, with a last line saying
/// how to see the rest (`diffOffset`). Sets the entry's diff to them.
fn slice_diff(entry: &mut Value, start: usize, room: usize, text: &TextRoom<'_>) -> DiffSlice {
    let diff = entry.get("diff").and_then(Value::as_str).unwrap_or_default().to_owned();
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let total = lines.len();
    let note = |next: usize| {
        format!("… {} more diff lines: call `ast_pending` again with \"diffOffset\": {next} to see them; apply writes the whole diff\n", total - next)
    };
    entry["diff"] = Value::String(String::new());
    let note_cost = json_chars(&Value::String(note(start))) - 2;
    let mut used = json_chars(entry) + note_cost;
    let mut text_used = note_cost;
    let mut kept = String::new();
    let mut shown = 0;
    for line in lines.iter().skip(start) {
        let add = json_chars(&Value::String((*line).to_string())) - 2;
        let text_add = (text.line)(line.trim_end_matches('\n'));
        if shown > 0 && (used + add > room || text_used + text_add > text.room) {
            break;
        }
        used += add;
        text_used += text_add;
        kept.push_str(line);
        shown += 1;
    }
    let slice = DiffSlice { start, shown, total };
    if let Some(next) = slice.next() {
        kept.push_str(&note(next));
    }
    entry["diff"] = Value::String(kept);
    slice
}

impl Page {
    /// Where the next page starts, when files remain.
    pub fn next(&self) -> Option<usize> {
        let next = self.offset + self.files.len();
        (next < self.total).then_some(next)
    }
}

/// The error of an offset `at` (the argument `key`) past the last of the
/// `count` items (`unit`s) that `holder` has.
fn past_the_last(key: &str, at: usize, unit: &str, holder: &str, count: usize) -> String {
    format!("{key} {at} is past the last {unit}: {holder} has {} ({key} 0 to {}).", ast_edit::app::text::plural(count, unit), count.saturating_sub(1))
}

/// The page of `action`'s files from `offset`: at most `limit` files, whole
/// entries while both the JSON and (through `text_fits`, which gets each file in
/// turn and says whether the page's text still fits with it) the text fit. A
/// single file too large for either shows the lines of its diff that fit
/// ([`slice_diff`]), and so does the file at `offset` alone when `diff_offset`
/// is given: from that line on. `Err` is the message of a tool error (an offset
/// past the last file or line).
pub fn page(
    action: &PendingAction,
    path: Option<&str>,
    (offset, diff_offset): (usize, Option<usize>),
    limit: usize,
    text: &TextRoom<'_>,
    mut text_fits: impl FnMut(&ast_edit::app::preview::PreviewFile) -> bool,
) -> Result<Page, String> {
    let mut files = match &action.kind {
        ActionKind::AstEdit { plan } => ast_edit::app::preview::details(plan, &[], super::words::WORDS).files,
        ActionKind::Command { .. } => Vec::new(),
    };
    if let Some(p) = path {
        let all: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
        files.retain(|f| ast_edit::app::apply::selects(p, &f.path));
        if files.is_empty() {
            return Err(ast_edit::app::apply::selects_none("path", p, &all.iter().map(String::as_str).collect::<Vec<_>>(), &action.id));
        }
    }
    let total = files.len();
    if offset > 0 && offset >= total {
        return Err(past_the_last("fileOffset", offset, "file", &format!("pending action {}", action.id), total) + " Start again from fileOffset 0.");
    }
    let mut head = json!({
        "id": action.id, "fileCount": total, "fileOffset": offset, "files": [],
        "nextFileOffset": total, "filesOmitted": total, "truncated": false,
    });
    if let Some(p) = path {
        head["path"] = json!(p);
    }
    let room = STRUCTURED_CHAR_BUDGET.saturating_sub(json_chars(&head) + 60);
    let mut used = 0usize;
    let mut page: Vec<Value> = Vec::new();
    let mut shown = Vec::new();
    let mut slice = None;
    let limit = if diff_offset.is_some() { 1 } else { limit };
    for f in files.into_iter().skip(offset).take(limit) {
        let mut entry = serde_json::to_value(&f).expect("a preview file serializes");
        let add = json_chars(&entry) + usize::from(!page.is_empty());
        let fits = diff_offset.is_none() && used + add <= room && text_fits(&f);
        if !fits && !page.is_empty() {
            break;
        }
        if !fits {
            // One file alone, its diff from `diff_offset` (or from its start, when
            // not even the first file fits whole) as far as both budgets allow.
            let start = diff_offset.unwrap_or(0);
            let lines = f.diff.split_inclusive('\n').count();
            if start > 0 && start >= lines {
                return Err(past_the_last("diffOffset", start, "line", &format!("the diff of {}", f.path), lines));
            }
            let cut = slice_diff(&mut entry, start, room, text);
            let mut f = f;
            f.diff = entry["diff"].as_str().unwrap_or_default().to_string();
            if cut.start > 0 || cut.next().is_some() {
                slice = Some(cut);
            }
            page.push(entry);
            shown.push(f);
            break;
        }
        used += add;
        page.push(entry);
        shown.push(f);
    }
    let next = offset + page.len();
    let obj = head.as_object_mut().expect("an object");
    obj.insert("files".into(), Value::Array(page));
    if next < total {
        obj.insert("nextFileOffset".into(), json!(next));
    } else {
        obj.remove("nextFileOffset");
    }
    obj.insert("filesOmitted".into(), json!(total - next));
    if let Some(cut) = slice {
        obj.insert("diffOffset".into(), json!(cut.start));
        obj.insert("diffLines".into(), json!(cut.total));
        if let Some(n) = cut.next() {
            obj.insert("nextDiffOffset".into(), json!(n));
        }
    }
    obj.insert("truncated".into(), Value::Bool(slice.is_some_and(|c| c.next().is_some())));
    Ok(Page { value: head, offset, files: shown, total, path: path.map(str::to_string), diff: slice })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_edit::app::preview::PreviewFile;

    fn file(i: usize, diff_lines: usize) -> PreviewFile {
        crate::mcp::fixtures::file_at(format!("d/f{i:04}.py"), diff_lines)
    }

    /// A preview of `files` staged as `ae-123456`, with 500 skipped files.
    fn details(files: Vec<PreviewFile>) -> PreviewDetails {
        PreviewDetails { skipped: crate::mcp::fixtures::skipped(500), ..crate::mcp::fixtures::details(files, Some("ae-123456")) }
    }

    #[test]
    fn a_small_preview_is_whole_with_truncated_false() {
        let mut d = details(vec![file(0, 2)]);
        d.skipped.clear();
        let v = preview(&d);
        assert_eq!(v["truncated"], false);
        assert_eq!(v["filesOmitted"], 0);
        assert_eq!(v["files"][0]["diff"], d.files[0].diff);
    }

    #[test]
    fn a_big_preview_keeps_counts_and_a_prefix_of_whole_files() {
        let d = details((0..3000).map(|i| file(i, 5)).collect());
        let v = preview(&d);
        assert!(json_chars(&v) <= STRUCTURED_CHAR_BUDGET, "{}", json_chars(&v));
        assert_eq!(v["truncated"], true);
        assert_eq!(v["filesTouched"], 3000);
        assert_eq!(v["totalReplacements"], 15000);
        let files = v["files"].as_array().unwrap();
        assert!(!files.is_empty());
        assert_eq!(v["filesOmitted"], 3000 - files.len());
        for (i, f) in files.iter().enumerate() {
            assert_eq!(f, &serde_json::to_value(&d.files[i]).unwrap(), "entry {i} is whole");
        }
        let warnings = v["warnings"].as_array().unwrap();
        let last = warnings.last().unwrap().as_str().unwrap();
        assert!(last.contains(&format!("\"fileOffset\": {}", files.len())), "{last}");
        assert!(v["skipped"].as_array().unwrap().len() < 500);
        assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("more skipped files")));
    }

    /// Cut to its budget, `skipped` keeps the files a limit left unsearched
    /// (they fail the run) ahead of the others, whatever their paths.
    #[test]
    fn a_cut_skipped_list_keeps_the_files_a_limit_stopped() {
        let mut d = details((0..3000).map(|i| file(i, 5)).collect());
        for i in [7, 480, 499] {
            d.skipped[i].limit = true;
            d.skipped[i].reason = "matching took more than 1073741824 steps here, the limit per file".into();
        }
        d.skipped_by_limits = 3;
        let v = preview(&d);
        let kept = v["skipped"].as_array().unwrap();
        assert!(kept.len() < 500, "cut");
        let paths: Vec<&str> = kept.iter().take(3).map(|s| s["path"].as_str().unwrap()).collect();
        assert_eq!(paths, ["s7.py", "s480.py", "s499.py"]);
        assert!(kept[3..].iter().all(|s| s["limit"] == false));
        assert_eq!(v["skippedByLimits"], 3);
    }

    #[test]
    fn one_huge_diff_is_cut_at_a_line_with_a_note() {
        let mut d = details(vec![file(0, 20_000)]);
        d.skipped.clear();
        let v = preview(&d);
        assert!(json_chars(&v) <= STRUCTURED_CHAR_BUDGET, "{}", json_chars(&v));
        assert_eq!(v["filesOmitted"], 0);
        assert_eq!(v["truncated"], true);
        let diff = v["files"][0]["diff"].as_str().unwrap();
        assert!(diff.ends_with("the pending action ae-123456 holds the whole diff (`ast_pending` with its id pages through it, \"diffOffset\" on from a cut), and apply writes it whole\n"), "{}", &diff[diff.len() - 200..]);
        assert!(d.files[0].diff.starts_with(diff.rsplit_once("… ").unwrap().0));
    }

    /// Each entry's `syntaxErrors` (at most 5, excerpts of at most 160
    /// characters) is part of the whole entries kept; long paths in
    /// `brokenBefore` are capped like the other notes.
    #[test]
    fn located_syntax_errors_and_broken_files_stay_within_the_budget() {
        let located =
            ast_edit::app::plan::SyntaxError { line: 9, column: 3, node: "MISSING )".into(), excerpt: "é".repeat(ast_edit::app::plan::MAX_EXCERPT_CHARS) };
        let files = (0..500)
            .map(|i| PreviewFile {
                syntax_errors_introduced: true,
                syntax_errors: vec![located.clone(); ast_edit::app::plan::MAX_SYNTAX_ERRORS_LISTED],
                ..file(i, 3)
            })
            .collect();
        let mut d = details(files);
        d.broken_before = (0..ast_edit::app::plan::MAX_BROKEN_BEFORE_LISTED)
            .map(|i| ast_edit::app::plan::BrokenFile { path: format!("{i}{}", "d/".repeat(2000)), line: 1 })
            .collect();
        let v = preview(&d);
        assert!(json_chars(&v) <= STRUCTURED_CHAR_BUDGET, "{}", json_chars(&v));
        let kept = v["files"].as_array().unwrap();
        assert!(!kept.is_empty() && kept.len() < 500);
        for (i, f) in kept.iter().enumerate() {
            assert_eq!(f, &serde_json::to_value(&d.files[i]).unwrap(), "entry {i} is whole");
        }
        assert!(v["brokenBefore"].as_array().unwrap().len() < ast_edit::app::plan::MAX_BROKEN_BEFORE_LISTED);
    }

    #[test]
    fn shrink_cuts_long_strings_and_long_arrays() {
        let mut v = json!({"a": "x".repeat(100_000), "b": (0..10_000).collect::<Vec<_>>()});
        shrink(&mut v, 1000);
        assert!(json_chars(&v) <= 1000, "{}", json_chars(&v));
    }
}
