//! The diagnosis of each op on the files the run parsed: its pattern's shape
//! (root kind, leading tokens, callee), what the files hold that looks like it,
//! and the messages that say so.

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::{Language, Pattern};
use ast_grep_language::SupportLang;

use super::{
    MAX_DIAGNOSED_BYTES, MAX_DIAGNOSED_FILES, MAX_DIAGNOSED_OPS, RunFacts, at_ast, compares_punctuation, context_for, diagnosed, is_multi, lowercase_note,
    matches, shown,
};
use crate::compile::CompiledOp;
use crate::request::lang;
use crate::shared::message::{Input, Name, Text};
use crate::shared::text::{joined, plural};

type Tree = crate::engine::metered::Grep;

/// What a pattern looks like to the diagnosis.
struct Shape {
    /// Its root's kind (what it matches), id and name.
    kind_id: u16,
    kind: String,
    /// The text of its leaves before its first metavariable.
    lead: Vec<String>,
    /// Bytes of its leaves that are not metavariables: code it matches is at
    /// least this long.
    min_len: usize,
    /// For a call whose argument list holds a `$$$` list beside a fixed
    /// argument: the callee as written (whitespace removed).
    callee: Option<String>,
    /// For Go's `pkg.Fn(x)` read as a type conversion: `pkg.Fn`.
    conversion: Option<String>,
}

/// A place in a file: display path and 1-based line.
type Loc = (String, usize);

fn loc(path: &str, n: tree_sitter::Node<'_>) -> Loc {
    (crate::shared::quote::display_name(path).into_owned(), n.start_position().row + 1)
}

fn at(l: &Loc) -> String {
    format!("{}:{}", l.0, l.1)
}

/// The node ast-grep matches with: the selector's, or the root after the
/// wrappers with a single child.
fn pattern_root<'t>(root: tree_sitter::Node<'t>, selector: Option<&str>) -> Option<tree_sitter::Node<'t>> {
    if let Some(sel) = selector {
        return crate::shared::nodes::first_of_kind(root, sel);
    }
    let mut n = root;
    loop {
        let single = match n.child_count() {
            1 => true,
            2 => n.child(1).is_some_and(|c| c.is_missing() || c.kind().is_empty()),
            _ => false,
        };
        if !single {
            return Some(n);
        }
        n = n.child(0)?;
    }
}

/// The first `most` non-empty leaves under `n`, in order.
fn leaves<'t>(n: tree_sitter::Node<'t>, most: usize) -> Vec<tree_sitter::Node<'t>> {
    let mut out = Vec::new();
    // Only the first `most`: the walk goes into no node once it has them (a
    // near miss of a nested call holds all the calls inside it).
    crate::shared::nodes::walk_pruned(n, |c| {
        if out.len() >= most {
            return false;
        }
        if c.child_count() == 0 && c.end_byte() > c.start_byte() {
            out.push(c);
        }
        true
    });
    out
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect()
}

impl Shape {
    fn of(pat: &str, selector: Option<&str>, lang: SupportLang) -> Option<Shape> {
        let src = lang.pre_process_pattern(pat).into_owned();
        let grep = lang.ast_grep(&src);
        let root = pattern_root(grep.root().get_inner_node(), selector)?;
        let text = |n: tree_sitter::Node<'_>| &src[n.byte_range()];
        let is_meta = |n: tree_sitter::Node<'_>| lang.extract_meta_var(text(n)).is_some();
        let all = leaves(root, usize::MAX);
        let lead = all.iter().take_while(|n| !is_meta(**n)).map(|n| text(*n).to_string()).collect();
        let min_len = all.iter().filter(|n| !is_meta(**n)).map(|n| text(*n).len()).sum();
        let callee = root.child_by_field_name("function").zip(root.child_by_field_name("arguments")).and_then(|(f, args)| {
            let mut c = args.walk();
            let named: Vec<_> = args.named_children(&mut c).collect();
            let multi = named.iter().any(|a| lang.extract_meta_var(text(*a)).is_some_and(|m| is_multi(&m)));
            let fixed = named.iter().any(|a| leaves(*a, usize::MAX).iter().all(|l| !is_meta(*l)));
            (multi && fixed && leaves(f, usize::MAX).iter().all(|l| !is_meta(*l))).then(|| squeeze(text(f)))
        });
        let conversion = (lang == SupportLang::Go && root.kind() == "type_conversion_expression")
            .then(|| root.child_by_field_name("type").map(|t| text(t).to_string()))
            .flatten();
        Some(Shape { kind_id: root.kind_id(), kind: root.kind().to_string(), lead, min_len, callee, conversion })
    }
}

