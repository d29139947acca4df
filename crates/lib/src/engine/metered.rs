//! The document ast-grep matches on: tree-sitter's tree and the file's text, as
//! ast-grep's own `StrDoc`, with every step of a walk metered (docs/DESIGN.md §2.5.7).
//! ast-grep-core and ast-grep-config walk any [`Doc`] only through the node methods
//! below and build transform text only through [`Text`]'s `Content` methods, so each
//! counts its work on the file's meter ([`super::budget::tick`],
//! [`super::budget::built`]); once the budget is spent every walk ends at once and text
//! comes back empty, and the file is skipped ([`super::budget::spent`]).

use std::borrow::Cow;
use std::ops::Range;

use ast_grep_core::source::{Content, Doc, Edit, SgNode};
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Position};
use ast_grep_language::SupportLang;

use super::budget::{built, tick};

/// Bytes of a node's text read per step ([`Metered`]'s `get_node_text`).
pub(crate) const TEXT_BYTES_PER_STEP: usize = 64;

/// A file's text and tree, metered.
#[derive(Clone)]
pub struct Metered {
    src: Text,
    lang: SupportLang,
    /// The syntax tree of `src`.
    pub tree: tree_sitter::Tree,
}

/// A parsed file, as the engine matches it.
pub type Grep = AstGrep<Metered>;

/// A node of a [`Metered`] document: tree-sitter's node; each walk from it is
/// counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<'r>(pub tree_sitter::Node<'r>);

/// A file's text; the text ast-grep builds from it (transforms, fixes) is
/// counted.
#[derive(Clone)]
pub struct Text(pub String);

/// `src` parsed as `lang`.
pub fn parse(src: &str, lang: SupportLang) -> Grep {
    AstGrep::doc(Metered::new(src, lang))
}

impl Metered {
    /// `src` parsed as `lang`, with ast-grep's own parser (and its cache).
    pub fn new(src: &str, lang: SupportLang) -> Metered {
        let StrDoc { src, lang, tree } = StrDoc::new(src, lang);
        Metered { src: Text(src), lang, tree }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.src.0
    }
}

impl Doc for Metered {
    type Source = Text;
    type Lang = SupportLang;
    type Node<'r> = Step<'r>;

    fn get_lang(&self) -> &SupportLang {
        &self.lang
    }

    fn get_source(&self) -> &Text {
        &self.src
    }

    /// ast-grep's `Root::edit`: the edit applied to the text, which is parsed
    /// again whole (the engine itself never edits a document in place).
    fn do_edit(&mut self, edit: &Edit<Text>) -> Result<(), String> {
        let mut bytes = std::mem::take(&mut self.src.0).into_bytes();
        let end = (edit.position + edit.deleted_length).min(bytes.len());
        bytes.splice(edit.position.min(end)..end, edit.inserted_text.iter().copied());
        let src = String::from_utf8(bytes).map_err(|e| format!("the edit leaves invalid UTF-8: {e}"))?;
        *self = Metered::new(&src, self.lang);
        Ok(())
    }

    fn root_node(&self) -> Step<'_> {
        Step(self.tree.root_node())
    }

    /// A node's text; reading a long one is work on the file's meter (one step
    /// per [`TEXT_BYTES_PER_STEP`] bytes): a `regex` rule, or a narrowed
    /// rule's word check (`compile/narrow.rs`), asked of a large node again
    /// and again (from each node that climbs to it) is bounded by the step
    /// budget as the walks it stands beside are.
    fn get_node_text<'a>(&'a self, node: &Step<'a>) -> Cow<'a, str> {
        let (start, end) = (node.0.start_byte(), node.0.end_byte());
        if end - start >= TEXT_BYTES_PER_STEP {
            tick(((end - start) / TEXT_BYTES_PER_STEP) as u64);
        }
        Cow::Borrowed(&self.src.0[start..end])
    }
}

impl Content for Text {
    type Underlying = u8;

    fn get_range(&self, range: Range<usize>) -> &[u8] {
        &self.0.as_bytes()[range]
    }

