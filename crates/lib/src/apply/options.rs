//! The options of an apply, taken from `resolve`'s `extra` (docs/DESIGN.md
//! section 4.2), checked with errors that name the key and the fix.

use super::*;

/// Options taken from `resolve`'s `extra`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Write the fresh files and report stale ones (`extra.stale = "skip"`).
    pub skip_stale: bool,
    /// Apply only these display paths (`extra.files`).
    pub only: Option<Vec<String>>,
    /// Apply files whose rewrite adds syntax errors (`extra.allowSyntaxErrors`).
    pub allow_syntax_errors: bool,
    /// Leave these display paths out (`extra.exclude`); each must be a file of
    /// the action ([`ApplyOptions::check_paths`]).
    pub exclude: Vec<String>,
    /// Apply files whose rewrite moves code in the syntax tree
    /// (`extra.allowStructureChanges`; docs/DESIGN.md section 2.5.10).
    pub allow_structure_changes: bool,
    /// Apply files whose rewrite does not say what its template says
    /// (`extra.allowTemplateMismatch`; docs/DESIGN.md section 2.5.9).
    pub allow_template_mismatch: bool,
    /// Leave out every file whose rewrite adds syntax errors, moves code in
    /// the syntax tree or does not say what its template says (`extra.skipFlagged`).
    pub skip_flagged: bool,
    /// Build the new text by splicing the planned edits onto the verified bytes
    /// instead of re-running the rewrite. Set by `run -U` and `-i`, whose plan this
    /// same process made moments before, and by `resolve apply` when the stored
    /// action proves it was planned by this build from the same rules
    /// (docs/DESIGN.md section 4.3, step 5) and `rerun` is not asked.
    pub trust_plan: bool,
    /// The caller asked to re-run the engine whatever the stored plan proves
    /// (`extra.verify = "rerun"`, CLI `--verify rerun`): `resolve` then never sets
    /// `trust_plan`.
    pub rerun: bool,
    /// The front end whose words the messages about `extra` use (docs/DESIGN.md §5.14).
    pub front: Front,
}

impl ApplyOptions {
    /// The keys of `extra` that an `ast_edit` apply reads, in the order messages
    /// list them (docs/DESIGN.md section 4.2).
    pub const EXTRA_KEYS: [&str; 8] = ["stale", "files", "allowSyntaxErrors", "verify", "exclude", "skipFlagged", "allowStructureChanges", "allowTemplateMismatch"];

