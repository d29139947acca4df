//! Languages: names, aliases and file extensions of every builtin grammar of
//! `ast-grep-language`, and the per-file inference used when `lang` is absent.

use ast_grep_core::Language;
use ast_grep_language::SupportLang;
use std::path::Path;

use crate::shared::error::{Error, Result};
use crate::shared::message::{Say, Text};

/// A language ast-edit parses: one of ast-grep-language's builtin grammars,
/// under ast-edit's own name, so that a caller of the API never names
/// ast-grep's crates. Shown (`{}`) and debugged (`{:?}`) as ast-grep shows the
/// language (`Python`, `TypeScript`); [`Lang::name`] is the lower-case name we
/// print elsewhere.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lang(SupportLang);

impl Lang {
    /// Parses a language name or alias (`python`, `py`, `ts`, `c++`, ...),
    /// case-insensitive; an unknown name is bad input that lists the canonical
    /// names ([`Say::OtherLanguageNames`]).
    pub fn parse(name: &str) -> Result<Lang> {
        parse_lang(name).map(Lang)
    }

    /// The language a file is written in, from its extension.
    pub fn infer(path: &Path) -> Option<Lang> {
        infer(path).map(Lang)
    }

    /// The canonical lower-case name (`python`, `typescript`).
    pub fn name(self) -> &'static str {
        name(self.0)
    }

    /// The language of ast-grep's crates.
    pub(crate) fn of(lang: SupportLang) -> Lang {
        Lang(lang)
    }

    /// ast-grep's language.
    pub(crate) fn support(self) -> SupportLang {
        self.0
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

/// Parses a language name or alias (`python`, `py`, `ts`, `c++`, ...),
/// case-insensitive; an unknown name is bad input that lists the canonical names
/// and leaves where the aliases are to the front end ([`Say::OtherLanguageNames`]).
pub fn parse_lang(name: &str) -> Result<SupportLang> {
    name.trim().parse::<SupportLang>().map_err(|_| Error::bad(unknown(name)))
}

/// The unknown-language text.
fn unknown(name: &str) -> Text {
    let names = all().iter().map(|l| l.aliases[0]).collect::<Vec<_>>().join(", ");
    Text::from(format!("unknown language `{name}`; use one of: {names}. ")).say(Say::OtherLanguageNames)
}

/// Every alias of a language that is not its canonical name, as `alias
/// (canonical)`, in the order of `all` (by canonical name).
pub fn other_names() -> Vec<String> {
    all().iter().flat_map(|l| l.aliases[1..].iter().map(move |a| format!("{a} ({})", l.aliases[0]))).collect()
}

/// The language a file is written in, from its extension.
pub fn infer(path: &Path) -> Option<SupportLang> {
    SupportLang::from_path(path)
}

/// The languages ast-grep-language finds embedded in files of `host` (HTML's
/// scripts and styles: JavaScript, TypeScript, TSX, CSS), by the names it
/// gives them, as ast-grep resolves those names; unknown names (`scss`) are left
/// out, as ast-grep leaves them out.
pub fn embedded_in(host: SupportLang) -> Vec<SupportLang> {
    use ast_grep_core::tree_sitter::LanguageExt;
    let mut out: Vec<SupportLang> = host.injectable_languages().unwrap_or(&[]).iter().filter_map(|s| s.parse().ok()).filter(|l| *l != host).collect();
    out.sort_by_key(|l| name(*l));
    out.dedup();
    out
}

/// True for a language of prose, not code (markdown): a pattern is searched in
/// its files only when the language is named (docs/DESIGN.md §2.3).
pub fn is_prose(lang: SupportLang) -> bool {
    lang == SupportLang::Markdown
}

/// The canonical lower-case name we print for a language. Cheap: called per
/// file (unlike [`info`], which builds the extension globs).
pub fn name(lang: SupportLang) -> &'static str {
    aliases(lang)[0]
}