    /// Text that ast-grep makes into a transform's or a fix's output:
    /// counted, and given back whole (ast-grep indexes some of it, a line
    /// break; once the budget is spent the walks that make more matches end).
    fn decode_str(src: &str) -> Cow<'_, [u8]> {
        built(src.len(), 0);
        Cow::Borrowed(src.as_bytes())
    }

    /// Text that ast-grep copies out to transform it: counted, with room left
    /// for the most the next transform step can make of it.
    fn encode_bytes(bytes: &[u8]) -> Cow<'_, str> {
        if !built(bytes.len(), bytes.len()) {
            return Cow::Borrowed("");
        }
        String::from_utf8_lossy(bytes)
    }

    fn get_char_column(&self, column: usize, offset: usize) -> usize {
        self.0.get_char_column(column, offset)
    }
}

/// Each node a walk yields costs a step; once the budget is spent it yields
/// no more.
struct Metering<I>(I);

impl<'r, I: Iterator<Item = tree_sitter::Node<'r>>> Iterator for Metering<I> {
    type Item = Step<'r>;

    fn next(&mut self) -> Option<Step<'r>> {
        if !tick(1) {
            return None;
        }
        self.0.next().map(Step)
    }
}

/// A node's children, all of them or none (`ExactSizeIterator::len` is
/// what ast-grep compares children by).
struct Kids<I> {
    walk: I,
    left: usize,
}

impl<'r, I: Iterator<Item = tree_sitter::Node<'r>>> Iterator for Kids<I> {
    type Item = Step<'r>;

    fn next(&mut self) -> Option<Step<'r>> {
        self.left = self.left.checked_sub(1)?;
        self.walk.next().map(Step)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<'r, I: Iterator<Item = tree_sitter::Node<'r>>> ExactSizeIterator for Kids<I> {}

impl<'r> Step<'r> {
    /// A cursor on this node, reached by one walk from the parent's first
    /// child (a step per sibling passed over), and, when `keep`, the siblings
    /// before it in order; `None` for the root, or once the budget is spent.
    fn walk_to(&self, keep: bool) -> Option<(tree_sitter::TreeCursor<'r>, Vec<tree_sitter::Node<'r>>)> {
        let parent = self.0.parent()?;
        let mut walk = parent.walk();
        let mut kept = Vec::new();
        let mut n = 0u64;
        walk.goto_first_child();
        while walk.node().id() != self.0.id() {
            if keep {
                kept.push(walk.node());
            }
            n += 1;
            if !walk.goto_next_sibling() {
                return None;
            }
        }
        tick(1 + n).then_some((walk, kept))
    }
}

impl<'r> SgNode<'r> for Step<'r> {
    fn parent(&self) -> Option<Self> {
        tick(1).then(|| self.0.parent().map(Step)).flatten()
    }