/// One op under diagnosis, and what the files showed.
struct Probe<'a> {
    i: usize,
    op: &'a CompiledOp,
    shape: Shape,
    /// The op matched nowhere in the run.
    zero: bool,
    /// The pattern at strictness `ast`, for a call with a `$$$` list.
    ast: Option<Pattern>,
    /// Matches in the files diagnosed (a rewrite that changes nothing is one).
    found: usize,
    calls: usize,
    calls_matched: usize,
    calls_ast: usize,
    only_ast: Option<Loc>,
    differ: Option<Loc>,
    /// Nodes of the root's kind that start with the most leading tokens of
    /// the pattern (`near_shared` of them), their count and the first.
    near: usize,
    near_shared: usize,
    near_example: Option<(Loc, String)>,
    /// Other kinds of code that start like the pattern: kind, count, first place.
    kinds: Vec<(String, usize, Loc)>,
    /// For a pattern whose single metavariables sit in a macro's token tree:
    /// the pattern with each a `$$$` list, and its matches (count, first place).
    token_tree: Option<(String, Pattern, usize, Option<Loc>)>,
}

impl<'a> Probe<'a> {
    fn new(facts: &RunFacts<'_>, op: &'a CompiledOp, lang: SupportLang, zero: bool) -> Option<Probe<'a>> {
        let req = facts.req;
        let pat = &req.ops[op.index].pat;
        let shape = Shape::of(pat, req.selector.as_deref(), lang)?;
        if !zero && shape.callee.is_none() {
            return None;
        }
        let ast = shape.callee.as_ref().filter(|_| compares_punctuation(req.strictness)).and_then(|_| at_ast(pat, req.selector.as_deref(), lang));
        let token_tree = zero.then(|| token_tree_lists(pat, lang)).flatten().and_then(|alt| Pattern::try_new(&alt, lang).ok().map(|p| (alt, p, 0, None)));
        Some(Probe {
            i: op.index,
            op,
            shape,
            zero,
            ast,
            found: 0,
            calls: 0,
            calls_matched: 0,
            calls_ast: 0,
            only_ast: None,
            differ: None,
            near: 0,
            near_shared: 0,
            near_example: None,
            kinds: Vec::new(),
            token_tree,
        })
    }

    /// Looks at one parsed file.
    fn look(&mut self, path: &str, body: &str, grep: &Tree) {
        let root = grep.root().get_inner_node().0;
        if self.zero && self.found == 0 {
            self.found += grep.root().find_all(&self.op.rule.matcher).take(1).count();
        }
        if let Some(callee) = self.shape.callee.clone() {
            self.calls_in(path, body, grep, root, &callee);
        }
        if self.zero && !self.shape.lead.is_empty() {
            self.starts_in(path, body, root);
        }
        if let Some((_, alt, count, first)) = &mut self.token_tree {
            for m in grep.root().find_all(&*alt) {
                *count += 1;
                first.get_or_insert_with(|| loc(path, m.get_inner_node().0));
            }
        }
    }

    fn calls_in(&mut self, path: &str, body: &str, grep: &Tree, root: tree_sitter::Node<'_>, callee: &str) {
        crate::shared::nodes::preorder(root, |n| {
            if n.kind_id() != self.shape.kind_id || n.child_by_field_name("function").is_none_or(|f| squeeze(&body[f.byte_range()]) != callee) {
                return;
            }
            self.calls += 1;
            if matches(&self.op.rule.matcher, grep, n) {
                self.calls_matched += 1;
            } else if self.ast.as_ref().is_some_and(|p| matches(p, grep, n)) {
                self.calls_ast += 1;
                self.only_ast.get_or_insert_with(|| loc(path, n));
            } else {
                self.differ.get_or_insert_with(|| loc(path, n));
            }
        });
    }

    /// Code that starts with the pattern's first token: nodes of the root's
    /// kind (near misses) or, where there is none, the smallest node that can
    /// hold the pattern (the kind the code has).
    fn starts_in<'t>(&mut self, path: &str, body: &str, root: tree_sitter::Node<'t>) {
        use crate::shared::nodes::{Next, walk};
        let first = self.shape.lead[0].clone();
        // Each leaf of that text with the ancestors that start where it does,
        // innermost first. The walk keeps the ancestors of the node it is on
        // (tree-sitter's `parent` walks down from the root at each call: on
        // deeply nested code that was the square of the depth).
        let mut state: (Vec<tree_sitter::Node<'t>>, Vec<Vec<tree_sitter::Node<'t>>>) = (Vec::new(), Vec::new());
        let visit = |(stack, found): &mut (Vec<tree_sitter::Node<'t>>, Vec<Vec<tree_sitter::Node<'t>>>), n: tree_sitter::Node<'t>| {
            if n.child_count() != 0 {
                stack.push(n);
                return Next::Children;
            }
            if body.get(n.byte_range()) == Some(first.as_str()) {
                let mut same_start = vec![n];
                same_start.extend(stack.iter().rev().take_while(|p| p.start_byte() == n.start_byte()).copied());
                found.push(same_start);
            }
            Next::Sibling
        };
        walk(root, &mut state, visit, |(stack, _), _| {
            stack.pop();
        });
        for same_start in state.1 {
            if let Some(near) = same_start.iter().find(|n| n.kind_id() == self.shape.kind_id) {
                self.near_miss(path, body, *near);
            } else if let Some(n) = same_start.iter().find(|n| n.is_named() && !n.is_error() && n.byte_range().len() >= self.shape.min_len) {
                match self.kinds.iter_mut().find(|(k, _, _)| k == n.kind()) {
                    Some((_, count, _)) => *count += 1,
                    None => self.kinds.push((n.kind().to_string(), 1, loc(path, *n))),
                }
            }
        }
    }

    fn near_miss(&mut self, path: &str, body: &str, n: tree_sitter::Node<'_>) {
        let shared = leaves(n, self.shape.lead.len()).iter().zip(&self.shape.lead).take_while(|(l, t)| &body[l.byte_range()] == t.as_str()).count();
        if shared > self.near_shared {
            (self.near_shared, self.near) = (shared, 0);
            self.near_example = Some((loc(path, n), shown(&body[n.byte_range()])));
        }
        if shared == self.near_shared {
            self.near += 1;
        }
    }
}

