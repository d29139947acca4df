//! `test -i`: the interactive review of the rule tests, as `ast-grep test -i`
//! 0.51.1 runs it. Each case that did not pass is shown in turn; for a `wrong`
//! case (a new snapshot to take) the question is whether to accept it, for any
//! other failure only whether to go on. The accepted snapshots are written, and
//! the verdicts are those after the review.
//!
//! Answers are read a line at a time from stdin, as in `run -i` (ast-grep reads
//! single keys in raw mode); stdin must be a terminal when there is something
//! to ask, else the run stops with [`NotInteractive`] before anything is shown
//! or written. [`decide`] holds the logic apart from the terminal.

use std::io::{BufRead, IsTerminal, Write};

use super::exit::NotInteractive;
use super::info::{print_case, print_header};
use ast_edit::app::cache::EntryCache;
use ast_edit::app::project::Project;
use ast_edit::app::ruletest::{self, CaseOutcome, Options, RuleOutcome, TestOutcome, Verdict};

/// The question asked about one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Question {
    /// A `wrong` case: take its new snapshot?
    Accept,
    /// Any other failure: go on to the next case?
    Next,
}

impl Question {
    /// The prompt, in ast-grep's words.
    fn prompt(self) -> &'static str {
        match self {
            Question::Accept => "Accept new snapshot? (Yes[y], No[n], Accept All[a], Quit[q]) ",
            Question::Next => "Next[enter], Quit[q] ",
        }
    }
}

/// An answer. To [`Question::Next`], anything but [`Answer::Quit`] goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    Yes,
    No,
    All,
    Quit,
}

/// The review of `reports`: `show` prints each case that did not pass, `ask`
/// asks about it. Returns the (rule, case) indices whose new snapshot is
/// accepted. After `a`, every later `wrong` case is accepted without asking
/// (still shown, as in ast-grep); `q` stops the review.
pub(super) fn decide(
    reports: &[RuleOutcome],
    mut show: impl FnMut(&RuleOutcome, &CaseOutcome) -> std::io::Result<()>,
    mut ask: impl FnMut(Question) -> std::io::Result<Answer>,
) -> std::io::Result<Vec<(usize, usize)>> {
    let mut accepted = Vec::new();
    let mut all = false;
    for (ri, rule) in reports.iter().enumerate().filter(|(_, r)| !r.passed) {
        for (ci, case) in rule.cases.iter().enumerate().filter(|(_, c)| !c.verdict.passes()) {
            show(rule, case)?;
            if case.verdict != Verdict::Wrong {
                if ask(Question::Next)? == Answer::Quit {
                    return Ok(accepted);
                }
                continue;
            }
            let answer = if all { Answer::Yes } else { ask(Question::Accept)? };
            match answer {
                Answer::Yes => accepted.push((ri, ci)),
                Answer::All => {
                    all = true;
                    accepted.push((ri, ci));
                }
                Answer::No => {}
                Answer::Quit => return Ok(accepted),
            }
        }
    }
    Ok(accepted)
}

/// Reads an answer to `q` from `input`: `y`, `n`, `a`, `q` (Enter: `n` to
/// [`Question::Accept`], go on to [`Question::Next`]); the end of the input quits.
fn read_answer(q: Question, input: &mut impl BufRead, out: &mut impl Write) -> std::io::Result<Answer> {
    loop {
        write!(out, "{}", q.prompt())?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(Answer::Quit);
        }
        let answer = match (q, line.trim().to_ascii_lowercase().as_str()) {
            (_, "q") => Answer::Quit,
            (Question::Next, "") => Answer::Yes,
            (Question::Accept, "" | "n") => Answer::No,
            (Question::Accept, "y") => Answer::Yes,
            (Question::Accept, "a") => Answer::All,
            _ => {
                writeln!(out, "Unrecognized command, try again?")?;
                continue;
            }
        };
        return Ok(answer);
    }
}

