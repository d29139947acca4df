//! The input schemas of the MCP tools, generated from the serde types the server
//! deserializes the arguments into: [`RawRequest`] (with [`ast_edit::app::request::Op`])
//! for `ast_edit` and [`RawResolve`] for `resolve`, so a field added, renamed or removed
//! there changes the schema with it; the tests below hold the two to each other. The
//! settings here shape the result for strict MCP clients (an inline object root, one
//! `type` per property, no `default`, no `format`; `single_type_properties`):
//! docs/DESIGN.md §2.10, "Tool schemas".

use schemars::generate::SchemaSettings;
use schemars::transform::{RecursiveTransform, RestrictFormats};
use schemars::{JsonSchema, Schema};
use serde_json::{Value, json};

use ast_edit::app::request::RawRequest;
use ast_edit::app::resolve::RawResolve;

/// The input schema of `ast_edit`: the JSON form of [`RawRequest`].
pub fn ast_edit_input() -> Value {
    input_schema::<RawRequest>()
}

/// The input schema of `resolve`: the JSON form of [`RawResolve`].
pub fn resolve_input() -> Value {
    input_schema::<RawResolve>()
}

/// The schema of `T` for deserializing, shaped as docs/DESIGN.md §2.10, "Tool schemas", says.
fn input_schema<T: JsonSchema>() -> Value {
    let mut no_formats = RestrictFormats::default();
    no_formats.infer_from_meta_schema = false;
    let settings = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .with_transform(RecursiveTransform(single_type_properties))
        .with_transform(RecursiveTransform(|s: &mut Schema| {
            s.remove("title");
            s.remove("default");
        }))
        .with_transform(no_formats);
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.remove("description");
    schema.to_value()
}