/// The run's diagnostics, in op order (docs/DESIGN.md §2.12).
pub fn diagnose(facts: &RunFacts<'_>) -> Vec<Text> {
    let req = facts.req;
    let zero = |i: usize| !facts.seen.iter().any(|s| s.matched.contains(&i));
    if req.rule_set.is_some() && !facts.files.is_empty() {
        return super::relational_notes(req, zero);
    }
    if !diagnosed(req) || facts.seen.iter().any(|s| s.left_alone) {
        return Vec::new();
    }
    let mut langs: Vec<SupportLang> = facts.files.iter().map(|c| c.lang).collect();
    langs.sort_by_key(|l| lang::name(*l));
    langs.dedup();
    let mut found: Vec<(usize, Text)> = Vec::new();
    let mut absent: std::collections::BTreeMap<usize, (Vec<&str>, String)> = std::collections::BTreeMap::new();
    let mut budget = MAX_DIAGNOSED_OPS;
    for (i, op) in req.ops.iter().enumerate().filter(|(i, _)| zero(*i)) {
        if let Some(note) = langs.iter().find_map(|&l| super::operator_note(i, &op.pat, l)) {
            found.push((i, note));
        }
    }
    for lang in langs {
        let mut probes: Vec<Probe<'_>> = Vec::new();
        for op in facts.engine.all_for(lang) {
            if budget == 0 {
                break;
            }
            if let Some(p) = Probe::new(facts, op, lang, zero(op.index)) {
                budget -= 1;
                probes.push(p);
            }
        }
        if probes.is_empty() {
            continue;
        }
        let files = match look_at_files(facts, lang, &mut probes) {
            Ok(files) => files,
            Err(stopped) => {
                found.push((usize::MAX, stopped));
                break;
            }
        };
        for p in &probes {
            if files == 0 && unparsed_only(req, lang, p) {
                absent.entry(p.i).or_insert_with(|| (Vec::new(), key_words(p))).0.push(lang::name(lang));
            } else {
                found.extend(say(req, lang, files, p).into_iter().map(|m| (p.i, m)));
            }
        }
    }
    // An op that no file of some languages could match (their files lack its
    // words): one note naming them all, and none when a file of another
    // language was parsed for it (its diagnosis tells the story).
    for (i, (langs, words)) in absent {
        if !found.iter().any(|(k, _)| *k == i) {
            let head = format!("ops[{i}].pat `{}`", shown(&req.ops[i].pat));
            found.push((i, none_parsed(&head, &joined(&langs, "or"), &words)));
        }
    }
    // Stable: a probe's messages keep their order.
    found.sort_by_key(|(i, _)| *i);
    let mut out: Vec<Text> = Vec::new();
    // One message per text (a note said for each language of the files once).
    for (_, m) in found {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    if (0..req.ops.len()).all(zero) {
        out.extend(forced_lang_note(facts));
    }
    out
}

/// Parses the first files of `lang` the run parsed (the caps of the module)
/// and shows each to every probe. Returns how many were looked at, or, when
/// the request's budget stopped the looking, a message that says where and why
/// (the counts so far would be short, so no probe of the language speaks).
fn look_at_files(facts: &RunFacts<'_>, lang: SupportLang, probes: &mut [Probe<'_>]) -> Result<usize, Text> {
    let (mut files, mut bytes) = (0usize, 0u64);
    for (c, seen) in facts.files.iter().zip(facts.seen) {
        if c.lang != lang || !seen.parsed {
            continue;
        }
        if files == MAX_DIAGNOSED_FILES {
            break;
        }
        // A file too large for what is left is passed over, not the end.
        if bytes.saturating_add(c.size) > MAX_DIAGNOSED_BYTES {
            continue;
        }
        let Ok(bytes_read) = crate::request::read::read_text(&c.path, facts.req.max_filesize) else { continue };
        let Ok(text) = crate::request::read::check_text(&bytes_read) else { continue };
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        // Matched under a meter of its own, as the run matched the file: a
        // file the meter stops (a cancel, the time limit) ends the diagnosis,
        // whose counts would be short.
        let spent = facts.budget.within(|| {
            let grep = crate::engine::metered::parse(body, lang);
            for p in probes.iter_mut() {
                p.look(&c.display, body, &grep);
            }
            crate::engine::budget::spent()
        });
        if let Some(why) = spent {
            let shown = crate::shared::quote::display_name(&c.display);
            return Err(Text::from(format!("the diagnosis of why nothing matched stopped at {shown}: ")).then(why.text()));
        }
        files += 1;
        bytes = bytes.saturating_add(bytes_read.len() as u64);
    }
    Ok(files)
}

