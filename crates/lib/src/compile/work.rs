//! The work a rule's `transform` and `rewriters` can do, bounded before a
//! file is matched (docs/DESIGN.md section 2.5.7). ast-grep-config runs them
//! inside its matcher, at every match (a search too, where no fix is written),
//! and gives control back only between nodes: a transform chain that grows its
//! text, or a rewriter that applies itself to its own matches, cannot be stopped
//! once it has started. So both are bounded from the rule and the file, before
//! the file is matched:
//! - **text**: each transform's output is bounded by a linear form `a·n + b` of
//!   the length `n` of the node the rule matched (`replace` by `by` of length R
//!   with a regex of shortest match m: `(1 + g + R/m)` times its source, g the
//!   `$` group references of `by`; `convert` 4 times; `rewrite` its source plus
//!   each rewriter's fix, of disjoint nodes; `substring` its source). A rewriter
//!   that reaches itself is unrolled as many times as its nodes nest in the
//!   file. Summed over the matches (which nest as the rule's kinds nest), the
//!   bound must fit the per-file replacement budget;
//! - **time and stack**: a rewriter that reaches itself (directly or through
//!   others) tries every node under each match and recurses at each nested
//!   match, so its work doubles (or more) with each level its kinds nest:
//!   `Σ over nodes of base^(levels above it)`, `base` 1 plus the recursive
//!   `rewrite` steps per match, must stay under [`MAX_REWRITE_STEPS`], which
//!   also keeps the recursion, one stack frame chain per level, shallow.
//!
//! A file over either bound is skipped with the reason; other rules' files are
//! not touched. Approximations, all on the safe side but one: a rewriter's
//! fix that pastes a metavariable of the enclosing rule counts it as long as
//! the file (or the enclosing rule's largest transform), and a rewriter whose
//! rule can capture outside its node (`inside`, `follows`, `precedes`) counts
//! its captures so too.

use std::collections::HashMap;

use ast_grep_config::{DeserializeEnv, GlobalRules, SerializableRuleCore, Transformation};
use ast_grep_core::matcher::Matcher;
use ast_grep_language::SupportLang;
use serde_json::Value;

/// Most node visits the rewriters that reach themselves may make in one file
/// (estimated before matching, docs/DESIGN.md section 7): about 0.7 s of work
/// on the machine of benches/RESULTS.md. Past it the file is skipped.
pub const MAX_REWRITE_STEPS: f64 = (1u64 << 25) as f64;

/// The most transform text the matches of one rule may keep for a file of
/// `len` bytes, by the bound of this module: 16 times its size plus 256 MiB
/// (docs/DESIGN.md section 7).
pub fn transform_budget(len: usize) -> usize {
    len.saturating_mul(16).saturating_add(256 << 20)
}

/// How many times `convert` can make its text longer, in bytes (a separator
/// before each character, and a case mapping that lengthens it).
const CONVERT_GROWTH: f64 = 4.0;

/// A bound `a·n + b` on a text's length, `n` the length of the matched node.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Lin {
    a: f64,
    b: f64,
}

impl Lin {
    const NODE: Lin = Lin { a: 1.0, b: 0.0 };

    fn plus(self, o: Lin) -> Lin {
        Lin { a: self.a + o.a, b: self.b + o.b }
    }

    fn max(self, o: Lin) -> Lin {
        Lin { a: self.a.max(o.a), b: self.b.max(o.b) }
    }

    fn at(self, n: f64) -> f64 {
        self.a * n + self.b
    }
}

/// One transform step, on its source's length.
#[derive(Clone, Debug)]
enum Step {
    /// `substring`: at most its source.
    Keep,
    /// `convert`: a multiple of its source.
    Times(f64),
    /// `replace`: `mul` times its source plus `add`.
    Replace { mul: f64, add: f64 },
    /// `rewrite` with these rewriters (indices into [`Model::rewriters`]),
    /// joined by a text of this length.
    Rewrite { rewriters: Vec<usize>, join: f64 },
}

/// A rule (the top one, or a rewriter): its transforms in order, its fix
/// template's length and the names it pastes, and the names its own rule binds.
#[derive(Clone, Debug, Default)]
struct Scope {
    vars: Vec<(String, String, Step)>,
    template: Option<(f64, Vec<String>)>,
    own: Vec<String>,
    /// Its rule can capture outside its node.
    reaches_out: bool,
}

