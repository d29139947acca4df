//! How much longer one `transform` step of a rule can make its text, for
//! the text budget of `engine::budget` (docs/DESIGN.md section 2.5.7).
//! ast-grep-config runs transforms inside its matcher and builds each step's
//! text whole before it hands it back; the meter counts the text each step
//! gets and makes, and before a step starts it checks that the most the step
//! can make of its input still fits the file's budget: `replace` by `by` of
//! length R with a regex of shortest match m makes at most `(1 + g + R/m)`
//! times its source (g the `$` group references of `by`; per position when the
//! regex can match empty), `convert` 4 times, `substring` at most its source;
//! a `rewrite`'s text is its rewriters' fixes, each counted as it is built.

use serde_json::Value;

/// How many times `convert` can make its text longer, in bytes (a separator
/// before each character, and a case mapping that lengthens it).
const CONVERT_GROWTH: f64 = 4.0;

/// One transform step, on its source's length.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// `substring`: at most its source.
    Keep,
    /// `convert`: a multiple of its source.
    Times(f64),
    /// `replace`: `mul` times its source plus `add`.
    Replace { mul: f64, add: f64 },
    /// `rewrite`: its rewriters' fixes.
    Rewrite,
}

impl Step {
    /// How many times its source's length the step's text can be, past the
    /// length of its source (1 for a text no longer than its source).
    fn growth(&self) -> f64 {
        match self {
            Step::Keep | Step::Rewrite => 1.0,
            Step::Times(k) => *k,
            Step::Replace { mul, add } => mul + add,
        }
    }
}

/// The most one transform step of rule config `config` (its own transforms
/// and its rewriters') can make of its input, as a multiple of the input's
/// length, rounded up; 1 without transforms.
pub fn growth(config: &Value) -> u64 {
    let rewriters = config.get("rewriters").and_then(Value::as_array).map_or(&[][..], |r| r.as_slice());
    let most = std::iter::once(config).chain(rewriters).flat_map(|c| transforms(c.get("transform"))).map(|(_, _, step)| step.growth()).fold(1.0, f64::max);
    if most.is_finite() { most.ceil().min(u64::MAX as f64) as u64 } else { u64::MAX }
}

/// The transforms of a `transform` map, in the map's order, each as (name,
/// source name, step).
fn transforms(map: Option<&Value>) -> Vec<(String, String, Step)> {
    let Some(map) = map.and_then(Value::as_object) else { return Vec::new() };
    map.iter()
        .filter_map(|(name, t)| {
            let t: ast_grep_config::Transformation = serde_json::from_value(t.clone()).ok()?;
            // The string form (`replace($A, replace=..., by=...)`) as the object.
            let t = match t {
                ast_grep_config::Transformation::Simplied(s) => ast_grep_config::Transformation::Object(s.parse().ok()?),
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
                "rewrite" => Step::Rewrite,
                _ => return None,
            };
            Some((name.clone(), source, step))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(yaml: &str) -> u64 {
        growth(&serde_saphyr::from_str::<Value>(yaml).unwrap())
    }

    #[test]
    fn each_step_is_bounded_by_its_kind_and_the_most_of_a_rule_is_its_growth() {
        assert_eq!(of("rule: {pattern: print($A)}\nfix: log($A)\n"), 1);
        assert_eq!(of("rule: {pattern: print($A)}\ntransform:\n  B: {convert: {source: $A, toCase: upperCase}}\n  C: \"substring($B, startChar=1)\"\n"), 4);
        // `yyyy` for each `x`: 1 + 4 times; the string form is the object.
        assert_eq!(of("rule: {pattern: print($A)}\ntransform:\n  B: \"replace($A, replace=x, by='yyyy')\"\n"), 5);
        // A regex that matches empty inserts `by` at every position.
        assert_eq!(of("rule: {pattern: print($A)}\ntransform:\n  B: {replace: {source: $A, replace: 'a*', by: zzz}}\n"), 7);
        // A rewriter's transforms count too.
        assert_eq!(
            of(
                "rule: {pattern: f($$$X)}\nrewriters:\n- id: r\n  rule: {pattern: g($Z)}\n  transform:\n    W: {convert: {source: $Z, toCase: snakeCase}}\n  fix: $W\ntransform:\n  Y: {rewrite: {source: $$$X, rewriters: [r]}}\nfix: $Y\n"
            ),
            4
        );
    }
}
