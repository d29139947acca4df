//! One source for the messages that both front ends show, rendered for each:
//! the CLI speaks of its flags (`--reason TEXT`), the MCP server of its tool
//! fields (`reason`) and tools. A message that needs a front-end word takes a
//! [`Front`] and names the thing through [`Front::name`] instead of being
//! written twice (docs/DESIGN.md §5.14).
//!
//! The validated request carries the front end that made it
//! (`Request::front`), so the compile errors and the diagnostics of a dry run
//! are rendered for the front end that made it; the plan's other warnings and
//! its skip reasons are typed and worded by the front end that shows them
//! (`plan::warning::Warning::text`, `request::read::SkipReason::text`).

/// Which front end a message is rendered for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Front {
    /// The command line: flags and `ast-edit` subcommands.
    #[default]
    Cli,
    /// The MCP server: tool names and argument fields.
    Mcp,
}

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
}

impl Input {
    /// The field of the MCP tool `ast_edit` (of `ops[]` for the pattern).
    fn field(self) -> &'static str {
        match self {
            Input::Pattern => "pat",
            Input::Selector => "selector",
            Input::Lang => "lang",
            Input::Strictness => "strictness",
            Input::Globs => "globs",
            Input::Paths => "paths",
        }
    }

    /// The CLI's flag (`PATH` for the positional arguments).
    fn flag(self) -> &'static str {
        match self {
            Input::Pattern => "-p",
            Input::Selector => "--selector",
            Input::Lang => "-l",
            Input::Strictness => "--strictness",
            Input::Globs => "-g",
            Input::Paths => "PATH",
        }
    }

    /// True for the fields that hold a list (`globs`, `paths`).
    fn is_list(self) -> bool {
        matches!(self, Input::Globs | Input::Paths)
    }
}

/// Something a message names, which each front end names its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name<'a> {
    /// An input by name: `` `--selector` `` / `` `selector` ``.
    Input(Input),
    /// An input given a value, ready to copy: `` `--selector call_expression` ``
    /// / `` `"selector": "call_expression"` ``.
    Set(Input, &'a str),
    /// The list of pending actions: `` `ast-edit pending` `` / `` `ast_pending` ``.
    PendingList,
    /// The undo of the last apply: `` `ast-edit undo` `` / `` `ast_undo` ``.
    Undo,
    /// An action's files by path: `` `ast-edit show` `` / `` `ast_pending` ``.
    ActionFiles,
    /// The syntax tree of a pattern of a language: `` `ast-edit tree -l py
    /// --pattern` `` / `` `ast_tree` ``.
    Tree(&'a str),
}

impl Front {
    /// How to name an input field: `--reason` on the CLI, `` `reason` `` over MCP.
    pub fn field(self, name: &str) -> String {
        match self {
            Front::Cli => format!("--{name}"),
            Front::Mcp => format!("`{name}`"),
        }
    }

    /// `what` in this front end's words, quoted as code.
    pub fn name(self, what: Name<'_>) -> String {
        match (self, what) {
            (Front::Cli, Name::Input(i)) => format!("`{}`", i.flag()),
            (Front::Mcp, Name::Input(i)) => format!("`{}`", i.field()),
            (Front::Cli, Name::Set(Input::Paths, v)) => format!("`{}`", shell_word(v)),
            (Front::Cli, Name::Set(i, v)) => format!("`{} {}`", i.flag(), shell_word(v)),
            (Front::Mcp, Name::Set(i, v)) => {
                let v = serde_json::to_string(v).expect("a string serializes");
                if i.is_list() { format!("`\"{}\": [{v}]`", i.field()) } else { format!("`\"{}\": {v}`", i.field()) }
            }
            (Front::Cli, Name::PendingList) => "`ast-edit pending`".to_string(),
            (Front::Mcp, Name::PendingList) => "`ast_pending`".to_string(),
            (Front::Cli, Name::Undo) => "`ast-edit undo`".to_string(),
            (Front::Mcp, Name::Undo) => "`ast_undo`".to_string(),
            (Front::Cli, Name::ActionFiles) => "`ast-edit show`".to_string(),
            (Front::Mcp, Name::ActionFiles) => "`ast_pending`".to_string(),
            (Front::Cli, Name::Tree(lang)) => format!("`ast-edit tree -l {lang} --pattern`"),
            (Front::Mcp, Name::Tree(_)) => "`ast_tree`".to_string(),
        }
    }
}

/// The text when `id` names no pending action (docs/DESIGN.md §5.3): the CLI's
/// is [`crate::Error::UnknownId`]'s, the server's names `ast_pending`.
pub(crate) fn unknown_id(id: &str, front: Front) -> String {
    match front {
        Front::Cli => crate::Error::UnknownId(id.to_string()).to_string(),
        Front::Mcp => format!(
            "No pending action with id `{id}`. Call {} without `id` to list the pending actions and their ids.",
            front.name(Name::PendingList)
        ),
    }
}

/// `s` as one word of a POSIX shell command: bare when it holds only safe
/// characters, else in single quotes (a `'` inside written `'\''`).
pub fn shell_word(s: &str) -> String {
    let safe = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%".contains(&b));
    if safe { s.to_string() } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_front_names_inputs_its_own_way() {
        assert_eq!(Front::Cli.name(Name::Set(Input::Selector, "call_expression")), "`--selector call_expression`");
        assert_eq!(Front::Mcp.name(Name::Set(Input::Selector, "call_expression")), "`\"selector\": \"call_expression\"`");
        assert_eq!(Front::Cli.name(Name::Set(Input::Pattern, "f(on_delete=x)")), "`-p 'f(on_delete=x)'`");
        assert_eq!(Front::Mcp.name(Name::Set(Input::Pattern, "f(\"a\")")), "`\"pat\": \"f(\\\"a\\\")\"`");
        assert_eq!(Front::Cli.name(Name::Set(Input::Globs, "src/*.py")), "`-g 'src/*.py'`");
        assert_eq!(Front::Mcp.name(Name::Set(Input::Globs, "src/*.py")), "`\"globs\": [\"src/*.py\"]`");
        assert_eq!(Front::Cli.name(Name::Set(Input::Paths, "src")), "`src`");
        assert_eq!(Front::Cli.name(Name::Input(Input::Lang)), "`-l`");
        assert_eq!(Front::Mcp.name(Name::Input(Input::Lang)), "`lang`");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