/// What bounds a rule's transforms and rewriters; built by [`Model::of`].
#[derive(Clone, Debug)]
pub struct Model {
    top: Scope,
    rewriters: Vec<Scope>,
    /// The kinds the rewriters that reach themselves match (`None`: any kind),
    /// and 1 plus their most recursive `rewrite` steps per match.
    cycle: Option<(Option<Vec<u16>>, f64)>,
}

/// Why a file is not matched with a rule ([`Model::check`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Over {
    /// The transforms could build more text than the budget.
    Text,
    /// The self-reaching rewriters would make more node visits than
    /// [`MAX_REWRITE_STEPS`]; their kinds nest this many levels deep here.
    Steps { nesting: usize },
}

/// What one walk over a file tells [`Model::check`]: the tree's nodes, the
/// nesting of the rule's kinds and of the self-reaching rewriters' kinds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nesting {
    /// Σ over nodes of (matches of the rule around it + 1) · base^(rewriter
    /// matches around it).
    pub steps: f64,
    /// The most self-reaching rewriter kinds around one node.
    pub cycle: usize,
    /// The nodes of the rule's kinds.
    pub candidates: usize,
    /// The sum of their lengths, in bytes.
    pub covered: f64,
}

impl Model {
    /// The model of rule config `config` in `lang` (`globals` and the rule's
    /// own `utils` let its rewriters' kinds be found), or `None` when it has no
    /// transform and no rewriter.
    pub fn of(config: &Value, lang: SupportLang, globals: &GlobalRules) -> Option<Model> {
        let transform = config.get("transform").filter(|t| !t.is_null());
        let rewriters = config.get("rewriters").and_then(Value::as_array).filter(|r| !r.is_empty());
        if transform.is_none() && rewriters.is_none() {
            return None;
        }
        let meta = ast_grep_core::Language::meta_var_char(&lang);
        let list: &[Value] = rewriters.map_or(&[], |r| r.as_slice());
        let ids: HashMap<&str, usize> = list.iter().enumerate().filter_map(|(i, r)| Some((r.get("id")?.as_str()?, i))).collect();
        let scope = |c: &Value| Scope {
            vars: transforms(c.get("transform"), &ids),
            template: template(c.get("fix"), meta),
            own: names_in(c.get("rule"), meta).into_iter().chain(names_in(c.get("utils"), meta)).collect(),
            reaches_out: reaches_out(c.get("rule")) || reaches_out(c.get("utils")),
        };
        let top = scope(config);
        let scopes: Vec<Scope> = list.iter().map(scope).collect();
        let cycle = cycle(&scopes).map(|members| {
            let base = 1.0 + members.iter().map(|&m| recursive_steps(&scopes[m], &members)).max().unwrap_or(0) as f64;
            let kinds = members.iter().map(|&m| kinds_of(&list[m], config.get("utils"), lang, globals)).collect::<Option<Vec<Vec<u16>>>>();
            (kinds.map(|k| k.concat()), base)
        });
        Some(Model { top, rewriters: scopes, cycle })
    }

    /// The kinds whose nesting [`Nesting::cycle`] counts, when there is a
    /// self-reaching rewriter: `Some(None)` for any kind.
    pub fn cycle_kinds(&self) -> Option<Option<&[u16]>> {
        self.cycle.as_ref().map(|(k, _)| k.as_deref())
    }

    /// The base of [`Nesting::steps`]: 1 without a self-reaching rewriter.
    pub fn base(&self) -> f64 {
        self.cycle.as_ref().map_or(1.0, |c| c.1)
    }

