//! The seams a rule's pattern spells (docs/DESIGN.md section 2.5.9). Between
//! two of the template's tokens a minimal rewrite writes the template's
//! whitespace, which the user spelled; but where the pattern writes the same
//! seam the same way, the user did not respell it (an identity, a rename
//! `foo($$$A)` -> `bar($$$A)`), so the original's gap stays: GNU's `foo (x)`
//! stays `bar (x)`.

use std::collections::HashSet;

use ast_grep_language::SupportLang;

use crate::engine::layout::lexer::{lex, lexicon};

/// The seams of a rule's patterns, each as (the token before, the whitespace,
/// the token after), a word standing for any word.
#[derive(Default)]
pub(in crate::engine) struct Spelling(HashSet<(String, String, String)>);

impl Spelling {
    /// The seams of `patterns` in `lang` (none without a layout lexer).
    pub(in crate::engine) fn of(lang: SupportLang, patterns: &[String]) -> Spelling {
        let Some(lx) = lexicon(lang) else { return Spelling::default() };
        let mut seams = HashSet::new();
        for p in patterns {
            for w in lex(p, &lx).windows(2) {
                seams.insert((class(&p[w[0].start..w[0].end]), p[w[0].end..w[1].start].to_string(), class(&p[w[1].start..w[1].end])));
            }
        }
        Spelling(seams)
    }

    /// True when a pattern writes a token like `a`, then `gap`, then one like `b`.
    pub(in crate::engine) fn has(&self, a: &str, gap: &str, b: &str) -> bool {
        self.0.contains(&(class(a), gap.to_string(), class(b)))
    }
}

/// True when `tok` is a word or a number (a metavariable is one too).
pub(in crate::engine) fn is_word(tok: &str) -> bool {
    tok.bytes().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80)
}

/// What a token counts as in a seam: any word is a word (a rename keeps the
/// seams around the name); anything else is itself.
fn class(tok: &str) -> String {
    if is_word(tok) { "\0w".to_string() } else { tok.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seam_is_the_patterns_when_it_writes_the_same_kinds_the_same_way() {
        let s = Spelling::of(SupportLang::TypeScript, &["wrap(function* ($$$P) { $$$B })".to_string()]);
        assert!(s.has("foo", "", "("));
        assert!(s.has("*", " ", "("));
        assert!(!s.has("*", "", "("));
        assert!(!s.has("-", " ", "-"));
    }
}
