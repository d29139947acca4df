//! The plan of an `ast_edit` entry as the store writes it: [`StoredPlan`] and
//! the files, edits and reports it holds, every field under a name of the
//! store's own, so that renaming a field or a type of `plan` (or of the engine
//! types a plan holds) cannot change what is on disk: it fails to compile
//! here instead. Written by borrowing the plan, read into a new one
//! ([`as_stored`]); the names are those format version 3 wrote.

use std::borrow::Cow;
use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::stored_request::{StoredRequest, StoredRequestError};
use super::stored_skip::StoredSkipped;
use super::stored_warning::StoredWarning;
use crate::engine::structure::StructureChange;
use crate::engine::{Edit, SyntaxError, TemplateNote};
use crate::plan::{BrokenFile, FilePlan, Finding, Overlapped, Plan, Work};

/// A [`Plan`] as written. (A reader's errors name it as they did when the
/// library's type was written: "expected struct Plan".)
#[derive(Debug, Serialize, Deserialize)]
#[serde(expecting = "struct Plan")]
pub(super) struct StoredPlan<'a> {
    #[serde(rename = "request")]
    request: StoredRequest<'a>,
    #[serde(rename = "cwd")]
    cwd: Cow<'a, Path>,
    #[serde(rename = "files")]
    files: Vec<StoredFile<'a>>,
    #[serde(rename = "filesSearched")]
    files_searched: usize,
    #[serde(rename = "overlaps")]
    overlaps: usize,
    #[serde(rename = "skipped")]
    skipped: Vec<StoredSkipped<'a>>,
    #[serde(rename = "warnings")]
    warnings: Vec<StoredWarning<'a>>,
    #[serde(rename = "limitReached")]
    limit_reached: bool,
    #[serde(rename = "findings", default)]
    findings: Vec<StoredFinding<'a>>,
    #[serde(rename = "overlapped", default)]
    overlapped: Vec<StoredOverlapped<'a>>,
    #[serde(rename = "brokenBefore", default)]
    broken_before: Vec<StoredBrokenFile<'a>>,
    #[serde(rename = "brokenBeforeOmitted", default)]
    broken_before_omitted: usize,
}

/// A [`FilePlan`] as written.
#[derive(Debug, Serialize, Deserialize)]
struct StoredFile<'a> {
    #[serde(rename = "path")]
    path: Cow<'a, str>,
    #[serde(rename = "abs")]
    abs: Cow<'a, Path>,
    #[serde(rename = "lang")]
    lang: Cow<'a, str>,
    #[serde(rename = "digest")]
    digest: Cow<'a, str>,
    #[serde(rename = "size")]
    size: u64,
    #[serde(rename = "newDigest")]
    new_digest: Cow<'a, str>,
    #[serde(rename = "edits")]
    edits: Vec<StoredEdit<'a>>,
    #[serde(rename = "nested", default, skip_serializing_if = "<[_]>::is_empty")]
    nested: Cow<'a, [usize]>,
    #[serde(rename = "errorsBefore")]
    errors_before: usize,
    #[serde(rename = "errorsAfter")]
    errors_after: usize,
    #[serde(rename = "syntaxErrors")]
    syntax_errors: Vec<StoredSyntaxError<'a>>,
    #[serde(rename = "structureChanged")]
    structure_changed: bool,
    #[serde(rename = "structureChanges", default)]
    structure_changes: Vec<StoredNote<'a>>,
    #[serde(rename = "editsChecked", default)]
    edits_checked: usize,
    #[serde(rename = "layoutFallbacks", default)]
    layout_fallbacks: usize,
    #[serde(rename = "layoutNotes", default)]
    layout_notes: Vec<StoredNote<'a>>,
    #[serde(rename = "templateMismatch", default)]
    template_mismatch: bool,
    #[serde(rename = "templateMismatches", default)]
    template_mismatches: Vec<StoredNote<'a>>,
    #[serde(rename = "diff")]
    diff: Cow<'a, str>,
    #[serde(rename = "diffLinesCut", default)]
    diff_lines_cut: usize,
}

/// An [`Edit`] as written.
#[derive(Debug, Serialize, Deserialize)]
struct StoredEdit<'a> {
    #[serde(rename = "start")]
    start: usize,
    #[serde(rename = "end")]
    end: usize,
    #[serde(rename = "text")]
    text: Cow<'a, str>,
    #[serde(rename = "op")]
    op: usize,
}