/// The messages for one probe: each one line that fits an MCP text line, the
/// first naming the op and its pattern, the others the op only.
fn say(req: &crate::request::Request, lang: SupportLang, files: usize, p: &Probe<'_>) -> Vec<Text> {
    let pat = &req.ops[p.i].pat;
    let head = format!("ops[{}].pat `{}`", p.i, shown(pat));
    let tried = plural(files, &format!("{} file", lang::name(lang)));
    let mut out = Vec::new();
    let lowercase = lowercase_note(pat, lang);
    if p.calls > p.calls_matched {
        out.extend(call_messages(&head, &tried, p));
    } else if p.zero
        && p.found == 0
        && let Some((alt, _, count @ 1.., first)) = &p.token_tree
    {
        out.push(
            Text::from(format!(
                "{head} matched nothing in the {tried} it was tried on: inside a macro's token tree a metavariable such as `$A` matches one token, so it misses an argument of several (`f(x)`); with `$$$` lists there, `{}` {} (e.g. {}): pass ",
                shown(alt),
                if *count == 1 { "matches 1 place".to_string() } else { format!("matches {count} places") },
                first.as_ref().map(at).unwrap_or_default()
            ))
            .name(Name::Set(Input::Pattern, alt.clone()))
            .lit(", and the same `$$$` names in the rewrite."),
        );
    } else if p.zero && p.found == 0 && files == 0 && lowercase.is_some() {
        // No file holds `$a` as code: the lowercase name is the whole story.
        out.push(Text::from(""));
    } else if p.zero && p.found == 0 {
        out.extend(zero_messages(&head, pat, lang, files, p));
    }
    if !out.is_empty()
        && p.zero
        && let Some(note) = lowercase
    {
        out.push(Text::from(format!("ops[{}].pat: {note}", p.i)));
    }
    out.retain(|m| !m.is_empty());
    out
}

