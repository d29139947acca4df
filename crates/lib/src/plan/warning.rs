//! The warnings of a dry run, typed: what happened with its figures
//! ([`Warning`]), made once by `run_warnings` and kept in the plan; each front
//! end words them when it shows them ([`Warning::text`] is a [`Text`]), so a
//! preview staged by one front end and shown by the other speaks the other's
//! words.

use crate::diagnose;
use crate::engine::Engine;
use crate::plan::{FilePlan, diff};
use crate::request::Request;
use crate::request::walk;
use crate::shared::message::{Input, Name, Say, Text};
use crate::shared::quote::{display_name, escape_controls};
use crate::shared::text::plural;

/// Most per-match notes ([`Warning::Unparsed`], [`Warning::CrossRule`]) a plan
/// keeps; the rest are counted in one [`Warning::MoreNotes`].
pub const MAX_NOTES: usize = 20;

/// One warning of a dry run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// What the rules said about themselves when they were compiled: a
    /// language an op does not compile for, a rule's lint.
    Rules {
        /// The message.
        text: Text,
    },
    /// The walk found no file to search.
    NoFileSearched,
    /// The language was forced and no file of it was found; these are the
    /// languages of the files that are there.
    OtherLanguages {
        /// The forced language's name.
        forced: String,
        /// The most common languages found (name, files), most first, at most 3.
        found: Vec<(String, usize)>,
    },
    /// A diagnosis of why a pattern found nothing or may be wrong
    /// (docs/DESIGN.md §2.12).
    Diagnosis {
        /// The message.
        text: Text,
    },
    /// The walk could not read a folder or an ignore file.
    Walk {
        /// `ignore`'s message.
        error: String,
    },
    /// `maxFiles` cut the walk.
    LimitReached {
        /// Files searched.
        searched: usize,
        /// Files found.
        total: usize,
    },
    /// Matches nested in or overlapping another were not rewritten.
    Overlaps {
        /// How many.
        count: usize,
    },
    /// A match was left alone because the code it holds does not parse.
    Unparsed {
        /// Display path.
        path: String,
        /// 1-based line of the match.
        line: usize,
    },
    /// A match of one op or rule was not applied because it overlaps an
    /// edit of another.
    CrossRule {
        /// Display path.
        path: String,
        /// 1-based line of the match.
        line: usize,
        /// The rule not applied (`op-N` for op N).
        rule: String,
        /// The rule whose edit was kept.
        kept_rule: String,
        /// It matched exactly the code the kept edit replaces: the first op
        /// that matches a node wins, and a second run cannot help.
        same_node: bool,
        /// The rules are a request's ops (`op-N`), named as the front end names
        /// ops.
        ops: bool,
    },
    /// More per-match notes than [`MAX_NOTES`]: how many more.
    MoreNotes {
        /// How many were left out.
        count: usize,
    },
    /// Diff lines of a file were cut in the preview.
    DiffLinesCut {
        /// Display path.
        path: String,
        /// How many lines.
        lines: usize,
        /// The longest line shown, in bytes.
        max: usize,
    },
    /// A file's rewrite adds syntax errors.
    SyntaxErrors {
        /// Display path.
        path: String,
        /// ERROR/MISSING nodes before.
        before: usize,
        /// ERROR/MISSING nodes after.
        after: usize,
    },
    /// Edits of a file were written as ast-grep writes them, because their
    /// minimal layout did not say what the template says.
    LayoutFallbacks {
        /// Display path.
        path: String,
        /// How many edits.
        edits: usize,
        /// The first: `line N: what`.
        first: String,
    },
    /// A file's rewrite does not say what the template says, in either layout
    /// (or, under `verbatim`, in ast-grep's).
    TemplateMismatch {
        /// Display path.
        path: String,
        /// The run wrote ast-grep's text only (`--verbatim`).
        verbatim: bool,
        /// The first mismatch: `line N: what`.
        first: String,
    },
    /// A file's rewrite moves code in the syntax tree outside the replaced text.
    StructureChanged {
        /// Display path.
        path: String,
        /// The first change: `line N: what`.
        first: String,
    },
    /// A warning as a store of format version 1 kept it: already worded.
    Worded(String),
}