/// A [`SyntaxError`] as written.
#[derive(Debug, Serialize, Deserialize)]
struct StoredSyntaxError<'a> {
    #[serde(rename = "line")]
    line: usize,
    #[serde(rename = "column")]
    column: usize,
    #[serde(rename = "node")]
    node: Cow<'a, str>,
    #[serde(rename = "excerpt")]
    excerpt: Cow<'a, str>,
}

/// A located note as written: a [`StructureChange`] or a [`TemplateNote`].
#[derive(Debug, Serialize, Deserialize)]
struct StoredNote<'a> {
    #[serde(rename = "line")]
    line: usize,
    #[serde(rename = "message")]
    message: Cow<'a, str>,
}

/// A [`Finding`] as written (`column` is missing from entries staged before
/// it was kept).
#[derive(Debug, Serialize, Deserialize)]
struct StoredFinding<'a> {
    #[serde(rename = "path")]
    path: Cow<'a, str>,
    #[serde(rename = "line")]
    line: usize,
    #[serde(rename = "column", default)]
    column: usize,
    #[serde(rename = "rule")]
    rule: Cow<'a, str>,
    #[serde(rename = "severity")]
    severity: Cow<'a, str>,
    #[serde(rename = "message")]
    message: Cow<'a, str>,
}

/// An [`Overlapped`] as written (`sameNode` is missing from entries of format
/// version 1).
#[derive(Debug, Serialize, Deserialize)]
struct StoredOverlapped<'a> {
    #[serde(rename = "path")]
    path: Cow<'a, str>,
    #[serde(rename = "line")]
    line: usize,
    #[serde(rename = "rule")]
    rule: Cow<'a, str>,
    #[serde(rename = "keptRule")]
    kept_rule: Cow<'a, str>,
    #[serde(rename = "sameNode", default)]
    same_node: bool,
}

/// A [`BrokenFile`] as written.
#[derive(Debug, Serialize, Deserialize)]
struct StoredBrokenFile<'a> {
    #[serde(rename = "path")]
    path: Cow<'a, str>,
    #[serde(rename = "line")]
    line: usize,
}

/// `#[serde(with = ...)]` of [`crate::store::pending::ActionKind::AstEdit`]'s
/// plan: written as a [`StoredPlan`] that borrows it, read into a new [`Plan`]
/// (an error of [`StoredRequestError`] is serde's error there, with its text).
pub(crate) mod as_stored {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(plan: &Plan, s: S) -> Result<S::Ok, S::Error> {
        StoredPlan::from(plan).serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<Plan>, D::Error> {
        let stored = StoredPlan::deserialize(d)?;
        Plan::try_from(stored).map(Box::new).map_err(serde::de::Error::custom)
    }
}

impl<'a> From<&'a Plan> for StoredPlan<'a> {
    fn from(p: &'a Plan) -> Self {
        StoredPlan {
            request: (&p.request).into(),
            cwd: p.cwd.as_path().into(),
            files: p.files.iter().map(Into::into).collect(),
            files_searched: p.files_searched,
            overlaps: p.overlaps,
            skipped: p.skipped.iter().map(Into::into).collect(),
            warnings: p.warnings.iter().map(Into::into).collect(),
            limit_reached: p.limit_reached,
            findings: p.findings.iter().map(Into::into).collect(),
            overlapped: p.overlapped.iter().map(Into::into).collect(),
            broken_before: p.broken_before.iter().map(|b| StoredBrokenFile { path: (&b.path).into(), line: b.line }).collect(),
            broken_before_omitted: p.broken_before_omitted,
        }
    }
}

impl TryFrom<StoredPlan<'_>> for Plan {
    type Error = StoredRequestError;

    fn try_from(p: StoredPlan<'_>) -> Result<Self, Self::Error> {
        Ok(Plan {
            request: p.request.try_into()?,
            cwd: p.cwd.into_owned(),
            files: p.files.into_iter().map(Into::into).collect(),
            files_searched: p.files_searched,
            overlaps: p.overlaps,
            skipped: p.skipped.into_iter().map(Into::into).collect(),
            warnings: p.warnings.into_iter().map(Into::into).collect(),
            limit_reached: p.limit_reached,
            findings: p.findings.into_iter().map(Into::into).collect(),
            overlapped: p.overlapped.into_iter().map(Into::into).collect(),
            broken_before: p.broken_before.into_iter().map(|b| BrokenFile { path: b.path.into_owned(), line: b.line }).collect(),
            broken_before_omitted: p.broken_before_omitted,
            // What the dry run measured; a stored plan has none.
            work: Work::default(),
        })
    }
}