    /// Whether matching a file of `len` bytes, whose tree `nesting`
    /// describes, keeps to [`transform_budget`] and [`MAX_REWRITE_STEPS`].
    pub fn check(&self, len: usize, nesting: &Nesting) -> Result<(), Over> {
        let budget = transform_budget(len);
        if self.cycle.is_some() && (nesting.steps.is_nan() || nesting.steps > MAX_REWRITE_STEPS) {
            return Err(Over::Steps { nesting: nesting.cycle });
        }
        let n = len as f64;
        let levels = if self.cycle.is_some() { nesting.cycle + 1 } else { self.rewriters.len() + 1 };
        // Each rewriter's fix, unrolled level by level: none matches below the
        // deepest level, where a rewrite keeps its source.
        let mut fixes = vec![Lin::default(); self.rewriters.len()];
        for _ in 0..levels {
            let enclosing = self.top.text(&fixes, n, |_| Lin::NODE).widest.max(n);
            fixes = self.rewriters.iter().map(|s| s.text(&fixes, n, |_| Lin { a: 0.0, b: enclosing }).fix).collect();
        }
        let top = self.top.text(&fixes, n, |_| Lin::NODE);
        let total = top.vars.plus(top.fix);
        // Every match keeps its transforms' texts (a search too): the bound
        // at each node of the rule's kinds, whose lengths the walk summed. A
        // rule that captures outside its node may paste the whole file at each.
        let candidates = nesting.candidates as f64;
        let bytes = if self.top.reaches_out { total.at(n) * candidates } else { total.a * nesting.covered + total.b * candidates };
        if bytes.is_finite() && bytes <= budget as f64 { Ok(()) } else { Err(Over::Text) }
    }
}

impl Scope {
    /// The bounds of this scope's texts per match, given its rewriters'
    /// `fixes`; `outer` bounds a name neither its rule nor its transforms
    /// define.
    fn text(&self, fixes: &[Lin], n: f64, outer: impl Fn(&str) -> Lin) -> Texts {
        let mut known: HashMap<&str, Lin> = HashMap::new();
        let name = |known: &HashMap<&str, Lin>, v: &str| -> Lin {
            match known.get(v) {
                Some(l) => *l,
                None if self.own.iter().any(|o| o == v) && !self.reaches_out => Lin::NODE,
                None if self.own.iter().any(|o| o == v) => Lin { a: 0.0, b: n },
                None => outer(v),
            }
        };
        // Transforms are acyclic (ast-grep-config refuses a cycle): as many
        // passes as there are transforms settle every one.
        for _ in 0..self.vars.len() {
            for (var, src, step) in &self.vars {
                let s = name(&known, src);
                let out = match step {
                    Step::Keep => s,
                    Step::Times(k) => Lin { a: s.a * k, b: s.b * k },
                    Step::Replace { mul, add } => Lin { a: s.a * mul, b: s.b * mul + add },
                    Step::Rewrite { rewriters, join } => {
                        let f = rewriters.iter().filter_map(|&r| fixes.get(r)).fold(Lin::default(), |m, f| m.max(*f));
                        let k = 1.0 + f.a + f.b + join;
                        Lin { a: s.a * k, b: s.b * k + f.b + join }
                    }
                };
                known.insert(var.as_str(), out);
            }
        }
        let vars = known.values().fold(Lin::default(), |t, l| t.plus(*l));
        let fix = match &self.template {
            Some((len, pasted)) => pasted.iter().fold(Lin { a: 0.0, b: *len }, |t, v| t.plus(name(&known, v))),
            None => Lin::default(),
        };
        let widest = known.values().map(|l| l.at(n)).fold(0.0, f64::max);
        Texts { vars, fix, widest }
    }
}

/// What [`Scope::text`] bounds: all its transforms' outputs together, its fix
/// template's output, and its longest transform output at the file's length.
struct Texts {
    vars: Lin,
    fix: Lin,
    widest: f64,
}

/// The transforms of a `transform` map, in the map's order (the bound settles
/// them whatever the order), each as (name, source name, step).
fn transforms(map: Option<&Value>, ids: &HashMap<&str, usize>) -> Vec<(String, String, Step)> {
    let Some(map) = map.and_then(Value::as_object) else { return Vec::new() };
    map.iter()
        .filter_map(|(name, t)| {
            let t: Transformation = serde_json::from_value(t.clone()).ok()?;
            // The string form (`replace($A, replace=..., by=...)`) as the object.
            let t = match t {
                Transformation::Simplied(s) => Transformation::Object(s.parse().ok()?),
                object => object,
            };
            let json = serde_json::to_value(&t).ok()?;
            let (kind, body) = json.as_object()?.iter().next()?;
            let source = body.get("source")?.as_str()?.trim_start_matches('$').to_string();
            let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
            let step = match kind.as_str() {
                "substring" => Step::Keep,
                "convert" => Step::Times(CONVERT_GROWTH),
                "replace" => {
                    let by = text("by").len() as f64;
                    let groups = text("by").matches('$').count() as f64;
                    let shortest = regex_syntax::parse(text("replace")).ok().and_then(|h| h.properties().minimum_len()).unwrap_or(0);
                    // At most one match per `shortest` bytes, or per position.
                    let per_byte = by / shortest.max(1) as f64;
                    Step::Replace { mul: 1.0 + groups + per_byte, add: if shortest == 0 { by } else { 0.0 } }
                }
                "rewrite" => {
                    let rewriters = body.get("rewriters").and_then(Value::as_array).map(|r| r.iter().filter_map(|id| ids.get(id.as_str()?).copied()).collect()).unwrap_or_default();
                    Step::Rewrite { rewriters, join: text("joinBy").len() as f64 }
                }
                _ => return None,
            };
            Some((name.clone(), source, step))
        })
        .collect()
}

