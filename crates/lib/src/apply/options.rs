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
    /// End the action even when the apply left files out by `files`, `exclude`
    /// or `skipFlagged` (`extra.close`); without it they stay pending under the
    /// action's id.
    pub close: bool,
}

/// `extra` as an `ast_edit` apply reads it (docs/DESIGN.md section 4.2): the
/// keys of [`ApplyOptions::EXTRA_KEYS`], each with its type; `null` is no value
/// of any of them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Extra {
    #[serde(default)]
    stale: OnStale,
    #[serde(default, deserialize_with = "present")]
    files: Option<Vec<String>>,
    #[serde(default)]
    allow_syntax_errors: bool,
    #[serde(default, deserialize_with = "present")]
    verify: Option<Verify>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    skip_flagged: bool,
    #[serde(default)]
    allow_structure_changes: bool,
    #[serde(default)]
    allow_template_mismatch: bool,
    #[serde(default)]
    close: bool,
}

/// `extra.stale`: what apply does with files changed since the preview.
#[derive(Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OnStale {
    /// Write the fresh files, report the stale ones.
    Skip,
    /// Write nothing.
    #[default]
    Abort,
}

/// `extra.verify`: how apply builds the new text.
#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Verify {
    /// Re-run the engine on every file.
    Rerun,
}

/// A key's value, which must be there: `null` is refused rather than read as
/// the key left out.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl ApplyOptions {
    /// The keys of `extra` that an `ast_edit` apply reads, in the order messages
    /// list them (docs/DESIGN.md section 4.2).
    pub const EXTRA_KEYS: [&str; 9] =
        ["stale", "files", "allowSyntaxErrors", "verify", "exclude", "skipFlagged", "allowStructureChanges", "allowTemplateMismatch", "close"];

    /// Reads the options from `extra` (a JSON object) through one serde struct (`Extra`). A key
    /// that is not one of [`ApplyOptions::EXTRA_KEYS`], or a value of the wrong
    /// type or out of range, is bad input naming the key and what it takes
    /// (docs/DESIGN.md section 4.2): an `ast_edit` action takes nothing else,
    /// and a typo such as `file` for `files` must not apply every file.
    pub fn from_extra(extra: Option<&serde_json::Value>) -> Result<Self> {
        let o = ApplyOptions::default();
        let Some(extra) = extra else { return Ok(o) };
        let obj = extra.as_object().ok_or_else(|| Error::bad("extra must be a JSON object, for example {\"stale\":\"skip\"}"))?;
        if let Some(key) = obj.keys().find(|k| !Self::EXTRA_KEYS.contains(&k.as_str())) {
            let hint = Self::closest_key(key).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default();
            let options = Self::EXTRA_KEYS.join(", ");
            return Err(Error::bad(format!(
                "extra has the key `{key}`{hint}, which an ast_edit action does not take; its options are: {options}. Nothing was written; the action stays pending"
            )));
        }
        let bad = |key: &str| {
            let got = obj.get(key).map_or_else(String::new, |v| v.to_string());
            Error::bad(
                Text::from(format!("extra.{key} must be ")).then(Self::takes(key)).lit(format!(", not {got}. Nothing was written; the action stays pending")),
            )
        };
        let x: Extra = serde_path_to_error::deserialize(extra).map_err(|e| {
            let key = match e.path().iter().next() {
                Some(serde_path_to_error::Segment::Map { key }) => key.clone(),
                _ => String::new(),
            };
            bad(&key)
        })?;
        if x.files.as_ref().is_some_and(Vec::is_empty) {
            return Err(bad("files"));
        }
        let o = ApplyOptions {
            skip_stale: x.stale == OnStale::Skip,
            only: x.files,
            allow_syntax_errors: x.allow_syntax_errors,
            exclude: x.exclude,
            allow_structure_changes: x.allow_structure_changes,
            allow_template_mismatch: x.allow_template_mismatch,
            skip_flagged: x.skip_flagged,
            rerun: x.verify == Some(Verify::Rerun),
            close: x.close,
            ..o
        };
        o.check_leave_out()?;
        Ok(o)
    }

    /// What the key `key` of `extra` takes.
    fn takes(key: &str) -> Text {
        let listed = || Text::from(" (as ").name(Name::ActionFiles).lit(" lists them)");
        match key {
            "stale" => Text::from("\"skip\" or \"abort\""),
            "files" => Text::from("a non-empty array of the action's paths").then(listed()),
            "exclude" => Text::from("an array of the action's paths").then(listed()),
            "verify" => Text::from("\"rerun\" (re-run the engine on every file; leave it out to let apply choose)"),
            _ => Text::from("true or false"),
        }
    }

    /// `skipFlagged` contradicts each of the keys that write flagged files.
    fn check_leave_out(&self) -> Result<()> {
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

    /// Checks the entries of `exclude` against the action's files: one that
    /// selects none of them ([`selects`]) is bad input naming it (a typo would
    /// otherwise write the file the caller meant to leave out).
    pub fn check_paths(&self, plan: &Plan) -> Result<()> {
        let unknown: Vec<&String> = self.exclude.iter().filter(|p| !plan.files.iter().any(|f| selects(p, &f.path))).collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let files: Vec<String> = plan.files.iter().take(MAX_LISTED_FILES).map(|f| display_name(&f.path).into_owned()).collect();
        let mut msg = Text::from(format!(
            "extra.exclude names {} not in this action: {}; its files are: {}",
            plural(unknown.len(), "path"),
            unknown.iter().map(|s| display_name(s)).collect::<Vec<_>>().join(", "),
            files.join(", ")
        ));
        if plan.files.len() > MAX_LISTED_FILES {
            msg = msg.lit(format!(", and {} more (", plan.files.len() - MAX_LISTED_FILES)).name(Name::ActionFiles).lit(" lists them)");
        }
        Err(Error::bad(msg.lit(". Nothing was written; the action stays pending")))
    }

    /// The key of [`ApplyOptions::EXTRA_KEYS`] that `key` most likely misspells:
    /// within two edits, ignoring case, `_` and `-`.
    fn closest_key(key: &str) -> Option<&'static str> {
        let fold = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect::<Vec<char>>();
        let k = fold(key);
        Self::EXTRA_KEYS.iter().map(|cand| (Self::edit_distance(&k, &fold(cand)), *cand)).filter(|(d, _)| *d <= 2).min_by_key(|(d, _)| *d).map(|(_, cand)| cand)
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

/// True when the entry `entry` of `extra.files` or `extra.exclude` selects
/// the action's file `path` (a display path): the path itself, a folder that
/// holds it (`src`, `src/`; `.` holds every file), or a glob that matches it
/// (`*`, `?`, `[`, `{`: `*_test.py` by file name anywhere, `tests/**/*.py`
/// by path from where the preview ran, as ripgrep's globs). A glob that does
/// not compile selects nothing.
pub fn selects(entry: &str, path: &str) -> bool {
    let entry = entry.strip_prefix("./").unwrap_or(entry);
    if entry == path {
        return true;
    }
    let folder = entry.trim_end_matches('/');
    if folder == "." {
        return true;
    }
    if !folder.is_empty() && path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/')) {
        return true;
    }
    // As ripgrep's and .gitignore's globs: one without a `/` matches the file
    // name anywhere, one with a `/` the whole path.
    let target = if entry.contains('/') { path } else { path.rsplit('/').next().unwrap_or(path) };
    entry.contains(['*', '?', '[', '{']) && globset::GlobBuilder::new(entry).literal_separator(true).build().is_ok_and(|g| g.compile_matcher().is_match(target))
}

