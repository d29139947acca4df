//! `ast-edit tree`: the syntax tree of a snippet or a pattern ([`ast_edit::app::tree`]),
//! as text or JSON, from an argument, a file or stdin.

use std::io::{Read, Write};

use super::{TreeArgs, write_json};
use ast_edit::app::error::{Error, Result};
use ast_edit::app::lang::Lang;
use ast_edit::app::tree::{self, MAX_CODE_BYTES, TreeOptions};

/// `tree --help`.
pub(super) const LONG_ABOUT: &str = "\
Show the syntax tree of a snippet, or of an ast-grep pattern (--pattern), one node
per line: `field:` name, kind, range (line:col-line:col, 1-based, the end just past
the node) and the text of leaves. ERROR and MISSING nodes are always shown. A
pattern matches nodes of its root's kind, and code parses differently alone than
in context, so look before writing a pattern or a rule's `kind`/`selector`.

Example: a Django keyword argument alone is an assignment,
  $ ast-edit tree -l py 'on_delete=models.CASCADE'
  module 1:1-1:25
    expression_statement 1:1-1:25
      assignment 1:1-1:25
        left: identifier 1:1-1:10 \"on_delete\"
        right: attribute 1:11-1:25
          object: identifier 1:11-1:17 \"models\"
          attribute: identifier 1:18-1:25 \"CASCADE\"
but inside a call it is a keyword_argument:
  $ ast-edit tree -l py --pattern 'ForeignKey($M, on_delete=models.CASCADE)'
  module 1:1-1:41
    expression_statement 1:1-1:41
      call 1:1-1:41
        function: identifier 1:1-1:11 \"ForeignKey\"
        arguments: argument_list 1:11-1:41
          identifier 1:12-1:14 metavariable $M
          keyword_argument 1:16-1:40
            name: identifier 1:16-1:25 \"on_delete\"
            value: attribute 1:26-1:40
              object: identifier 1:26-1:32 \"models\"
              attribute: identifier 1:33-1:40 \"CASCADE\"
  Pattern root: `call` at 1:1-1:41: the pattern matches `call` nodes (...)

More:
  ast-edit tree -l c --pattern 'kfree($A)'     # MISSING ; : write `kfree($A);`
  ast-edit tree -f src/app.py --all            # punctuation and keywords too
  echo 'x = 1' | ast-edit tree -l py - --json  # the structured value";

/// `ast-edit tree`.
pub(super) fn tree(a: TreeArgs, out: &mut impl Write) -> anyhow::Result<i32> {
    let code = read_code(&a)?;
    let lang = match (&a.lang, &a.file) {
        (Some(name), _) => Lang::parse(name)?,
        (None, Some(file)) => Lang::infer(file).ok_or_else(|| {
            Error::bad(format!("cannot tell the language of {} from its extension: pass -l LANG (`ast-edit langs` lists them)", file.display()))
        })?,
        (None, None) => return Err(Error::bad("tree needs the code's language: pass -l LANG (py, rs, ts, c, ...; `ast-edit langs` lists them)").into()),
    };
    let dump = tree::dump(&code, lang, TreeOptions { is_pattern: a.pattern, all: a.all }, super::words::WORDS)?;
    if a.json {
        write_json(out, &dump)?;
    } else {
        out.write_all(tree::render(&dump).as_bytes())?;
    }
    Ok(0)
}

/// The code: the argument, the file (`-f`) or stdin (`-`), at most
/// [`MAX_CODE_BYTES`] read.
fn read_code(a: &TreeArgs) -> Result<String> {
    match (&a.code, &a.file) {
        (Some(code), _) if code != "-" => Ok(code.clone()),
        (Some(_), _) => read_bounded(std::io::stdin().lock(), "stdin"),
        (None, Some(file)) => super::read_named(file, MAX_CODE_BYTES, "the file", "show a smaller snippet (the piece of code the pattern is about)"),
        (None, None) => Err(Error::bad("pass the code, `-` for stdin, or -f FILE")),
    }
}

/// Reads at most one byte past [`MAX_CODE_BYTES`]; more is refused, naming the limit.
fn read_bounded(r: impl Read, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    r.take(MAX_CODE_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|e| Error::bad(format!("cannot read {what}: {e}")))?;
    if bytes.len() > MAX_CODE_BYTES {
        return Err(Error::bad(format!(
            "{what} holds more than {MAX_CODE_BYTES} bytes; the limit is {MAX_CODE_BYTES} bytes per tree: show a smaller snippet (the piece of code the pattern is about)"
        )));
    }
    String::from_utf8(bytes).map_err(|_| Error::bad(format!("{what} is not UTF-8 text")))
}
