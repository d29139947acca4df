//! A plan's [`Request`] as the store writes it: every field under a name of the
//! store's own, so that renaming a field of `request` cannot change what is on
//! disk. The language is written by its name, a rule set's rules and utilities
//! as ast-grep rule configs (JSON, keys sorted: [`Rule::json`]); the request's
//! time limit is not written (an apply re-runs without one), nor a context
//! or a step limit that is the default.

use std::borrow::Cow;
use std::path::Path;

use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::request::rule::{Rule, Util};
use crate::request::ruleset::RuleSet;
use crate::request::{CONTEXT, IgnoreOff, MAX_FILE_STEPS, Op, Request, Strictness, WalkOptions, lang};

/// Why a stored request cannot be read back. It is the error of the
/// `TryFrom` impls from the store's own types, which only the store can name:
/// no caller outside reaches it.
#[derive(Debug, thiserror::Error)]
#[allow(unnameable_types)]
pub enum StoredRequestError {
    /// `lang` names no language this build knows.
    #[error("the request's language `{0}` is not one this build knows")]
    Language(String),
    /// A rule of the rule set is not a rule config ast-grep reads.
    #[error("rule {index} of the request is not a rule config ast-grep reads: {message}")]
    Rule {
        /// Its index in the rule set.
        index: usize,
        /// ast-grep-config's error.
        message: String,
    },
    /// A utility of the rule set is not a utility rule ast-grep reads.
    #[error("utility {index} of the request is not a utility rule ast-grep reads: {message}")]
    Util {
        /// Its index in the rule set's utilities.
        index: usize,
        /// ast-grep-config's error.
        message: String,
    },
}

/// A [`Request`] as written.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredRequest<'a> {
    #[serde(rename = "ops")]
    ops: Vec<StoredOp<'a>>,
    #[serde(rename = "paths")]
    paths: Cow<'a, [String]>,
    /// The forced language by its name ([`lang::name`]), or `null`.
    #[serde(rename = "lang")]
    lang: Option<Cow<'a, str>>,
    #[serde(rename = "selector")]
    selector: Option<Cow<'a, str>>,
    #[serde(rename = "strictness")]
    strictness: StoredStrictness,
    #[serde(rename = "globs")]
    globs: Cow<'a, [String]>,
    #[serde(rename = "maxFiles")]
    max_files: Option<usize>,
    #[serde(rename = "walk")]
    walk: StoredWalk,
    #[serde(rename = "maxFilesize")]
    max_filesize: u64,
    #[serde(rename = "noPrefilter", default)]
    no_prefilter: bool,
    #[serde(rename = "ruleSet", default, skip_serializing_if = "Option::is_none")]
    rule_set: Option<StoredRuleSet<'a>>,
    #[serde(rename = "rewriteNested", default, skip_serializing_if = "std::ops::Not::not")]
    rewrite_nested: bool,
    #[serde(rename = "verbatim", default, skip_serializing_if = "std::ops::Not::not")]
    verbatim: bool,
    #[serde(rename = "contextLines", default = "default_context", skip_serializing_if = "is_default_context")]
    context_lines: usize,
    #[serde(rename = "maxSteps", default = "default_steps", skip_serializing_if = "is_default_steps")]
    max_steps: u64,
}

/// An [`Op`] as written.
#[derive(Debug, Serialize, Deserialize)]
struct StoredOp<'a> {
    #[serde(rename = "pat")]
    pat: Cow<'a, str>,
    #[serde(rename = "out")]
    out: Cow<'a, str>,
}

/// A [`Strictness`] as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
enum StoredStrictness {
    #[serde(rename = "cst")]
    Cst,
    #[serde(rename = "smart")]
    Smart,
    #[serde(rename = "ast")]
    Ast,
    #[serde(rename = "relaxed")]
    Relaxed,
    #[serde(rename = "signature")]
    Signature,
}

/// [`WalkOptions`] as written (`hiddenFiles` and `requireGit` are missing from
/// entries of format version 1).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct StoredWalk {
    #[serde(rename = "hidden")]
    hidden: bool,
    #[serde(rename = "noIgnore")]
    no_ignore: bool,
    #[serde(rename = "hiddenFiles", default)]
    hidden_files: bool,
    #[serde(rename = "requireGit", default)]
    require_git: bool,
    /// Missing from entries written before `--no-ignore KIND` and `--follow`.
    #[serde(rename = "ignoreOff", default, skip_serializing_if = "StoredIgnoreOff::none")]
    ignore_off: StoredIgnoreOff,
    #[serde(rename = "follow", default, skip_serializing_if = "std::ops::Not::not")]
    follow: bool,
}

