//! Languages: names, aliases and file extensions of every builtin grammar of
//! `ast-grep-language`, and the per-file inference used when `lang` is absent.

use ast_grep_core::Language;
use ast_grep_language::SupportLang;
use std::path::Path;

use crate::shared::error::{Error, Result};
use crate::shared::message::Front;

/// Parses a language name or alias (`python`, `py`, `ts`, `c++`, ...), case-insensitive;
/// an unknown name is an error worded for the CLI.
pub fn parse_lang(name: &str) -> Result<SupportLang> {
    parse_lang_for(name, Front::Cli)
}

/// [`parse_lang`], its error worded for `front` (docs/DESIGN.md §5.14).
pub(crate) fn parse_lang_for(name: &str, front: Front) -> Result<SupportLang> {
    name.trim().parse::<SupportLang>().map_err(|_| Error::bad(unknown(name, front)))
}

/// The unknown-language text: the canonical names, then where the other names
/// are: `ast-edit langs` on the CLI; over MCP, which has no such tool, the
/// aliases themselves.
fn unknown(name: &str, front: Front) -> String {
    let langs = all();
    let names = langs.iter().map(|l| l.aliases[0]).collect::<Vec<_>>().join(", ");
    let rest = match front {
        Front::Cli => "Run `ast-edit langs` to see every name with its extensions.".to_string(),
        Front::Mcp => {
            let other = langs.iter().flat_map(|l| l.aliases[1..].iter().map(move |a| format!("{a} ({})", l.aliases[0])));
            format!("Aliases work too: {}.", other.collect::<Vec<_>>().join(", "))
        }
    };
    format!("unknown language `{name}`; use one of: {names}. {rest}")
}

/// The language a file is written in, from its extension.
pub fn infer(path: &Path) -> Option<SupportLang> {
    SupportLang::from_path(path)
}

/// The canonical lower-case name we print for a language. Cheap: called per
/// file (unlike [`info`], which builds the extension globs).
pub fn name(lang: SupportLang) -> &'static str {
    aliases(lang)[0]
}

/// A row of `ast-edit langs`.
pub struct LangInfo {
    /// The language.
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
    let mut extensions: Vec<String> = types
        .definitions()
        .iter()
        .flat_map(|d| d.globs().iter())
        .map(|g| g.trim_start_matches("*.").to_string())
        .collect();
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

    #[test]
    fn unknown_language_names_the_fix() {
        let e = parse_lang("cobol").unwrap_err().to_string();
        assert!(e.contains("unknown language `cobol`") && e.contains("ast-edit langs"), "{e}");
    }

    #[test]
    fn unknown_language_over_mcp_lists_the_aliases_instead_of_a_command() {
        let e = parse_lang_for("cobol", Front::Mcp).unwrap_err().to_string();
        assert!(e.starts_with("unknown language `cobol`; use one of: bash, c, cpp,"), "{e}");
        assert!(e.contains("Aliases work too: cc (cpp), c++ (cpp), cxx (cpp), cs (csharp),") && e.contains("py (python)"), "{e}");
        assert!(!e.contains("ast-edit"), "{e}");
    }
}