impl Warning {
    /// The warning as a text, for the front end that shows it to word.
    pub fn text(&self) -> Text {
        Text::from(match self {
            Warning::Rules { text } | Warning::Diagnosis { text } => return text.clone(),
            Warning::Worded(text) => text.clone(),
            Warning::NoFileSearched => {
                return Text::from(
                    "No file searched: nothing under the given paths is a file of a language this edit runs on, once files excluded by .gitignore/.ignore rules and hidden files are left out ",
                )
                .say(Say::IncludeIgnored)
                .lit(".");
            }
            Warning::OtherLanguages { forced, found } => {
                let listed: Vec<String> = found.iter().map(|(l, n)| format!("{l} ({})", plural(*n, "file"))).collect();
                let top = found.first().map_or("", |(l, _)| l.as_str());
                return Text::from(format!("The language is {forced} ("))
                    .name(Name::Set(Input::Lang, forced.clone()))
                    .lit(format!("), but the files under the given paths are {}: pass their language (", listed.join(", ")))
                    .name(Name::Set(Input::Lang, top.to_string()))
                    .lit("), or leave it out to take each file's language from its extension.");
            }
            // `ignore`'s messages hold raw paths.
            Warning::Walk { error } => format!("walk: {}", escape_controls(error)),
            Warning::LimitReached { searched, total } => {
                format!("Limit reached: searched the first {searched} of {total} files (maxFiles); narrow the paths or raise maxFiles to search the rest.")
            }
            Warning::Overlaps { count } => {
                return Text::from(format!(
                    "{} nested in or overlapping another match {} not rewritten (the outermost wins); ",
                    plural(*count, "match"),
                    if *count == 1 { "was" } else { "were" }
                ))
                .say(Say::RunAgain)
                .lit(", or with ")
                .name(Name::Input(Input::RewriteNested))
                .lit(" set, to rewrite them.");
            }
            Warning::Unparsed { path, line } => format!(
                "{}:{line}: a match contains code that does not parse (an ERROR node) and was not rewritten: the rewrite could lose that code; fix the syntax error first",
                display_name(path)
            ),
            Warning::CrossRule { path, line, rule, kept_rule, same_node, ops } => {
                let name = |r: &str| match r.strip_prefix("op-").and_then(|n| n.parse().ok()).filter(|_| *ops) {
                    Some(i) => Text::from("").name(Name::Op(i)),
                    None => Text::from(format!("rule `{r}`")),
                };
                let at = Text::from(format!("{}:{line}: ", display_name(path)));
                if *same_node {
                    // Ops are tried in order (the first that matches a node
                    // wins); among rules ast-grep's scan decides, so no order
                    // is promised for them.
                    let head = at.then(name(rule)).lit(" matches the same code as ").then(name(kept_rule));
                    let why = " (one edit per node; applying and running again cannot help, the code is gone). To rewrite such code with ";
                    return if *ops {
                        head.lit(format!(", which comes first and wins{why}"))
                            .then(name(rule))
                            .lit(", put it first, or write ")
                            .then(name(kept_rule))
                            .lit(" as a `rule` whose `not:` or `constraints` keep it off such code.")
                    } else {
                        head.lit(format!(", whose edit is the one kept{why}"))
                            .then(name(rule))
                            .lit(", keep ")
                            .then(name(kept_rule))
                            .lit(" off it with `constraints` or a `not:` in its rule.")
                    };
                }
                return at
                    .then(name(rule))
                    .lit(" overlaps an edit of ")
                    .then(name(kept_rule))
                    .lit(" and was not applied here; ")
                    .say(Say::RunAgain)
                    .lit(" to apply it.");
            }
            Warning::MoreNotes { count } => format!("... and {count} more matches left alone (see the notes above)"),
            Warning::DiffLinesCut { path, lines, max } => {
                return Text::from(format!(
                    "{}: {lines} diff line(s) longer than {max} bytes cut in this preview (minified code?); the edits are whole, ",
                    display_name(path)
                ))
                .say(Say::WholeDiff)
                .lit(".");
            }
            Warning::SyntaxErrors { path, before, after } => format!(
                "{}: the rewrite introduces syntax errors ({before} ERROR/MISSING nodes before, {after} after); apply refuses this file unless extra {{\"allowSyntaxErrors\": true}}.",
                display_name(path)
            ),
            Warning::LayoutFallbacks { path, edits, first } => format!(
                "{}: {} written as ast-grep writes {}, because the minimal layout did not say what the template says ({first}).",
                display_name(path),
                plural(*edits, "edit"),
                if *edits == 1 { "it" } else { "them" }
            ),
            Warning::TemplateMismatch { path, verbatim, first } => format!(
                "{}: the rewrite does not say what the template says, {} ({first}); apply refuses this file unless extra {{\"allowTemplateMismatch\": true}}.",
                display_name(path),
                if *verbatim { "in ast-grep's text (--verbatim)" } else { "in the minimal layout or in ast-grep's" }
            ),
            Warning::StructureChanged { path, first } => format!(
                "{}: the rewrite moves code in the syntax tree outside the replaced text ({first}); apply refuses this file unless extra {{\"allowStructureChanges\": true}}.",
                display_name(path)
            ),
        })
    }
}

