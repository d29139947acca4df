//! `run -i` / `scan -i`: the interactive review. Per file, the diff and a
//! question on the terminal; the accepted files are applied with the verified
//! writer (journalled for `undo`) through [`workflow::apply_fresh`].

use std::io::Write;

use super::open_store;
use super::print::{self, Style};
use ast_edit::apply::ApplyReport;
use ast_edit::plan::Plan;
use ast_edit::shared::quote::{display_name, escape_controls};
use ast_edit::plan::preview::PreviewDetails;
use ast_edit::shared::status::{FileStatus, OutstandingStatus};
use ast_edit::shared::text::plural;
use ast_edit::app::workflow::{self, Preview};

/// Reviews `plan` file by file and applies what was accepted; returns the exit
/// code and the preview details.
pub(super) fn review(plan: Plan, style: Style, out: &mut impl Write) -> anyhow::Result<(i32, PreviewDetails)> {
    let Preview { details, .. } = Preview::of(&plan, super::words::WORDS);
    if plan.files.is_empty() {
        print::summary(out, &details, style)?;
        writeln!(out, "No changes: nothing to review.")?;
        return Ok((0, details));
    }
    let accepted = ask(&details, style, out)?;
    if accepted.is_empty() {
        writeln!(out, "Nothing accepted: nothing written.")?;
        return Ok((0, details));
    }
    let (_, store) = open_store()?;
    let report = match workflow::apply_fresh(&store, &plan, ast_edit::apply::ApplyOptions { only: Some(accepted), ..Default::default() }, "review") {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}", super::words::error(&e));
            return Ok((1, details));
        }
    };
    let (text, complete) = report_text(&report);
    writeln!(out, "{text}")?;
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
        let answer = loop {
            write!(out, "[{}/{n}] Apply this change to {}? [y]es [n]o [a]ll remaining [q]uit: ", k + 1, display_name(&f.path))?;
            out.flush()?;
            let mut line = String::new();
            if stdin.read_line(&mut line)? == 0 {
                break 'q';
            }
            match line.trim().chars().next().map(|c| c.to_ascii_lowercase()) {
                Some(c @ ('y' | 'n' | 'a' | 'q')) => break c,
                _ => writeln!(out, "Please answer y, n, a or q.")?,
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

/// The review's closing text, and whether nothing but declined files is
/// outstanding.
fn report_text(report: &ApplyReport) -> (String, bool) {
    let declined = report.outstanding.iter().filter(|o| o.status == OutstandingStatus::NotSelected).count();
    let mut text = format!(
        "Applied {} in {}.",
        plural(report.total_replacements, "replacement"),
        plural(report.files_touched, "file")
    );
    for f in report.files.iter().filter(|f| f.status == FileStatus::Applied) {
        text.push_str(&format!("\n  applied  {}", display_name(&f.path)));
    }
    if declined > 0 {
        text.push_str(&format!("\nDeclined: {} left unchanged.", plural(declined, "file")));
    }
    let mut complete = true;
    for o in report.outstanding.iter().filter(|o| o.status != OutstandingStatus::NotSelected) {
        complete = false;
        text.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
    }
    (text, complete)
}
