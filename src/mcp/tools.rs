//! The tools the server lists: their descriptions (which teach an agent how to
//! write `pat` and `out`), annotations, and input and output schemas.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

pub(super) const INSTRUCTIONS: &str = "\
ast-edit makes structural (syntax-aware) code edits with a preview step. Call `ast_edit` with \
one or more pattern -> rewrite ops: it shows a unified diff per file and stages the edit as a \
pending action without writing anything. Then call `resolve` with action \"apply\" (writes the \
files, after checking none changed since the preview) or \"discard\", and a one-sentence reason. \
Paths are relative to the server's root folder and must stay inside it.";

const AST_EDIT_DESCRIPTION: &str = "\
Preview a structural search-and-replace over code (ast-grep patterns on tree-sitter syntax trees). \
Nothing is written: the result is a unified diff per file, staged as a pending action with an `id`; \
then call `resolve` with action \"apply\" or \"discard\".

How to write `pat` and `out`:
- A pattern is code of the target language. `$A` (any capital name) matches exactly one node \
(an expression, identifier or argument); `$$$ARGS` matches zero or more nodes (arguments, statements); \
`$_` matches one node without capturing it. `out` reuses the captures: \
{\"pat\": \"self.assertEquals($A, $B)\", \"out\": \"self.assertEqual($A, $B)\"}, \
{\"pat\": \"fetch_data($$$ARGS)\", \"out\": \"load_data($$$ARGS)\"}.
- Everything else is literal and matches whole tokens only: a metavariable stands for a whole \
node, never part of a token (`get_$X()` does not work), and `foo` never matches `foobar`.
- A pattern must parse on its own: C, C++ and Java statements need their `;` (`kfree($A);`). \
Set `lang` (py, rs, ts, tsx, js, c, cpp, go, java, ...) when the file extensions do not say it.
- Several ops run in one pass; an empty `out` deletes the match. Zero matches is not an error: \
nothing is staged and there is nothing to resolve.";

const RESOLVE_DESCRIPTION: &str = "\
Apply or discard a pending action staged by `ast_edit` (or by a person with the ast-edit CLI). \
Without `id` it takes the newest pending action; pass the `id` from ast_edit's result to pick one. \
\"apply\" first checks that every file still has the bytes it had at the preview and that the edit \
gives exactly the previewed text, then writes all files or none. If a file changed since the \
preview it fails with `Apply failed: ...` and the action stays pending: discard it and preview again, \
or pass extra {\"stale\": \"skip\"} to write only the unchanged files. Other `extra` options: \
{\"files\": [\"path\", ...]} applies only those files; {\"allowSyntaxErrors\": true} applies files \
whose rewrite adds syntax errors; {\"verify\": \"rerun\"} re-runs the edit on every file instead of \
re-using the stored plan. Any other `extra` key is refused (nothing is written). \"discard\" drops the \
action and writes nothing.";

const AST_TREE_DESCRIPTION: &str = "\
Show the syntax tree of a snippet, or of an ast-grep pattern (isPattern), before writing an edit: \
one node per line with `field:`, kind, range (line:col, 1-based) and leaf text; ERROR and MISSING \
nodes marked. Code parses differently alone than in context: Python `on_delete=models.CASCADE` \
alone is an `assignment`, in `f(on_delete=models.CASCADE)` a `keyword_argument`. With isPattern \
the last line names the root kind the pattern matches (what a `selector` names) and says if it \
cannot match. Writes nothing.";

fn obj(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

/// The input schema of `ast_edit`, generated from [`crate::request::RawRequest`].
pub fn ast_edit_input_schema() -> Value {
    crate::schema::ast_edit_input()
}

/// The input schema of `resolve`, generated from [`crate::resolve::RawResolve`].
pub fn resolve_input_schema() -> Value {
    crate::schema::resolve_input()
}

/// The output schema of `ast_edit`: the preview details (docs/DESIGN.md section 5).
pub fn ast_edit_output_schema() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    json!({
        "type": "object",
        "properties": {
            "id": {"type": ["string", "null"], "description": "The pending action's id; null when nothing was staged."},
            "label": {"type": "string"},
            "sourceToolName": {"type": "string"},
            "status": {"type": "string", "enum": ["pending", "no_changes"]},
            "applied": {"type": "boolean"},
            "totalReplacements": count,
            "filesTouched": count,
            "filesSearched": count,
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "replacements": count,
                        "diff": {"type": "string", "description": "Unified diff (a/ and b/ prefixes)."},
                        "syntaxErrorsIntroduced": {"type": "boolean"}
                    },
                    "required": ["path", "replacements", "diff", "syntaxErrorsIntroduced"]
                }
            },
            "overlaps": count,
            "skipped": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "reason": {"type": "string"}},
                    "required": ["path", "reason"]
                }
            },
            "warnings": {"type": "array", "items": {"type": "string"}},
            "limitReached": {"type": "boolean"}
        },
        "required": ["id", "label", "sourceToolName", "status", "applied", "totalReplacements", "filesTouched",
                     "filesSearched", "files", "overlaps", "skipped", "warnings", "limitReached"]
    })
}