/// [`IgnoreOff`] as written (left out when no kind is off, so entries
/// without these flags keep their bytes).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct StoredIgnoreOff {
    #[serde(rename = "dot", default)]
    dot: bool,
    #[serde(rename = "vcs", default)]
    vcs: bool,
    #[serde(rename = "exclude", default)]
    exclude: bool,
    #[serde(rename = "global", default)]
    global: bool,
    #[serde(rename = "parent", default)]
    parent: bool,
}

impl StoredIgnoreOff {
    fn none(&self) -> bool {
        !(self.dot || self.vcs || self.exclude || self.global || self.parent)
    }
}

/// A [`RuleSet`] as written: the empty parts left out.
#[derive(Debug, Serialize, Deserialize)]
struct StoredRuleSet<'a> {
    /// Rule configs ([`Rule::json`]).
    #[serde(rename = "rules")]
    rules: Vec<Value>,
    /// Utility rules (`Typed::json`, as the rules).
    #[serde(rename = "utils", default, skip_serializing_if = "Vec::is_empty")]
    utils: Vec<Value>,
    #[serde(rename = "base", default, skip_serializing_if = "Option::is_none")]
    base: Option<Cow<'a, Path>>,
    #[serde(rename = "languageGlobs", default, skip_serializing_if = "<[_]>::is_empty")]
    language_globs: Cow<'a, [(String, Vec<String>)]>,
    #[serde(rename = "languageInjections", default, skip_serializing_if = "<[_]>::is_empty")]
    language_injections: Cow<'a, [Value]>,
}

fn default_context() -> usize {
    CONTEXT
}

fn is_default_context(n: &usize) -> bool {
    *n == CONTEXT
}

fn default_steps() -> u64 {
    MAX_FILE_STEPS
}

fn is_default_steps(n: &u64) -> bool {
    *n == MAX_FILE_STEPS
}

impl<'a> From<&'a Request> for StoredRequest<'a> {
    fn from(r: &'a Request) -> Self {
        StoredRequest {
            ops: r.ops.iter().map(|o| StoredOp { pat: (&o.pat).into(), out: (&o.out).into() }).collect(),
            paths: (&r.paths[..]).into(),
            lang: r.lang.map(|l| lang::name(l).into()),
            selector: r.selector.as_ref().map(Into::into),
            strictness: r.strictness.into(),
            globs: (&r.globs[..]).into(),
            max_files: r.max_files,
            walk: r.walk.into(),
            max_filesize: r.max_filesize,
            no_prefilter: r.no_prefilter,
            rule_set: r.rule_set.as_ref().map(Into::into),
            rewrite_nested: r.rewrite_nested,
            verbatim: r.verbatim,
            context_lines: r.context_lines,
            max_steps: r.max_steps,
        }
    }
}

impl TryFrom<StoredRequest<'_>> for Request {
    type Error = StoredRequestError;

    fn try_from(r: StoredRequest<'_>) -> Result<Self, Self::Error> {
        let lang = match r.lang {
            Some(name) => Some(name.parse::<SupportLang>().map_err(|_| StoredRequestError::Language(name.into_owned()))?),
            None => None,
        };
        Ok(Request {
            ops: r.ops.into_iter().map(|o| Op { pat: o.pat.into_owned(), out: o.out.into_owned() }).collect(),
            paths: r.paths.into_owned(),
            lang,
            selector: r.selector.map(Cow::into_owned),
            strictness: r.strictness.into(),
            globs: r.globs.into_owned(),
            max_files: r.max_files,
            walk: r.walk.into(),
            max_filesize: r.max_filesize,
            no_prefilter: r.no_prefilter,
            rule_set: r.rule_set.map(RuleSet::try_from).transpose()?,
            rewrite_nested: r.rewrite_nested,
            verbatim: r.verbatim,
            context_lines: r.context_lines,
            time_limit: None,
            max_steps: r.max_steps,
        })
    }
}

impl From<Strictness> for StoredStrictness {
    fn from(s: Strictness) -> Self {
        match s {
            Strictness::Cst => StoredStrictness::Cst,
            Strictness::Smart => StoredStrictness::Smart,
            Strictness::Ast => StoredStrictness::Ast,
            Strictness::Relaxed => StoredStrictness::Relaxed,
            Strictness::Signature => StoredStrictness::Signature,
        }
    }
}

impl From<StoredStrictness> for Strictness {
    fn from(s: StoredStrictness) -> Self {
        match s {
            StoredStrictness::Cst => Strictness::Cst,
            StoredStrictness::Smart => Strictness::Smart,
            StoredStrictness::Ast => Strictness::Ast,
            StoredStrictness::Relaxed => Strictness::Relaxed,
            StoredStrictness::Signature => Strictness::Signature,
        }
    }
}

impl From<WalkOptions> for StoredWalk {
    fn from(w: WalkOptions) -> Self {
        let o = w.ignore_off;
        StoredWalk {
            hidden: w.hidden,
            no_ignore: w.no_ignore,
            hidden_files: w.hidden_files,
            require_git: w.require_git,
            ignore_off: StoredIgnoreOff { dot: o.dot, vcs: o.vcs, exclude: o.exclude, global: o.global, parent: o.parent },
            follow: w.follow,
        }
    }
}