impl<'a> From<&'a FilePlan> for StoredFile<'a> {
    fn from(f: &'a FilePlan) -> Self {
        let notes = |v: &'a [TemplateNote]| v.iter().map(|n| StoredNote { line: n.line, message: (&n.message).into() }).collect();
        StoredFile {
            path: (&f.path).into(),
            abs: f.abs.as_path().into(),
            lang: (&f.lang).into(),
            digest: (&f.digest).into(),
            size: f.size,
            new_digest: (&f.new_digest).into(),
            edits: f.edits.iter().map(|e| StoredEdit { start: e.start, end: e.end, text: (&e.text).into(), op: e.op }).collect(),
            nested: (&f.nested[..]).into(),
            errors_before: f.errors_before,
            errors_after: f.errors_after,
            syntax_errors: f
                .syntax_errors
                .iter()
                .map(|e| StoredSyntaxError { line: e.line, column: e.column, node: (&e.node).into(), excerpt: (&e.excerpt).into() })
                .collect(),
            structure_changed: f.structure_changed,
            structure_changes: f.structure_changes.iter().map(|c| StoredNote { line: c.line, message: (&c.message).into() }).collect(),
            edits_checked: f.edits_checked,
            layout_fallbacks: f.layout_fallbacks,
            layout_notes: notes(&f.layout_notes),
            template_mismatch: f.template_mismatch,
            template_mismatches: notes(&f.template_mismatches),
            diff: (&f.diff).into(),
            diff_lines_cut: f.diff_lines_cut,
        }
    }
}

impl From<StoredFile<'_>> for FilePlan {
    fn from(f: StoredFile<'_>) -> Self {
        let notes = |v: Vec<StoredNote<'_>>| v.into_iter().map(|n| TemplateNote { line: n.line, message: n.message.into_owned() }).collect();
        FilePlan {
            path: f.path.into_owned(),
            abs: f.abs.into_owned(),
            lang: f.lang.into_owned(),
            digest: f.digest.into_owned(),
            size: f.size,
            new_digest: f.new_digest.into_owned(),
            edits: f.edits.into_iter().map(|e| Edit { start: e.start, end: e.end, text: e.text.into_owned(), op: e.op }).collect(),
            nested: f.nested.into_owned(),
            errors_before: f.errors_before,
            errors_after: f.errors_after,
            syntax_errors: f
                .syntax_errors
                .into_iter()
                .map(|e| SyntaxError { line: e.line, column: e.column, node: e.node.into_owned(), excerpt: e.excerpt.into_owned() })
                .collect(),
            structure_changed: f.structure_changed,
            structure_changes: f.structure_changes.into_iter().map(|c| StructureChange { line: c.line, message: c.message.into_owned() }).collect(),
            edits_checked: f.edits_checked,
            layout_fallbacks: f.layout_fallbacks,
            layout_notes: notes(f.layout_notes),
            template_mismatch: f.template_mismatch,
            template_mismatches: notes(f.template_mismatches),
            diff: f.diff.into_owned(),
            diff_lines_cut: f.diff_lines_cut,
        }
    }
}

impl<'a> From<&'a Finding> for StoredFinding<'a> {
    fn from(f: &'a Finding) -> Self {
        StoredFinding {
            path: (&f.path).into(),
            line: f.line,
            column: f.column,
            rule: (&f.rule).into(),
            severity: (&f.severity).into(),
            message: (&f.message).into(),
        }
    }
}

impl From<StoredFinding<'_>> for Finding {
    fn from(f: StoredFinding<'_>) -> Self {
        Finding {
            path: f.path.into_owned(),
            line: f.line,
            column: f.column,
            rule: f.rule.into_owned(),
            severity: f.severity.into_owned(),
            message: f.message.into_owned(),
        }
    }
}

