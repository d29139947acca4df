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