/// A row of `ast-edit langs`.
pub struct LangInfo {
    /// The language. Only this file's tests read it (that every alias parses
    /// back to it); `rows` gives the front ends the rest.
    #[cfg_attr(not(test), allow(dead_code))]
    pub lang: SupportLang,
    /// Names accepted by `--lang` (the first is the canonical one).
    pub aliases: &'static [&'static str],
    /// File extensions inferred as this language.
    pub extensions: Vec<String>,
}

fn aliases(lang: SupportLang) -> &'static [&'static str] {
    use SupportLang::*;
    // Same monikers as ast-grep-language's `FromStr`, canonical name first.
    match lang {
        Bash => &["bash"],
        C => &["c"],
        Cpp => &["cpp", "cc", "c++", "cxx"],
        CSharp => &["csharp", "cs"],
        Css => &["css"],
        Dart => &["dart"],
        Elixir => &["elixir", "ex"],
        Go => &["go", "golang"],
        Haskell => &["haskell", "hs"],
        Hcl => &["hcl"],
        Html => &["html"],
        Java => &["java"],
        JavaScript => &["javascript", "js", "jsx"],
        Json => &["json"],
        Kotlin => &["kotlin", "kt"],
        Lua => &["lua"],
        Markdown => &["markdown", "md"],
        Nix => &["nix"],
        Php => &["php"],
        Python => &["python", "py"],
        Ruby => &["ruby", "rb"],
        Rust => &["rust", "rs"],
        Scala => &["scala"],
        Solidity => &["solidity", "sol"],
        Swift => &["swift"],
        Tsx => &["tsx"],
        TypeScript => &["typescript", "ts"],
        Yaml => &["yaml", "yml"],
        Zig => &["zig"],
    }
}

/// Name, aliases and extensions of one language.
pub fn info(lang: SupportLang) -> LangInfo {
    let types = lang.file_types();
    let mut extensions: Vec<String> = types.definitions().iter().flat_map(|d| d.globs().iter()).map(|g| g.trim_start_matches("*.").to_string()).collect();
    extensions.sort();
    extensions.dedup();
    LangInfo { lang, aliases: aliases(lang), extensions }
}

/// One row of `ast-edit langs --json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LangRow {
    /// The canonical name.
    pub name: &'static str,
    /// Every accepted name.
    pub aliases: &'static [&'static str],
    /// File extensions inferred as this language.
    pub extensions: Vec<String>,
}

/// The rows of `ast-edit langs`, sorted by name.
pub fn rows() -> Vec<LangRow> {
    all().into_iter().map(|i| LangRow { name: i.aliases[0], aliases: i.aliases, extensions: i.extensions }).collect()
}

/// Every builtin language, sorted by canonical name.
pub fn all() -> Vec<LangInfo> {
    let mut v: Vec<LangInfo> = SupportLang::all_langs().iter().map(|&l| info(l)).collect();
    v.sort_by_key(|i| i.aliases[0]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_parses_back_to_its_language() {
        for i in all() {
            for a in i.aliases {
                assert_eq!(parse_lang(a).unwrap(), i.lang, "{a}");
            }
            assert!(!i.extensions.is_empty());
        }
    }

    /// The front ends' words for it are tested in src/cli/words.rs and
    /// src/mcp/words.rs.
    #[test]
    fn unknown_language_names_the_fix() {
        let Error::BadInput(t) = parse_lang("cobol").unwrap_err() else { panic!("bad input") };
        let e = t.to_string();
        assert!(e.starts_with("unknown language `cobol`; use one of: bash, c, cpp,"), "{e}");
        assert_eq!(t.parts().last(), Some(&crate::shared::message::Part::Say(Say::OtherLanguageNames)));
        assert!(other_names().join(", ").starts_with("cc (cpp), c++ (cpp), cxx (cpp), cs (csharp),"), "{:?}", other_names());
    }
}
