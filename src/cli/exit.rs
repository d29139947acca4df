//! Exit codes. `scan` and `test` run ast-grep projects and are a drop-in for
//! `ast-grep scan` / `ast-grep test` in CI, so their errors exit with ast-grep
//! 0.51.1's codes; every other command keeps ast-edit's own (0 ok, 1 nothing to
//! resolve or apply failed, 2 bad input, 3 applied but incomplete). The table of
//! both is docs/RULES.md, "Exit codes".

use ast_edit::app::error::ProjectFault;

use super::Command;

/// `test`: a rule test (or a whole-file check) failed (ast-grep's code for a
/// failed test, whether the rules or only the snapshots are wrong).
pub(crate) const TEST_FAILED: i32 = 4;

/// `scan -U` (or `-i`): the apply failed, nothing was written (ast-edit's own
/// code, which ast-grep does not use; `run` says 1).
pub(crate) const SCAN_APPLY_FAILED: i32 = 11;

/// `scan -U` (or `-i`): applied, but something is outstanding (`run` says 3).
pub(crate) const SCAN_APPLY_INCOMPLETE: i32 = 12;

/// Any command that searches: one of ast-edit's own limits left a file
/// unsearched (or unrewritten) where ast-grep would have searched it; the
/// file is named in every output (docs/DESIGN.md section 7). The same code in
/// both families: ast-grep 0.51.1 does not use it.
pub(crate) const LIMIT_SKIPPED: i32 = 13;

/// The error line of a run that left `n` files to a limit.
pub(crate) fn limit_skipped_line(n: usize) -> String {
    format!(
        "error: {n} file(s) not searched to the end because of ast-edit's limits (each named above with its limit); the run fails (exit {LIMIT_SKIPPED}): raise the limit it names (--max-steps, --max-filesize, --timeout) or narrow the rule"
    )
}

/// An interactive review (`test -i`) without a terminal to ask on (ast-grep's
/// code for an interactive mode that cannot read the terminal).
pub(crate) const NOT_INTERACTIVE: i32 = 7;

/// `test -i` found cases to review but stdin is not a terminal.
#[derive(Debug)]
pub(crate) struct NotInteractive;

impl std::fmt::Display for NotInteractive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "`ast-edit test -i` asks about each failing case on the terminal, but stdin is not a terminal: run it in a terminal, or use -U to accept every new snapshot",
        )
    }
}

impl std::error::Error for NotInteractive {}

/// Which codes a command's errors exit with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codes {
    /// ast-edit's own: [`ast_edit::Error::exit_code`].
    Own,
    /// ast-grep 0.51.1's, for `scan` and `test`.
    AstGrep,
}

impl Codes {
    /// The codes of `command`.
    pub fn of(command: &Command) -> Codes {
        match command {
            Command::Scan(_) | Command::Test(_) => Codes::AstGrep,
            _ => Codes::Own,
        }
    }

    /// The exit code of `err` (1 for an error the library did not classify).
    pub fn of_error(self, err: &anyhow::Error) -> i32 {
        if self == Codes::AstGrep && err.chain().any(|c| c.is::<NotInteractive>()) {
            return NOT_INTERACTIVE;
        }
        let Some(e) = err.downcast_ref::<ast_edit::Error>() else { return 1 };
        match (self, e.project_fault()) {
            (Codes::AstGrep, Some(fault)) => ast_grep_code(fault),
            _ => e.exit_code(),
        }
    }
}

/// ast-grep 0.51.1's exit code for a project fault.
pub(crate) fn ast_grep_code(fault: ProjectFault) -> i32 {
    match fault {
        ProjectFault::NotFound | ProjectFault::NoRuleMatches => 3,
        ProjectFault::Unreadable => 6,
        ProjectFault::Invalid => 8,
        ProjectFault::UnknownLanguage => 33,
        ProjectFault::Unclassified => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn codes(args: &[&str]) -> Codes {
        Codes::of(&super::super::Cli::parse_from(args).command)
    }

    #[test]
    fn only_scan_and_test_take_ast_grep_codes() {
        assert_eq!(codes(&["ast-edit", "scan"]), Codes::AstGrep);
        assert_eq!(codes(&["ast-edit", "test"]), Codes::AstGrep);
        assert_eq!(codes(&["ast-edit", "undo"]), Codes::Own);
        assert_eq!(codes(&["ast-edit", "run", "-p", "a", "-r", "b"]), Codes::Own);
        let fault = || anyhow::Error::from(ast_edit::Error::project(ProjectFault::Invalid, "x"));
        assert_eq!(Codes::AstGrep.of_error(&fault()), 8);
        assert_eq!(Codes::Own.of_error(&fault()), 2, "run and the rest keep 2 for bad input");
        assert_eq!(Codes::AstGrep.of_error(&anyhow::Error::from(ast_edit::Error::bad("x"))), 2);
        assert_eq!(Codes::AstGrep.of_error(&anyhow::Error::from(NotInteractive)), 7);
        assert_eq!(Codes::Own.of_error(&anyhow::Error::from(ast_edit::Error::NothingPending)), 1);
    }

    #[test]
    fn every_fault_has_ast_grep_s_code() {
        let all = [
            ProjectFault::NotFound,
            ProjectFault::NoRuleMatches,
            ProjectFault::Unreadable,
            ProjectFault::Invalid,
            ProjectFault::UnknownLanguage,
            ProjectFault::Unclassified,
        ];
        assert_eq!(all.map(ast_grep_code), [3, 3, 6, 8, 33, 1]);
    }
}
