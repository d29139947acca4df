//! The layering (docs/ARCHITECTURE.md): the library (crates/lib/src/) is a
//! stack of stage folders, and a folder imports only folders below it; the
//! binary's front ends (src/cli/, src/mcp/) import the library through its
//! `app` folder only and never each other. This test reads every `.rs` file under both, finds each path that
//! leaves its folder (`crate::x::...`, `use crate::{x, y}`, and a `super::` that
//! climbs out of it), and fails, naming the file and line, on an import that
//! goes up or sideways, on a cycle between folders, on a top-level module
//! outside the folders, and on a folder whose `mod.rs` does not say what it
//! owns. A file and its own folder's `mod.rs` are one room; comments and string
//! literals are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The library's stage folders (under [`LIB_SRC`]), lowest first. A folder may
/// import the folders of the rows before its own; folders of one row never
/// import each other.
const LAYERS: &[&[&str]] = &[&["shared"], &["request"], &["compile"], &["engine"], &["diagnose"], &["plan"], &["rules"], &["store"], &["apply"], &["app"]];

/// The binary's front ends (under [`BIN_SRC`]): the only modules of the binary
/// besides `main.rs`. They reach the library as `ast_edit::...` and never name
/// each other (`crate::cli` / `crate::mcp`).
const FRONT_ENDS: &[&str] = &["cli", "mcp"];

/// The library's crate name, as the front ends write it.
const LIBRARY_CRATE: &str = "ast_edit";

/// The one folder of the library the front ends import: what else they use
/// it re-exports, deliberately. The crate root's items (`ast_edit::Error`)
/// are the API too.
const FRONT_DOOR: &str = "app";

/// The library's sources, relative to the repository root.
const LIB_SRC: &str = "crates/lib/src";

/// The binary's sources, relative to the repository root.
const BIN_SRC: &str = "src";

/// The files of a crate root, outside every room.
const ROOT_FILES: &[&str] = &["lib.rs", "main.rs"];

/// One path that leaves its room.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Import {
    /// The file, relative to [`LIB_SRC`].
    file: String,
    /// 1-based line.
    line: usize,
    /// The room the file is in.
    from: String,
    /// The room the path goes to.
    to: String,
}

/// The text of `src` with every comment and every string or char literal
/// blanked out (newlines kept, so lines still count).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = memchr_nl(b, i);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(end) = raw_string_end(b, i) {
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' && !ident_before(b, i) || rest.starts_with(b"b\"") && !ident_before(b, i) {
            let mut j = i + if b[i] == b'b' { 2 } else { 1 };
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, (j + 1).min(b.len()));
            i = j + 1;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{1F600}', '"'), not a lifetime ('a).
            let j = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|p| i + 2 + p)
            } else {
                let len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            match j {
                Some(j) => {
                    blank(&mut out, i, j + 1);
                    i = j + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were changed, whole characters at a time")
}

fn memchr_nl(b: &[u8], from: usize) -> usize {
    b[from..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| from + p)
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The end of a raw string (`r"..."`, `r#"..."#`, `br#"..."#`) starting at `i`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if ident_before(b, i) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    b[body..].windows(close.len()).position(|w| w == close.as_slice()).map(|p| body + p + close.len())
}

/// The module path of a file relative to its crate's `src/` (`engine/mod.rs` and
/// `engine.rs` are `engine`; `lib.rs` is the root).
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Every path of `src` (the text of `file`, relative to its crate's `src/`) that names a
/// top-level module: `(line, module)`. `reexports` maps the names `lib.rs`
/// re-exports (`crate::Error`) to the module they come from.
fn paths_out(file: &str, src: &str, reexports: &BTreeMap<String, String>) -> Vec<(usize, String)> {
    let text = strip(src);
    let b = text.as_bytes();
    let here = module_path(file);
    let line_at = |i: usize| line_of(b, i);
    let word_at = |i: usize| -> &str {
        let end = b[i..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).map_or(b.len(), |p| i + p);
        &text[i..end]
    };
    let top = |name: &str| reexports.get(name).cloned().unwrap_or_else(|| name.to_string());
    let mut out = Vec::new();
    // Inline modules (`mod tests { ... }`) open: (name, brace depth inside).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'{' {
            depth += 1;
        } else if c == b'}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
        } else if !ident_before(b, i) && c.is_ascii_alphabetic() {
            let word = word_at(i);
            let after = i + word.len();
            if word == "mod" {
                let name_at = after + b[after..].iter().take_while(|c| c.is_ascii_whitespace()).count();
                let name = word_at(name_at).to_string();
                let brace = name_at + name.len() + b[name_at + name.len()..].iter().take_while(|c| c.is_ascii_whitespace()).count();
                if !name.is_empty() && b.get(brace) == Some(&b'{') {
                    inline.push((name, depth + 1));
                }
            } else if (word == "crate" || word == "super") && b[after..].starts_with(b"::") && !(i > 0 && b[i - 1] == b'$') {
                let mut module: Vec<String> = here.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
                let mut at = i;
                if word == "crate" {
                    module.clear();
                    at = after + 2;
                } else {
                    while text[at..].starts_with("super::") {
                        module.pop();
                        at += "super::".len();
                    }
                }
                if let Some(room) = module.first() {
                    out.push((line_at(i), room.clone()));
                } else if b.get(at) == Some(&b'{') {
                    for name in group_heads(&text[at..]) {
                        if name != "self" {
                            out.push((line_at(i), top(&name)));
                        }
                    }
                } else {
                    let name = word_at(at);
                    if !name.is_empty() {
                        out.push((line_at(i), top(name)));
                    }
                }
                i = at;
                continue;
            }
            i = after;
            continue;
        }
        i += 1;
    }
    out
}