/// The output schema of `resolve`: the resolve details (docs/DESIGN.md section 5).
pub fn resolve_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["apply", "discard"]},
            "reason": {"type": "string"},
            "extra": {"type": "object"},
            "sourceToolName": {"type": "string", "description": "Who staged the action: ast_edit, or custom_tool / a name for actions staged with `ast-edit propose`."},
            "label": {"type": "string"},
            "sourceResultDetails": {"description": "What the action's apply/discard returned. For ast_edit: {status, applied, totalReplacements, filesTouched, files: [{path, replacements, status, diff}], outstanding}."}
        },
        "required": ["action", "reason"]
    })
}

/// The input schema of `ast_tree`: flat, every property one type, no unknown keys.
pub fn ast_tree_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "The snippet or pattern (at most 65536 bytes)."},
            "lang": {"type": "string", "description": "Language name or alias: py, rs, ts, tsx, js, c, cpp, go, java, ..."},
            "isPattern": {"type": "boolean", "default": false, "description": "Parse as an ast-grep pattern ($A, $$$ARGS)."},
            "named": {"type": "boolean", "default": true, "description": "Named nodes only; false adds punctuation and keywords."}
        },
        "required": ["code", "lang"],
        "additionalProperties": false
    })
}

/// The output schema of `ast_tree`: the [`crate::tree::TreeDump`].
pub fn ast_tree_output_schema() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    json!({
        "type": "object",
        "properties": {
            "lang": {"type": "string"},
            "isPattern": {"type": "boolean"},
            "root": {"type": "object", "description": "{kind, field?, start: {line, column}, end, text?, named?, error?, missing?, metaVar?, omitted?, children}"},
            "errors": count,
            "truncated": {"type": "boolean"},
            "nodes": count,
            "totalNodes": count,
            "patternRoot": {"type": "string"},
            "patternNote": {"type": "string"}
        },
        "required": ["lang", "isPattern", "root", "errors", "truncated", "nodes", "totalNodes"]
    })
}

/// The tools, in a fixed order.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new("ast_edit", AST_EDIT_DESCRIPTION, obj(ast_edit_input_schema()))
            .with_title("Structural edit (preview)")
            .with_raw_output_schema(obj(ast_edit_output_schema()))
            .with_annotations(
                ToolAnnotations::with_title("Structural edit (preview)")
                    .read_only(true)
                    .destructive(false)
                    .idempotent(false)
                    .open_world(false),
            ),
        Tool::new("resolve", RESOLVE_DESCRIPTION, obj(resolve_input_schema()))
            .with_title("Apply or discard a pending edit")
            .with_raw_output_schema(obj(resolve_output_schema()))
            .with_annotations(
                ToolAnnotations::with_title("Apply or discard a pending edit")
                    .read_only(false)
                    .destructive(true)
                    .idempotent(false)
                    .open_world(false),
            ),
        Tool::new("ast_tree", AST_TREE_DESCRIPTION, obj(ast_tree_input_schema()))
            .with_title("Syntax tree")
            .with_raw_output_schema(obj(ast_tree_output_schema()))
            .with_annotations(
                ToolAnnotations::with_title("Syntax tree")
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
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
            assert!(s["required"].is_array());
            let o = Value::Object((*t.output_schema.unwrap()).clone());
            assert_eq!(o["type"], "object");
        }
    }
}

