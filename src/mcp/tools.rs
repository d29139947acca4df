//! The tools the server lists: their descriptions (which teach an agent how to
//! write `pat` and `out`), annotations, and input and output schemas.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

pub(super) const INSTRUCTIONS: &str = "\
ast-edit makes structural (syntax-aware) code edits with a preview step. Call `ast_edit` with \
one or more pattern -> rewrite ops: it shows a unified diff per file and stages the edit as a \
pending action without writing anything. Then call `resolve` with action \"apply\" (writes the \
files, after checking none changed since the preview) or \"discard\", and a one-sentence reason. \
Paths are relative to the server's root folder and must stay inside it. To find code, count \
matches or check a pattern before editing, call `ast_search` (read-only, stages nothing); to see \
how a snippet or pattern parses, `ast_tree`. `ast_pending` lists the pending actions and pages \
through one's diffs; `ast_undo` puts back the files of an apply. This server is one session: \
without `id`, `resolve` and `ast_undo` take this session's own newest action and last apply, \
never another session's (another agent's, or a person's at a shell: `ast_pending` lists them with \
their owners); those only by `id`.";

const AST_EDIT_DESCRIPTION: &str = "\
Preview a structural search-and-replace (ast-grep patterns on syntax trees), staged as a pending \
action with an `id`: nothing is written until you call `resolve`.
- A pattern is code of the language: `$A` (any capital name) matches one node, `$$$ARGS` zero or \
more, `$_` one, uncaptured; `out` reuses them: {\"pat\": \"self.assertEquals($A, $B)\", \"out\": \"self.assertEqual($A, $B)\"}.
- Other tokens are literal and whole (`get_$X()` does not work; `foo` never matches `foobar`).
- It must parse alone: C, C++, Java statements need their `;` (`kfree($A);`). Set `lang` if \
extensions do not say it.
- Ops run in one pass; an empty `out` deletes.
- Or `rule` (ast-grep YAML): \"rule: {pattern: $X.unwrap(), not: {inside: {kind: mod_item, has: \
{field: name, regex: ^tests$}, stopBy: end}}}\\nfix: $X.expect(\\\"ok\\\")\"; `constraints: {A: \
{regex: ^f}}` filters a capture.";

const RESOLVE_DESCRIPTION: &str = "\
Apply or discard a pending action (this session's newest, or `id`). \"apply\" checks that every file still \
has its previewed bytes and gives exactly the previewed text, then writes all files or none; if one \
changed: `Apply failed: ...`, the action stays pending (discard and preview again, or extra \
{\"stale\": \"skip\"}). \"discard\" writes nothing. `ast_undo` undoes an apply.";

const AST_TREE_DESCRIPTION: &str = "\
The syntax tree of a snippet or a pattern (isPattern), to look before writing one: `field:` kind \
range, ERROR/MISSING marked. Code parses differently alone: Python `on_delete=models.CASCADE` is \
an `assignment`, in a call a `keyword_argument`. With isPattern the last line names the kind it \
matches.";

const AST_SEARCH_DESCRIPTION: &str = "\
Find code, staging nothing: counts every match of ast-grep patterns (`ops` of `pat` only) or a \
`rule` (its fix is ignored; nested matches all count), and lists a page as `path:line:col: text \
(in function f)`; next page: offset = nextOffset. Check a pattern here before `ast_edit`.";

fn obj(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

/// The input schema of `ast_edit`, generated from [`ast_edit::app::request::RawRequest`].
pub fn ast_edit_input_schema() -> Value {
    crate::mcp::schema::ast_edit_input()
}

/// The input schema of `resolve`, generated from [`ast_edit::app::resolve::RawResolve`].
pub fn resolve_input_schema() -> Value {
    crate::mcp::schema::resolve_input()
}

const AST_PENDING_DESCRIPTION: &str = "\
List every session's pending actions with their owners (no arguments), or page through one action's files and diffs: {\"id\": ID, \
\"fileOffset\": N}; a diff too long for one page goes on with \"diffOffset\". Each result that leaves something out gives the call to go on with.";

const AST_UNDO_DESCRIPTION: &str = "\
Undo this session's last apply, or with `id` that action's (any session's): puts back each file it \
wrote that still holds the written bytes (others are left alone and reported). Refused when a later \
apply wrote one of its files (undo that first), or when it wrote files outside the root.";

/// A count in an output schema (`{"type": "integer"}`: what the server writes
/// needs no bounds, and every byte of `tools/list` is read by the model).
fn count() -> Value {
    json!({"type": "integer"})
}

fn string() -> Value {
    json!({"type": "string"})
}

/// A closed object schema: `properties`, every one of `required` (none: no
/// `required` key), no other key.
fn object(properties: Value, required: &[&str]) -> Value {
    let mut o = json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        o["required"] = json!(required);
    }
    o
}

/// A list of objects whose shape one line describes (`{path, line, rule}`):
/// an object without `properties` needs no `additionalProperties`, and costs a
/// fraction of the bytes of `tools/list` (its budget: `tests/it/mcp_bounded.rs`,
/// `TOOLS_LIST_BUDGET`).
fn rows(shape: &str) -> Value {
    json!({"type": "array", "items": {"type": "object", "description": shape}})
}

/// The per-file entries of a preview or a page.
fn preview_files() -> Value {
    rows(
        "{path, replacements, diff, syntaxErrorsIntroduced, syntaxErrors: [{line, column, node, excerpt}], structureChanged, templateMismatch, layoutFallbacks, structureChanges|templateMismatches|layoutNotes: [{line, message}]}",
    )
}

/// `truncated` and `filesOmitted` (the budget and what it counts are said once, in
/// `ast_edit`'s schema; the other tools' descriptions point to them).
fn bounds(omitted: Option<&str>) -> (Value, Value) {
    match omitted {
        Some(what) => (
            json!({"type": "boolean", "description": format!("JSON cut to under {} characters (text: {}).", super::STRUCTURED_CHAR_BUDGET, super::PREVIEW_CHAR_BUDGET)}),
            json!({"type": "integer", "description": what}),
        ),
        None => (json!({"type": "boolean"}), count()),
    }
}

/// The output schema of `ast_edit`: the preview details (docs/DESIGN.md section 5.5), bounded.
pub fn ast_edit_output_schema() -> Value {
    let (truncated, omitted) = bounds(Some("Files not listed: see ast_pending."));
    object(
        json!({
            "id": {"type": "string", "description": "Absent when nothing was staged."},
            "label": string(),
            "sourceToolName": string(),
            "status": {"type": "string", "enum": ["pending", "no_changes"]},
            "applied": {"type": "boolean"},
            "totalReplacements": count(),
            "filesTouched": count(),
            "filesSearched": count(),
            "files": preview_files(),
            "overlaps": count(),
            "skipped": rows("{path, reason, limit}"),
            "skippedByLimits": count(),
            "warnings": {"type": "array", "items": string()},
            "limitReached": {"type": "boolean"},
            "overlapped": rows("{path, line, rule, keptRule}"),
            "findings": rows("{path, line, column, rule, severity, message}"),
            "brokenBefore": rows("{path, line}"),
            "brokenBeforeOmitted": count(),
            "editsChecked": count(),
            "layoutFallbacks": count(),
            "truncated": truncated,
            "filesOmitted": omitted
        }),
        &[
            "label",
            "sourceToolName",
            "status",
            "applied",
            "totalReplacements",
            "filesTouched",
            "filesSearched",
            "files",
            "overlaps",
            "skipped",
            "skippedByLimits",
            "warnings",
            "limitReached",
            "overlapped",
            "findings",
            "brokenBefore",
            "brokenBeforeOmitted",
            "editsChecked",
            "layoutFallbacks",
            "truncated",
            "filesOmitted",
        ],
    )
}

/// The output schema of `resolve`: the resolve details (docs/DESIGN.md section 5.6), bounded.
pub fn resolve_output_schema() -> Value {
    let (truncated, omitted) = bounds(None);
    object(
        json!({
            "action": {"type": "string", "enum": ["apply", "discard"]},
            "reason": string(),
            "extra": {"type": "object"},
            "sourceToolName": {"type": "string", "description": "ast_edit, or the action's proposer."},
            "label": string(),
            "sourceResultDetails": {"type": "object", "description": "What apply/discard returned (ast_edit: files, status)."},
            "error": string(),
            "refused": {"type": "object", "description": "{selected, files: [{path, reason}], filesOmitted?, applyRest?, applyAll?}"},
            "truncated": truncated,
            "filesOmitted": omitted
        }),
        &["action", "reason", "truncated", "filesOmitted"],
    )
}

/// The input schema of `ast_tree`: flat, every property one type, no unknown keys.
pub fn ast_tree_input_schema() -> Value {
    object(
        json!({
            "code": {"type": "string", "description": "The snippet or pattern (at most 65536 bytes)."},
            "lang": {"type": "string", "description": "Name or alias: py, rs, ts, tsx, js, c, cpp, go, java, ..."},
            "isPattern": {"type": "boolean", "description": "Parse as a pattern ($A, $$$ARGS); default false."},
            "named": {"type": "boolean", "description": "Named nodes only (default true); false adds punctuation too."}
        }),
        &["code", "lang"],
    )
}

/// The output schema of `ast_tree`: the [`ast_edit::app::tree::TreeDump`].
pub fn ast_tree_output_schema() -> Value {
    object(
        json!({
            "lang": string(),
            "isPattern": {"type": "boolean"},
            "root": {"type": "object", "description": "{kind, field?, start, end, text?, error?, missing?, children}"},
            "errors": count(),
            "truncated": {"type": "boolean"},
            "truncatedBy": {"type": "array", "items": string()},
            "nodes": count(),
            "totalNodes": count(),
            "patternRoot": string(),
            "patternNote": string()
        }),
        &["lang", "isPattern", "root", "errors", "truncated", "nodes", "totalNodes"],
    )
}

/// The input schema of `ast_pending` (the fields of `paging::PendingArgs`).
pub fn ast_pending_input_schema() -> Value {
    object(
        json!({
            "id": {"type": "string", "description": "A pending action's id; absent: list them."},
            "fileOffset": {"type": "integer", "minimum": 0, "description": "First file, 0-based (default 0)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": super::MAX_PAGE_FILES, "description": format!("Most files per page (default {}).", super::PAGE_FILES)},
            "path": {"type": "string", "description": "With id: the files this path, folder or glob selects."},
            "diffOffset": {"type": "integer", "minimum": 0, "description": "With id: the file at fileOffset alone, its diff from this line (0-based)."}
        }),
        &[],
    )
}

/// The output schema of `ast_pending`: the list (`actions`) or a page (`files`).
pub fn ast_pending_output_schema() -> Value {
    let (truncated, omitted) = bounds(None);
    object(
        json!({
            "actions": rows("{id, label, what, sourceToolName, createdAt, fileCount, owner, ownerClient, mine}"),
            "actionsOmitted": count(),
            "id": string(),
            "path": string(),
            "fileCount": count(),
            "fileOffset": count(),
            "files": rows("As ast_edit's files."),
            "nextFileOffset": {"type": "integer", "description": "Absent on the last page."},
            "diffOffset": count(),
            "diffLines": count(),
            "nextDiffOffset": {"type": "integer", "description": "The rest of a diff cut here."},
            "filesOmitted": omitted,
            "truncated": truncated
        }),
        &["truncated"],
    )
}

/// The input schema of `ast_undo` (the fields of `paging::UndoArgs`).
pub fn ast_undo_input_schema() -> Value {
    object(json!({"id": {"type": "string", "description": "Default: this session's last apply."}}), &[])
}

/// The output schema of `ast_undo`: the undo report (docs/DESIGN.md section 5.9), bounded.
pub fn ast_undo_output_schema() -> Value {
    let (truncated, omitted) = bounds(None);
    object(
        json!({
            "id": string(),
            "label": string(),
            "status": {"type": "string", "enum": ["restored", "incomplete"]},
            "restored": {"type": "array", "items": string()},
            "outstanding": rows("{path, status, reason}"),
            "truncated": truncated,
            "filesOmitted": omitted
        }),
        &["id", "status", "restored", "outstanding", "truncated", "filesOmitted"],
    )
}

/// The input schema of `ast_search` (the fields of `ast_edit::app::search::RawSearch`):
/// the fields it shares with `ast_edit` carry `ast_edit`'s own schema and
/// description (the `strictness` enum too), so the two cannot drift apart.
pub fn ast_search_input_schema() -> Value {
    let edit = ast_edit_input_schema();
    let shared = |key: &str| edit["properties"][key].clone();
    let pat = edit["properties"]["ops"]["items"]["properties"]["pat"].clone();
    object(
        json!({
            "ops": {
                "type": "array",
                "minItems": 1,
                "description": "Patterns to find in one pass (`pat` only: nothing is rewritten). One at least, or `rule`.",
                "items": object(json!({"pat": pat}), &["pat"])
            },
            "rule": shared("rule"),
            "lang": shared("lang"),
            "paths": shared("paths"),
            "globs": shared("globs"),
            "selector": shared("selector"),
            "strictness": shared("strictness"),
            "project": shared("project"),
            "filter": shared("filter"),
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": ast_edit::app::search::MAX_LIMIT,
                "description": format!("Matches per page (default {}, max {}).", ast_edit::app::search::DEFAULT_LIMIT, ast_edit::app::search::MAX_LIMIT)
            },
            "offset": {"type": "integer", "minimum": 0, "description": "First match listed: 0, or the last page's nextOffset."}
        }),
        &[],
    )
}

