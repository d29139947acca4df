//! `ast-grep scan`'s checks of `ast-grep-ignore` comments: `unused-suppression`
//! (a comment that suppresses nothing; severity `hint` when a scan runs every
//! rule of a project, else off, as ast-grep 0.51.1 decides; its fix deletes the
//! comment) and `no-suppress-all` (a comment that names no rule; off unless a
//! flag says otherwise), one rule per language of the scan. ast-grep-config's
//! `CombinedScan` finds the matches (crates/lib/src/engine/scan.rs); the rule
//! config here only carries the rule through the request, the pending store and
//! the reports (docs/RULES.md, "Unused suppressions").

use ast_grep_config::{CombinedScan, NO_SUPPRESS_ALL_ID, UNUSED_SUPPRESSION_ID};
use ast_grep_language::SupportLang;

use super::project::LoadedRule;
use crate::engine::Severity;
use crate::request::rule::Rule;

/// The id of the check of comments that suppress nothing, as ast-grep's
/// (`--error=unused-suppression` gives it a severity).
pub const UNUSED: &str = UNUSED_SUPPRESSION_ID;

/// The id of the check of comments that name no rule (off unless a flag gives
/// it a severity, as in ast-grep).
pub const NO_SUPPRESS_ALL: &str = NO_SUPPRESS_ALL_ID;

/// The rule configs of check `id` (`UNUSED` or `NO_SUPPRESS_ALL`) for each
/// language of `rules`, at `severity` (none when it is `None`, `off`):
/// ast-grep-config's own message, note and fix for it.
pub fn rules_for(id: &str, rules: &[LoadedRule], severity: Option<Severity>) -> Vec<LoadedRule> {
    let Some(severity) = severity else { return Vec::new() };
    let severity = super::overwrite::given(Some(severity));
    let mut langs: Vec<SupportLang> = Vec::new();
    for r in rules {
        let l = r.config.language();
        if !langs.contains(&l) {
            langs.push(l);
        }
    }
    langs
        .into_iter()
        .enumerate()
        .map(|(index, l)| {
            // ast-grep-config's own config of the check: id, message, note, fix
            // and `rule: {any: []}`.
            let builtin =
                if id == UNUSED { CombinedScan::unused_config(severity.clone(), l) } else { CombinedScan::no_suppress_all_config(severity.clone(), l) };
            LoadedRule { id: id.to_string(), file: None, index, severity: severity.clone(), config: Rule::new((*builtin).clone()) }
        })
        .collect()
}
