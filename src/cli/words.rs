//! The CLI's words for the library's messages ([`Words`]): inputs by their
//! flags, ready to paste into a shell, commands by their `ast-edit` subcommand,
//! and the clauses that speak of what the command line offers.

use ast_edit::app::message::{Input, Name, Say, Words};

/// The command line's words.
pub(crate) struct Cli;

/// Where the CLI's words are used: `ast_edit::Error`s, warnings, skip reasons.
pub(crate) const WORDS: &Cli = &Cli;

/// The CLI's flag for an input (`PATH` for the positional arguments).
fn flag(i: Input) -> &'static str {
    match i {
        Input::Pattern => "-p",
        Input::Selector => "--selector",
        Input::Lang => "-l",
        Input::Strictness => "--strictness",
        Input::Globs => "-g",
        Input::Paths => "PATH",
        Input::Filter => "--filter",
        Input::RewriteNested => "--rewrite-nested",
    }
}

/// `s` as one word of a POSIX shell command: bare when it holds only safe
/// characters, else in single quotes (a `'` inside written `'\''`).
fn shell_word(s: &str) -> String {
    let safe = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%".contains(&b));
    if safe { s.to_string() } else { format!("'{}'", s.replace('\'', "'\\''")) }
}

impl Words for Cli {
    fn name(&self, name: &Name) -> String {
        match name {
            Name::Input(i) => format!("`{}`", flag(*i)),
            Name::Set(Input::Paths, v) => format!("`{}`", shell_word(v)),
            Name::Set(i, v) => format!("`{} {}`", flag(*i), shell_word(v)),
            Name::Argument(a) => format!("--{a}"),
            Name::PendingList => "`ast-edit pending`".to_string(),
            Name::Undo => "`ast-edit undo`".to_string(),
            Name::ActionFiles => "`ast-edit show`".to_string(),
            Name::Tree(lang) => format!("`ast-edit tree -l {lang} --pattern`"),
            Name::Op(i) => format!("`-p` #{}", i + 1),
        }
    }

    fn say(&self, say: &Say) -> String {
        match say {
            Say::HowToGiveOps => "`-p PAT -r REW`, or `ops: [{\"pat\": ..., \"out\": ...}]`".to_string(),
            Say::OtherLanguageNames => "Run `ast-edit langs` to see every name with its extensions.".to_string(),
            Say::GlobIsNotAPath(p) => format!(
                ": paths are files and folders, and the shell did not expand this glob; give it as a glob instead: {} (globs are matched from the working directory)",
                self.name(&Name::Set(Input::Globs, p.clone()))
            ),
            Say::RaiseFileCap => "raise it with --max-filesize".to_string(),
            Say::IncludeIgnored => "(the CLI's --no-ignore and --hidden include them)".to_string(),
            Say::WholeDiff => "`ast-edit show --full` prints the whole diff".to_string(),
            Say::Cleared => "was dropped by `ast-edit pending --clear`".to_string(),
            Say::Expired => format!("({} says what is kept)", self.name(&Name::PendingList)),
            Say::ListPending => format!("Run {} to list the pending actions.", self.name(&Name::PendingList)),
            Say::ActionChoice(other) => format!("action must be `apply` or `discard`, not `{other}`"),
            Say::HowToGiveReason => " (--reason TEXT)".to_string(),
            Say::PickLanguage => "Pass -l LANG for the full error, or -l to pick the language you mean.".to_string(),
            Say::OtherPatternInputs => ", or -p PAT".to_string(),
            Say::NextPage(next) => format!("Next page: run the same search with --offset {next}."),
            Say::StatementHint { lang, statement } => format!(
                " Hint: in {lang} a statement needs its `;`: try `{statement}` (to match an expression inside other code, pass the statement with --selector KIND, e.g. --selector call_expression)."
            ),
            Say::SnippetHint => " Hint: write a complete expression or statement of the target language; to match a part of a larger snippet, pass the snippet with --selector KIND.".to_string(),
            Say::RunAgain => "run the same edit again after applying".to_string(),
            Say::ApplyRest(extra) => format!("run `ast-edit resolve apply --extra {}` (with -U: `--skip-flagged`)", shell_word(extra)),
            Say::ApplyAll(extra) => format!("run `ast-edit resolve apply --extra {}` (with -U: `--allow-flagged`)", shell_word(extra)),
            Say::ResolveById(id) => format!("`--id {id}`, e.g. `ast-edit resolve apply --reason \"why\" --id {id}`"),
            Say::UndoById(id) => format!("`ast-edit undo --id {id}`"),
        }
    }
}

/// The message of a library error in the CLI's words.
pub(crate) fn error(e: &ast_edit::Error) -> String {
    e.text().render(WORDS)
}

/// The CLI's words in a run with `-U` (`run -U`, `scan -U`), which stages
/// nothing: a refused apply's ways on are that run's own flags, not `resolve
/// --extra`.
pub(crate) struct Update;

impl Words for Update {
    fn name(&self, name: &Name) -> String {
        WORDS.name(name)
    }

    fn say(&self, say: &Say) -> String {
        match say {
            Say::ApplyRest(_) => "run it again with `--skip-flagged`".to_string(),
            Say::ApplyAll(_) => "run it again with `--allow-flagged`".to_string(),
            other => WORDS.say(other),
        }
    }
}

/// The message of a library error in the words of a `-U` run.
pub(crate) fn update_error(e: &ast_edit::Error) -> String {
    e.text().render(&Update)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_edit::app::request::SkipReason;

    #[test]
    fn inputs_are_named_by_their_flags_ready_for_a_shell() {
        let n = |name| WORDS.name(&name);
        assert_eq!(n(Name::Set(Input::Selector, "call_expression".into())), "`--selector call_expression`");
        assert_eq!(n(Name::Set(Input::Pattern, "f(on_delete=x)".into())), "`-p 'f(on_delete=x)'`");
        assert_eq!(n(Name::Set(Input::Globs, "src/*.py".into())), "`-g 'src/*.py'`");
        assert_eq!(n(Name::Set(Input::Paths, "src".into())), "`src`");
        assert_eq!(n(Name::Input(Input::Lang)), "`-l`");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }

    #[test]
    fn the_size_cap_names_the_flag_that_raises_it() {
        let big = SkipReason::TooLarge { len: 20, cap: 10, ast_grep_skips: false };
        assert_eq!(big.text().render(WORDS), "too large (20 bytes; the cap is 10 bytes, raise it with --max-filesize)");
    }

    #[test]
    fn an_unknown_language_points_to_ast_edit_langs() {
        let e = error(&ast_edit::app::lang::Lang::parse("cobol").unwrap_err());
        assert!(e.starts_with("unknown language `cobol`; use one of: bash, c, cpp,"), "{e}");
        assert!(e.ends_with(". Run `ast-edit langs` to see every name with its extensions."), "{e}");
    }
}
