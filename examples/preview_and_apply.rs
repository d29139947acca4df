//! The main use of the library: preview a structural edit, stage it as a pending
//! action, then resolve it, as the CLI's `run` and `resolve apply` do. Run it with
//! `cargo run --example preview_and_apply -- /tmp/some-dir` (it writes a small
//! Python file there and edits it).

use ast_edit::app::request::{DEFAULT_MAX_FILESIZE, Op, RawRequest, WalkOptions};
use ast_edit::app::resolve::{RawResolve, resolve};
use ast_edit::app::{message::Plain, plan, workflow, workspace::Workspace};

fn main() -> anyhow::Result<()> {
    let dir = std::env::args().nth(1).map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let root = dir.join("preview-and-apply");
    std::fs::create_dir_all(&root)?;
    std::fs::write(root.join("app.py"), "print(fetch_data(\"a.txt\"))\n")?;

    // 1. A request (here built in code; `RawRequest::from_json` reads the JSON the
    // MCP tool `ast_edit` receives), validated against the root.
    let op = Op { pat: "fetch_data($$$A)".into(), out: "load_data($$$A)".into() };
    let raw = RawRequest { ops: vec![op], ..Default::default() };
    let req = raw.validate(&root, WalkOptions::default(), DEFAULT_MAX_FILESIZE)?;

    // 2. The dry run: plain data, nothing written.
    let plan = plan::build(&req, &root)?;

    // 3. Staged in the workspace's store (kept beside the example here, not in the
    // user's state dir); the details are what `run --json` prints, in the
    // library's own words (`Plain`; the CLI and the MCP server bring their own).
    let ws = Workspace::with_state_dir(&root, dir.join("state"));
    let store = ws.store(&mut |warning| eprintln!("warning: {warning}"))?;
    let staged = workflow::stage(&store, plan, &Plain)?;
    println!("{}", staged.details.label);
    for f in &staged.details.files {
        print!("{}", f.diff);
    }

    // 4. Resolve: re-checked against the preview, then written atomically.
    let req =
        RawResolve { action: Some("apply".into()), reason: Some("load_data replaces fetch_data".into()), id: staged.details.id.clone(), ..Default::default() }
            .check()?;
    let result = resolve(&store, &req)?;
    println!("{}", result.content);
    print!("{}", std::fs::read_to_string(root.join("app.py"))?);
    Ok(())
}