/// For a pattern with single metavariables (`$E`) in a macro's token tree
/// (Rust's `tri!($E)`), where each matches exactly one token: the pattern with
/// each of them a `$$$` list (`tri!($$$E)`). `None` when it has none.
fn token_tree_lists(pat: &str, lang: SupportLang) -> Option<String> {
    use ast_grep_core::meta_var::MetaVariable;
    let src = lang.pre_process_pattern(pat).into_owned();
    let grep = lang.ast_grep(&src);
    let mut names: Vec<String> = Vec::new();
    crate::shared::nodes::preorder(grep.root().get_inner_node(), |n| {
        let in_tree = || std::iter::successors(n.parent(), |p| p.parent()).any(|p| p.kind() == "token_tree");
        if n.child_count() == 0
            && let Some(MetaVariable::Capture(name, _)) = lang.extract_meta_var(&src[n.byte_range()])
            && !names.contains(&name)
            && in_tree()
        {
            names.push(name);
        }
    });
    if names.is_empty() {
        return None;
    }
    // `$NAME` (not `$$$NAME`, not the start of a longer name) becomes `$$$NAME`.
    let mut out = String::new();
    let mut rest = pat;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let dollars = rest[at..].bytes().take_while(|b| *b == b'$').count();
        let after = &rest[at + dollars..];
        let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if dollars == 1 && names.contains(&name) {
            out.push_str("$$$");
        } else {
            out.push_str(&rest[at..at + dollars]);
        }
        out.push_str(&name);
        rest = &after[name.len()..];
    }
    out.push_str(rest);
    Some(out)
}

/// True when all a probe of `lang` would say is that no file of `lang` holds
/// the op's words (none was parsed for it): no call it misses, no lowercase
/// metavariable, no Go conversion to explain.
fn unparsed_only(req: &crate::request::Request, lang: SupportLang, p: &Probe<'_>) -> bool {
    let pat = &req.ops[p.i].pat;
    p.zero && p.found == 0 && p.calls <= p.calls_matched && lowercase_note(pat, lang).is_none() && conversion_fix(pat, lang, p).is_none()
}

/// An op that matched nothing in the files of `langs` (`go`, or `go, rust or
/// python`) because none holds all its `words` ([`key_words`]), so none was
/// parsed for it.
fn none_parsed(head: &str, langs: &str, words: &str) -> Text {
    Text::from(format!("{head} matched nothing: no {langs} file searched holds all of its words ({words}), so none was parsed for it."))
}

/// The words every match of the probe's op must contain (the prefilter's
/// literals), at most 5, quoted: `` `print`, `log` ``.
fn key_words(p: &Probe<'_>) -> String {
    p.op.prefilters.iter().flat_map(|(f, _)| f.literals.iter()).take(5).map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ")
}

/// An op that matched nothing: how its pattern parsed and what the code holds.
fn zero_messages(head: &str, pat: &str, lang: SupportLang, files: usize, p: &Probe<'_>) -> Vec<Text> {
    let lname = lang::name(lang);
    if files == 0 {
        let mut m = none_parsed(head, lname, &key_words(p));
        if let Some(s) = conversion_fix(pat, lang, p) {
            m = m.lit(format!(" It parses as `type_conversion_expression`{}; ", GO_CONVERSION)).then(s);
        }
        return vec![m];
    }
    let kind = &p.shape.kind;
    let go = if p.shape.conversion.is_some() { GO_CONVERSION } else { "" };
    let first = format!(
        "{head} matched nothing in the {} it was tried on: it parses as `{kind}`, the kind of node it matches{go}",
        plural(files, &format!("{lname} file"))
    );
    let tail = |s: Text| s.after(format!("ops[{}].pat: ", p.i));
    if let Some((l, text)) = &p.near_example {
        let lead: String = p.shape.lead[..p.near_shared].concat();
        return vec![
            Text::from(format!(
                "{first}; {} there {} like it (`{lead}`) but {} (e.g. {}: `{text}`).",
                plural(p.near, &format!("`{kind}` node")),
                if p.near == 1 { "starts" } else { "start" },
                if p.near == 1 { "differs" } else { "differ" },
                at(l)
            )),
            tail(Text::from("compare the trees of the pattern and of that code with ").name(Name::Tree(lname.to_string())).lit(".")),
        ];
    }
    let Some((other, count, l)) = dominant(&p.kinds).filter(|(k, _, _)| k != kind) else {
        return vec![match conversion_fix(pat, lang, p) {
            Some(s) => s.after(format!("{first}; ")),
            None => Text::from(format!("{first}.")),
        }];
    };
    let seen = format!("{first}, but code there that starts like it (`{}`) is `{other}` ({}, e.g. {}).", p.shape.lead[0], plural(count, "place"), at(&l));
    let fix = match context_for(pat, &other, lang) {
        Some(ctx) => Text::from(format!("to match a `{other}`, pass "))
            .name(Name::Set(Input::Selector, other.clone()))
            .lit(" and ")
            .name(Name::Set(Input::Pattern, ctx))
            .lit(" (the pattern written where it is one)."),
        None => Text::from(format!("to match a `{other}`, write a pattern that parses as one ("))
            .name(Name::Tree(lname.to_string()))
            .lit(" shows how code parses), or pass ")
            .name(Name::Set(Input::Selector, other.clone()))
            .lit(" with code that holds one."),
    };
    vec![Text::from(seen), tail(fix)]
}

