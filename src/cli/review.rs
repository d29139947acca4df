//! `run -i` / `scan -i`: the interactive review. Per file, the diff and a
//! question on the terminal; the accepted files are applied with the verified
//! writer (journalled for `undo`) through [`workflow::apply_fresh`].

use std::io::Write;

use super::open_store;
use super::print::{self, Style};
use ast_edit::app::apply::ApplyOutcome;
use ast_edit::app::plan::Plan;
use ast_edit::app::preview::PreviewDetails;
use ast_edit::app::quote::{display_name, escape_controls};
use ast_edit::app::status::{FileStatus, OutstandingStatus};
use ast_edit::app::text::plural;
use ast_edit::app::workflow::{self, Preview};

/// Reviews `plan` file by file and applies what was accepted (the files
/// written then stored in the scan cache when `cache`); returns the exit code
/// and the preview details.
pub(super) fn review(plan: Plan, style: Style, cache: bool, out: &mut impl Write) -> anyhow::Result<(i32, PreviewDetails)> {
    let Preview { mut details, .. } = Preview::of(&plan, super::words::WORDS);
    if plan.files.is_empty() {
        print::summary(out, &details, style)?;
        writeln!(out, "No changes: nothing to review.")?;
        return Ok((0, details));
    }
    let accepted = ask(&details, style, out)?;
    // `--stats` counts what was written, as the closing text does.
    (details.files_touched, details.total_replacements) = (0, 0);
    if accepted.is_empty() {
        writeln!(out, "Nothing accepted: nothing written.")?;
        return Ok((0, details));
    }
    let (_, store) = open_store()?;
    let opts = ast_edit::app::apply::ApplyOptions { only: Some(accepted), ..Default::default() };
    let (id, report) = match workflow::apply_fresh(&store, &plan, opts, &details.label, cache) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}", super::words::error(&e));
            return Ok((1, details));
        }
    };
    (details.files_touched, details.total_replacements) = (report.files_touched, report.total_replacements);
    let (text, complete) = report_text(&report);
    writeln!(out, "{text}")?;
    if report.applied {
        print::undo_line(out, &id)?;
    }
    Ok((if complete { 0 } else { 3 }, details))
}

/// Asks about each file in turn; returns the accepted paths.
fn ask(details: &PreviewDetails, style: Style, out: &mut impl Write) -> std::io::Result<Vec<String>> {
    let stdin = std::io::stdin();
    let mut accepted: Vec<String> = Vec::new();
    let n = details.files.len();
    let mut all = false;
    for (k, f) in details.files.iter().enumerate() {
        if all {
            accepted.push(f.path.clone());
            continue;
        }
        let one = PreviewDetails { files: vec![f.clone()], ..details.clone() };
        print::diffs(out, &one, style)?;
        let question = format!("[{}/{n}] Apply this change to {}? [y]es [n]o [a]ll remaining [q]uit: ", k + 1, display_name(&f.path));
        write!(out, "{question}")?;
        out.flush()?;
        let answer = loop {
            let Some(key) = read_answer(&stdin)? else {
                writeln!(out)?;
                break 'q';
            };
            match key.to_ascii_lowercase() {
                c @ ('y' | 'n' | 'a' | 'q') => {
                    writeln!(out, "{c}")?;
                    break c;
                }
                _ => {
                    write!(out, "\nPlease answer y, n, a or q.\n{question}")?;
                    out.flush()?;
                }
            }
        };
        match answer {
            'y' => accepted.push(f.path.clone()),
            'a' => {
                all = true;
                accepted.push(f.path.clone());
            }
            'q' => break,
            _ => {}
        }
    }
    Ok(accepted)
}

/// One answer: a key pressed on the terminal (no Enter needed), or where the
/// terminal cannot be put in that mode, the first character of a line. `None`
/// at the end of input.
fn read_answer(stdin: &std::io::Stdin) -> std::io::Result<Option<char>> {
    let term = console::Term::stdout();
    if term.is_term() {
        return match term.read_key() {
            Ok(console::Key::Char(c)) => Ok(Some(c)),
            Ok(console::Key::Escape) => Ok(Some('q')),
            Ok(_) => Ok(Some(' ')),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        };
    }
    let mut line = String::new();
    if stdin.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().chars().next().unwrap_or(' ')))
}

/// The review's closing text, and whether nothing but declined files is
/// outstanding.
fn report_text(report: &ApplyOutcome) -> (String, bool) {
    let declined: Vec<&str> = report.outstanding.iter().filter(|o| o.status == OutstandingStatus::NotSelected).map(|o| o.path.as_str()).collect();
    let mut text = format!("Applied {} in {}.", plural(report.total_replacements, "replacement"), plural(report.files_touched, "file"));
    for f in report.files.iter().filter(|f| f.status == FileStatus::Applied) {
        text.push_str(&format!("\n  applied  {}", display_name(&f.path)));
    }
    if !declined.is_empty() {
        text.push_str(&format!("\nDeclined: {} left unchanged:", plural(declined.len(), "file")));
        for d in declined {
            text.push_str(&format!("\n  declined {}", display_name(d)));
        }
    }
    let mut complete = true;
    for o in report.outstanding.iter().filter(|o| o.status != OutstandingStatus::NotSelected) {
        complete = false;
        text.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
    }
    (text, complete)
}
