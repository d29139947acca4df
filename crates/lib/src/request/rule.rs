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

/// A config typed as ast-grep-config reads it, written as sorted JSON.
#[derive(Clone)]
pub struct Typed<T>(T);

/// One rule config.
pub type Rule = Typed<SerializableRuleConfig<SupportLang>>;

/// One global utility rule (an sgconfig project's `utilDirs`).
pub type Util = Typed<SerializableGlobalRule<SupportLang>>;

impl<T: Serialize + DeserializeOwned> Typed<T> {
    /// Wraps a typed config.
    pub fn new(config: T) -> Self {
        Typed(config)
    }

    /// Reads a config from its JSON; the error is serde's.
    pub fn from_json(v: Value) -> Result<Self, String> {
        serde_json::from_value(v).map(Typed).map_err(|e| e.to_string())
    }

    /// The config.
    pub fn config(&self) -> &T {
        &self.0
    }

    /// The config as JSON: `language` by its canonical name, every object's keys
    /// sorted.
    pub fn json(&self) -> Value {
        let mut v = serde_json::to_value(&self.0).expect("a rule config serializes");
        let canonical = v.get("language").and_then(Value::as_str).and_then(|s| lang::parse_lang(s).ok());
        if let Some(l) = canonical {
            v["language"] = Value::String(lang::name(l).into());
        }
        sorted(v)
    }
}

impl Rule {
    /// Its id (empty when it has none).
    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// Its language.
    pub fn language(&self) -> SupportLang {
        self.0.language
    }

    /// Its severity.
    pub fn severity(&self) -> &ast_grep_config::Severity {
        &self.0.severity
    }

    /// The same rule with another severity (a command line's override).
    pub fn with_severity(mut self, severity: ast_grep_config::Severity) -> Self {
        self.0.severity = severity;
        self
    }

    /// The same rule without its `fix` (a search matches, it does not rewrite).
    pub(crate) fn without_fix(mut self) -> Self {
        self.0.fix = None;
        self
    }

    /// Compiles the rule with the global utilities `globals`; the error is the
    /// whole cause chain.
    pub fn build(&self, globals: &GlobalRules) -> Result<RuleConfig<SupportLang>, String> {
        RuleConfig::try_from(self.0.clone(), globals).map_err(|e| error_chain(&e))
    }
}

impl Util {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.0.id
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
