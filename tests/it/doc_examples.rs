//! The docs cannot drift: every ```console block of README.md, docs/REFERENCE.md,
//! docs/MCP.md and docs/RULES.md is run against the built binary and its output,
//! stderr included, compared with what the doc shows; docs/MCP.md's tables of
//! tools and fields are made from the server's `tools/list`; and the tour of
//! `ast-edit --help` is run on a copy of `fixtures/`.
//!
//! A console block, as this test reads it:
//!
//! - A line starting with `$ ` is a command (a line ending in `\` continues it);
//!   the lines after it, up to the next `$ ` line or the end of the block, are
//!   what it prints: stdout and stderr merged in the order written (each command
//!   runs as `{ CMD; } </dev/null 2>&1`, stdin empty).
//! - Blank lines that end a command's output are separators, not output: they
//!   are not compared (nor are the blank lines that end the real output), and a
//!   rewrite keeps them where the doc had them. A blank line inside an output is
//!   compared.
//! - Each block runs in a sandbox of its own (tests/it/common/shell.rs): a fresh
//!   temporary folder that stands for `/`, with `HOME=/home/me`, `TMPDIR=/tmp`,
//!   `XDG_STATE_HOME` and `AST_EDIT_STATE_DIR` inside it, `NO_COLOR=1`, the
//!   binary's folder first on `PATH`, and nothing else of the caller's
//!   environment (no `AST_GREP`: no example may need ast-grep). A path `/tmp` in
//!   a command means the sandbox's `tmp`, so a doc writes what a user pastes
//!   (`cp -r fixtures /tmp/tour && cd /tmp/tour`). The commands of a block run in
//!   one `bash`, in order, so a `cd` carries over.
//! - The block starts in `/home/me/app`, holding the files of the blocks marked
//!   `<!-- file: PATH -->` (the line just before their fence) since the previous
//!   console block; `<!-- file: A, B -->` splits its block at `---` lines into
//!   the files A and B. A block with no such file of its own goes on in the
//!   project the doc showed last: the files of the last block that had some.
//!   Before the doc's first such file, a block starts in `/home/me/ast-edit`
//!   holding a copy of the repository's `fixtures/`, as at the root of a checkout.
//! - `<!-- not executed: REASON -->` just before a console fence leaves the block
//!   out; every such block must be listed in [`NOT_EXECUTED`] with why.
//!
//! Before comparing, the doc's text and the real output are both normalised:
//! the sandbox's root is removed from paths (`/tmp/tour`, `/home/me/app` read as
//! a user's would), RFC 3339 times become `[TIME]`, durations (`0.27s`) become
//! `[DURATION]`, pending-action ids (`ae-` and 6 hex digits) become `[ID1]`,
//! `[ID2]`, ... in the order first seen and MCP sessions (`mcp-` and 6 hex)
//! `[SESSION1]`, ...: an id a later command or output uses must be the one the
//! real run gave at that place. A command that names an id runs with the real id
//! of the same number.
//!
//! `UPDATE_DOCS=1 cargo test --locked --features fault-injection --test it doc_examples`
//! rewrites, in one run, each command's output that differs with the real output
//! (the sandbox's root removed, ids renamed to the doc's where the doc has one of
//! that number) and every generated table.

use std::path::{Path, PathBuf};

use crate::common::markdown::{self, Command, commands, fences, render};
use crate::common::shell::{Sandbox, Shell};
use crate::common::tool_tables;
use regex::Regex;

/// The console blocks that are not run: (doc, first command, why). Each has the
/// marker `<!-- not executed: ... -->` before its fence.
const NOT_EXECUTED: &[(&str, &str, &str)] = &[];

const REGENERATE: &str = "UPDATE_DOCS=1 cargo test --locked --features fault-injection --test it doc_examples";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_DOCS").is_some()
}

/// Ids, sessions, times, durations and the sandbox's root made comparable.
struct Normaliser {
    root: Option<String>,
    ids: Vec<String>,
    sessions: Vec<String>,
}

struct Patterns {
    id: Regex,
    session: Regex,
    time: Regex,
    duration: Regex,
}

fn patterns() -> &'static Patterns {
    static P: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
    P.get_or_init(|| Patterns {
        id: Regex::new(r"\bae-(?:[0-9a-f]{6}|mem[0-9]+)\b").unwrap(),
        session: Regex::new(r"\bmcp-[0-9a-f]{6}\b").unwrap(),
        time: Regex::new(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)").unwrap(),
        duration: Regex::new(r"\b\d+(?:\.\d+)?(?:ms|µs|s)\b").unwrap(),
    })
}