/// `ast-edit test -i`: runs the tests, reviews the cases that failed on the
/// terminal, writes the accepted snapshots (with the kept ones, as `-U` does),
/// and returns the report after the review. The cases go through `cache`, if
/// any (`ruletest::evaluate`).
pub(super) fn run(project: &Project, opts: &Options, cache: Option<&dyn EntryCache>, color: bool, out: &mut impl Write) -> anyhow::Result<TestOutcome> {
    let mut tests = ruletest::evaluate(project, opts, cache)?;
    let stdin = std::io::stdin();
    if tests.reports().iter().any(|r| !r.passed) && !stdin.is_terminal() {
        return Err(NotInteractive.into());
    }
    print_header(tests.reports().len(), tests.missing_rules(), out)?;
    let mut input = stdin.lock();
    let mut shown = false;
    let accepted = {
        let reports = tests.reports();
        // `show` and `ask` both write to `out`: they take turns through a cell.
        let out = std::cell::RefCell::new(&mut *out);
        decide(
            reports,
            |rule, case| {
                let mut o = out.borrow_mut();
                if !shown {
                    writeln!(o, "\n----------- Case Details -----------")?;
                    shown = true;
                }
                print_case(rule, case, color, &mut *o)
            },
            |q| read_answer(q, &mut input, &mut *out.borrow_mut()),
        )?
    };
    for (rule, case) in accepted {
        tests.accept(rule, case);
    }
    Ok(tests.finish(true)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_edit::app::ruletest::CaseKind;

    fn case(verdict: Verdict) -> CaseOutcome {
        CaseOutcome { kind: CaseKind::Invalid, code: format!("{verdict:?}"), verdict, expected: None, actual: None, diff: None, error: None, not_run: false }
    }

    fn rule(id: &str, verdicts: &[Verdict]) -> RuleOutcome {
        let cases: Vec<CaseOutcome> = verdicts.iter().map(|v| case(*v)).collect();
        RuleOutcome { id: id.into(), test_file: "t.yml".into(), snapshot_file: "s.yml".into(), passed: cases.iter().all(|c| c.verdict.passes()), cases }
    }

    /// Runs [`decide`] with scripted answers; returns the accepted cases, the
    /// cases shown and the questions asked.
    fn script(reports: &[RuleOutcome], answers: &[Answer]) -> (Vec<(usize, usize)>, Vec<String>, Vec<Question>) {
        let mut shown = Vec::new();
        let mut asked = Vec::new();
        let mut next = answers.iter();
        let accepted = decide(
            reports,
            |r, c| {
                shown.push(format!("{}:{}", r.id, c.code));
                Ok(())
            },
            |q| {
                asked.push(q);
                Ok(*next.next().expect("a question more than the script answers"))
            },
        )
        .unwrap();
        assert!(next.next().is_none(), "answers left over: the review asked less than expected");
        (accepted, shown, asked)
    }

    use Verdict::{Missing, Reported, Validated, Wrong};

    #[test]
    fn yes_and_no_choose_case_by_case_and_passing_rules_are_not_shown() {
        let reports = [rule("ok", &[Validated, Reported]), rule("r", &[Validated, Wrong, Wrong, Missing])];
        let (accepted, shown, asked) = script(&reports, &[Answer::No, Answer::Yes, Answer::Yes]);
        assert_eq!(accepted, [(1, 2)]);
        assert_eq!(shown, ["r:Wrong", "r:Wrong", "r:Missing"]);
        assert_eq!(asked, [Question::Accept, Question::Accept, Question::Next]);
    }

    #[test]
    fn all_accepts_the_rest_without_asking_but_still_asks_to_go_on_past_other_failures() {
        let reports = [rule("a", &[Wrong, Wrong]), rule("b", &[Missing, Wrong])];
        let (accepted, shown, asked) = script(&reports, &[Answer::All, Answer::Yes]);
        assert_eq!(accepted, [(0, 0), (0, 1), (1, 1)]);
        assert_eq!(shown.len(), 4);
        assert_eq!(asked, [Question::Accept, Question::Next]);
    }

    #[test]
    fn quit_keeps_what_was_accepted_and_stops_at_a_case_or_at_a_failure() {
        let reports = [rule("a", &[Wrong, Wrong, Wrong])];
        let (accepted, _, asked) = script(&reports, &[Answer::Yes, Answer::Quit]);
        assert_eq!((accepted, asked.len()), (vec![(0, 0)], 2));
        let reports = [rule("a", &[Missing]), rule("b", &[Wrong])];
        let (accepted, shown, _) = script(&reports, &[Answer::Quit]);
        assert!(accepted.is_empty());
        assert_eq!(shown, ["a:Missing"]);
    }

    #[test]
    fn answers_are_read_a_line_at_a_time_with_ast_grep_s_defaults() {
        let read = |q, text: &str| {
            let mut out = Vec::new();
            let a = read_answer(q, &mut text.as_bytes(), &mut out).unwrap();
            (a, String::from_utf8(out).unwrap())
        };
        assert_eq!(read(Question::Accept, "y\n").0, Answer::Yes);
        assert_eq!(read(Question::Accept, "A\n").0, Answer::All);
        assert_eq!(read(Question::Accept, "\n").0, Answer::No, "Enter declines, as ast-grep's default `n`");
        assert_eq!(read(Question::Next, "\n").0, Answer::Yes);
        assert_eq!(read(Question::Next, "q\n").0, Answer::Quit);
        assert_eq!(read(Question::Accept, "").0, Answer::Quit, "the end of the input quits");
        let (a, out) = read(Question::Accept, "maybe\nn\n");
        assert_eq!(a, Answer::No);
        assert_eq!(out.matches("Accept new snapshot?").count(), 2, "{out}");
        assert!(out.contains("Unrecognized command, try again?"), "{out}");
        let (a, _) = read(Question::Next, "y\n\n");
        assert_eq!(a, Answer::Yes, "`y` is no answer to Next: asked again, then Enter");
    }
}
