//! A [`Text`] (a warning's message, with names and clauses that each front end
//! words) as the store writes it in a plan: its parts in order, every name and
//! clause under a name of the store's own, so that renaming a variant of
//! `shared::message` cannot change what is on disk. A plain string, as a store
//! of format version 2 kept a worded message, reads as literal text.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::shared::message::{Input, Name, Part, Say, Text};

/// A text as written: its parts; read from its parts or from a string.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(super) enum StoredText<'a> {
    /// The parts, in order (what this build writes).
    Parts(Vec<StoredPart<'a>>),
    /// A message already worded (format version 2): literal text.
    Worded(Cow<'a, str>),
}

/// One part of a [`StoredText`]: `{"lit": ...}`, `{"name": ...}` or `{"say": ...}`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum StoredPart<'a> {
    #[serde(rename = "lit")]
    Lit(Cow<'a, str>),
    #[serde(rename = "name")]
    Name(StoredName<'a>),
    #[serde(rename = "say")]
    Say(StoredSay<'a>),
}

/// A [`Name`] as written.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum StoredName<'a> {
    #[serde(rename = "input")]
    Input(StoredInput),
    #[serde(rename = "set")]
    Set(StoredInput, Cow<'a, str>),
    #[serde(rename = "argument")]
    Argument(Cow<'a, str>),
    #[serde(rename = "pendingList")]
    PendingList,
    #[serde(rename = "undo")]
    Undo,
    #[serde(rename = "actionFiles")]
    ActionFiles,
    #[serde(rename = "tree")]
    Tree(Cow<'a, str>),
    #[serde(rename = "op")]
    Op(usize),
}

/// An [`Input`] as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) enum StoredInput {
    #[serde(rename = "pattern")]
    Pattern,
    #[serde(rename = "selector")]
    Selector,
    #[serde(rename = "lang")]
    Lang,
    #[serde(rename = "strictness")]
    Strictness,
    #[serde(rename = "globs")]
    Globs,
    #[serde(rename = "paths")]
    Paths,
    #[serde(rename = "filter")]
    Filter,
    #[serde(rename = "rewriteNested")]
    RewriteNested,
}

/// A [`Say`] as written.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum StoredSay<'a> {
    #[serde(rename = "howToGiveOps")]
    HowToGiveOps,
    #[serde(rename = "otherLanguageNames")]
    OtherLanguageNames,
    #[serde(rename = "globIsNotAPath")]
    GlobIsNotAPath(Cow<'a, str>),
    #[serde(rename = "raiseFileCap")]
    RaiseFileCap,
    #[serde(rename = "includeIgnored")]
    IncludeIgnored,
    #[serde(rename = "wholeDiff")]
    WholeDiff,
    #[serde(rename = "cleared")]
    Cleared,
    #[serde(rename = "expired")]
    Expired,
    #[serde(rename = "listPending")]
    ListPending,
    #[serde(rename = "actionChoice")]
    ActionChoice(Cow<'a, str>),
    #[serde(rename = "howToGiveReason")]
    HowToGiveReason,
    #[serde(rename = "pickLanguage")]
    PickLanguage,
    #[serde(rename = "otherPatternInputs")]
    OtherPatternInputs,
    #[serde(rename = "nextPage")]
    NextPage(usize),
    #[serde(rename = "statementHint")]
    StatementHint {
        #[serde(rename = "lang")]
        lang: Cow<'a, str>,
        #[serde(rename = "statement")]
        statement: Cow<'a, str>,
    },
    #[serde(rename = "snippetHint")]
    SnippetHint,
    #[serde(rename = "runAgain")]
    RunAgain,
    #[serde(rename = "applyRest")]
    ApplyRest(Cow<'a, str>),
    #[serde(rename = "applyAll")]
    ApplyAll(Cow<'a, str>),
    #[serde(rename = "resolveById")]
    ResolveById(Cow<'a, str>),
    #[serde(rename = "undoById")]
    UndoById(Cow<'a, str>),
}

impl<'a> From<&'a Text> for StoredText<'a> {
    fn from(t: &'a Text) -> Self {
        StoredText::Parts(
            t.parts()
                .iter()
                .map(|p| match p {
                    Part::Lit(s) => StoredPart::Lit(s.into()),
                    Part::Name(n) => StoredPart::Name(n.into()),
                    Part::Say(s) => StoredPart::Say(s.into()),
                })
                .collect(),
        )
    }
}

impl From<StoredText<'_>> for Text {
    fn from(t: StoredText<'_>) -> Self {
        match t {
            StoredText::Worded(s) => Text::from(s.into_owned()),
            StoredText::Parts(parts) => Text::from_parts(
                parts
                    .into_iter()
                    .map(|p| match p {
                        StoredPart::Lit(s) => Part::Lit(s.into_owned()),
                        StoredPart::Name(n) => Part::Name(n.into()),
                        StoredPart::Say(s) => Part::Say(s.into()),
                    })
                    .collect(),
            ),
        }
    }
}

impl<'a> From<&'a Name> for StoredName<'a> {
    fn from(n: &'a Name) -> Self {
        match n {
            Name::Input(i) => StoredName::Input((*i).into()),
            Name::Set(i, v) => StoredName::Set((*i).into(), v.into()),
            Name::Argument(a) => StoredName::Argument(a.into()),
            Name::PendingList => StoredName::PendingList,
            Name::Undo => StoredName::Undo,
            Name::ActionFiles => StoredName::ActionFiles,
            Name::Tree(lang) => StoredName::Tree(lang.into()),
            Name::Op(i) => StoredName::Op(*i),
        }
    }
}

impl From<StoredName<'_>> for Name {
    fn from(n: StoredName<'_>) -> Self {
        match n {
            StoredName::Input(i) => Name::Input(i.into()),
            StoredName::Set(i, v) => Name::Set(i.into(), v.into_owned()),
            StoredName::Argument(a) => Name::Argument(a.into_owned()),
            StoredName::PendingList => Name::PendingList,
            StoredName::Undo => Name::Undo,
            StoredName::ActionFiles => Name::ActionFiles,
            StoredName::Tree(lang) => Name::Tree(lang.into_owned()),
            StoredName::Op(i) => Name::Op(i),
        }
    }
}

impl From<Input> for StoredInput {
    fn from(i: Input) -> Self {
        match i {
            Input::Pattern => StoredInput::Pattern,
            Input::Selector => StoredInput::Selector,
            Input::Lang => StoredInput::Lang,
            Input::Strictness => StoredInput::Strictness,
            Input::Globs => StoredInput::Globs,
            Input::Paths => StoredInput::Paths,
            Input::Filter => StoredInput::Filter,
            Input::RewriteNested => StoredInput::RewriteNested,
        }
    }
}

impl From<StoredInput> for Input {
    fn from(i: StoredInput) -> Self {
        match i {
            StoredInput::Pattern => Input::Pattern,
            StoredInput::Selector => Input::Selector,
            StoredInput::Lang => Input::Lang,
            StoredInput::Strictness => Input::Strictness,
            StoredInput::Globs => Input::Globs,
            StoredInput::Paths => Input::Paths,
            StoredInput::Filter => Input::Filter,
            StoredInput::RewriteNested => Input::RewriteNested,
        }
    }
}

impl<'a> From<&'a Say> for StoredSay<'a> {
    fn from(s: &'a Say) -> Self {
        match s {
            Say::HowToGiveOps => StoredSay::HowToGiveOps,
            Say::OtherLanguageNames => StoredSay::OtherLanguageNames,
            Say::GlobIsNotAPath(p) => StoredSay::GlobIsNotAPath(p.into()),
            Say::RaiseFileCap => StoredSay::RaiseFileCap,
            Say::IncludeIgnored => StoredSay::IncludeIgnored,
            Say::WholeDiff => StoredSay::WholeDiff,
            Say::Cleared => StoredSay::Cleared,
            Say::Expired => StoredSay::Expired,
            Say::ListPending => StoredSay::ListPending,
            Say::ActionChoice(a) => StoredSay::ActionChoice(a.into()),
            Say::HowToGiveReason => StoredSay::HowToGiveReason,
            Say::PickLanguage => StoredSay::PickLanguage,
            Say::OtherPatternInputs => StoredSay::OtherPatternInputs,
            Say::NextPage(n) => StoredSay::NextPage(*n),
            Say::StatementHint { lang, statement } => StoredSay::StatementHint { lang: lang.into(), statement: statement.into() },
            Say::SnippetHint => StoredSay::SnippetHint,
            Say::RunAgain => StoredSay::RunAgain,
            Say::ApplyRest(extra) => StoredSay::ApplyRest(extra.into()),
            Say::ApplyAll(extra) => StoredSay::ApplyAll(extra.into()),
            Say::ResolveById(id) => StoredSay::ResolveById(id.into()),
            Say::UndoById(id) => StoredSay::UndoById(id.into()),
        }
    }
}

impl From<StoredSay<'_>> for Say {
    fn from(s: StoredSay<'_>) -> Self {
        match s {
            StoredSay::HowToGiveOps => Say::HowToGiveOps,
            StoredSay::OtherLanguageNames => Say::OtherLanguageNames,
            StoredSay::GlobIsNotAPath(p) => Say::GlobIsNotAPath(p.into_owned()),
            StoredSay::RaiseFileCap => Say::RaiseFileCap,
            StoredSay::IncludeIgnored => Say::IncludeIgnored,
            StoredSay::WholeDiff => Say::WholeDiff,
            StoredSay::Cleared => Say::Cleared,
            StoredSay::Expired => Say::Expired,
            StoredSay::ListPending => Say::ListPending,
            StoredSay::ActionChoice(a) => Say::ActionChoice(a.into_owned()),
            StoredSay::HowToGiveReason => Say::HowToGiveReason,
            StoredSay::PickLanguage => Say::PickLanguage,
            StoredSay::OtherPatternInputs => Say::OtherPatternInputs,
            StoredSay::NextPage(n) => Say::NextPage(n),
            StoredSay::StatementHint { lang, statement } => Say::StatementHint { lang: lang.into_owned(), statement: statement.into_owned() },
            StoredSay::SnippetHint => Say::SnippetHint,
            StoredSay::RunAgain => Say::RunAgain,
            StoredSay::ApplyRest(extra) => Say::ApplyRest(extra.into_owned()),
            StoredSay::ApplyAll(extra) => Say::ApplyAll(extra.into_owned()),
            StoredSay::ResolveById(id) => Say::ResolveById(id.into_owned()),
            StoredSay::UndoById(id) => Say::UndoById(id.into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name and clause, as format version 3 wrote them (the JSON below
    /// is what that build's serialization of `Text` gave).
    const EVERY_PART: &str = r#"[{"lit":"a "},{"name":{"input":"pattern"}},{"name":{"set":["selector","s"]}},{"name":{"argument":"reason"}},{"name":"pendingList"},{"name":"undo"},{"name":"actionFiles"},{"name":{"tree":"python"}},{"name":{"op":2}},{"name":{"input":"lang"}},{"name":{"input":"strictness"}},{"name":{"input":"globs"}},{"name":{"input":"paths"}},{"name":{"input":"filter"}},{"name":{"input":"rewriteNested"}},{"say":"howToGiveOps"},{"say":"otherLanguageNames"},{"say":{"globIsNotAPath":"*.py"}},{"say":"raiseFileCap"},{"say":"includeIgnored"},{"say":"wholeDiff"},{"say":"cleared"},{"say":"expired"},{"say":"listPending"},{"say":{"actionChoice":"x"}},{"say":"howToGiveReason"},{"say":"pickLanguage"},{"say":"otherPatternInputs"},{"say":{"nextPage":7}},{"say":{"statementHint":{"lang":"js","statement":"f();"}}},{"say":"snippetHint"},{"say":"runAgain"},{"say":{"applyRest":"{}"}},{"say":{"applyAll":"{\"a\":1}"}},{"say":{"resolveById":"ae-1"}},{"say":{"undoById":"ae-2"}},{"lit":" end"}]"#;

    fn every_part() -> Text {
        let inputs = [Input::Lang, Input::Strictness, Input::Globs, Input::Paths, Input::Filter, Input::RewriteNested];
        let mut t = Text::from("a ")
            .name(Name::Input(Input::Pattern))
            .name(Name::Set(Input::Selector, "s".into()))
            .name(Name::Argument("reason".into()))
            .name(Name::PendingList)
            .name(Name::Undo)
            .name(Name::ActionFiles)
            .name(Name::Tree("python".into()))
            .name(Name::Op(2));
        for i in inputs {
            t = t.name(Name::Input(i));
        }
        let says = [
            Say::HowToGiveOps,
            Say::OtherLanguageNames,
            Say::GlobIsNotAPath("*.py".into()),
            Say::RaiseFileCap,
            Say::IncludeIgnored,
            Say::WholeDiff,
            Say::Cleared,
            Say::Expired,
            Say::ListPending,
            Say::ActionChoice("x".into()),
            Say::HowToGiveReason,
            Say::PickLanguage,
            Say::OtherPatternInputs,
            Say::NextPage(7),
            Say::StatementHint { lang: "js".into(), statement: "f();".into() },
            Say::SnippetHint,
            Say::RunAgain,
            Say::ApplyRest("{}".into()),
            Say::ApplyAll("{\"a\":1}".into()),
            Say::ResolveById("ae-1".into()),
            Say::UndoById("ae-2".into()),
        ];
        for s in says {
            t = t.say(s);
        }
        t.lit(" end")
    }

    #[test]
    fn a_text_is_written_as_its_parts_as_version_3_wrote_them_and_read_back() {
        let t = every_part();
        assert_eq!(serde_json::to_string(&StoredText::from(&t)).unwrap(), EVERY_PART);
        let back: StoredText<'_> = serde_json::from_str(EVERY_PART).unwrap();
        assert_eq!(Text::from(back), t);
    }

    #[test]
    fn a_worded_string_reads_as_literal_text_and_parts_are_kept_as_they_are() {
        let worded: StoredText<'_> = serde_json::from_str(r#""worded""#).unwrap();
        assert_eq!(Text::from(worded), Text::from("worded"));
        // Two literals in a row stay two parts (a text that `lit` built
        // joins them; one read back is what was written).
        let two: StoredText<'_> = serde_json::from_str(r#"[{"lit":"a"},{"lit":"b"}]"#).unwrap();
        assert_eq!(Text::from(two).parts().len(), 2);
    }
}