/// The first of a file's notes (line, what), as `line N: what` (empty when none).
fn first_note(first: Option<(usize, &str)>) -> String {
    first.map_or(String::new(), |(line, what)| format!("line {line}: {what}"))
}

/// The warnings of a run, in the order they are shown: the engine's (rules not
/// compiled for a language, lints), no file searched, the diagnosis, walk
/// errors, the `maxFiles` cap, nested matches, the per-match notes (at most
/// [`MAX_NOTES`]), cut diff lines, and per file the flags that make apply
/// refuse it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_warnings(
    req: &Request,
    cwd: &std::path::Path,
    engine: &Engine,
    walked: &walk::Walked,
    overlaps: usize,
    mut notes: Vec<Warning>,
    diagnosis: Vec<Text>,
    files: &[FilePlan],
) -> Vec<Warning> {
    let mut warnings: Vec<Warning> = engine.warnings.iter().map(|text| Warning::Rules { text: text.clone() }).collect();
    // (When the walk skipped a path named explicitly, the skip says why.)
    if walked.total == 0 && walked.skipped.is_empty() {
        // Say so: "0 files searched" alone reads like "no match" (a tarball's
        // .gitignore of `/*` hides every file, for one).
        match diagnose::globs_note(req, cwd) {
            Some(text) => warnings.push(Warning::Diagnosis { text: Text::from("No file searched: ").then(text) }),
            None => {
                warnings.push(Warning::NoFileSearched);
                warnings.extend(diagnose::other_languages(req, cwd).map(|(forced, found)| Warning::OtherLanguages { forced, found }));
            }
        }
    }
    warnings.extend(diagnosis.into_iter().map(|text| Warning::Diagnosis { text }));
    warnings.extend(walked.errors.iter().map(|error| Warning::Walk { error: error.clone() }));
    if walked.limit_reached() {
        warnings.push(Warning::LimitReached { searched: walked.files.len(), total: walked.total });
    }
    if overlaps > 0 {
        warnings.push(Warning::Overlaps { count: overlaps });
    }
    if notes.len() > MAX_NOTES {
        let count = notes.len() - MAX_NOTES;
        notes.truncate(MAX_NOTES);
        notes.push(Warning::MoreNotes { count });
    }
    warnings.extend(notes);
    for f in files.iter().filter(|f| f.diff_lines_cut > 0) {
        warnings.push(Warning::DiffLinesCut { path: f.path.clone(), lines: f.diff_lines_cut, max: diff::MAX_DIFF_LINE });
    }
    for f in files {
        if f.syntax_errors_introduced() {
            warnings.push(Warning::SyntaxErrors { path: f.path.clone(), before: f.errors_before, after: f.errors_after });
        }
        if f.layout_fallbacks > 0 {
            warnings.push(Warning::LayoutFallbacks {
                path: f.path.clone(),
                edits: f.layout_fallbacks,
                first: first_note(f.layout_notes.first().map(|c| (c.line, c.message.as_str()))),
            });
        }
        if f.template_mismatch {
            warnings.push(Warning::TemplateMismatch {
                path: f.path.clone(),
                verbatim: req.verbatim,
                first: first_note(f.template_mismatches.first().map(|c| (c.line, c.message.as_str()))),
            });
        }
        if f.structure_changed {
            warnings
                .push(Warning::StructureChanged { path: f.path.clone(), first: first_note(f.structure_changes.first().map(|c| (c.line, c.message.as_str()))) });
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warning's text keeps its names for the front end to word; one that a
    /// store of format version 1 kept worded is shown as it is (the store's
    /// reading of both: `store/stored_warning.rs`).
    #[test]
    fn a_warning_keeps_its_names_and_a_worded_one_is_shown_as_it_is() {
        let new = Warning::Rules { text: Text::from("pass ").name(Name::Set(Input::Lang, "go".into())) };
        assert_eq!(new.text().to_string(), "pass `lang: go`");
        assert_eq!(Warning::Worded("as it was worded".into()).text().to_string(), "as it was worded");
    }
}