impl From<StoredWalk> for WalkOptions {
    fn from(w: StoredWalk) -> Self {
        let o = w.ignore_off;
        WalkOptions {
            hidden: w.hidden,
            no_ignore: w.no_ignore,
            hidden_files: w.hidden_files,
            require_git: w.require_git,
            ignore_off: IgnoreOff { dot: o.dot, vcs: o.vcs, exclude: o.exclude, global: o.global, parent: o.parent },
            follow: w.follow,
        }
    }
}

impl<'a> From<&'a RuleSet> for StoredRuleSet<'a> {
    fn from(s: &'a RuleSet) -> Self {
        StoredRuleSet {
            rules: s.rules.iter().map(Rule::json).collect(),
            utils: s.utils.iter().map(Util::json).collect(),
            base: s.base.as_deref().map(Into::into),
            language_globs: (&s.language_globs[..]).into(),
            language_injections: (&s.language_injections[..]).into(),
        }
    }
}

impl TryFrom<StoredRuleSet<'_>> for RuleSet {
    type Error = StoredRequestError;

    fn try_from(s: StoredRuleSet<'_>) -> Result<Self, Self::Error> {
        let rules = s.rules.into_iter().enumerate().map(|(index, v)| Rule::from_json(v).map_err(|message| StoredRequestError::Rule { index, message }));
        let utils = s.utils.into_iter().enumerate().map(|(index, v)| Util::from_json(v).map_err(|message| StoredRequestError::Util { index, message }));
        Ok(RuleSet {
            rules: rules.collect::<Result<_, _>>()?,
            utils: utils.collect::<Result<_, _>>()?,
            base: s.base.map(Cow::into_owned),
            language_globs: s.language_globs.into_owned(),
            language_injections: s.language_injections.into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{RawRequest, WalkOptions};

    fn request(json: &str) -> Request {
        let cwd = std::env::current_dir().unwrap();
        RawRequest::from_json(json).unwrap().validate(&cwd, WalkOptions::default(), 1 << 20).unwrap()
    }

    fn round_trip(r: &Request) -> (String, Request) {
        let json = serde_json::to_string(&StoredRequest::from(r)).unwrap();
        let back: StoredRequest<'_> = serde_json::from_str(&json).unwrap();
        (json.clone(), Request::try_from(back).unwrap())
    }

    #[test]
    fn a_request_round_trips_and_leaves_out_what_is_default_or_not_stored() {
        let mut r = request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py"}"#);
        r.time_limit = Some(std::time::Duration::from_secs(600));
        let (json, back) = round_trip(&r);
        assert_eq!(
            json,
            r#"{"ops":[{"pat":"a","out":"b"}],"paths":["."],"lang":"python","selector":null,"strictness":"smart","globs":[],"maxFiles":null,"walk":{"hidden":false,"noIgnore":false,"hiddenFiles":false,"requireGit":true},"maxFilesize":1048576,"noPrefilter":false}"#
        );
        assert_eq!(back, Request { time_limit: None, ..r }, "the time limit is not stored");
    }

    /// A rule set's empty parts are left out, so an entry without them reads
    /// as it did before they existed.
    #[test]
    fn a_rule_set_leaves_out_its_empty_parts() {
        let r = request(r#"{"rule":"id: r\nlanguage: js\nrule: {pattern: a}\nfix: b\n"}"#);
        let (json, back) = round_trip(&r);
        assert!(json.contains(r#""ruleSet":{"rules":[{"#), "{json}");
        assert!(!json.contains("njections") && !json.contains("Globs") && !json.contains("utils\":[") && !json.contains("base"), "{json}");
        assert_eq!(back, r);
    }

    #[test]
    fn a_language_or_a_rule_this_build_does_not_read_is_an_error() {
        let r = request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py"}"#);
        let json = serde_json::to_string(&StoredRequest::from(&r)).unwrap();
        let bad: StoredRequest<'_> = serde_json::from_str(&json.replace(r#""lang":"python""#, r#""lang":"cobol""#)).unwrap();
        assert_eq!(Request::try_from(bad).unwrap_err().to_string(), "the request's language `cobol` is not one this build knows");
        let r = request(r#"{"rule":"id: r\nlanguage: js\nrule: {pattern: a}\nfix: b\n"}"#);
        let json = serde_json::to_string(&StoredRequest::from(&r)).unwrap();
        let bad: StoredRequest<'_> = serde_json::from_str(&json.replace(r#""rule":{"pattern":"a"}"#, r#""rule":5"#)).unwrap();
        let e = Request::try_from(bad).unwrap_err();
        assert!(matches!(e, StoredRequestError::Rule { index: 0, .. }), "{e}");
    }
}