/// The 1-based line of byte `i` of `b`.
fn line_of(b: &[u8], i: usize) -> usize {
    1 + b[..i].iter().filter(|&&c| c == b'\n').count()
}

/// Every path of `src` into the library (`ast_edit::x...`, `use ast_edit::{x, y}`):
/// `(line, x)`, the first segment after the crate's name.
fn library_paths(src: &str) -> Vec<(usize, String)> {
    let text = strip(src);
    let b = text.as_bytes();
    let line_at = |i: usize| line_of(b, i);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find(LIBRARY_CRATE) {
        let i = from + k;
        let at = i + LIBRARY_CRATE.len();
        from = at;
        if ident_before(b, i) || !text[at..].starts_with("::") {
            continue;
        }
        let at = at + 2;
        if b.get(at) == Some(&b'{') {
            out.extend(group_heads(&text[at..]).into_iter().map(|h| (line_at(i), h)));
        } else {
            let end = text[at..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(text.len(), |p| at + p);
            out.push((line_at(i), text[at..end].to_string()));
        }
    }
    out
}

/// The first segment of each item of a `{...}` use group at the start of `s`.
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect = true;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                depth += 1;
                expect = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect = true,
            c if expect && depth == 1 && (c.is_ascii_alphabetic() || c == '_') => {
                let end = s[i..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(s.len(), |p| i + p);
                heads.push(s[i..end].to_string());
                expect = false;
                while chars.peek().is_some_and(|(j, _)| *j < end) {
                    chars.next();
                }
            }
            _ => {}
        }
    }
    heads
}

/// The names `lib.rs` re-exports, each with the module it comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let text = strip(lib);
    let mut map = BTreeMap::new();
    for stmt in text.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else { continue };
        let module = rest.split("::").next().unwrap_or_default().trim().to_string();
        let tail = rest.rsplit("::").next().unwrap_or_default();
        for name in tail.trim_matches(|c| c == '{' || c == '}' || char::is_whitespace(c)).split(',') {
            let name = name.split(" as ").last().unwrap_or_default().trim();
            if !name.is_empty() {
                map.insert(name.to_string(), module.clone());
            }
        }
    }
    map
}

/// The room of a file relative to its crate's `src/`: its top-level folder, or its stem.
fn room_of(file: &str) -> Option<String> {
    if ROOT_FILES.contains(&file) {
        return None;
    }
    Some(file.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string())
}

fn rank(room: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&room))
}