    fn children(&self) -> impl ExactSizeIterator<Item = Self> {
        let n = self.0.child_count() as usize;
        Kids { left: if tick(1 + n as u64) { n } else { 0 }, walk: SgNode::children(&self.0) }
    }

    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.0.kind())
    }

    fn kind_id(&self) -> u16 {
        self.0.kind_id()
    }

    fn node_id(&self) -> usize {
        self.0.id()
    }

    fn range(&self) -> Range<usize> {
        self.0.start_byte()..self.0.end_byte()
    }

    fn start_pos(&self) -> Position {
        SgNode::start_pos(&self.0)
    }

    fn end_pos(&self) -> Position {
        SgNode::end_pos(&self.0)
    }

    fn ancestors(&self, root: Self) -> impl Iterator<Item = Self> {
        Metering(SgNode::ancestors(&self.0, root.0))
    }

    fn dfs(&self) -> impl Iterator<Item = Self> {
        Metering(SgNode::dfs(&self.0))
    }

    fn child(&self, nth: usize) -> Option<Self> {
        tick(1).then(|| self.0.child(nth as u32).map(Step)).flatten()
    }

    /// tree-sitter finds a sibling from the parent's first child: the
    /// children passed over are steps too.
    fn next(&self) -> Option<Self> {
        let (mut walk, _) = self.walk_to(false)?;
        walk.goto_next_sibling().then(|| Step(walk.node()))
    }

    fn prev(&self) -> Option<Self> {
        let (_, mut before) = self.walk_to(true)?;
        before.pop().map(Step)
    }

    fn next_all(&self) -> impl Iterator<Item = Self> {
        Metering(SgNode::next_all(&self.0))
    }

    /// The siblings before it, nearest first, found in one pass from the
    /// first (tree-sitter's own walk back finds each from the first again).
    fn prev_all(&self) -> impl Iterator<Item = Self> {
        let before = self.walk_to(true).map_or_else(Vec::new, |(_, b)| b);
        Metering(before.into_iter().rev())
    }

    fn is_named(&self) -> bool {
        self.0.is_named()
    }

    fn is_named_leaf(&self) -> bool {
        self.0.named_child_count() == 0
    }

    fn is_leaf(&self) -> bool {
        self.0.child_count() == 0
    }

    fn is_missing(&self) -> bool {
        self.0.is_missing()
    }

    fn is_error(&self) -> bool {
        self.0.is_error()
    }

    fn is_extra(&self) -> bool {
        self.0.is_extra()
    }

    fn field(&self, name: &str) -> Option<Self> {
        tick(1).then(|| self.0.child_by_field_name(name).map(Step)).flatten()
    }

    fn field_children(&self, field_id: Option<u16>) -> impl Iterator<Item = Self> {
        Metering(SgNode::field_children(&self.0, field_id))
    }

    fn child_by_field_id(&self, field_id: u16) -> Option<Self> {
        tick(1).then(|| self.0.child_by_field_id(field_id).map(Step)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;

    /// Every walk of the metered document yields what ast-grep's own
    /// document yields, node for node (the siblings are found another way).
    #[test]
    fn every_walk_yields_what_ast_grep_s_own_document_yields() {
        for (lang, src) in [
            (SupportLang::Python, "def f(a, b):\n    x = [1, 2, (3)]  # c\n    return g(x, *a)\n"),
            (SupportLang::Rust, "fn f() { let x = [1, 2]; if x.len() > 1 { g(&x); } }\n"),
            (SupportLang::JavaScript, "const a = {b: 1, ...c};\nf(a, () => { return; });\n"),
        ] {
            let ours = parse(src, lang);
            let theirs = lang.ast_grep(src);
            let (a, b): (Vec<_>, Vec<_>) = (ours.root().dfs().collect(), theirs.root().dfs().collect());
            assert_eq!(a.len(), b.len());
            let key = |n: &ast_grep_core::Node<'_, Metered>| (n.kind().to_string(), n.range());
            let theirs_key = |n: &ast_grep_core::Node<'_, StrDoc<SupportLang>>| (n.kind().to_string(), n.range());
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(key(x), theirs_key(y));
                assert_eq!(x.next().as_ref().map(key), y.next().as_ref().map(theirs_key), "next of {:?}", key(x));
                assert_eq!(x.prev().as_ref().map(key), y.prev().as_ref().map(theirs_key), "prev of {:?}", key(x));
                assert_eq!(x.next_all().map(|n| key(&n)).collect::<Vec<_>>(), y.next_all().map(|n| theirs_key(&n)).collect::<Vec<_>>());
                assert_eq!(x.prev_all().map(|n| key(&n)).collect::<Vec<_>>(), y.prev_all().map(|n| theirs_key(&n)).collect::<Vec<_>>());
                assert_eq!(x.parent().as_ref().map(key), y.parent().as_ref().map(theirs_key));
                assert_eq!(x.ancestors().map(|n| key(&n)).collect::<Vec<_>>(), y.ancestors().map(|n| theirs_key(&n)).collect::<Vec<_>>());
                assert_eq!(x.children().len(), y.children().len());
                assert_eq!(x.children().map(|n| key(&n)).collect::<Vec<_>>(), y.children().map(|n| theirs_key(&n)).collect::<Vec<_>>());
            }
        }
    }
}
