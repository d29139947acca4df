//! File names as people see them: git's C-style quoting with `core.quotePath` on, so a
//! name can neither break a line of output, nor drive the terminal, nor break a diff
//! header that `git apply` reads. Machine output (JSON `path` fields, the store,
//! `extra.files`) keeps the exact name; only text meant for a person or for `git apply`
//! goes through here. The quoting rule: docs/DESIGN.md §5.12 (and §2.7).

use std::borrow::Cow;

/// How byte `b` is written inside a quoted name; `None`: as it is.
fn escape(b: u8) -> Option<[u8; 4]> {
    let short = match b {
        0x07 => b'a',
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0b => b'v',
        0x0c => b'f',
        b'\r' => b'r',
        b'"' => b'"',
        b'\\' => b'\\',
        0x20..=0x7e => return None,
        _ => return Some([b'\\', b'0' + (b >> 6), b'0' + ((b >> 3) & 7), b'0' + (b & 7)]),
    };
    Some([b'\\', short, 0, 0])
}

/// Appends `bytes` to `out` with every byte that needs it escaped (no quotes).
fn push_escaped(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        match escape(b) {
            None => out.push(b as char),
            Some(e) => {
                let n = if e[2] == 0 { 2 } else { 4 };
                // Escapes are ASCII.
                out.extend(e[..n].iter().map(|&c| c as char));
            }
        }
    }
}

/// True when `bytes` must be quoted to be shown.
pub(crate) fn needs_quoting(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| escape(b).is_some())
}

/// The quoted form of a name given as bytes (a name that is not UTF-8 included):
/// the name itself when it needs no quoting, else `"..."` with escapes.
pub(crate) fn quote_bytes(bytes: &[u8]) -> String {
    if !needs_quoting(bytes) {
        // Only printable ASCII is left unquoted.
        return bytes.iter().map(|&b| b as char).collect();
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    out.push('"');
    push_escaped(&mut out, bytes);
    out.push('"');
    out
}

/// `name` as shown to people: as it is when that is safe, else git-quoted.
pub fn display_name(name: &str) -> Cow<'_, str> {
    if needs_quoting(name.as_bytes()) { Cow::Owned(quote_bytes(name.as_bytes())) } else { Cow::Borrowed(name) }
}

/// `prefix` + `name` quoted as one, as git writes `--- "a/tab\there.py"` in a
/// diff header (git's `quote_two_c_style`): the quotes go around both when
/// either needs them.
pub(crate) fn prefixed(prefix: &str, name: &str) -> String {
    if !needs_quoting(prefix.as_bytes()) && !needs_quoting(name.as_bytes()) {
        return format!("{prefix}{name}");
    }
    let mut out = String::with_capacity(prefix.len() + name.len() + 8);
    out.push('"');
    push_escaped(&mut out, prefix.as_bytes());
    push_escaped(&mut out, name.as_bytes());
    out.push('"');
    out
}

/// True for characters that must not reach a terminal raw: C0 and C1 controls,
/// DEL, and the bidirectional overrides and isolates that reorder what is shown.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Free text (a warning, a skip reason) made safe for one line of a terminal:
/// every control character and bidirectional override is written as its escape
/// (`\t`, `\n`, `\033`, ...); everything else, `\` and `"` included, stays. File
/// names inside the text should already be quoted with [`display_name`]; this
/// catches text that came from elsewhere (a walk error, an OS message).
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape_where(text, is_unsafe)
}

/// Text of several lines from a rule (a message, a note, a label) made safe
/// for a terminal: as [`escape_controls`], but its line breaks and tabs stay,
/// so a note of three lines prints as three lines. A carriage return is
/// escaped: alone it would move the cursor back over what was printed.
pub fn escape_in_lines(text: &str) -> Cow<'_, str> {
    escape_where(text, unsafe_in_lines)
}

/// [`is_unsafe`] but for the line breaks and tabs of text of several lines.
fn unsafe_in_lines(c: char) -> bool {
    is_unsafe(c) && !matches!(c, '\n' | '\t')
}

