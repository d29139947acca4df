//! Hints that name the fix when a pattern does not compile or does not say what
//! its writer meant: a lower-case `$name` that is no metavariable, a context in
//! which a pattern parses as the kind its selector asks for, and the language's
//! expando character. Used by the compiler's errors and by the diagnosis.

use ast_grep_core::Language;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;

use crate::shared::nodes::first_of_kind;

/// Longest context suggested for a selector (characters).
const MAX_CONTEXT_CHARS: usize = 120;

/// For a pattern written with `$` (or `$$$`) and a lower-case name (`$a`,
/// `$$$rest`): that metavariables are upper case, naming every such name. Not
/// in PHP and Bash, where `$a` is the language's own variable.
pub(crate) fn lowercase_note(pat: &str, lang: SupportLang) -> Option<String> {
    if matches!(lang, SupportLang::Php | SupportLang::Bash) {
        return None;
    }
    let b = pat.as_bytes();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let start = i;
        while b.get(i) == Some(&b'$') {
            i += 1;
        }
        if matches!(i - start, 1 | 3) && b.get(i).is_some_and(u8::is_ascii_lowercase) {
            let name: String = pat[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let shown = format!("{}{name}", &pat[start..i]);
            if !names.contains(&shown) {
                names.push(shown);
            }
        }
    }
    let upper = |n: &String| format!("`{}`", n.to_uppercase());
    match names.as_slice() {
        [] => None,
        [one] => Some(format!("`{one}` is not a metavariable: metavariables are upper case ({}), so `{one}` stands for the code `{one}` only.", upper(one))),
        many => {
            let quoted: Vec<String> = many.iter().map(|n| format!("`{n}`")).collect();
            let (last, rest) = quoted.split_last().expect("several");
            Some(format!(
                "{} and {last} are not metavariables: metavariables are upper case ({}), so each stands for its own code only.",
                rest.join(", "),
                many.iter().map(upper).collect::<Vec<_>>().join(", ")
            ))
        }
    }
}

/// The expando character of `lang` when it is not ASCII (and so never part of a
/// pattern's own text): what `$` becomes before parsing.
pub(crate) fn expando(lang: SupportLang) -> Option<char> {
    let e = lang.expando_char();
    (!e.is_ascii()).then_some(e)
}

/// A context in which `pat` parses as a node of kind `kind` (the first node of
/// that kind, as a selector picks it, whose text is the pattern's), checked by
/// compiling it: a few short generic ones are tried. `None` when none fits.
pub(crate) fn context_for(pat: &str, kind: &str, lang: SupportLang) -> Option<String> {
    const CONTEXTS: [&str; 12] = ["f(P)", "x := P", "x = P", "P;", "f(P);", "x = P;", "{P}", "[P]", "x = {P}", "({P})", "f(P) {}", "class C { P }"];
    let processed = lang.pre_process_pattern(pat).trim().to_string();
    CONTEXTS.iter().map(|c| c.replace('P', pat)).filter(|c| c.chars().count() <= MAX_CONTEXT_CHARS).find(|ctx| {
        if super::pattern_problem(ctx, Some(kind), lang).is_some() {
            return false;
        }
        let src = lang.pre_process_pattern(ctx).into_owned();
        let snippet = lang.ast_grep(&src);
        let root = snippet.root().get_inner_node();
        !root.has_error() && first_of_kind(root, kind).is_some_and(|n| src.get(n.byte_range()) == Some(processed.as_str()))
    })
}
