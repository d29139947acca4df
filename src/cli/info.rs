//! `test` (the rule files' test cases) and `langs` (the supported languages).

use std::io::Write;

use super::print;
use super::{style, write_json, ColorChoice, JsonFlag, TestArgs};
use crate::lang;
use crate::rules;
use crate::text::plural;

/// `ast-edit test`.
pub(super) fn test(a: TestArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let rules = rules::load(&a.dir)?;
    let style = style(color, false);
    let (mut passed, mut failed) = (0usize, 0usize);
    for r in &rules {
        let results = rules::test_rule(r);
        let bad: Vec<_> = results.iter().filter(|c| c.failure.is_some()).collect();
        passed += results.len() - bad.len();
        failed += bad.len();
        if bad.is_empty() {
            writeln!(out, "{} {} ({})", print::paint(style.color, "32", "PASS"), r.def.id, plural(results.len(), "case"))?;
        }
        for c in bad {
            writeln!(
                out,
                "{} {} {} ({})\n{}",
                print::paint(style.color, "31", "FAIL"),
                c.rule,
                c.case,
                r.file.display(),
                c.failure.as_deref().unwrap_or_default()
            )?;
        }
    }
    writeln!(out, "\n{} checked", plural(rules.len(), "rule"))?;
    writeln!(out, "test: {passed} passed, {failed} failed")?;
    Ok(if failed == 0 { 0 } else { 1 })
}

/// `ast-edit langs`.
pub(super) fn langs(a: JsonFlag, out: &mut impl Write) -> anyhow::Result<i32> {
    let rows = lang::rows();
    if a.json {
        write_json(out, &rows)?;
        return Ok(0);
    }
    writeln!(out, "{:<12} {:<28} extensions", "language", "names")?;
    for r in rows {
        let exts: Vec<String> = r.extensions.iter().map(|e| format!(".{e}")).collect();
        writeln!(out, "{:<12} {:<28} {}", r.name, r.aliases.join(", "), exts.join(" "))?;
    }
    Ok(0)
}
