//! Messages as typed text: a [`Text`] is literal text with [`Name`]s (an input,
//! a command) and [`Say`]s (a clause only a front end can word) in it. The core
//! builds texts; a front end renders them through its own [`Words`]: the CLI
//! speaks of its flags (`--reason TEXT`), the MCP server of its tool fields
//! (`reason`) and tools (docs/DESIGN.md §5.14). The core names no front end and
//! holds none of their words.
//!
//! [`Text`]'s `Display` (and so the library's errors') renders with [`Plain`],
//! the library's own words: the request's field names.

/// An input of an edit request, which the CLI names by its flag and the MCP
/// server by its field of `ast_edit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The pattern: `-p` / `pat`.
    Pattern,
    /// The node kind to match inside the pattern: `--selector` / `selector`.
    Selector,
    /// The language: `-l` / `lang`.
    Lang,
    /// The match strictness: `--strictness` / `strictness`.
    Strictness,
    /// Include/exclude globs: `-g` / `globs`.
    Globs,
    /// Files and folders to search: the positional `PATH`s / `paths`.
    Paths,
    /// The regex that picks a project's rules by id: `--filter` / `filter`.
    Filter,
    /// Rewrite the matches nested in a rewritten match: `--rewrite-nested` /
    /// `rewriteNested`.
    RewriteNested,
}

impl Input {
    /// The field of the request (of `ops[]` for the pattern) that holds it.
    pub fn field(self) -> &'static str {
        match self {
            Input::Pattern => "pat",
            Input::Selector => "selector",
            Input::Lang => "lang",
            Input::Strictness => "strictness",
            Input::Globs => "globs",
            Input::Paths => "paths",
            Input::Filter => "filter",
            Input::RewriteNested => "rewriteNested",
        }
    }

    /// True for the fields that hold a list (`globs`, `paths`).
    pub fn is_list(self) -> bool {
        matches!(self, Input::Globs | Input::Paths)
    }
}

/// Something a message names, which each front end names its own way, quoted
/// as code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Name {
    /// An input by name: `` `--selector` `` / `` `selector` ``.
    Input(Input),
    /// An input given a value, ready to copy: `` `--selector call_expression` ``
    /// / `` `"selector": "call_expression"` ``.
    Set(Input, String),
    /// An argument of `resolve` by name: `--reason` / `` `reason` ``.
    Argument(String),
    /// The list of pending actions: `` `ast-edit pending` `` / `` `ast_pending` ``.
    PendingList,
    /// The undo of the last apply: `` `ast-edit undo` `` / `` `ast_undo` ``.
    Undo,
    /// An action's files by path: `` `ast-edit show` `` / `` `ast_pending` ``.
    ActionFiles,
    /// The syntax tree of a pattern of a language: `` `ast-edit tree -l py
    /// --pattern` `` / `` `ast_tree` ``.
    Tree(String),
    /// Op `i` of an ad-hoc edit (from 0): `` `-p` #2 `` / `` `ops[1]` ``.
    Op(usize),
}

/// A clause whose wording depends on what the front end offers (a flag the other
/// lacks, a command or a tool), so each front end writes it whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Say {
    /// No edit was given: how to give one (in parentheses, after "pass at least
    /// one pattern and rewrite").
    HowToGiveOps,
    /// An unknown language, after the canonical names: where the other names
    /// (aliases) are.
    OtherLanguageNames,
    /// A path that holds a glob character was not found: that paths are files
    /// and folders, and where the glob goes (the path given).
    GlobIsNotAPath(String),
    /// A file over the size cap: how to search it anyway.
    RaiseFileCap,
    /// No file was searched: how to include ignored and hidden files.
    IncludeIgnored,
    /// Diff lines were cut in the preview: where the whole of them is.
    WholeDiff,
    /// An action dropped unresolved when the pending actions were cleared.
    Cleared,
    /// An action dropped by the store's retention: where to see what is kept.
    Expired,
    /// No pending action has the id given: how to list them.
    ListPending,
    /// `resolve`'s action is neither apply nor discard (the action given).
    ActionChoice(String),
    /// `resolve` without a reason: how to give one.
    HowToGiveReason,
    /// An op cannot be expressed in some languages: how to see the full error.
    PickLanguage,
    /// A search without a pattern: the other ways to give one.
    OtherPatternInputs,
    /// A search's results go on: how to get the next page (its offset).
    NextPage(usize),
    /// A pattern that needs its statement's `;` in this language (its name),
    /// and how to match an expression inside a statement.
    StatementHint {
        /// The language's name.
        lang: String,
        /// The pattern with its `;`.
        statement: String,
    },
    /// A pattern that is not a whole expression or statement: how to match a
    /// part of a larger snippet.
    SnippetHint,
    /// Matches left for a second run: how to run the same edit again once this
    /// one is applied.
    RunAgain,
    /// An apply refused some files: how to apply the others with this `extra`
    /// (JSON, with `skipFlagged`).
    ApplyRest(String),
    /// An apply refused some files: how to write them too with this `extra`
    /// (JSON, with the keys that allow them).
    ApplyAll(String),
    /// How to resolve another session's pending action: by its id (the id).
    ResolveById(String),
    /// How to undo the apply of the action with this id (another session's, or
    /// one under a later apply).
    UndoById(String),
}

/// One part of a [`Text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Literal text.
    Lit(String),
    /// A thing named in the front end's words.
    Name(Name),
    /// A clause in the front end's words.
    Say(Say),
}