/// The output schema of `ast_search`: the `ast_edit::app::search::SearchResult`.
pub fn ast_search_output_schema() -> Value {
    object(
        json!({
            "totalMatches": count(),
            "filesWithMatches": count(),
            "filesSearched": count(),
            "matches": rows("{path, line, column, endLine, text, enclosing?, rule?, message?}"),
            "offset": count(),
            "truncated": {"type": "boolean"},
            "nextOffset": count(),
            "warnings": {"type": "array", "items": string()},
            "skippedByLimits": count()
        }),
        &["totalMatches", "matches", "truncated"],
    )
}

/// One tool.
fn tool(name: &'static str, title: &'static str, description: &'static str, input: Value, output: Value, annotations: ToolAnnotations) -> Tool {
    Tool::new(name, description, obj(input)).with_title(title).with_raw_output_schema(obj(output)).with_annotations(annotations.open_world(false))
}

/// The tools, in a fixed order.
pub fn tools() -> Vec<Tool> {
    const EDIT: &str = "Structural edit (preview)";
    const RESOLVE: &str = "Apply or discard a pending edit";
    const PENDING: &str = "List or page pending edits";
    const UNDO: &str = "Undo an apply";
    const TREE: &str = "Syntax tree";
    const SEARCH: &str = "Find code (read-only)";
    vec![
        tool(
            "ast_edit",
            EDIT,
            AST_EDIT_DESCRIPTION,
            ast_edit_input_schema(),
            ast_edit_output_schema(),
            ToolAnnotations::new().read_only(true).destructive(false).idempotent(false),
        ),
        tool(
            "resolve",
            RESOLVE,
            RESOLVE_DESCRIPTION,
            resolve_input_schema(),
            resolve_output_schema(),
            ToolAnnotations::new().read_only(false).destructive(true).idempotent(false),
        ),
        tool(
            "ast_pending",
            PENDING,
            AST_PENDING_DESCRIPTION,
            ast_pending_input_schema(),
            ast_pending_output_schema(),
            ToolAnnotations::new().read_only(true).destructive(false).idempotent(true),
        ),
        tool(
            "ast_undo",
            UNDO,
            AST_UNDO_DESCRIPTION,
            ast_undo_input_schema(),
            ast_undo_output_schema(),
            ToolAnnotations::new().read_only(false).destructive(true).idempotent(false),
        ),
        tool(
            "ast_tree",
            TREE,
            AST_TREE_DESCRIPTION,
            ast_tree_input_schema(),
            ast_tree_output_schema(),
            ToolAnnotations::new().read_only(true).destructive(false).idempotent(true),
        ),
        tool(
            "ast_search",
            SEARCH,
            AST_SEARCH_DESCRIPTION,
            ast_search_input_schema(),
            ast_search_output_schema(),
            ToolAnnotations::new().read_only(true).destructive(false).idempotent(true),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_plain_object_roots() {
        for t in tools() {
            let s = Value::Object((*t.input_schema).clone());
            assert_eq!(s["type"], "object");
            assert!(s.get("$ref").is_none() && s.get("$defs").is_none());
            assert!(s.get("required").is_none_or(Value::is_array));
            let o = Value::Object((*t.output_schema.unwrap()).clone());
            assert_eq!(o["type"], "object");
        }
    }

    /// The numbers `ast_search`'s `limit` states are the library's, and the
    /// fields it shares with `ast_edit` say what `ast_edit`'s say.
    #[test]
    fn ast_search_fields_state_the_page_limits_and_share_ast_edit_s_words() {
        let (default, max) = (ast_edit::app::search::DEFAULT_LIMIT, ast_edit::app::search::MAX_LIMIT);
        let search = ast_search_input_schema();
        let limit = &search["properties"]["limit"];
        assert_eq!(limit["description"], format!("Matches per page (default {default}, max {max})."));
        assert_eq!(limit["maximum"], max);
        let edit = ast_edit_input_schema();
        for key in ["rule", "lang", "paths", "globs", "selector", "strictness"] {
            assert_eq!(search["properties"][key], edit["properties"][key], "{key}");
        }
        assert!(search["properties"]["strictness"]["enum"].is_array());
        for (key, field) in search["properties"].as_object().unwrap() {
            assert!(field["description"].as_str().is_some_and(|d| d.len() > 20), "{key} has no description");
        }
    }
}
