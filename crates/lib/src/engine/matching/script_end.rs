//! Where an HTML `<script>` element really ends, as a browser's tokenizer reads
//! it (the HTML standard, "Tokenization": script data, script data escaped and
//! script data double escaped states). tree-sitter's HTML grammar ends a script
//! at its first `</script`; a browser does not when the script holds `<!--`
//! followed by `<script`: from there a `</script>` only leaves the "double
//! escaped" state, and the element runs on to a later `</script>`, so the HTML
//! between becomes script text. An edit that writes `"<!--<script>"` into a
//! script string does that, while every grammar still accepts the file.

/// The tokenizer's state inside a script element's text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Script data.
    Data,
    /// Script data escaped: after `<!--`, until `-->`.
    Escaped,
    /// Script data double escaped: after `<!--` then `<script`, until
    /// `</script` (back to escaped) or `-->`.
    Double,
}

/// The offset of the `<` of the end tag that closes the script element whose
/// text starts at `from` in `text` (just after its start tag), `None` when no
/// end tag closes it.
pub(crate) fn script_end(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut state = State::Data;
    let mut i = from;
    while i < b.len() {
        match (state, b[i]) {
            (State::Data | State::Escaped, b'<') if tag(b, i + 1, true) => return Some(i),
            (State::Data, b'<') if b[i..].starts_with(b"<!--") => {
                state = State::Escaped;
                // The dashes of `<!--` count towards a `-->` (`<!-->` ends it).
                i += 3;
            }
            (State::Escaped, b'<') if tag(b, i + 1, false) => {
                state = State::Double;
                i += 7;
                continue;
            }
            (State::Double, b'<') if tag(b, i + 1, true) => {
                state = State::Escaped;
                i += 8;
                continue;
            }
            (State::Escaped | State::Double, b'>') if i >= 2 && &b[i - 2..i] == b"--" => state = State::Data,
            _ => {}
        }
        i += 1;
    }
    None
}

/// True when `b[at..]` is `script` (`/script` when `end`), in any case,
/// followed by what ends a tag name: whitespace, `/` or `>`.
fn tag(b: &[u8], at: usize, end: bool) -> bool {
    let at = if end {
        if b.get(at) != Some(&b'/') {
            return false;
        }
        at + 1
    } else {
        at
    };
    b.get(at..at + 6).is_some_and(|name| name.eq_ignore_ascii_case(b"script"))
        && b.get(at + 6).is_some_and(|c| matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
}

#[cfg(test)]
mod tests {
    use super::script_end;

    fn end(script: &str) -> Option<usize> {
        script_end(script, 0)
    }

    #[test]
    fn a_script_ends_at_its_first_end_tag_unless_double_escaped() {
        assert_eq!(end("var a = 1;</script><p>"), Some(10));
        assert_eq!(end("a</SCRIPT >"), Some(1));
        assert_eq!(end("a</scripts></script>"), Some(11));
        // Escaped only: the end tag still ends it.
        assert_eq!(end("s = '<!--';</script>"), Some(11));
        // Double escaped: the first end tag goes back to escaped, the next ends it.
        assert_eq!(end("s = \"<!--<script>\";</script><p>hi</p></script>"), Some(37));
        // A `<script` in the escaped text doubles the escape again.
        assert_eq!(end("s = \"<!--<script>\";</script><p>hi</p><script>t</script>"), None);
        // `-->` leaves the escape, so the next end tag ends it again.
        assert_eq!(end("s = '<!--<script>-->';</script>"), Some(22));
        assert_eq!(end("s = '<!--><script>';</script>"), Some(20));
        assert_eq!(end("s = '<!--<scripts>';</script>"), Some(20));
        assert_eq!(end("s = '<!--<script>'"), None);
    }
}