    /// Reads the options from `extra` (a JSON object). A key that is not one of
    /// [`ApplyOptions::EXTRA_KEYS`], or a value of the wrong type or out of range, is bad input
    /// naming the key and what it takes (docs/DESIGN.md section 4.2): an
    /// `ast_edit` action takes nothing else, and a typo such as `file` for `files`
    /// must not apply every file.
    pub fn from_extra(extra: Option<&serde_json::Value>, front: Front) -> Result<Self> {
        let mut o = ApplyOptions { front, ..ApplyOptions::default() };
        let Some(extra) = extra else { return Ok(o) };
        let obj = extra.as_object().ok_or_else(|| Error::bad("extra must be a JSON object, for example {\"stale\":\"skip\"}"))?;
        let options = Self::EXTRA_KEYS.join(", ");
        for key in obj.keys() {
            if !Self::EXTRA_KEYS.contains(&key.as_str()) {
                let hint = Self::closest_key(key).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default();
                return Err(Error::bad(format!(
                    "extra has the key `{key}`{hint}, which an ast_edit action does not take; its options are: {options}. Nothing was written; the action stays pending"
                )));
            }
        }
        let bad = |key: &str, what: &str, got: &serde_json::Value| {
            Error::bad(format!("extra.{key} must be {what}, not {got}. Nothing was written; the action stays pending"))
        };
        if let Some(v) = obj.get("stale") {
            o.skip_stale = match v.as_str() {
                Some("skip") => true,
                Some("abort") => false,
                _ => return Err(bad("stale", "\"skip\" or \"abort\"", v)),
            };
        }
        if let Some(v) = obj.get("files") {
            let what = format!("a non-empty array of the action's paths (as {} lists them)", front.name(Name::ActionFiles));
            let arr = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| bad("files", &what, v))?;
            let files = arr.iter().map(|f| f.as_str().map(str::to_string)).collect::<Option<Vec<_>>>();
            o.only = Some(files.ok_or_else(|| bad("files", &what, v))?);
        }
        if let Some(v) = obj.get("allowSyntaxErrors") {
            o.allow_syntax_errors = v.as_bool().ok_or_else(|| bad("allowSyntaxErrors", "true or false", v))?;
        }
        if let Some(v) = obj.get("allowStructureChanges") {
            o.allow_structure_changes = v.as_bool().ok_or_else(|| bad("allowStructureChanges", "true or false", v))?;
        }
        if let Some(v) = obj.get("allowTemplateMismatch") {
            o.allow_template_mismatch = v.as_bool().ok_or_else(|| bad("allowTemplateMismatch", "true or false", v))?;
        }
        if let Some(v) = obj.get("verify") {
            o.rerun = match v.as_str() {
                Some("rerun") => true,
                _ => return Err(bad("verify", "\"rerun\" (re-run the engine on every file; leave it out to let apply choose)", v)),
            };
        }
        o.read_leave_out(obj, bad)?;
        Ok(o)
    }

    /// `exclude` and `skipFlagged` (docs/DESIGN.md section 4.2); `skipFlagged`
    /// and `allowSyntaxErrors` both true contradict each other.
    fn read_leave_out(
        &mut self,
        obj: &serde_json::Map<String, serde_json::Value>,
        bad: impl Fn(&str, &str, &serde_json::Value) -> Error,
    ) -> Result<()> {
        if let Some(v) = obj.get("exclude") {
            let what = format!("an array of the action's paths (as {} lists them)", self.front.name(Name::ActionFiles));
            let arr = v.as_array().ok_or_else(|| bad("exclude", &what, v))?;
            let paths = arr.iter().map(|f| f.as_str().map(str::to_string)).collect::<Option<Vec<_>>>();
            self.exclude = paths.ok_or_else(|| bad("exclude", &what, v))?;
        }
        if let Some(v) = obj.get("skipFlagged") {
            self.skip_flagged = v.as_bool().ok_or_else(|| bad("skipFlagged", "true or false", v))?;
        }
        if self.skip_flagged && self.allow_syntax_errors {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite adds syntax errors and extra.allowSyntaxErrors writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        if self.skip_flagged && self.allow_structure_changes {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite moves code in the syntax tree and extra.allowStructureChanges writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        if self.skip_flagged && self.allow_template_mismatch {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite does not say what its template says and extra.allowTemplateMismatch writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        Ok(())
    }

    /// Checks the paths of `exclude` against the action's files: a path that is
    /// not one of them is bad input naming it (a typo would otherwise write the
    /// file the caller meant to leave out).
    pub fn check_paths(&self, plan: &Plan) -> Result<()> {
        let unknown: Vec<&String> = self.exclude.iter().filter(|p| !plan.files.iter().any(|f| &f.path == *p)).collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let mut files: Vec<String> = plan.files.iter().take(MAX_LISTED_FILES).map(|f| display_name(&f.path).into_owned()).collect();
        if plan.files.len() > MAX_LISTED_FILES {
            files.push(format!("and {} more ({} lists them)", plan.files.len() - MAX_LISTED_FILES, self.front.name(Name::ActionFiles)));
        }
        Err(Error::bad(format!(
            "extra.exclude names {} not in this action: {}; its files are: {}. Nothing was written; the action stays pending",
            plural(unknown.len(), "path"),
            unknown.iter().map(|s| display_name(s)).collect::<Vec<_>>().join(", "),
            files.join(", ")
        )))
    }

    /// The key of [`ApplyOptions::EXTRA_KEYS`] that `key` most likely misspells:
    /// within two edits, ignoring case, `_` and `-`.
    fn closest_key(key: &str) -> Option<&'static str> {
        let fold = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect::<Vec<char>>();
        let k = fold(key);
        Self::EXTRA_KEYS
            .iter()
            .map(|cand| (Self::edit_distance(&k, &fold(cand)), *cand))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d)
            .map(|(_, cand)| cand)
    }

    /// Levenshtein distance.
    fn edit_distance(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, cb) in b.iter().enumerate() {
                cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }
}