/// A file's text as a code frame shows it: every character [`escape_in_lines`]
/// would escape (a carriage return before a line feed stays: the end of a CRLF
/// line) replaced by as many `?` as its bytes, so byte offsets into the text
/// still hold and nothing in a file can move the cursor, set a window title or
/// reorder what is shown (a bidirectional override).
pub fn shown_source(text: &str) -> Cow<'_, str> {
    let bad = |(i, c): (usize, char)| unsafe_in_lines(c) && !(c == '\r' && text.as_bytes().get(i + 1) == Some(&b'\n'));
    if !text.char_indices().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if bad((i, c)) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn escape_where(text: &str, unsafe_: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&unsafe_) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if unsafe_(c) {
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                let e = escape(b).expect("control bytes and bytes from 0x80 have escapes");
                let n = if e[2] == 0 { 2 } else { 4 };
                out.extend(e[..n].iter().map(|&c| c as char));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_of_lines_keeps_its_lines_and_a_code_frame_its_offsets() {
        assert_eq!(escape_in_lines("a\nb\tc\x1b]0;t\x07\r\u{9b}x"), "a\nb\tc\\033]0;t\\a\\r\\302\\233x");
        let src = "x = '\x1b[2J'\r\ny = 1\rz\u{202e}\u{9b}\n";
        let shown = shown_source(src);
        assert_eq!(shown, "x = '?[2J'\r\ny = 1?z?????\n");
        assert_eq!(shown.len(), src.len());
        assert!(matches!(shown_source("plain\r\n\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn plain_names_are_left_alone() {
        for name in ["src/app.py", "a b.py", "x-y_z.rs", "dir/with space/f.js", "~weird!#$%&'()*+,;<=>?@[]^`{|}.py"] {
            assert!(matches!(display_name(name), Cow::Borrowed(_)), "{name}");
            assert_eq!(display_name(name), name);
        }
    }

    /// As `git ls-files` prints names with the default core.quotePath: short
    /// escapes, octal for other controls and for every byte from 0x80 (UTF-8
    /// names included).
    #[test]
    fn names_are_quoted_as_git_quotes_them() {
        let cases: &[(&[u8], &str)] = &[
            (b"tab\there.py", r#""tab\there.py""#),
            (b"nl\nx.py", r#""nl\nx.py""#),
            (b"esc\x1b[31mred.py", r#""esc\033[31mred.py""#),
            (b"back\\slash.py", r#""back\\slash.py""#),
            (b"q\"uote.py", r#""q\"uote.py""#),
            ("é.py".as_bytes(), r#""\303\251.py""#),
            (b"\xff.py", r#""\377.py""#),
            (b"del\x7f", r#""del\177""#),
            (b"\x07\x08\x0b\x0c\r", r#""\a\b\v\f\r""#),
            (b"\x01\x1f", r#""\001\037""#),
            ("濱野\t純".as_bytes(), r#""\346\277\261\351\207\216\t\347\264\224""#),
        ];
        for (bytes, want) in cases {
            assert_eq!(quote_bytes(bytes), *want, "{bytes:?}");
            if let Ok(s) = std::str::from_utf8(bytes) {
                assert_eq!(display_name(s), *want);
            }
        }
    }

    #[test]
    fn diff_headers_quote_prefix_and_name_together() {
        assert_eq!(prefixed("a/", "src/app.py"), "a/src/app.py");
        assert_eq!(prefixed("a/", "tab\there.py"), r#""a/tab\there.py""#);
        assert_eq!(prefixed("b/", "é.py"), r#""b/\303\251.py""#);
    }

    #[test]
    fn free_text_loses_only_its_control_characters() {
        assert_eq!(escape_controls("plain \\ \"text\" é"), "plain \\ \"text\" é");
        assert_eq!(escape_controls("a\x1b[31mb\nc\td"), r"a\033[31mb\nc\td");
        assert_eq!(escape_controls("x\u{202e}y\u{9b}z"), r"x\342\200\256y\302\233z");
    }

    /// With git on the machine: our quoting is what `git ls-files` prints for
    /// the same names (skipped when git is missing).
    #[cfg(unix)]
    #[test]
    fn quoting_matches_git_ls_files() {
        use std::os::unix::ffi::OsStrExt;
        let Ok(v) = std::process::Command::new("git").arg("--version").output() else {
            eprintln!("skipping: git not found");
            return;
        };
        assert!(v.status.success());
        let dir = tempfile::tempdir().unwrap();
        let names: &[&[u8]] = &[
            b"tab\there.py",
            b"nl\nx.py",
            b"esc\x1b[31mred.py",
            b"back\\slash.py",
            b"q\"uote.py",
            "é.py".as_bytes(),
            b"\xff.py",
            b"del\x7f.py",
            b"\x01ctl.py",
            b"plain name.py",
        ];
        for n in names {
            std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(n)), "x\n").unwrap();
        }
        let git = |args: &[&str]| {
            let o = std::process::Command::new("git")
                .args(["-c", "core.quotePath=true"])
                .args(args)
                .current_dir(dir.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            o.stdout
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        let listed = String::from_utf8(git(&["ls-files"])).unwrap();
        let mut got: Vec<&str> = listed.lines().collect();
        let mut want: Vec<String> = names.iter().map(|n| quote_bytes(n)).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }
}