/// The message when `entry`, given as `field` (`path`, `--path`), selects none
/// of `paths`, the files of pending action `id`: what it may be, and the first
/// 20 of them, with how many more.
pub fn selects_none(field: &str, entry: &str, paths: &[&str], id: &str) -> String {
    let names = &paths[..paths.len().min(20)];
    let more = if paths.len() > names.len() { format!(", and {} more", paths.len() - names.len()) } else { String::new() };
    format!(
        "{field} `{entry}` selects none of the {} of pending action {id}: give a file, a folder or a glob of its files (`*_test.py` by name, `src/**/*.py` by path); its files are: {}{more}",
        crate::shared::text::plural(paths.len(), "file"),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_entry_selects_its_file_its_folders_files_or_its_globs_matches() {
        let yes = [
            ("a/b.py", "a/b.py"),
            ("a", "a/b.py"),
            ("a/", "a/b/c.py"),
            ("./a", "a/b.py"),
            (".", "x.py"),
            ("*.py", "x.py"),
            ("*.py", "a/x.py"),
            ("**/*.py", "a/b/c.py"),
            ("a/*/c.py", "a/b/c.py"),
            ("a/{b,x}/c.py", "a/b/c.py"),
        ];
        for (entry, path) in yes {
            assert!(selects(entry, path), "{entry} should select {path}");
        }
        let no = [("a", "ab/c.py"), ("a/b", "a/bc.py"), ("*.rs", "a/x.py"), ("a/*.py", "a/b/c.py"), ("b.py", "a/b.py"), ("[", "x.py")];
        for (entry, path) in no {
            assert!(!selects(entry, path), "{entry} should not select {path}");
        }
    }
    use super::*;
    use serde_json::json;

    /// The keys the messages list are the keys the struct reads, each with a
    /// value of its type; any other key is refused by the struct too.
    #[test]
    fn the_listed_keys_are_the_keys_of_the_struct() {
        let values = [json!("skip"), json!(["a.py"]), json!(true), json!("rerun"), json!(["b.py"]), json!(false), json!(true), json!(true)];
        let extra: serde_json::Map<String, serde_json::Value> = ApplyOptions::EXTRA_KEYS.iter().map(|k| k.to_string()).zip(values).collect();
        let o = ApplyOptions::from_extra(Some(&extra.into())).unwrap();
        assert!(o.skip_stale && o.rerun && o.allow_syntax_errors && o.allow_structure_changes && o.allow_template_mismatch && !o.skip_flagged);
        assert_eq!((o.only, o.exclude), (Some(vec!["a.py".to_string()]), vec!["b.py".to_string()]));
        assert!(serde_json::from_value::<Extra>(json!({"stale": "skip", "file": ["a.py"]})).is_err());
        assert_eq!(ApplyOptions::from_extra(Some(&json!({"stale": "abort"}))).unwrap(), ApplyOptions::default());
    }
}