/// Why Go reads `ioutil.ReadFile($A)` as a type conversion.
const GO_CONVERSION: &str = " (in Go, `pkg.Fn(x)` alone is read as a type conversion, `pkg.Fn` taken for a type)";

/// For Go's `pkg.Fn(x)` read as a type conversion: the selector and context
/// that match the calls.
fn conversion_fix(pat: &str, lang: SupportLang, p: &Probe<'_>) -> Option<Text> {
    p.shape.conversion.as_ref()?;
    let ctx = context_for(pat, "call_expression", lang)?;
    Some(
        Text::from("to match calls, pass ")
            .name(Name::Set(Input::Selector, "call_expression".to_string()))
            .lit(" and ")
            .name(Name::Set(Input::Pattern, ctx))
            .lit("."),
    )
}

/// The kind seen most often (the first seen of equal counts).
fn dominant(kinds: &[(String, usize, Loc)]) -> Option<(String, usize, Loc)> {
    let most = kinds.iter().map(|(_, n, _)| *n).max()?;
    kinds.iter().find(|(_, n, _)| *n == most).cloned()
}

/// Fewer calls of the callee matched than the files hold.
fn call_messages(head: &str, tried: &str, p: &Probe<'_>) -> Vec<Text> {
    let callee = p.shape.callee.as_deref().unwrap_or_default();
    let mut first = Text::from(format!("{head} matched {} of the {} to `{callee}` in the {tried} it was tried on", p.calls_matched, plural(p.calls, "call")));
    if p.calls_ast > 0 {
        first = first
            .lit(format!("; {} more match with ", p.calls_ast))
            .name(Name::Set(Input::Strictness, "ast".to_string()))
            .lit(format!(
                " (e.g. {}): under `smart` each `,` of the pattern must be in the code, and next to an empty `$$$` list (the fixed argument first or last) there is none.",
                p.only_ast.as_ref().map(at).unwrap_or_default()
            ));
    } else {
        first.push_str(".");
    }
    let mut out = vec![first];
    let rest = p.calls - p.calls_matched - p.calls_ast;
    if rest > 0 {
        let all = format!("{callee}($$$ARGS)");
        out.push(
            Text::from(format!(
                "ops[{}].pat: {} {} to `{callee}` differ in their arguments (e.g. {}): a `$$$` list matches a run of arguments, and the fixed ones must be there as written; to see every call, search ",
                p.i,
                if p.calls_ast > 0 { "the other" } else { "the" },
                plural(rest, "call"),
                p.differ.as_ref().map(at).unwrap_or_default()
            ))
            .name(Name::Set(Input::Pattern, all))
            .lit("."),
        );
    }
    out
}

/// With `lang` forced, files named explicitly whose extension says another
/// language were parsed as the forced one.
fn forced_lang_note(facts: &RunFacts<'_>) -> Option<Text> {
    let forced = facts.req.lang?;
    let other: Vec<&crate::request::walk::Candidate> = facts.files.iter().filter(|c| lang::infer(&c.path).is_some_and(|l| l != forced)).collect();
    let first = other.first()?;
    let theirs = lang::name(lang::infer(&first.path)?);
    Some(
        Text::from(format!("{} searched as {} (", crate::shared::quote::display_name(&first.display), lang::name(forced)))
            .name(Name::Set(Input::Lang, lang::name(forced).to_string()))
            .lit(format!(
                "), although {} says {theirs}: set ",
                if other.len() == 1 { "its extension".to_string() } else { format!("its extension (and that of {} more)", other.len() - 1) }
            ))
            .name(Name::Set(Input::Lang, theirs.to_string()))
            .lit(format!(" if the files are {theirs}.")),
    )
}