/// The fix template (the first of a list, as ast-grep's fixer uses it): its
/// length and the metavariable names it pastes, one per occurrence.
fn template(fix: Option<&Value>, meta: char) -> Option<(f64, Vec<String>)> {
    let t = match fix? {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("template")?.as_str()?,
        Value::Array(a) => a.first()?.get("template")?.as_str()?,
        _ => return None,
    };
    Some((t.len() as f64, names(t, meta)))
}

/// The metavariable names in `text` (`$A`, `$$$ARGS`), one per occurrence.
fn names(text: &str, meta: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(meta) {
        let after = rest[i..].trim_start_matches(meta);
        let name: String = after.chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_').collect();
        if !name.is_empty() && name != "_" {
            out.push(name.clone());
        }
        rest = &after[name.len()..];
    }
    out
}

/// Every metavariable name in the strings under `v`.
fn names_in(v: Option<&Value>, meta: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<&Value> = v.into_iter().collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.extend(names(s, meta)),
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    out
}

/// Whether a rule under `v` can capture outside the node it matches.
fn reaches_out(v: Option<&Value>) -> bool {
    let mut stack: Vec<&Value> = v.into_iter().collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => {
                if ["inside", "follows", "precedes"].iter().any(|k| o.contains_key(*k)) {
                    return true;
                }
                stack.extend(o.values());
            }
            _ => {}
        }
    }
    false
}

/// The rewriters that lie on a cycle of `rewrite` steps (one reaching itself,
/// directly or through others), or `None` when none does.
fn cycle(scopes: &[Scope]) -> Option<Vec<usize>> {
    let next = |s: &Scope| -> Vec<usize> {
        s.vars.iter().flat_map(|(_, _, step)| match step {
            Step::Rewrite { rewriters, .. } => rewriters.clone(),
            _ => Vec::new(),
        }).collect()
    };
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; scopes.len()];
        let mut stack = next(&scopes[from]);
        while let Some(r) = stack.pop() {
            if r == to {
                return true;
            }
            if !std::mem::replace(&mut seen[r], true) {
                stack.extend(next(&scopes[r]));
            }
        }
        false
    };
    let members: Vec<usize> = (0..scopes.len()).filter(|&r| reaches(r, r)).collect();
    (!members.is_empty()).then_some(members)
}

/// How many of scope `s`'s `rewrite` steps call a rewriter of `members`.
fn recursive_steps(s: &Scope, members: &[usize]) -> usize {
    s.vars.iter().filter(|(_, _, step)| matches!(step, Step::Rewrite { rewriters, .. } if rewriters.iter().any(|r| members.contains(r)))).count()
}

