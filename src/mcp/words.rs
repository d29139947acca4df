//! The MCP server's words for the library's messages ([`Words`]): inputs by
//! their fields of `ast_edit`, as JSON ready to paste into a call, commands by
//! their tools, and the clauses that speak of what the tools offer.

use ast_edit::app::message::{Input, Name, Say, Words};

/// The MCP server's words.
pub(crate) struct Mcp;

/// Where the server's words are used: `ast_edit::Error`s, warnings, skip reasons.
pub(crate) const WORDS: &Mcp = &Mcp;

impl Words for Mcp {
    fn name(&self, name: &Name) -> String {
        match name {
            Name::Input(i) => format!("`{}`", i.field()),
            Name::Set(i, v) => {
                let v = serde_json::to_string(v).expect("a string serializes");
                if i.is_list() { format!("`\"{}\": [{v}]`", i.field()) } else { format!("`\"{}\": {v}`", i.field()) }
            }
            Name::Argument(a) => format!("`{a}`"),
            Name::PendingList | Name::ActionFiles => "`ast_pending`".to_string(),
            Name::Undo => "`ast_undo`".to_string(),
            Name::Tree(_) => "`ast_tree`".to_string(),
            Name::Op(i) => format!("`ops[{i}]`"),
        }
    }

    fn say(&self, say: &Say) -> String {
        match say {
            Say::HowToGiveOps => "`ops: [{\"pat\": ..., \"out\": ...}]`".to_string(),
            // The server has no tool that lists the languages: the aliases themselves.
            Say::OtherLanguageNames => format!("Aliases work too: {}.", ast_edit::app::lang::other_names().join(", ")),
            Say::GlobIsNotAPath(p) => format!(
                ": {} holds files and folders, not globs; give the glob in `globs` instead: {} (globs are matched from the root)",
                self.name(&Name::Input(Input::Paths)),
                self.name(&Name::Set(Input::Globs, p.clone()))
            ),
            // The server reads with the default cap (docs/DESIGN.md §7).
            Say::RaiseFileCap => "`ast_edit` has no field to raise it: edit this file another way".to_string(),
            Say::IncludeIgnored => "(name such a file in `paths` to search it)".to_string(),
            Say::WholeDiff => "apply writes them whole".to_string(),
            Say::Cleared => "was dropped unresolved when the pending actions were cleared".to_string(),
            Say::Expired => format!("({} lists what is pending)", self.name(&Name::PendingList)),
            Say::ListPending => format!("Call {} without `id` to list the pending actions and their ids.", self.name(&Name::PendingList)),
            Say::ActionChoice(other) => format!("`action` must be \"apply\" or \"discard\", not \"{other}\""),
            Say::HowToGiveReason | Say::OtherPatternInputs => String::new(),
            Say::PickLanguage => "Set `lang` to one of them for the full error, or to the language you mean.".to_string(),
            Say::NextPage(next) => format!("Next page: call `ast_search` with the same arguments and \"offset\": {next}."),
            Say::RunAgain => "call `ast_edit` again after applying".to_string(),
            Say::ApplyRest(extra) => format!("call `resolve` again with extra {extra}"),
            Say::ApplyAll(extra) => format!("call `resolve` with extra {extra}"),
            Say::StatementHint { lang, statement } => format!(
                " Hint: in {lang} a statement needs its `;`: try `{statement}` (to match an expression inside other code, pass the statement as `pat` with `selector` set to the expression's node kind, e.g. `\"selector\": \"call_expression\"`)."
            ),
            Say::SnippetHint => " Hint: write a complete expression or statement of the target language; to match a part of a larger snippet, pass the snippet as `pat` with `selector` set to the part's node kind (`ast_tree` shows the kinds).".to_string(),
            Say::ResolveById(id) => format!("call `resolve` with `\"id\": \"{id}\"`"),
            Say::UndoById(id) => format!("call `ast_undo` with `\"id\": \"{id}\"`"),
        }
    }
}

/// The message of a library error in the server's words.
pub(crate) fn error(e: &ast_edit::Error) -> String {
    e.text().render(WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_edit::app::request::SkipReason;

    #[test]
    fn inputs_are_named_by_their_fields_as_json() {
        let n = |name| WORDS.name(&name);
        assert_eq!(n(Name::Set(Input::Selector, "call_expression".into())), "`\"selector\": \"call_expression\"`");
        assert_eq!(n(Name::Set(Input::Pattern, "f(\"a\")".into())), "`\"pat\": \"f(\\\"a\\\")\"`");
        assert_eq!(n(Name::Set(Input::Globs, "src/*.py".into())), "`\"globs\": [\"src/*.py\"]`");
        assert_eq!(n(Name::Input(Input::Lang)), "`lang`");
    }

    #[test]
    fn the_size_cap_says_there_is_no_field_to_raise_it() {
        let big = SkipReason::TooLarge { len: 20, cap: 10, ast_grep_skips: false };
        assert_eq!(big.text().render(WORDS), "too large (20 bytes; the cap is 10 bytes, `ast_edit` has no field to raise it: edit this file another way)");
    }

    #[test]
    fn an_unknown_language_lists_the_aliases_instead_of_a_command() {
        let e = error(&ast_edit::app::lang::Lang::parse("cobol").unwrap_err());
        assert!(e.starts_with("unknown language `cobol`; use one of: bash, c, cpp,"), "{e}");
        assert!(e.contains("Aliases work too: cc (cpp), c++ (cpp), cxx (cpp), cs (csharp),") && e.contains("py (python)"), "{e}");
        assert!(!e.contains("ast-edit"), "{e}");
    }
}
