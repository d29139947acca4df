//! Rule configs typed as ast-grep-config reads them, from the moment they are
//! parsed (a request's `rule`, a rule file, a project) to the store: a [`Rule`]
//! holds a `SerializableRuleConfig`, a [`Util`] a `SerializableGlobalRule`.
//!
//! Both are stored as JSON with `language` by its canonical name
//! (`lang::name`) and every object's keys sorted: the configs hold hash maps
//! (`constraints`, `utils`, `transform`, `labels`, `metadata`), whose order
//! changes from one process to the next, and the stored rules are what
//! `rulesDigest` hashes, which must not.

use ast_grep_config::{GlobalRules, RuleConfig, SerializableGlobalRule, SerializableRuleConfig};
use ast_grep_language::SupportLang;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::request::lang;
use crate::shared::error::error_chain;

/// A config typed as ast-grep-config reads it, written as sorted JSON: what
/// [`Rule`] and [`Util`] hold.
#[derive(Clone)]
pub(crate) struct Typed<T>(T);

impl<T: Serialize + DeserializeOwned> Typed<T> {
    /// Reads a config from its JSON; the error is serde's.
    fn from_json(v: Value) -> Result<Self, String> {
        serde_json::from_value(v).map(Typed).map_err(|e| e.to_string())
    }

    /// The config as JSON: `language` by its canonical name, every object's keys
    /// sorted.
    fn json(&self) -> Value {
        let mut v = serde_json::to_value(&self.0).expect("a rule config serializes");
        let canonical = v.get("language").and_then(Value::as_str).and_then(|s| lang::parse_lang(s).ok());
        if let Some(l) = canonical {
            v["language"] = Value::String(lang::name(l).into());
        }
        sorted(v)
    }
}

/// One rule config, as ast-grep-config reads it (its `SerializableRuleConfig`,
/// which stays inside the crate), stored as sorted JSON.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rule(Typed<SerializableRuleConfig<SupportLang>>);

/// One global utility rule (an sgconfig project's `utilDirs`), as
/// ast-grep-config reads it (its `SerializableGlobalRule`), stored as sorted
/// JSON.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Util(Typed<SerializableGlobalRule<SupportLang>>);

impl Rule {
    /// Wraps a typed config.
    pub(crate) fn new(config: SerializableRuleConfig<SupportLang>) -> Self {
        Rule(Typed(config))
    }

    /// Reads a rule config from its JSON; the error is serde's.
    pub fn from_json(v: Value) -> Result<Self, String> {
        Typed::from_json(v).map(Rule)
    }

    /// The config as JSON: `language` by its canonical name, every object's keys
    /// sorted.
    pub fn json(&self) -> Value {
        self.0.json()
    }

    /// The config.
    pub(crate) fn config(&self) -> &SerializableRuleConfig<SupportLang> {
        &self.0.0
    }

    /// Its id (empty when it has none).
    pub fn id(&self) -> &str {
        &self.0.0.id
    }

    /// Its language.
    pub(crate) fn language(&self) -> SupportLang {
        self.0.0.language
    }

    /// Its severity.
    pub(crate) fn severity(&self) -> &ast_grep_config::Severity {
        &self.0.0.severity
    }

    /// The same rule with another severity (a command line's override).
    pub(crate) fn with_severity(mut self, severity: ast_grep_config::Severity) -> Self {
        self.0.0.severity = severity;
        self
    }

    /// The same rule without its `fix` (a search matches, it does not rewrite).
    pub(crate) fn without_fix(mut self) -> Self {
        self.0.0.fix = None;
        self
    }

    /// Compiles the rule with the global utilities `globals`; the error is the
    /// whole cause chain.
    pub(crate) fn build(&self, globals: &GlobalRules) -> Result<RuleConfig<SupportLang>, String> {
        RuleConfig::try_from(self.0.0.clone(), globals).map_err(|e| error_chain(&e))
    }

    /// Compiles the rule as [`Rule::build`] does, to check it, and keeps what
    /// it built for [`Rule::build_or_take`] of the same rule with the same
    /// utilities (`utils`: [`utils_key`] of those `globals` were made from).
    pub(crate) fn build_and_keep(&self, globals: &GlobalRules, utils: &str) -> Result<(), String> {
        let built = self.build(globals)?;
        // The key is serialized before the lock: the rules build on every worker.
        let key = self.kept_key(utils);
        let mut kept = KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if kept.count < MAX_KEPT {
            kept.count += 1;
            kept.built.entry(key).or_default().push(built);
        }
        Ok(())
    }

    /// What [`Rule::build`] gives: a build kept by [`Rule::build_and_keep`] of
    /// this same rule (its JSON) with the same utilities, taken, else a new one.
    pub(crate) fn build_or_take(&self, globals: &GlobalRules, utils: &str) -> Result<RuleConfig<SupportLang>, String> {
        let key = self.kept_key(utils);
        let taken = {
            let mut kept = KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let one = kept.built.get_mut(&key).and_then(Vec::pop);
            if one.is_some() {
                kept.count -= 1;
            }
            one
        };
        taken.map_or_else(|| self.build(globals), Ok)
    }

    fn kept_key(&self, utils: &str) -> String {
        format!("{}\n{utils}", self.json())
    }
}

/// Rules a project's loader built to check them, kept for the engine, which
/// builds the same rules again right after (building is most of a scan's start
/// on a small project: patterns parsed, regexes compiled). A rule is found by
/// its JSON and its utilities' (the build depends on nothing else), so a rule
/// changed in between (a severity flag) is built anew. At most [`MAX_KEPT`]
/// wait; [`forget_kept`] drops what the engine did not take.
struct Kept {
    built: std::collections::HashMap<String, Vec<RuleConfig<SupportLang>>>,
    count: usize,
}

