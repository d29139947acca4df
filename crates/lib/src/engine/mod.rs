//! The rewrite engine: for one file's bytes and the ops compiled for its
//! language, the edits, the new text and what the checks found ([`Rewrite`]).
//! Plain data in and out; it never touches the disk. The steps run in order
//! from `pipeline.rs`; the rules they keep are docs/DESIGN.md section 2.5's.

pub mod budget;
pub mod metered;
pub mod structure;

use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};

use crate::compile::CompiledOp;
use crate::request::read::{Skip, SkipReason};

// The steps of one file's rewrite, in the order `pipeline` calls them.
mod parse;
mod matching;
mod layout;
mod template;
mod syntax;
mod pipeline;

mod hits;
mod registry;
mod report;
#[cfg(test)]
mod tests;

pub use hits::Hit;
pub use matching::inject::CustomInjection;
pub use registry::{Engine, FileOps};
pub use report::{Capture, Captures, Label, Replacement, RuleInfo, RuleMatch, Severity, Span, report};
pub use syntax::{MAX_EXCERPT_CHARS, MAX_SYNTAX_ERRORS_LISTED, SyntaxError};
pub use template::{MAX_TEMPLATE_NOTES_LISTED, TemplateNote, TemplateOutcome};

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One replacement: the bytes `start..end` of the original file become `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    /// Byte offset where the replaced range starts (in the whole file, BOM included).
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// Replacement text.
    pub text: String,
    /// Index of the op that produced it.
    pub op: usize,
}

/// A match not rewritten because it collides with a kept edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    /// Its op.
    pub lost: usize,
    /// The op of the kept edit.
    pub won: usize,
    /// Its start offset (in the whole file).
    pub at: usize,
    /// It would replace exactly the kept edit's range: two ops on one node,
    /// where the first wins and a second run cannot help (the node is gone).
    pub same: bool,
}

/// What the engine made of one file. It serializes for the scan cache
/// (`plan/preview_cache.rs`) without its new text, which a hit splices again
/// from the edits, and without `refused`: a file a limit stopped is never
/// stored.
#[derive(Debug, Serialize, Deserialize)]
pub struct Rewrite {
    /// Edits kept, sorted by offset, non-overlapping, none a no-op.
    pub edits: Vec<Edit>,
    /// Matches dropped because they nest in or overlap a kept one.
    pub overlaps: usize,
    /// Each dropped match, in the order met.
    pub dropped: Vec<Dropped>,
    /// The op of each nested match that `rewriteNested` folded into a kept
    /// edit: sites rewritten beyond one per edit.
    pub nested: Vec<usize>,
    /// Start offsets of matches left alone because the matched code holds a syntax
    /// error: the rewrite could drop the text of the ERROR node.
    pub unparsed: Vec<usize>,
    /// The whole new file.
    #[serde(skip)]
    pub new_text: Vec<u8>,
    /// ERROR + MISSING nodes in the original tree.
    pub errors_before: usize,
    /// ERROR + MISSING nodes after the rewrite.
    pub errors_after: usize,
    /// When `errors_after > errors_before`: the error nodes the rewrite adds
    /// (see `added_errors`), located in the new text, at most
    /// [`MAX_SYNTAX_ERRORS_LISTED`]; else empty.
    pub syntax_errors: Vec<SyntaxError>,
    /// The 1-based line of the first ERROR/MISSING node of the original text,
    /// when the file was parsed with the syntax check on and holds one. A file
    /// that is broken but has no match still gives a `Rewrite` (no edits) for it.
    pub broken_before: Option<usize>,
    /// What the structure guard found (docs/DESIGN.md section 2.5.10): nothing
    /// when the syntax check is off or the rewrite adds syntax errors.
    pub structure: structure::Changes,
    /// Set when the file was not searched after all (it met a limit of one
    /// file's work, `engine::budget`): then there are no edits and `new_text`
    /// is the text.
    #[serde(skip)]
    pub refused: Option<Skip>,
    /// Matches of rules without a fix, in walk order.
    pub findings: Vec<FindingAt>,
    /// What the template check found (docs/DESIGN.md section 2.5.9): nothing
    /// under `verbatim`.
    pub template: TemplateOutcome,
}

/// The most replacement text the engine builds for one file of `len` bytes: 4
/// times its size plus 64 MiB (docs/DESIGN.md section 7). Each replacement is
/// counted, also one that turns out to change nothing, and one whose bound
/// (`compile::FixBound::at_most`) does not fit in what is left is not built:
/// the file is skipped with a reason. It bounds the memory and time a rewrite
/// can take whatever its template: one that pastes a large match many times
/// (`$A$A$A...`), many matches of a large template, a chain of nested matches
/// that the rewrite leaves unchanged (each one built, then dropped).
pub(crate) fn replacement_budget(len: usize) -> usize {
    len.saturating_mul(4).saturating_add(64 << 20)
}

/// The length of the UTF-8 BOM `text` starts with: 3, or 0 without one.
pub(crate) fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') { BOM.len() } else { 0 }
}

/// True when most line breaks of `text` are CRLF.
pub(crate) fn is_crlf(text: &str) -> bool {
    let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let crlf = memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count();
    crlf > 0 && crlf * 2 >= lf
}

/// Turns every bare `\n` into `\r\n`.
fn to_crlf(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = '\0';
    for c in s.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// How [`rewrite`] works.
#[derive(Clone, Copy, Debug)]
pub struct RewriteOptions {
    /// Skip ops (and the parse) when the text lacks their literal tokens.
    pub prefilter: bool,
    /// Re-parse the new text and count ERROR/MISSING nodes before and after
    /// (otherwise both counts are 0: apply only needs the new text).
    pub check_syntax: bool,
    /// Rewrite the matches nested inside a kept edit too (see [`rewrite`]).
    pub rewrite_nested: bool,
    /// Write the template output as ast-grep builds it, instead of the minimal
    /// rewrite of `engine/layout/minimal.rs` (docs/DESIGN.md section 2.5.9).
    pub verbatim: bool,
}

/// A finding (a match of a rule without a fix) at its offset in one file, as
/// the engine gives it; the plan locates it (`plan::Finding`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingAt {
    /// Index of the rule.
    pub rule: usize,
    /// Byte offset where the match starts (in the whole file).
    pub start: usize,
    /// The rule's message for this match (metavariables filled in).
    pub message: String,
}

/// Rewrites one file's text. Returns `None` when nothing matched; a `Some` may
/// hold no edits when every match was left alone (see [`Rewrite::unparsed`]) or
/// only rules without a fix matched ([`Rewrite::findings`]), and then `new_text`
/// equals the text.
///
/// Rules whose required literals are missing from the text are not run, and when
/// no rule is left the file is not even parsed (the literal prefilter), unless
/// `opts.prefilter` is false.
pub fn rewrite(ops: &[&CompiledOp], lang: SupportLang, text: &str, opts: RewriteOptions) -> Option<Rewrite> {
    budget::Budget::ensure(|| pipeline::run(ops, lang, text, opts))
}

impl Rewrite {
    /// Nothing to change or report: no edits, the text unchanged.
    fn unchanged(text: &str) -> Rewrite {
        Rewrite { new_text: text.as_bytes().to_vec(), ..Rewrite::empty() }
    }

    /// Nothing yet, not even the text: what the pipeline fills in (it sets
    /// `new_text` last, so the file's bytes are not copied for nothing).
    fn empty() -> Rewrite {
        Rewrite {
            edits: Vec::new(),
            overlaps: 0,
            dropped: Vec::new(),
            nested: Vec::new(),
            unparsed: Vec::new(),
            new_text: Vec::new(),
            errors_before: 0,
            errors_after: 0,
            syntax_errors: Vec::new(),
            broken_before: None,
            structure: structure::Changes::default(),
            refused: None,
            findings: Vec::new(),
            template: TemplateOutcome::default(),
        }
    }

    /// The file is not searched after all: no edits, the text unchanged.
    fn refused(text: &str, why: SkipReason) -> Rewrite {
        Rewrite { refused: Some(Skip(why)), ..Rewrite::unchanged(text) }
    }
}

/// Applies sorted, non-overlapping edits in one forward pass.
pub fn splice(old: &[u8], edits: &[Edit]) -> Vec<u8> {
    let grow: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = Vec::with_capacity(old.len() + grow);
    let mut at = 0;
    for e in edits {
        out.extend_from_slice(&old[at..e.start]);
        out.extend_from_slice(e.text.as_bytes());
        at = e.end;
    }
    out.extend_from_slice(&old[at..]);
    out
}