/// A message: literal text with names and clauses that each front end words.
/// The pending-action store keeps a plan's warnings as their parts, in a shape
/// of its own (`store/stored_text.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text(Vec<Part>);

impl From<String> for Text {
    fn from(s: String) -> Self {
        if s.is_empty() { Text::default() } else { Text(vec![Part::Lit(s)]) }
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::from(s.to_string())
    }
}

impl Text {
    /// This text, then the literal `s`.
    pub fn lit(mut self, s: impl AsRef<str>) -> Self {
        self.push_str(s.as_ref());
        self
    }

    /// This text, then `name`.
    pub fn name(mut self, name: Name) -> Self {
        self.0.push(Part::Name(name));
        self
    }

    /// This text, then the clause `say`.
    pub fn say(mut self, say: Say) -> Self {
        self.0.push(Part::Say(say));
        self
    }

    /// This text, then `more`.
    pub fn then(mut self, more: Text) -> Self {
        for p in more.0 {
            match p {
                Part::Lit(s) => self.push_str(&s),
                other => self.0.push(other),
            }
        }
        self
    }

    /// `prefix`, then this text.
    pub fn after(self, prefix: impl AsRef<str>) -> Self {
        Text::from(prefix.as_ref()).then(self)
    }

    /// Appends the literal `s`.
    pub fn push_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Part::Lit(last)) => last.push_str(s),
            _ => self.0.push(Part::Lit(s.to_string())),
        }
    }

    /// True when the text has no part.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.0
    }

    /// The text of these parts, as they are (adjacent literals are not
    /// joined): a text read back from the store.
    pub(crate) fn from_parts(parts: Vec<Part>) -> Self {
        Text(parts)
    }

    /// The text in the words of `words`.
    pub fn render(&self, words: &dyn Words) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Part::Lit(s) => out.push_str(s),
                Part::Name(n) => out.push_str(&words.name(n)),
                Part::Say(s) => out.push_str(&words.say(s)),
            }
        }
        out
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(&Plain))
    }
}

/// How a front end words the names and clauses of a [`Text`].
pub trait Words {
    /// `name`, quoted as code.
    fn name(&self, name: &Name) -> String;
    /// The clause `say`.
    fn say(&self, say: &Say) -> String;
}

/// The library's own words, for a caller that is not a front end (and the
/// `Display` of [`Text`] and of the errors): inputs by the request's field
/// names, commands and clauses in general terms.
#[derive(Clone, Copy, Debug, Default)]
pub struct Plain;

impl Words for Plain {
    fn name(&self, name: &Name) -> String {
        match name {
            Name::Input(i) => format!("`{}`", i.field()),
            Name::Set(i, v) => format!("`{}: {v}`", i.field()),
            Name::Argument(a) => format!("`{a}`"),
            Name::PendingList => "the list of pending actions".to_string(),
            Name::Undo => "undo".to_string(),
            Name::ActionFiles => "the action's preview".to_string(),
            Name::Tree(lang) => format!("the syntax tree of the pattern as {lang}"),
            Name::Op(i) => format!("`ops[{i}]`"),
        }
    }

    fn say(&self, say: &Say) -> String {
        match say {
            Say::HowToGiveOps => "`ops: [{\"pat\": ..., \"out\": ...}]`".to_string(),
            Say::OtherLanguageNames => "Aliases work too.".to_string(),
            Say::GlobIsNotAPath(p) => format!(": paths are files and folders, not globs; give `{p}` in `globs` instead"),
            Say::RaiseFileCap => "raise the cap to search it".to_string(),
            Say::IncludeIgnored => "(name such a file in `paths` to search it)".to_string(),
            Say::WholeDiff => "apply writes them whole".to_string(),
            Say::Cleared => "was dropped unresolved when the pending actions were cleared".to_string(),
            Say::Expired => "(the list of pending actions says what is kept)".to_string(),
            Say::ListPending => "List the pending actions to see their ids.".to_string(),
            Say::ActionChoice(other) => format!("`action` must be \"apply\" or \"discard\", not \"{other}\""),
            Say::HowToGiveReason => String::new(),
            Say::PickLanguage => "Set `lang` to one of them for the full error, or to the language you mean.".to_string(),
            Say::OtherPatternInputs => String::new(),
            Say::NextPage(next) => format!("Next page: run the same search with offset {next}."),
            Say::StatementHint { lang, statement } => {
                format!(" Hint: in {lang} a statement needs its `;`: try `{statement}`.")
            }
            Say::SnippetHint => " Hint: write a complete expression or statement of the target language.".to_string(),
            Say::ApplyRest(extra) | Say::ApplyAll(extra) => format!("apply with extra {extra}"),
            Say::RunAgain => "run the same edit again after applying".to_string(),
            Say::ResolveById(id) => format!("give `id` {id}"),
            Say::UndoById(id) => format!("undo with `id` {id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_joins_its_literals_and_keeps_its_names() {
        let t = Text::from("give ").name(Name::Input(Input::Lang)).lit(" or ").lit("not").then(Text::from("!").say(Say::Cleared));
        assert_eq!(t.parts().len(), 4, "{t:?}");
        assert_eq!(t.to_string(), "give `lang` or not!was dropped unresolved when the pending actions were cleared");
        assert_eq!(Text::from("x").after("a: ").to_string(), "a: x");
        assert!(Text::from("").is_empty());
    }
}
