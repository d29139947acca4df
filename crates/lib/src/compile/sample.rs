//! Does a pattern whose own tree is not clean still match the code it stands
//! for? `int $VAR = $FUNC($$$ARGS)` in C lacks its `;` and parses with a
//! MISSING node, yet matches every such declaration; `kfree($A)` parses as a type
//! and matches no call. The test: fill the pattern's metavariables with sample
//! code (each `$X` an identifier, each `$$$X` nothing), take that text as it is
//! or with a `;` after it, keep the versions that parse without an ERROR or
//! MISSING node, and look for the pattern in them.

use std::collections::HashMap;

use ast_grep_core::Pattern;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;

/// The pattern text with its metavariables filled: `$X` (and `$_`) by an
/// identifier (`v0`, `v1`, the same one for the same name), `$$$X` by nothing.
pub(crate) fn filled(pat: &str) -> String {
    let mut out = String::with_capacity(pat.len());
    let mut names: HashMap<&str, String> = HashMap::new();
    let mut fresh = 0..;
    let bytes = pat.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            let c = pat[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let multi = pat[i..].starts_with("$$$");
        let start = if multi { i + 3 } else { i + 1 };
        let end = start + pat[start..].bytes().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_').count();
        let name = &pat[start..end];
        if multi {
            i = end;
        } else if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
            out.push('$');
            i += 1;
        } else {
            let mut next = || format!("v{}", fresh.next().expect("unbounded"));
            // `$_` is a fresh identifier each time; a named one is the same each time.
            let id = if name == "_" { next() } else { names.entry(name).or_insert_with(next).clone() };
            out.push_str(&id);
            i = end;
        }
    }
    out
}

/// True when `pat` matches, in `lang`, a clean version of its own filled text.
pub(crate) fn matches_own_sample(pat: &str, lang: SupportLang) -> bool {
    let Ok(pattern) = Pattern::try_new(pat, lang) else { return false };
    let text = filled(pat);
    [text.clone(), format!("{text};")].into_iter().any(|sample| {
        let grep = lang.ast_grep(&sample);
        !grep.root().get_inner_node().has_error() && grep.root().find(&pattern).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metavariables_are_filled_with_sample_code() {
        assert_eq!(filled("int $VAR = $FUNC($$$ARGS)"), "int v0 = v1()");
        assert_eq!(filled("$A == $A && $_ && $_"), "v0 == v0 && v1 && v2");
        assert_eq!(filled("f($$$, \"$5\", µ)"), "f(, \"$5\", µ)");
    }

    #[test]
    fn a_pattern_matches_its_sample_only_where_real_code_would_match() {
        assert!(matches_own_sample("int $VAR = $FUNC($$$ARGS)", SupportLang::C));
        assert!(matches_own_sample("pub struct $NAME { $$$FIELDS }", SupportLang::Rust));
        assert!(matches_own_sample("print($A)", SupportLang::Python));
        assert!(!matches_own_sample("kfree($A)", SupportLang::C));
        assert!(!matches_own_sample("foo(", SupportLang::Python));
    }
}
