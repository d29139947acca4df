//! The fenced blocks of a markdown file, as `tests/it/doc_examples.rs` reads and
//! rewrites them: every fence with its info string and the marker comment on the
//! line before it, a console block split into its commands and their output, and
//! the text between two marker comments.

/// One fenced block.
#[derive(Debug, Clone)]
pub struct Fence {
    /// The info string (`console`, `yaml`, ...), trimmed.
    pub info: String,
    /// 0-based index of the opening fence's line.
    pub open: usize,
    /// 0-based index of the closing fence's line (the end of the file if none).
    pub close: usize,
    /// The inside of `<!-- ... -->` when the line just before the fence is one.
    pub marker: Option<String>,
}

impl Fence {
    /// The block's lines, fences excluded.
    pub fn body<'a>(&self, lines: &[&'a str]) -> Vec<&'a str> {
        lines[self.open + 1..self.close].to_vec()
    }
}

/// Every fenced block of `lines`, in order. A fence is a line of three or more
/// backticks (indented or not) and is closed by a line of at least as many
/// backticks and nothing else, so a ```` block may hold ``` lines.
pub fn fences(lines: &[&str]) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let ticks = t.bytes().take_while(|&b| b == b'`').count();
        if ticks >= 3 {
            let close = (i + 1..lines.len())
                .find(|&j| {
                    let c = lines[j].trim();
                    c.len() >= ticks && c.bytes().all(|b| b == b'`')
                })
                .unwrap_or(lines.len());
            let marker = i.checked_sub(1).map(|p| lines[p].trim()).and_then(|p| p.strip_prefix("<!--")?.strip_suffix("-->")).map(|m| m.trim().to_string());
            out.push(Fence { info: t[ticks..].trim().to_string(), open: i, close, marker });
            i = close + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// One command of a console block and the output the doc shows for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// 0-based line of the `$ ` line in the file.
    pub line: usize,
    /// The command, without `$ ` (continued lines ending in `\` joined by newlines).
    pub text: String,
    /// The output lines, without the blank lines that end them.
    pub output: Vec<String>,
    /// How many blank lines followed the output (separators, kept on rewrite).
    pub blank_after: usize,
}

/// The commands of a console block whose first body line is line `first` of the
/// file. Lines before the first `$ ` are an error: nothing could print them.
pub fn commands(body: &[&str], first: usize) -> Result<Vec<Command>, String> {
    let mut out: Vec<Command> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut text = cmd.to_string();
            let start = i;
            while text.ends_with('\\') && i + 1 < body.len() {
                i += 1;
                text.push('\n');
                text.push_str(body[i]);
            }
            out.push(Command { line: first + start, text, output: Vec::new(), blank_after: 0 });
        } else if let Some(c) = out.last_mut() {
            c.output.push(line.to_string());
        } else {
            return Err(format!("line {}: output before the first `$ ` command", first + i + 1));
        }
        i += 1;
    }
    for c in &mut out {
        while c.output.last().is_some_and(|l| l.trim().is_empty()) {
            c.output.pop();
            c.blank_after += 1;
        }
    }
    Ok(out)
}

/// The body of a console block holding `commands`.
pub fn render(commands: &[Command]) -> Vec<String> {
    let mut out = Vec::new();
    for c in commands {
        for (k, l) in c.text.split('\n').enumerate() {
            out.push(if k == 0 { format!("$ {l}") } else { l.to_string() });
        }
        out.extend(c.output.iter().cloned());
        out.extend(std::iter::repeat_n(String::new(), c.blank_after));
    }
    out
}

/// The byte range of the text between the line holding `begin` and the line
/// holding `end` (both kept), or `None` when either is missing.
pub fn between(doc: &str, begin: &str, end: &str) -> Option<std::ops::Range<usize>> {
    let b = doc.find(begin)?;
    let start = b + doc[b..].find('\n')? + 1;
    let stop = start + doc[start..].find(end)?;
    let stop = doc[..stop].rfind('\n').map_or(start, |n| (n + 1).max(start));
    Some(start..stop)
}

/// A line diff of `doc` against `real` (longest common subsequence): `  ` for a
/// line both have, `- ` for the doc's only, `+ ` for the real run's only.
pub fn diff(doc: &[String], real: &[String]) -> String {
    let (n, m) = (doc.len(), real.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if doc[i] == real[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < n || j < m {
        if i < n && j < m && doc[i] == real[j] {
            out.push_str(&format!("  {}\n", doc[i]));
            (i, j) = (i + 1, j + 1);
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", real[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", doc[i]));
            i += 1;
        }
    }
    out
}
