//! A custom pending action from the library: a tool stages "write a CHANGELOG
//! entry", an agent or a person resolves it with a reason. Run it with
//! `cargo run --example custom_action -- /tmp/some-dir`.

use ast_edit::app::custom::{Handlers, Outcome, PendingHandler};
use ast_edit::app::pending::Store;
use ast_edit::app::resolve::{Action, ResolveRequest, resolve_with};
use serde_json::{Value, json};

struct ChangelogEntry {
    path: std::path::PathBuf,
    line: String,
}

impl PendingHandler for ChangelogEntry {
    fn label(&self) -> String {
        format!("Add to CHANGELOG: {}", self.line)
    }
    fn source_tool_name(&self) -> String {
        "changelog_tool".into()
    }
    fn apply(&mut self, reason: &str, _extra: Option<&Value>) -> Result<Outcome, String> {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| format!("cannot open {}: {e}", self.path.display()))?;
        writeln!(f, "- {}", self.line).map_err(|e| e.to_string())?;
        Ok(Outcome { text: format!("Added the entry ({reason})"), details: Some(json!({"path": self.path})) })
    }
}

fn main() -> anyhow::Result<()> {
    let dir = std::env::args().nth(1).map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let store = Store::open(dir.join("state"))?;
    let mut handlers = Handlers::default();
    let id = handlers.push(&store, Box::new(ChangelogEntry { path: dir.join("CHANGELOG.md"), line: "Use assertEqual".into() }))?;
    println!("staged {id}");
    let req = ResolveRequest::new(Action::Apply, Some("release notes".into()), None, None)?;
    let result = resolve_with(&store, &req, &mut handlers)?;
    println!("{}", serde_json::to_string_pretty(&result.worded(&ast_edit::app::message::Plain))?);
    Ok(())
}