/// `s` with each match of `re` replaced by `[TAGn]`, n its place in `seen`.
fn number(re: &Regex, s: &str, seen: &mut Vec<String>, tag: &str) -> String {
    re.replace_all(s, |c: &regex::Captures<'_>| {
        let found = c[0].to_string();
        let n = seen.iter().position(|x| *x == found).unwrap_or_else(|| {
            seen.push(found);
            seen.len() - 1
        });
        format!("[{tag}{}]", n + 1)
    })
    .into_owned()
}

impl Normaliser {
    fn new(root: Option<&Path>) -> Self {
        Normaliser { root: root.map(|r| r.display().to_string()), ids: Vec::new(), sessions: Vec::new() }
    }

    /// `s` with the sandbox's root removed (the real run's only).
    fn unroot(&self, s: &str) -> String {
        self.root.as_ref().map_or_else(|| s.to_string(), |r| s.replace(r.as_str(), ""))
    }

    fn apply(&mut self, s: &str) -> String {
        let p = patterns();
        let s = self.unroot(s);
        let s = p.time.replace_all(&s, "[TIME]");
        let s = p.duration.replace_all(&s, "[DURATION]");
        let s = number(&p.id, &s, &mut self.ids, "ID");
        number(&p.session, &s, &mut self.sessions, "SESSION")
    }

    /// `s` with each id and session of `self` renamed to `to`'s of the same number.
    fn rename(&self, s: &str, to: &Normaliser) -> String {
        let mut s = s.to_string();
        for (mine, theirs) in [(&self.ids, &to.ids), (&self.sessions, &to.sessions)] {
            let swaps: Vec<(String, String)> = mine.iter().zip(theirs.iter()).map(|(a, b)| (a.clone(), b.clone())).collect();
            // Through placeholders, so that swapping two ids cannot chain.
            for (k, (a, _)) in swaps.iter().enumerate() {
                s = s.replace(a.as_str(), &format!("\u{0}{k}\u{0}"));
            }
            for (k, (_, b)) in swaps.iter().enumerate() {
                s = s.replace(&format!("\u{0}{k}\u{0}"), b);
            }
        }
        s
    }
}

/// The files a console block starts with: those of the `<!-- file: ... -->`
/// blocks in `fences` (the fences since the previous console block).
fn marked_files(lines: &[&str], fences: &[markdown::Fence]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for f in fences {
        let Some(paths) = f.marker.as_deref().and_then(|m| m.strip_prefix("file:")) else { continue };
        let paths: Vec<&str> = paths.split(',').map(str::trim).collect();
        let body = f.body(lines);
        let parts: Vec<&[&str]> = if paths.len() == 1 { vec![&body[..]] } else { body.split(|l| *l == "---").collect() };
        assert_eq!(
            parts.len(),
            paths.len(),
            "line {}: `<!-- file: {} -->` names {} files for {} parts",
            f.open + 1,
            paths.join(", "),
            paths.len(),
            parts.len()
        );
        for (p, part) in paths.iter().zip(parts) {
            files.push((p.to_string(), part.iter().map(|l| format!("{l}\n")).collect()));
        }
    }
    files
}

/// What running one block found: a report per command that differs, and the
/// block's body with the real outputs in their place.
struct Outcome {
    failures: Vec<String>,
    rewritten: Vec<String>,
}

fn run_block(doc: &str, fence_line: usize, cmds: &[Command], files: &[(String, String)]) -> Outcome {
    let start = if files.is_empty() { "ast-edit" } else { "app" };
    let sandbox = Sandbox::new(start, files);
    if files.is_empty() {
        copy_fixtures(&sandbox.start.join("fixtures"));
    }
    let mut sh = Shell::start(&sandbox);
    let (mut theirs, mut ours) = (Normaliser::new(None), Normaliser::new(Some(&sandbox.root)));
    let mut failures = Vec::new();
    let mut rewritten = Vec::new();
    for c in cmds {
        theirs.apply(&c.text);
        // The doc's ids in the command, as the real run numbered them.
        let cmd = theirs.rename(&c.text, &ours);
        ours.apply(&cmd);
        let (real, status) = sh.run(&sandbox.localise(&cmd));
        let expected: Vec<String> = c.output.iter().map(|l| theirs.apply(l)).collect();
        let got: Vec<String> = real.iter().map(|l| ours.apply(l)).collect();
        if expected == got {
            rewritten.push(c.clone());
            continue;
        }
        failures.push(format!(
            "{doc}:{}: `$ {}` (in the ```console block of line {}, exit status {status}) printed something else than the doc shows (- doc, + real run, normalised):\n{}",
            c.line + 1,
            c.text,
            fence_line + 1,
            markdown::diff(&expected, &got)
        ));
        let output = real.iter().map(|l| ours.rename(&ours.unroot(l), &theirs)).collect();
        rewritten.push(Command { output, ..c.clone() });
    }
    Outcome { failures, rewritten: render(&rewritten) }
}