/// Every violation of the layering among the library's `files` (path relative
/// to [`LIB_SRC`], text), one line each.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let lib = files.iter().find(|(f, _)| f == "lib.rs").map_or("", |(_, t)| t.as_str());
    let re = reexports(lib);
    let mut found = Vec::new();
    let mut imports = Vec::new();
    let mut rooms = BTreeSet::new();
    for (file, text) in files {
        let Some(from) = room_of(file) else { continue };
        rooms.insert(from.clone());
        for (line, to) in paths_out(file, text, &re) {
            if to != from {
                imports.push(Import { file: file.clone(), line, from: from.clone(), to });
            }
        }
    }
    for room in &rooms {
        if rank(room).is_none() {
            found.push(format!("{LIB_SRC}/{room}: a top-level module outside the stage folders (add it to a folder, or to LAYERS in tests/it/layers.rs)"));
        } else if let Some((_, text)) = files.iter().find(|(f, _)| *f == format!("{room}/mod.rs")) {
            if !text.starts_with("//!") {
                found.push(format!("{LIB_SRC}/{room}/mod.rs: does not start with a `//!` that says what the folder owns"));
            }
        } else {
            found.push(format!("{LIB_SRC}/{room}: a folder needs a mod.rs that says what it owns (a top-level file `{room}.rs` is no stage folder)"));
        }
    }
    for i in &imports {
        let (Some(from), Some(to)) = (rank(&i.from), rank(&i.to)) else {
            if rank(&i.to).is_none() && rooms.contains(&i.to) {
                continue; // reported above
            }
            if rank(&i.to).is_none() {
                found.push(format!("{LIB_SRC}/{}:{}: `{}` names `crate::{}`, which is no stage folder", i.file, i.line, i.from, i.to));
            }
            continue;
        };
        if to == from {
            found.push(format!("{LIB_SRC}/{}:{}: `{}` imports `{}`, beside it (folders of one row never import each other)", i.file, i.line, i.from, i.to));
        } else if to > from {
            found.push(format!("{LIB_SRC}/{}:{}: `{}` imports `{}`, which is above it (move the item down, or the caller up)", i.file, i.line, i.from, i.to));
        }
    }
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for i in &imports {
        graph.entry(i.from.as_str()).or_default().insert(i.to.as_str());
    }
    if let Some(cycle) = find_cycle(&graph) {
        found.push(format!("an import cycle between folders: {}", cycle.join(" -> ")));
    }
    found
}

/// Every violation among the binary's `files` (path relative to [`BIN_SRC`],
/// text), one line each: a module besides `main.rs` and the front ends, a front
/// end whose `mod.rs` does not say what it owns, and a path from one front end
/// to the other.
fn front_end_violations(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    let mut rooms = BTreeSet::new();
    let mut imports = Vec::new();
    for (file, text) in files {
        let Some(from) = room_of(file) else { continue };
        rooms.insert(from.clone());
        for (line, to) in paths_out(file, text, &BTreeMap::new()) {
            if to != from && FRONT_ENDS.contains(&to.as_str()) {
                imports.push(Import { file: file.clone(), line, from: from.clone(), to });
            }
        }
    }
    for room in &rooms {
        if !FRONT_ENDS.contains(&room.as_str()) {
            found.push(format!(
                "{BIN_SRC}/{room}: a module of the binary besides the front ends (what a front end needs from below goes to a stage folder of {LIB_SRC}/)"
            ));
        } else if let Some((_, text)) = files.iter().find(|(f, _)| *f == format!("{room}/mod.rs")) {
            if !text.starts_with("//!") {
                found.push(format!("{BIN_SRC}/{room}/mod.rs: does not start with a `//!` that says what the front end owns"));
            }
        } else {
            found.push(format!("{BIN_SRC}/{room}: a front end needs a mod.rs that says what it owns"));
        }
    }
    for i in &imports {
        if FRONT_ENDS.contains(&i.from.as_str()) {
            found.push(format!(
                "{BIN_SRC}/{}:{}: `{}` imports `{}`; the front ends never import each other (move what both need into {LIB_SRC}/)",
                i.file, i.line, i.from, i.to
            ));
        }
    }
    for (file, text) in files {
        let Some(from) = room_of(file).filter(|r| FRONT_ENDS.contains(&r.as_str())) else { continue };
        for (line, to) in library_paths(text) {
            if to != FRONT_DOOR && to.starts_with(|c: char| c.is_ascii_lowercase()) {
                found.push(format!(
                    "{BIN_SRC}/{file}:{line}: `{from}` imports the library's `{to}`; a front end goes through `{LIBRARY_CRATE}::{FRONT_DOOR}` only (re-export what it needs in {LIB_SRC}/{FRONT_DOOR}/mod.rs)"
                ));
            }
        }
    }
    found
}

/// A cycle of `graph`, as the rooms on it (the first repeated at the end).
fn find_cycle<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Option<Vec<&'a str>> {
    fn visit<'a>(n: &'a str, graph: &BTreeMap<&'a str, BTreeSet<&'a str>>, stack: &mut Vec<&'a str>, done: &mut BTreeSet<&'a str>) -> Option<Vec<&'a str>> {
        if let Some(at) = stack.iter().position(|s| *s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n);
            return Some(cycle);
        }
        if !done.insert(n) {
            return None;
        }
        stack.push(n);
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

fn read_src(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("the sources are readable") {
        let path = entry.expect("the sources are readable").path();
        if path.is_dir() {
            read_src(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&path).expect("a source file is UTF-8")));
        }
    }
}