impl<'a> From<&'a Overlapped> for StoredOverlapped<'a> {
    fn from(o: &'a Overlapped) -> Self {
        StoredOverlapped { path: (&o.path).into(), line: o.line, rule: (&o.rule).into(), kept_rule: (&o.kept_rule).into(), same_node: o.same_node }
    }
}

impl From<StoredOverlapped<'_>> for Overlapped {
    fn from(o: StoredOverlapped<'_>) -> Self {
        Overlapped { path: o.path.into_owned(), line: o.line, rule: o.rule.into_owned(), kept_rule: o.kept_rule.into_owned(), same_node: o.same_node }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan with every field set, as format version 3 wrote it (what that
    /// build's serialization of `Plan` gave): a request with every option and
    /// a rule set with a utility, a folder, language globs and injections; a
    /// file with nested sites, syntax errors and every note.
    const EVERY_FIELD: &str = r#"{"request":{"ops":[{"pat":"f($A)","out":"g($A)"}],"paths":["src","lib"],"lang":"typescript","selector":"call_expression","strictness":"ast","globs":["*.ts","!x/**"],"maxFiles":9,"walk":{"hidden":true,"noIgnore":true,"hiddenFiles":true,"requireGit":true},"maxFilesize":1000,"noPrefilter":true,"ruleSet":{"rules":[{"constraints":null,"files":null,"fix":"g($A)","id":"r","ignores":null,"labels":null,"language":"typescript","message":"m","metadata":null,"note":null,"rewriters":null,"rule":{"has":{"field":null,"matches":"u","stopBy":"neighbor"},"pattern":"f($A)"},"severity":"warning","transform":null,"url":null,"utils":null}],"utils":[{"constraints":null,"id":"u","language":"typescript","rule":{"kind":"number"},"transform":null,"utils":null}],"base":"/b","languageGlobs":[["typescript",["*.mts2"]]],"languageInjections":[{"hostLanguage":"js","injected":"css","rule":{"pattern":"styled`$CONTENT`"}}]},"rewriteNested":true,"verbatim":true,"contextLines":5,"maxSteps":77},"cwd":"/w","files":[{"path":"a.ts","abs":"/w/a.ts","lang":"typescript","digest":"sha256:1","size":12,"newDigest":"sha256:2","edits":[{"start":0,"end":4,"text":"g(1)","op":0},{"start":5,"end":9,"text":"g(2)","op":0}],"nested":[0,0],"errorsBefore":1,"errorsAfter":2,"syntaxErrors":[{"line":1,"column":2,"node":"MISSING )","excerpt":"g(1"}],"structureChanged":true,"structureChanges":[{"line":3,"message":"moved"}],"editsChecked":2,"layoutFallbacks":1,"layoutNotes":[{"line":4,"message":"fell back"}],"templateMismatch":true,"templateMismatches":[{"line":5,"message":"glued"}],"diff":"--- a/a.ts\n+++ b/a.ts\n","diffLinesCut":3}],"filesSearched":4,"overlaps":2,"skipped":[{"path":"big.ts","reason":{"kind":"tooLarge","len":2000,"cap":1000}}],"warnings":[{"kind":"overlaps","count":2},{"kind":"rules","text":[{"lit":"x "},{"name":{"set":["lang","go"]}}]}],"limitReached":true,"findings":[{"path":"a.ts","line":1,"column":3,"rule":"r","severity":"warning","message":"m"}],"overlapped":[{"path":"a.ts","line":1,"rule":"r","keptRule":"r","sameNode":true}],"brokenBefore":[{"path":"a.ts","line":1}],"brokenBeforeOmitted":4}"#;

    /// The same plan with the request's options at their defaults, no rule
    /// set, no nested site and no finding, dropped match or broken file, as
    /// format version 3 wrote it: what is the default is left out.
    const DEFAULTS: &str = r#"{"request":{"ops":[{"pat":"f($A)","out":"g($A)"}],"paths":["src","lib"],"lang":null,"selector":null,"strictness":"ast","globs":["*.ts","!x/**"],"maxFiles":9,"walk":{"hidden":true,"noIgnore":true,"hiddenFiles":true,"requireGit":true},"maxFilesize":1000,"noPrefilter":true},"cwd":"/w","files":[{"path":"a.ts","abs":"/w/a.ts","lang":"typescript","digest":"sha256:1","size":12,"newDigest":"sha256:2","edits":[{"start":0,"end":4,"text":"g(1)","op":0},{"start":5,"end":9,"text":"g(2)","op":0}],"errorsBefore":1,"errorsAfter":2,"syntaxErrors":[{"line":1,"column":2,"node":"MISSING )","excerpt":"g(1"}],"structureChanged":true,"structureChanges":[{"line":3,"message":"moved"}],"editsChecked":2,"layoutFallbacks":1,"layoutNotes":[{"line":4,"message":"fell back"}],"templateMismatch":true,"templateMismatches":[{"line":5,"message":"glued"}],"diff":"--- a/a.ts\n+++ b/a.ts\n","diffLinesCut":3}],"filesSearched":4,"overlaps":2,"skipped":[{"path":"big.ts","reason":{"kind":"tooLarge","len":2000,"cap":1000}}],"warnings":[{"kind":"overlaps","count":2},{"kind":"rules","text":[{"lit":"x "},{"name":{"set":["lang","go"]}}]}],"limitReached":true,"findings":[],"overlapped":[],"brokenBefore":[],"brokenBeforeOmitted":4}"#;

    fn read(json: &str) -> Plan {
        Plan::try_from(serde_json::from_str::<StoredPlan<'_>>(json).unwrap()).unwrap()
    }

    fn write(plan: &Plan) -> String {
        serde_json::to_string(&StoredPlan::from(plan)).unwrap()
    }

    #[test]
    fn a_plan_is_written_byte_for_byte_as_version_3_wrote_it() {
        for json in [EVERY_FIELD, DEFAULTS] {
            let plan = read(json);
            assert_eq!(write(&plan), json);
        }
        let plan = read(EVERY_FIELD);
        let f = &plan.files[0];
        assert_eq!((f.nested.as_slice(), f.edits[1].text.as_str(), f.template_mismatches[0].message.as_str()), (&[0, 0][..], "g(2)", "glued"));
        let r = &plan.request;
        assert_eq!((r.context_lines, r.max_steps, r.rewrite_nested, r.verbatim), (5, 77, true, true));
        let set = r.rule_set.as_ref().unwrap();
        assert_eq!((set.rules[0].id(), set.utils[0].id(), set.base.as_deref()), ("r", "u", Some(Path::new("/b"))));
        assert_eq!(plan.work, Work::default());
    }

    /// What entries of format version 1 lack reads as its default.
    #[test]
    fn fields_added_since_version_1_default_when_missing() {
        let old = DEFAULTS
            .replace(r#","hiddenFiles":true,"requireGit":true"#, "")
            .replace(r#","structureChanges":[{"line":3,"message":"moved"}],"editsChecked":2,"layoutFallbacks":1,"layoutNotes":[{"line":4,"message":"fell back"}],"templateMismatch":true,"templateMismatches":[{"line":5,"message":"glued"}]"#, "")
            .replace(r#","diffLinesCut":3"#, "")
            .replace(r#","findings":[],"overlapped":[],"brokenBefore":[],"brokenBeforeOmitted":4"#, "");
        assert_ne!(old, DEFAULTS);
        let plan = read(&old);
        let f = &plan.files[0];
        assert!(!plan.request.walk.hidden_files && !plan.request.walk.require_git);
        assert_eq!((f.edits_checked, f.layout_fallbacks, f.template_mismatch, f.diff_lines_cut, f.structure_changes.len()), (0, 0, false, 0, 0));
        assert_eq!(plan.broken_before_omitted, 0);
        let finding: StoredFinding<'_> = serde_json::from_str(r#"{"path":"a","line":1,"rule":"r","severity":"hint","message":"m"}"#).unwrap();
        assert_eq!(Finding::from(finding).column, 0);
        let dropped: StoredOverlapped<'_> = serde_json::from_str(r#"{"path":"a","line":1,"rule":"r","keptRule":"r"}"#).unwrap();
        assert!(!Overlapped::from(dropped).same_node);
    }

    /// A reader's error names the plan `Plan`, as before the store had its own
    /// type (tests/it/store.rs checks the message an entry gets).
    #[test]
    fn a_plan_that_is_not_an_object_is_named_in_the_error() {
        let e = serde_json::from_str::<StoredPlan<'_>>("5").unwrap_err().to_string();
        assert!(e.starts_with("invalid type: integer `5`, expected struct Plan"), "{e}");
    }
}