/// A copy of the repository's `fixtures/` at `to` (tests/it/common/mod.rs),
/// in a git work tree as in a checkout (its `.gitignore` counts only there).
fn copy_fixtures(to: &Path) {
    crate::common::copy_dir(&crate::common::fixtures(), to);
    std::fs::create_dir_all(to.parent().expect("a folder").join(".git")).unwrap();
}

/// Runs every console block of `doc` (relative to the repository); with
/// `UPDATE_DOCS` rewrites the outputs that differ, else fails naming them.
/// `extra` may rewrite the rest of the doc (generated tables) in the same write.
fn check_doc(doc: &str, extra: impl FnOnce(&str) -> Result<String, String>) {
    let path = repo().join(doc);
    let _held = updating().then(|| crate::common::doc_lock(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let all = fences(&lines);
    let mut failures = Vec::new();
    let mut not_executed = Vec::new();
    let mut replace: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut since = 0;
    let mut files = Vec::new();
    for (k, f) in all.iter().enumerate() {
        if f.info != "console" {
            continue;
        }
        let own = marked_files(&lines, &all[since..k]);
        since = k + 1;
        if !own.is_empty() {
            files = own;
        }
        let cmds = commands(&f.body(&lines), f.open + 1).unwrap_or_else(|e| panic!("{doc}: {e}"));
        if let Some(why) = f.marker.as_deref().and_then(|m| m.strip_prefix("not executed:")) {
            not_executed.push((cmds.first().map_or(String::new(), |c| c.text.clone()), why.trim().to_string()));
            continue;
        }
        assert!(!cmds.is_empty(), "{doc}:{}: a console block without a `$ ` command", f.open + 1);
        let out = run_block(doc, f.open, &cmds, &files);
        if !out.failures.is_empty() {
            failures.extend(out.failures);
            replace.push((f.open + 1, f.close, out.rewritten));
        }
    }
    let listed: Vec<(String, String)> = NOT_EXECUTED.iter().filter(|(d, _, _)| *d == doc).map(|(_, c, w)| (c.to_string(), w.to_string())).collect();
    assert_eq!(
        not_executed.iter().map(|(c, _)| c).collect::<Vec<_>>(),
        listed.iter().map(|(c, _)| c).collect::<Vec<_>>(),
        "{doc}: the blocks marked `<!-- not executed: ... -->` (by first command) are not those NOT_EXECUTED of tests/it/doc_examples.rs lists"
    );
    for (c, why) in &not_executed {
        eprintln!("{doc}: not executed: `$ {c}`: {why}");
    }
    let mut new_lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for (from, to, body) in replace.into_iter().rev() {
        new_lines.splice(from..to, body);
    }
    let mut new_text = new_lines.join("\n") + if text.ends_with('\n') { "\n" } else { "" };
    new_text = extra(&new_text).unwrap_or_else(|e| panic!("{e}"));
    if updating() {
        if new_text != text {
            std::fs::write(&path, &new_text).unwrap();
            eprintln!("{doc}: rewritten ({} command outputs)", failures.len());
        }
        return;
    }
    if new_text != text && failures.is_empty() {
        failures.push(format!("{doc}: a generated table differs from what the binary gives"));
    }
    assert!(
        failures.is_empty(),
        "{}\n\n{} differences. Rerun with `{REGENERATE}` to rewrite {doc} with the real output, and read the change.",
        failures.join("\n"),
        failures.len()
    );
}

#[test]
fn readme_examples_are_what_the_binary_prints() {
    check_doc("README.md", |t| Ok(t.to_string()));
}

#[test]
fn reference_examples_are_what_the_binary_prints() {
    check_doc("docs/REFERENCE.md", |t| Ok(t.to_string()));
}

#[test]
fn rules_examples_are_what_the_binary_prints() {
    check_doc("docs/RULES.md", |t| Ok(t.to_string()));
}

/// docs/MCP.md: its console blocks, and its tables of tools and fields, which
/// are what `tools/list` gives (one test, so that one run rewrites both).
#[test]
fn mcp_examples_and_tool_tables_are_what_the_server_says() {
    let tools = tool_tables::tools_list();
    assert_eq!(tools.len(), 6, "the six tools of docs/MCP.md, \"The tools\"");
    check_doc("docs/MCP.md", |t| tool_tables::regenerate(t, &tools));
}

/// The lines under `Tour:` of `ast-edit --help` (src/cli/mod.rs), without their
/// `# comments`.
fn help_tour() -> Vec<String> {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_ast-edit")).arg("--help").env("NO_COLOR", "1").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let tour = &help[help.find("\nTour:\n").expect("a Tour in ast-edit --help") + "\nTour:\n".len()..];
    tour.lines().take_while(|l| l.starts_with("  ")).map(|l| l.split(" # ").next().unwrap().trim().to_string()).collect()
}

/// The tour of `ast-edit --help`, run in order on a copy of `fixtures/`: every
/// command succeeds, its `run` stages an action of at least one replacement, and
/// its closing `undo` leaves the files as they were.
#[test]
fn the_tour_of_the_help_works_on_fixtures() {
    let tour = help_tour();
    assert!(tour.len() >= 4 && tour[0].starts_with("ast-edit run "), "{tour:?}");
    let sandbox = Sandbox::new("ast-edit", &[]);
    let fixtures = sandbox.start.join("fixtures");
    copy_fixtures(&fixtures);
    let before = std::process::Command::new("diff").args(["-r"]).arg(repo().join("fixtures")).arg(&fixtures).status().unwrap();
    assert!(before.success(), "the copy of fixtures/");
    let mut sh = Shell::start(&sandbox);
    let staged = Regex::new(r"AST Edit: (\d+) replacements? in").unwrap();
    for cmd in &tour {
        let (out, status) = sh.run(cmd);
        let out = out.join("\n");
        assert_eq!(status, 0, "`{cmd}` exited {status}:\n{out}");
        if cmd.starts_with("ast-edit run ") {
            let n: usize = staged.captures(&out).unwrap_or_else(|| panic!("`{cmd}`:\n{out}"))[1].parse().unwrap();
            assert!(n >= 1 && out.contains("Staged as pending action ae-"), "`{cmd}` stages nothing:\n{out}");
        }
    }
    let after = std::process::Command::new("diff").args(["-r"]).arg(repo().join("fixtures")).arg(&fixtures).output().unwrap();
    assert!(after.status.success(), "the tour's undo leaves fixtures/ as it was:\n{}", String::from_utf8_lossy(&after.stdout));
}

/// The reading of a console block: commands, outputs, separators, continued
/// lines; and a rewrite gives the same block back.
#[test]
fn a_console_block_reads_and_renders_back() {
    let body = ["$ a \\", "  --flag", "out 1", "", "out 2", "", "$ b", "$ c", "x"];
    let cmds = commands(&body, 10).unwrap();
    assert_eq!(cmds.len(), 3);
    assert_eq!((cmds[0].line, cmds[0].text.as_str(), cmds[0].blank_after), (10, "a \\\n  --flag", 1));
    assert_eq!(cmds[0].output, ["out 1", "", "out 2"]);
    assert_eq!((cmds[1].output.len(), cmds[2].output.as_slice()), (0, &["x".to_string()][..]));
    assert_eq!(render(&cmds), body);
    assert!(commands(&["stray", "$ a"], 0).is_err());
}

/// Fences with their markers (a ```` block may hold ``` lines), and the files of
/// `<!-- file: -->` blocks, one block split at `---` into several files.
#[test]
fn fences_markers_and_files_are_read() {
    let text = "<!-- file: a.yml, b.yml -->\n```yaml\nid: a\n---\nid: b\n```\n````text\n```diff\n```\n````\n<!-- not executed: needs the network -->\n```console\n$ curl x\n```\n";
    let lines: Vec<&str> = text.lines().collect();
    let f = fences(&lines);
    assert_eq!(f.iter().map(|f| (f.info.as_str(), f.open, f.close)).collect::<Vec<_>>(), [("yaml", 1, 5), ("text", 6, 9), ("console", 11, 13)]);
    assert_eq!(f[2].marker.as_deref(), Some("not executed: needs the network"));
    assert_eq!(f[1].marker, None);
    assert_eq!(marked_files(&lines, &f), [("a.yml".to_string(), "id: a\n".to_string()), ("b.yml".to_string(), "id: b\n".to_string())]);
}

/// Ids are numbered in the order first seen, so the doc and a run agree only
/// where they use the same id at the same places.
#[test]
fn ids_times_and_the_sandbox_are_normalised() {
    let mut n = Normaliser::new(Some(Path::new("/tmp/sb")));
    assert_eq!(n.apply("ae-00aa11 at 2026-01-02T03:04:05Z in 0.27s, /tmp/sb/tmp/tour"), "[ID1] at [TIME] in [DURATION], /tmp/tour");
    assert_eq!(n.apply("ae-bbbbbb ae-00aa11 mcp-abcdef"), "[ID2] [ID1] [SESSION1]");
    let mut doc = Normaliser::new(None);
    doc.apply("ae-111111 ae-222222");
    assert_eq!(doc.rename("--id ae-222222", &n), "--id ae-bbbbbb");
    assert_eq!(n.rename("ae-bbbbbb then ae-00aa11", &doc), "ae-222222 then ae-111111");
}