/// The `.rs` files under `src` (relative to the repository root: [`LIB_SRC`] or
/// [`BIN_SRC`]), each with its path relative to `src`, sorted.
fn the_crate(src: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut files = Vec::new();
    read_src(&src, &src, &mut files);
    files.sort();
    files
}

/// The file modules a crate root declares (`mod x;`, `pub mod x;`), in order.
/// A module written inline in the root (lib.rs's `testing` door, which only
/// re-exports) is no room of its own.
fn declared_modules(root: &str) -> Vec<String> {
    strip(root)
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("pub ").strip_prefix("mod "))
        .filter_map(|m| m.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

#[test]
fn each_folder_imports_only_folders_below_it() {
    let files = the_crate(LIB_SRC);
    assert!(files.len() > 40, "read {} files under {LIB_SRC}/", files.len());
    let found = violations(&files);
    assert!(found.is_empty(), "the layering of {LIB_SRC}/ is broken:\n{}", found.join("\n"));
}

#[test]
fn the_front_ends_never_import_each_other() {
    let files = the_crate(BIN_SRC);
    assert!(files.len() > 10, "read {} files under {BIN_SRC}/", files.len());
    let found = front_end_violations(&files);
    assert!(found.is_empty(), "the front ends of {BIN_SRC}/ are tangled:\n{}", found.join("\n"));
}

#[test]
fn lib_rs_declares_the_folders_in_layer_order() {
    let files = the_crate(LIB_SRC);
    let lib = &files.iter().find(|(f, _)| f == "lib.rs").expect("crates/lib/src/lib.rs").1;
    let layers: Vec<&str> = LAYERS.iter().flat_map(|row| row.iter().copied()).collect();
    assert_eq!(declared_modules(lib), layers, "{LIB_SRC}/lib.rs declares its modules in another order than the stages of tests/it/layers.rs");
}

#[test]
fn main_rs_declares_only_the_front_ends() {
    let files = the_crate(BIN_SRC);
    let main = &files.iter().find(|(f, _)| f == "main.rs").expect("src/main.rs").1;
    assert_eq!(declared_modules(main), FRONT_ENDS, "{BIN_SRC}/main.rs declares other modules than the front ends of tests/it/layers.rs");
}

fn planted(files: &[(&str, &str)]) -> Vec<String> {
    let mut all: Vec<(String, String)> = files.iter().map(|(f, t)| (f.to_string(), t.to_string())).collect();
    for room in LAYERS.iter().flat_map(|r| r.iter()) {
        if !all.iter().any(|(f, _)| *f == format!("{room}/mod.rs")) {
            all.push((format!("{room}/mod.rs"), "//! A stage.\n".into()));
        }
    }
    violations(&all)
}

#[test]
fn a_planted_upward_import_is_named_by_file_and_line() {
    let found = planted(&[("engine/rewrite.rs", "//! Rewrites.\n\nuse crate::shared::text;\nuse crate::{request::Request,\n    apply::Report};\n")]);
    assert_eq!(found, ["crates/lib/src/engine/rewrite.rs:4: `engine` imports `apply`, which is above it (move the item down, or the caller up)"]);
    // The front ends are no folders of the library.
    let found = planted(&[("cli/mod.rs", "//! The CLI.\n")]);
    assert_eq!(found, ["crates/lib/src/cli: a top-level module outside the stage folders (add it to a folder, or to LAYERS in tests/it/layers.rs)"]);
}

#[test]
fn a_front_end_naming_the_other_is_found_by_file_and_line() {
    let binary = |files: &[(&str, &str)]| {
        let all: Vec<(String, String)> = files.iter().map(|(f, t)| (f.to_string(), t.to_string())).collect();
        front_end_violations(&all)
    };
    let (cli, mcp) = (("cli/mod.rs", "//! The CLI.\nuse ast_edit::app::plan;\n"), ("mcp/mod.rs", "//! The MCP server.\n"));
    assert_eq!(binary(&[("main.rs", "mod cli;\nmod mcp;\nfn main() { cli::run(mcp::serve); }\n"), cli, mcp]), Vec::<String>::new());
    let found = binary(&[("cli/mod.rs", "//! The CLI.\nfn f() { crate::mcp::serve(); }\n"), mcp]);
    assert_eq!(found, ["src/cli/mod.rs:2: `cli` imports `mcp`; the front ends never import each other (move what both need into crates/lib/src/)"]);
    let found = binary(&[cli, mcp, ("mcp/server.rs", "//! x\nfn f() {\n    super::super::cli::run();\n}\n")]);
    assert_eq!(found, ["src/mcp/server.rs:3: `mcp` imports `cli`; the front ends never import each other (move what both need into crates/lib/src/)"]);
    let found = binary(&[cli, mcp, ("shared/mod.rs", "//! Shared.\n"), ("mcp/tools.rs", "use crate::{cli, shared};\n")]);
    assert_eq!(
        found,
        [
            "src/shared: a module of the binary besides the front ends (what a front end needs from below goes to a stage folder of crates/lib/src/)",
            "src/mcp/tools.rs:1: `mcp` imports `cli`; the front ends never import each other (move what both need into crates/lib/src/)",
        ]
    );
}

#[test]
fn a_front_end_importing_a_library_folder_other_than_app_is_found_by_file_and_line() {
    let binary = |files: &[(&str, &str)]| {
        let all: Vec<(String, String)> = files.iter().map(|(f, t)| (f.to_string(), t.to_string())).collect();
        front_end_violations(&all)
    };
    let (main, mcp) = (("main.rs", "mod cli;\nmod mcp;\n"), ("mcp/mod.rs", "//! The server.\nuse ast_edit::app::plan::Plan;\n"));
    let cli = ("cli/mod.rs", "//! The CLI.\nuse ast_edit::app::{plan, search::RawSearch};\nfn f() -> ast_edit::Result<()> { Ok(()) }\n");
    assert_eq!(binary(&[main, cli, mcp]), Vec::<String>::new());
    let found = binary(&[main, cli, mcp, ("cli/edit.rs", "//! x\nuse ast_edit::app::plan;\nuse ast_edit::plan::Plan;\n")]);
    assert_eq!(
        found,
        [
            "src/cli/edit.rs:3: `cli` imports the library's `plan`; a front end goes through `ast_edit::app` only (re-export what it needs in crates/lib/src/app/mod.rs)"
        ]
    );
    let found = binary(&[
        main,
        cli,
        mcp,
        ("mcp/x.rs", "//! x\nuse ast_edit::{app::plan, store::pending::Store};\nfn f() { ast_edit::testing::walk(); }\n// ast_edit::engine\n"),
    ]);
    assert_eq!(
        found,
        [
            "src/mcp/x.rs:2: `mcp` imports the library's `store`; a front end goes through `ast_edit::app` only (re-export what it needs in crates/lib/src/app/mod.rs)",
            "src/mcp/x.rs:3: `mcp` imports the library's `testing`; a front end goes through `ast_edit::app` only (re-export what it needs in crates/lib/src/app/mod.rs)",
        ]
    );
}

#[test]
fn a_cycle_and_a_module_outside_the_folders_are_found() {
    let found = planted(&[("shared/mod.rs", "//! Shared.\nuse crate::request::X;\n"), ("request/mod.rs", "//! Request.\nuse crate::shared::Y;\n")]);
    assert!(found.contains(&"an import cycle between folders: request -> shared -> request".to_string()), "{found:?}");
    let found = planted(&[("loose.rs", "//! Loose.\n")]);
    assert!(found[0].starts_with("crates/lib/src/loose: a top-level module outside the stage folders"), "{found:?}");
    let found = planted(&[("plan/mod.rs", "/// No module doc.\n")]);
    assert_eq!(found, ["crates/lib/src/plan/mod.rs: does not start with a `//!` that says what the folder owns"]);
}

#[test]
fn comments_strings_and_inline_modules_are_read_as_rust_reads_them() {
    let src = "//! x\n// crate::apply\n/* crate::apply /* nested */ crate::app */\nconst S: &str = \"crate::apply\";\nconst R: &str = r#\"crate::\"app\"\"#;\nconst C: char = '\"';\nfn f<'a>(x: &'a str) {}\nmod tests {\n    use super::*;\n    use super::super::apply::X;\n}\nfn g() { super::app::Y; }\n";
    let re = BTreeMap::from([("Error".to_string(), "shared".to_string())]);
    // Inside `plan::diff::tests`, `super` is `plan::diff` and `super::super`
    // is `plan`; from `plan::diff` itself, `super` is `plan`.
    let plan = || "plan".to_string();
    assert_eq!(paths_out("plan/diff.rs", src, &re), [(9, plan()), (10, plan()), (12, plan())]);
    // From a folder's mod.rs, `super` is the crate root.
    assert_eq!(paths_out("plan/mod.rs", "fn g() { super::apply::Y; crate::Error; }\n", &re), [(1, "apply".to_string()), (1, "shared".to_string())]);
    assert_eq!(reexports("pub use shared::error::{Error, Result};\n").get("Result").map(String::as_str), Some("shared"));
}