/// Drops `null` from the schema of every property of an object schema: schemars
/// gives an `Option<T>` field `"type": [T, "null"]` (or an `anyOf` with a
/// `{"type": "null"}` branch), and some clients refuse a `type` that is an array.
/// Nothing is lost for these types: an `Option` field that is null is `None`, the
/// same as the field left out, so "leave it out" is the one way the schema offers;
/// and where such a field is required (`action`, `reason` of `resolve`) the server
/// refuses null anyway, with the message that the field is required.
fn single_type_properties(schema: &mut Schema) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        let Value::Object(p) = property else { continue };
        if let Some(Value::Array(types)) = p.get_mut("type") {
            types.retain(|t| t != "null");
            if let [one] = types.as_slice() {
                let one = one.clone();
                p.insert("type".into(), one);
            }
        }
        if let Some(Value::Array(values)) = p.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        let lone = match p.get_mut("anyOf") {
            Some(Value::Array(branches)) => {
                branches.retain(|b| *b != json!({"type": "null"}));
                match branches.as_mut_slice() {
                    [Value::Object(only)] => Some(std::mem::take(only)),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(only) = lone {
            p.remove("anyOf");
            for (k, v) in only {
                p.entry(k).or_insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use schemars::transform::Transform;
    use serde::de::DeserializeOwned;
    use serde_json::Map;

    use super::*;
    use ast_edit::app::request::{Op, Strictness, WalkOptions};

    /// A value of the type `schema` describes that satisfies its bounds: the first
    /// `enum` value, `minimum`, `minItems` items, the required properties.
    fn sample(schema: &Value) -> Value {
        if let Some(v) = schema.get("enum").and_then(|e| e.get(0)) {
            return v.clone();
        }
        let min = |key: &str| schema.get(key).and_then(Value::as_u64).unwrap_or(0);
        match schema["type"].as_str().unwrap_or_else(|| panic!("one type: {schema}")) {
            "string" => json!("x".repeat(min("minLength").max(1) as usize)),
            "integer" => json!(min("minimum")),
            "boolean" => json!(true),
            "array" => Value::Array((0..min("minItems")).map(|_| sample(&schema["items"])).collect()),
            "object" => Value::Object(required(schema).map(|k| (k.to_string(), sample(&schema["properties"][k]))).collect()),
            other => panic!("no sample for type {other}"),
        }
    }

    fn required(schema: &Value) -> impl Iterator<Item = &str> {
        schema.get("required").and_then(Value::as_array).into_iter().flatten().map(|k| k.as_str().expect("required holds names"))
    }

    fn property_names(schema: &Value) -> BTreeSet<String> {
        schema["properties"].as_object().expect("properties").keys().cloned().collect()
    }

    /// The fields `T` accepts, in serde's own words: its unknown-field error lists them.
    fn serde_fields<T: DeserializeOwned>(base: &Value) -> BTreeSet<String> {
        let mut probe = base.as_object().unwrap().clone();
        probe.insert("notAField".into(), json!(1));
        let e = serde_json::from_value::<T>(Value::Object(probe)).err().expect("an unknown key is refused").to_string();
        let (head, expected) = e.split_once("expected").unwrap_or_else(|| panic!("{e}"));
        assert!(head.contains("unknown field `notAField`"), "{e}");
        expected.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    /// (a) The properties of `schema` are exactly the fields serde accepts for `T`:
    /// each property, with a sample of its schema, is accepted next to the required
    /// ones, and serde's list of the fields it knows is the list of properties.
    fn agrees_with_serde<T: DeserializeOwned>(schema: &Value) {
        let base = sample(schema);
        for name in required(schema) {
            assert!(schema["properties"].get(name).is_some(), "required `{name}` is a property");
        }
        for (name, property) in schema["properties"].as_object().unwrap() {
            let mut args: Map<String, Value> = base.as_object().unwrap().clone();
            args.insert(name.clone(), sample(property));
            let args = Value::Object(args);
            if let Err(e) = serde_json::from_value::<T>(args.clone()) {
                panic!("serde refuses {args}: {e}");
            }
        }
        assert_eq!(serde_fields::<T>(&base), property_names(schema));
    }

    /// (c) No `$ref`, `$defs`, `$schema`, `title`, `default`, `format` and no
    /// array-valued `type` anywhere in the tree.
    fn assert_plain(v: &Value, at: &str) {
        match v {
            Value::Object(o) => {
                for key in ["$ref", "$defs", "definitions", "$schema", "title", "default", "format"] {
                    assert!(!o.contains_key(key), "`{key}` at {at}");
                }
                if let Some(t) = o.get("type") {
                    assert!(t.is_string(), "`type` at {at} is one type: {t}");
                }
                for (k, v) in o {
                    // Property names are walked as keys too; none of ours is one of the above.
                    assert_plain(v, &format!("{at}/{k}"));
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| assert_plain(v, &format!("{at}/{i}"))),
            _ => {}
        }
    }

    #[test]
    fn ast_edit_properties_are_the_fields_serde_accepts() {
        let s = ast_edit_input();
        agrees_with_serde::<RawRequest>(&s);
        agrees_with_serde::<Op>(&s["properties"]["ops"]["items"]);
    }

    #[test]
    fn resolve_properties_are_the_fields_serde_accepts() {
        agrees_with_serde::<RawResolve>(&resolve_input());
    }

    #[test]
    fn unknown_keys_are_closed_off_in_schema_and_serde() {
        let ast = ast_edit_input();
        let resolve = resolve_input();
        // (b)
        assert_eq!(ast["additionalProperties"], false);
        assert_eq!(ast["properties"]["ops"]["items"]["additionalProperties"], false);
        assert_eq!(resolve["additionalProperties"], false);
        // ... and serde refuses what the schema leaves out.
        let mut args = sample(&ast);
        args["bogus"] = json!(1);
        let e = serde_json::from_value::<RawRequest>(args).unwrap_err().to_string();
        assert!(e.contains("unknown field `bogus`"), "{e}");
        let mut args = sample(&resolve);
        args["bogus"] = json!("x");
        let e = serde_json::from_value::<RawResolve>(args).unwrap_err().to_string();
        assert!(e.contains("unknown field `bogus`"), "{e}");
        let e = serde_json::from_value::<Op>(json!({"pat": "a", "out": "b", "bogus": 1})).unwrap_err().to_string();
        assert!(e.contains("unknown field `bogus`"), "{e}");
    }

    #[test]
    fn schemas_are_plain_trees() {
        for s in [ast_edit_input(), resolve_input()] {
            assert_eq!(s["type"], "object");
            assert!(s.get("description").is_none());
            assert_plain(&s, "");
        }
    }

    /// The `enum`s and bounds are what the checks after serde accept.
    #[test]
    fn enums_and_bounds_are_the_checks() {
        let ast = ast_edit_input();
        let names = ast["properties"]["strictness"]["enum"].as_array().unwrap();
        for name in names {
            Strictness::parse(name.as_str().unwrap()).unwrap();
        }
        let all = [Strictness::Cst, Strictness::Smart, Strictness::Ast, Strictness::Relaxed, Strictness::Signature];
        let serde_names: Vec<Value> = all.iter().map(|s| serde_json::to_value(s).unwrap()).collect();
        assert_eq!(&serde_names, names);

        let cwd = std::env::current_dir().unwrap();
        let validate = |args: Value| serde_json::from_value::<RawRequest>(args).unwrap().validate(&cwd, WalkOptions::default(), 1);
        // Neither `ops` nor `rule` is required by the schema (one of them is, which a
        // flat schema cannot say): the smallest valid request has one op.
        let with_op = || {
            let mut args = sample(&ast);
            args["ops"] = Value::Array(vec![sample(&ast["properties"]["ops"]["items"])]);
            args
        };
        validate(with_op()).unwrap();
        assert!(validate(sample(&ast)).is_err());
        assert_eq!(ast["properties"]["ops"]["minItems"], 1);
        assert!(validate(json!({"ops": []})).is_err());
        assert_eq!(ast["properties"]["maxFiles"]["minimum"], 1);
        let mut args = with_op();
        args["maxFiles"] = json!(0);
        assert!(validate(args).is_err());

        let resolve = resolve_input();
        let check = |args: Value| serde_json::from_value::<RawResolve>(args).unwrap().check();
        for action in resolve["properties"]["action"]["enum"].as_array().unwrap() {
            check(json!({"action": action, "reason": "r"})).unwrap();
        }
        assert!(check(json!({"action": "keep", "reason": "r"})).is_err());
        assert_eq!(resolve["properties"]["reason"]["minLength"], 1);
        assert!(check(json!({"action": "apply", "reason": ""})).is_err());
        assert_eq!(resolve["properties"]["extra"]["type"], "object");
        check(json!({"action": "apply", "reason": "r", "extra": {}})).unwrap();
        assert!(check(json!({"action": "apply", "reason": "r", "extra": []})).is_err());
        for field in ["action", "reason"] {
            let mut args = json!({"action": "apply", "reason": "r"});
            args.as_object_mut().unwrap().remove(field);
            assert!(check(args).unwrap_err().to_string().contains("is required"), "{field}");
        }
    }

    /// (d) The generated schema of `ast_edit` is the hand-written one it replaced
    /// (`mcp::ast_edit_input_schema` before this module), with deliberate
    /// additions: the items of `ops` carry the doc comment of [`Op`], and
    /// `contextLines` (added since) is a property.
    #[test]
    fn ast_edit_schema_is_the_hand_written_one() {
        let mut expected = json!({
            "type": "object",
            "properties": {
                "ops": {
                    "type": "array",
                    "minItems": 1,
                    "description": "Pattern -> rewrite pairs, applied in one pass. At least one (or give `rule`).",
                    "items": {
                        "type": "object",
                        "properties": {
                            "pat": {"type": "string", "description": "ast-grep pattern: $A one node, $$$ARGS zero or more, $_ one uncaptured. Example: self.assertEquals($A, $B)"},
                            "out": {"type": "string", "description": "Rewrite; may use the pattern's metavariables. Empty deletes the match. Example: self.assertEqual($A, $B)"}
                        },
                        "required": ["pat", "out"],
                        "additionalProperties": false
                    }
                },
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Files or folders inside the root (default [\".\"])."
                },
                "lang": {"type": "string", "description": "Language or alias (py, rs, ts, tsx, js, c, cpp, go, java, ...); default: by file extension."},
                "selector": {"type": "string", "description": "Node kind to match inside the pattern, e.g. call_expression (ast_tree shows the kinds)."},
                "strictness": {
                    "type": "string",
                    "enum": ["cst", "smart", "ast", "relaxed", "signature"],
                    "description": "cst: every node; smart (default): skips unnamed nodes in the code; ast: named only; relaxed: also skips comments; signature: kinds only."
                },
                "globs": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Include/exclude globs from the root (`!` excludes; no `/`: any folder), e.g. [\"*.py\", \"!tests/**\"]."
                },
                "maxFiles": {"type": "integer", "minimum": 1, "description": "Search at most this many files (in path order); reaching it is reported."},
                "contextLines": {"type": "integer", "minimum": 0, "maximum": 10, "description": "Diff context lines, 0 to 10 (default 3)."}
            },
            "additionalProperties": false
        });
        // Added with rule configs: `rule` (documented as text; an object or an array
        // is accepted too), `rewriteNested` and `verbatim`; `ops` is no longer
        // required.
        let generated = ast_edit_input();
        for added in ["rule", "rewriteNested", "verbatim"] {
            assert!(generated["properties"][added]["description"].as_str().is_some_and(|d| d.len() > 40), "{added}");
            expected["properties"][added] = generated["properties"][added].clone();
        }
        assert_eq!(generated["properties"]["rule"]["type"], "string");
        assert_eq!(generated["properties"]["rewriteNested"]["type"], "boolean");
        assert_eq!(generated["properties"]["verbatim"]["type"], "boolean");
        // Added with a project's rules: `project` and `filter`, strings.
        for added in ["project", "filter"] {
            assert_eq!(generated["properties"][added]["type"], "string", "{added}");
            assert!(
                generated["properties"][added]["description"].as_str().is_some_and(|d| d.starts_with("Instead of ops/rule") || d.starts_with("With project")),
                "{added}"
            );
            expected["properties"][added] = generated["properties"][added].clone();
        }
        // Deliberate: schemars puts the doc comment of `Op` on the items; it is true
        // and short, so it stays.
        expected["properties"]["ops"]["items"]["description"] = json!("One pattern -> rewrite pair.");
        assert_eq!(ast_edit_input(), expected);
    }

    /// (d) The generated schema of `resolve` is the hand-written one it replaced
    /// (`mcp::resolve_input_schema` before this module), unchanged but for the
    /// description of `extra`, which lists every option (docs/DESIGN.md section 4.2).
    #[test]
    fn resolve_schema_is_the_hand_written_one() {
        let expected = json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["apply", "discard"], "description": "apply writes the pending edit (verified against the preview); discard drops it."},
                "reason": {"type": "string", "minLength": 1, "description": "Why, in one sentence."},
                "extra": {
                    "type": "object",
                    "description": "Apply options (unknown keys are errors): {\"stale\": \"skip\"} writes the unchanged files, reports the rest (default \"abort\"); {\"files\": [...]} only these, {\"exclude\": [...]} all but these (paths, folders, globs); {\"skipFlagged\": true} leaves out flagged files (files left out stay pending unless {\"close\": true}), {\"allowSyntaxErrors\"|\"allowStructureChanges\"|\"allowTemplateMismatch\": true} writes them; {\"verify\": \"rerun\"} re-runs the edit."
                },
                "id": {"type": "string", "description": "The pending action to resolve (the `id` of an ast_edit result, or another session's from ast_pending). Default: this session's newest."}
            },
            "required": ["action", "reason"],
            "additionalProperties": false
        });
        assert_eq!(resolve_input(), expected);
    }

    /// The null-dropping transform on the shapes schemars gives an `Option`.
    #[test]
    fn null_is_dropped_from_properties_only() {
        let mut s: Schema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "description": "kept"},
                "b": {"type": ["integer", "string", "null"]},
                "c": {"enum": ["x", null]},
                "d": {"anyOf": [{"type": "object", "properties": {"e": {"type": ["boolean", "null"]}}}, {"type": "null"}], "description": "d"},
                "f": {"type": "array", "items": {"type": ["string", "null"]}}
            }
        }))
        .unwrap();
        RecursiveTransform(single_type_properties).transform(&mut s);
        assert_eq!(
            s.to_value(),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string", "description": "kept"},
                    "b": {"type": ["integer", "string"]},
                    "c": {"enum": ["x"]},
                    "d": {"type": "object", "properties": {"e": {"type": "boolean"}}, "description": "d"},
                    "f": {"type": "array", "items": {"type": ["string", "null"]}}
                }
            })
        );
    }
}
