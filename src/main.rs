//! The `ast-edit` binary: parses flags, runs the library, maps errors to exit codes
//! (0 ok, 1 nothing to resolve / apply failed, 2 bad input, 3 incomplete), and
//! exits quietly when stdout is a closed pipe.

use clap::Parser;

fn main() {
    let cli = ast_edit::cli::Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let code = match ast_edit::cli::run(cli, &mut out) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                0
            } else {
                let code = err.downcast_ref::<ast_edit::Error>().map(|e| e.exit_code()).unwrap_or(1);
                let _ = std::io::Write::flush(&mut out);
                eprintln!("error: {err:#}");
                code
            }
        }
    };
    if let Err(e) = std::io::Write::flush(&mut out) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
            std::process::exit(1);
        }
    }
    drop(out);
    std::process::exit(code);
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
