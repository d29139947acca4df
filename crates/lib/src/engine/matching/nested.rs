//! `rewriteNested`: the matches nested inside a rewritten match, rewritten in the
//! same preview (docs/DESIGN.md section 2.5). ast-grep keeps the outermost match
//! and leaves the ones inside it for a second run; here, after that first pick,
//! the file as rewritten is parsed again and the rules run again, inside the
//! replaced ranges only, and what they change is folded into the first edits, so
//! the plan still holds one edit per outermost match, as offsets of the original
//! file. Each round costs one parse and one walk of the file; the rounds stop when
//! nothing nested is left, when a round changes nothing, or after
//! [`MAX_NESTED_ROUNDS`], and what is still nested then is reported as overlaps.

use ast_grep_language::SupportLang;

use crate::compile::CompiledOp;
use crate::engine::layout::pick::pick;
use crate::engine::matching::scan;
use crate::engine::{Edit, RewriteOptions, splice};
use crate::request::read::SkipReason;

/// Rounds of nested rewriting after the first pick: eight levels of nesting of
/// one pattern in itself (`a.unwrap().b.unwrap()` is one); a deeper chain keeps
/// its inner matches, counted as overlaps.
pub const MAX_NESTED_ROUNDS: usize = 8;

/// Folds the rewrites of the matches nested in `kept` into `kept` (offsets of
/// `text`, which starts with `bom` bytes of BOM); `dropped` is left with what is
/// still nested after the last round. Returns the op of each match folded in
/// (the sites rewritten beyond one per edit). `Err`: the replacement budget ran out.
pub(in crate::engine) fn rewrite_nested(
    live: &[&CompiledOp],
    lang: SupportLang,
    text: &str,
    bom: usize,
    kept: &mut [Edit],
    dropped: &mut Vec<crate::engine::Dropped>,
    opts: RewriteOptions,
) -> Result<Vec<usize>, SkipReason> {
    let mut folded = Vec::new();
    for _ in 0..MAX_NESTED_ROUNDS {
        if dropped.is_empty() {
            break;
        }
        let new_text = String::from_utf8(splice(text.as_bytes(), kept)).expect("edits keep UTF-8");
        let body = &new_text[bom..];
        let regions = regions(kept);
        let grep = crate::engine::metered::parse(body, lang);
        let found = scan::scan(&grep, live, body, opts);
        if let Some(why) = found.stopped {
            return Err(why);
        }
        let inside: Vec<_> = found.diffs.into_iter().filter(|(_, m)| region_of(&regions, m.range().start + bom, m.range().end + bom).is_some()).collect();
        let (picked, _) = pick(live, body, bom, inside, (opts.verbatim, opts.check_syntax), None::<crate::engine::layout::pick::Overlap<'_, (), ()>>)?;
        *dropped = picked.dropped;
        if picked.kept.is_empty() {
            break;
        }
        // Last first, so that the offsets inside each edit's text stay valid.
        for inner in picked.kept.iter().rev() {
            let i = region_of(&regions, inner.start, inner.end).expect("picked inside a region");
            let at = inner.start - regions[i].0;
            kept[i].text.replace_range(at..at + (inner.end - inner.start), &inner.text);
            folded.push(inner.op);
        }
    }
    Ok(folded)
}

/// Where each edit's text lies in the rewritten file: `(start, end)`.
fn regions(kept: &[Edit]) -> Vec<(usize, usize)> {
    let mut shift: isize = 0;
    kept.iter()
        .map(|e| {
            let start = (e.start as isize + shift) as usize;
            shift += e.text.len() as isize - (e.end - e.start) as isize;
            (start, start + e.text.len())
        })
        .collect()
}

/// The region that holds `start..end` whole, if any.
fn region_of(regions: &[(usize, usize)], start: usize, end: usize) -> Option<usize> {
    let i = regions.partition_point(|&(s, _)| s <= start).checked_sub(1)?;
    (end <= regions[i].1).then_some(i)
}