/// The node kinds rewriter `rewriter` can match (its rule's potential kinds),
/// or `None` when that is any kind or its rule does not build here.
fn kinds_of(rewriter: &Value, utils: Option<&Value>, lang: SupportLang, globals: &GlobalRules) -> Option<Vec<u16>> {
    // Its kinds are its rule's; its transforms name rewriters this
    // environment does not hold.
    let mut core = rewriter.clone();
    let o = core.as_object_mut()?;
    o.retain(|k, v| !v.is_null() && !["id", "fix", "transform"].contains(&k.as_str()));
    let core: SerializableRuleCore = serde_json::from_value(core).ok()?;
    let env = DeserializeEnv::new(lang).with_globals(globals);
    let env = match utils.filter(|u| !u.is_null()).map(|u| serde_json::from_value(u.clone())) {
        Some(Ok(u)) => env.with_utils(&u).ok()?,
        Some(Err(_)) => return None,
        None => env,
    };
    let matcher = core.get_matcher(env).ok()?;
    Some(matcher.potential_kinds()?.iter().filter_map(|k| u16::try_from(k).ok()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(yaml: &str) -> Model {
        let v: Value = serde_saphyr::from_str(yaml).unwrap();
        Model::of(&v, SupportLang::Python, &GlobalRules::default()).expect("a model")
    }

    #[test]
    fn a_growing_replace_chain_is_over_and_a_plain_one_is_not() {
        let by = "a".repeat(60);
        let chain = format!(
            "rule: {{pattern: print($A)}}\ntransform:\n  B: {{replace: {{source: $A, replace: a, by: {by}}}}}\n  C: {{replace: {{source: $B, replace: a, by: {by}}}}}\n  D: {{replace: {{source: $C, replace: a, by: {by}}}}}\n  E: {{replace: {{source: $D, replace: a, by: {by}}}}}\n  F: {{replace: {{source: $E, replace: a, by: {by}}}}}\nfix: $F\n"
        );
        let nest = Nesting { candidates: 1, covered: 20.0, ..Nesting::default() };
        assert_eq!(model(&chain).check(20, &nest), Err(Over::Text));
        let plain = "rule: {pattern: print($A)}\ntransform:\n  B: {replace: {source: $A, replace: '-', by: '_'}}\n  C: {convert: {source: $B, toCase: camelCase}}\n  D: \"substring($C, startChar=1)\"\nfix: $D($A)\n";
        // A file of 1 MiB whose calls nest 8 deep, each byte under 3 of them.
        let mib = (1 << 20) as f64;
        assert_eq!(model(plain).check(1 << 20, &Nesting { candidates: 50_000, covered: 3.0 * mib, ..Nesting::default() }), Ok(()));
    }

    #[test]
    fn the_string_form_is_read_as_the_object() {
        let m = model("rule: {pattern: print($A)}\ntransform:\n  B: \"replace($A, replace=x, by='yyyy')\"\n");
        assert!(matches!(m.top.vars[0].2, Step::Replace { mul, .. } if mul == 5.0));
    }

    #[test]
    fn a_rewriter_that_reaches_itself_is_a_cycle_with_its_kinds() {
        let m = model(
            "rule: {pattern: f($$$X)}\nrewriters:\n- id: r\n  rule: {pattern: f($$$Z)}\n  transform:\n    W: {rewrite: {source: $$$Z, rewriters: [r]}}\n  fix: g($W)\ntransform:\n  Y: {rewrite: {source: $$$X, rewriters: [r]}}\nfix: g($Y)\n",
        );
        assert_eq!(m.base(), 2.0);
        let kinds = m.cycle_kinds().expect("a cycle").expect("known kinds");
        assert_eq!(kinds.len(), 1);
        // Pasting the recursive result once grows the text slowly: a file
        // of 100 KB whose calls nest 6 deep, each byte under 3 of them, fits.
        assert_eq!(m.check(100_000, &Nesting { steps: 1e6, cycle: 6, candidates: 5000, covered: 300_000.0 }), Ok(()));
        assert_eq!(m.check(100, &Nesting { steps: MAX_REWRITE_STEPS * 2.0, cycle: 30, candidates: 30, covered: 1500.0 }), Err(Over::Steps { nesting: 30 }));
    }

    #[test]
    fn a_rewriter_that_pastes_itself_twice_grows_with_its_nesting() {
        let m = model(
            "rule: {pattern: f($$$X)}\nrewriters:\n- id: r\n  rule: {pattern: f($$$Z)}\n  transform:\n    W: {rewrite: {source: $$$Z, rewriters: [r]}}\n  fix: g($W, $W)\ntransform:\n  Y: {rewrite: {source: $$$X, rewriters: [r]}}\nfix: g($Y)\n",
        );
        let at = |levels: usize| m.check(1000, &Nesting { steps: 1.0, cycle: levels, candidates: levels, covered: 500.0 * levels as f64 });
        assert_eq!(at(3), Ok(()));
        assert_eq!(at(40), Err(Over::Text));
    }

    #[test]
    fn rules_without_transform_or_rewriters_have_no_model() {
        let v: Value = serde_saphyr::from_str("rule: {pattern: print($A)}\nfix: log($A)\n").unwrap();
        assert!(Model::of(&v, SupportLang::Python, &GlobalRules::default()).is_none());
    }
}