static KEPT: std::sync::LazyLock<std::sync::Mutex<Kept>> =
    std::sync::LazyLock::new(|| std::sync::Mutex::new(Kept { built: std::collections::HashMap::new(), count: 0 }));

/// The most built rules kept at once; past it a rule is built twice.
const MAX_KEPT: usize = 2048;

/// Drops every kept build (the engine calls it once it has compiled its rules).
pub(crate) fn forget_kept() {
    let mut kept = KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    kept.built.clear();
    kept.count = 0;
}

/// What identifies a list of utilities for [`Rule::build_and_keep`]: their
/// JSON, in order.
pub(crate) fn utils_key(utils: &[Util]) -> String {
    utils.iter().map(|u| u.json().to_string()).collect::<Vec<_>>().join("\n")
}

impl Util {
    /// Wraps a typed utility.
    pub(crate) fn new(config: SerializableGlobalRule<SupportLang>) -> Self {
        Util(Typed(config))
    }

    /// Reads a utility rule from its JSON; the error is serde's.
    pub fn from_json(v: Value) -> Result<Self, String> {
        Typed::from_json(v).map(Util)
    }

    /// The utility as JSON: `language` by its canonical name, every object's
    /// keys sorted.
    pub fn json(&self) -> Value {
        self.0.json()
    }

    /// The utility.
    pub(crate) fn config(&self) -> &SerializableGlobalRule<SupportLang> {
        &self.0.0
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.0.0.id
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for Util {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

/// `v` with the keys of every object in it sorted.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, x)| (k, sorted(x))).collect::<Map<String, Value>>())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

impl<T: Serialize + DeserializeOwned> Serialize for Typed<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(s)
    }
}

impl<'de, T: Serialize + DeserializeOwned> Deserialize<'de> for Typed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Typed::from_json(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl<T: Serialize + DeserializeOwned> std::fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.json())
    }
}

impl<T: Serialize + DeserializeOwned> PartialEq for Typed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

impl<T: Serialize + DeserializeOwned> Eq for Typed<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A kept build is found only by the very rule (its JSON, a severity
    /// included) and the very utilities it was built with; taking it leaves
    /// none for the next build. Other tests build rules at once (and the
    /// engine drops what it did not take), so the rule here is this test's own.
    #[test]
    fn a_kept_build_serves_only_the_same_rule_with_the_same_utilities() {
        let rule = |sev: &str| {
            Rule::from_json(json!({"id": "kept-only-here", "language": "python", "severity": sev, "rule": {"pattern": "kept_only_here($A)"}})).unwrap()
        };
        let util = Util::from_json(json!({"id": "u", "language": "python", "rule": {"pattern": "u"}})).unwrap();
        let (none, one) = (utils_key(&[]), utils_key(std::slice::from_ref(&util)));
        assert_ne!(none, one);
        assert_ne!(rule("hint").kept_key(&none), rule("error").kept_key(&none));
        assert_ne!(rule("hint").kept_key(&none), rule("hint").kept_key(&one));
        assert_eq!(rule("hint").kept_key(&none), rule("hint").kept_key(&none));
        let take = |r: &Rule, key: &str| {
            let mut kept = KEPT.lock().unwrap();
            kept.built.get_mut(&r.kept_key(key)).and_then(Vec::pop).is_some()
        };
        rule("hint").build_and_keep(&GlobalRules::default(), &none).unwrap();
        assert!(!take(&rule("error"), &none) && !take(&rule("hint"), &one));
        assert!(rule("hint").build_or_take(&GlobalRules::default(), &none).is_ok());
        assert!(!take(&rule("hint"), &none), "taken once");
        // A rule that does not build is an error, and nothing is kept.
        let bad = Rule::from_json(json!({"id": "kept-bad", "language": "python", "rule": {"pattern": "f($A)"}, "fix": "g($B)"})).unwrap();
        assert!(bad.build_and_keep(&GlobalRules::default(), &none).unwrap_err().contains("Undefined meta var `B`"));
        assert!(!take(&bad, &none));
    }

    /// The same rule with its maps in any order serializes to the same bytes,
    /// with its language by the canonical name.
    #[test]
    fn a_rule_is_stored_with_sorted_keys_whatever_its_maps_order() {
        let constraints: serde_json::Map<String, Value> = (0..20).map(|i| (format!("V{i}"), json!({"regex": format!("^{i}$")}))).collect();
        let rule = json!({"id": "x", "language": "py", "rule": {"pattern": "f($V0)"}, "constraints": constraints, "fix": "g($V0)"});
        let texts: std::collections::BTreeSet<String> = (0..8).map(|_| serde_json::to_string(&Rule::from_json(rule.clone()).unwrap()).unwrap()).collect();
        assert_eq!(texts.len(), 1, "{texts:?}");
        let text = texts.into_iter().next().unwrap();
        assert!(text.contains(r#""constraints":{"V0":{"regex":"^0$"},"V1":{"regex":"^1$"},"V10":"#), "{text}");
        assert!(text.contains(r#""language":"python""#), "{text}");
        let back: Rule = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        assert_eq!((back.id(), back.language()), ("x", SupportLang::Python));
    }

    #[test]
    fn a_config_ast_grep_refuses_is_refused_when_read() {
        let e = Rule::from_json(json!({"id": "x", "language": "python", "rule": {"pattern": "f()"}, "fixx": "g()"})).err().unwrap();
        assert!(e.contains("fixx"), "{e}");
    }
}
