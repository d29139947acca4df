//! The `ast-edit` binary: parses flags, runs the library, maps errors to exit codes
//! (0 ok, 1 nothing to resolve / apply failed, 2 bad input, 3 incomplete; `scan`
//! and `test` use ast-grep's codes: `cli::exit`), and
//! exits quietly when stdout is a closed pipe.
//!
//! The library, `ast_edit`, is the package in crates/lib; the front ends are
//! modules of this binary: the CLI (`cli`) and the MCP server (`mcp`), which never
//! import each other (tests/it/layers.rs checks it): `main` hands the server to the
//! CLI's `mcp` subcommand.

mod cli;
mod mcp;

use clap::Parser;

/// mimalloc for Rust's allocations and for tree-sitter's (see [`main`]): a parse
/// makes and frees many small nodes, and glibc's malloc spent ~8% of a dry run's
/// CPU on them (malloc_consolidate, _int_malloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    no_transparent_huge_pages();
    // mimalloc's own MIMALLOC_GENERIC_COLLECT and MIMALLOC_PURGE_DELAY still
    // win, for measuring.
    if std::env::var_os("MIMALLOC_GENERIC_COLLECT").is_none() {
        collect_often();
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        purge_delay::early();
    }
    // SAFETY: set before any tree-sitter object exists (nothing has been parsed or
    // compiled yet), so every tree-sitter allocation is made and freed by mimalloc.
    unsafe {
        use libmimalloc_sys as mi;
        tree_sitter::set_allocator(Some(tree_sitter::Allocator { malloc: mi::mi_malloc, calloc: mi::mi_calloc, realloc: mi::mi_realloc, free: mi::mi_free }));
    }
    let args = cli::Cli::parse();
    let codes = cli::exit::Codes::of(&args.command);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let code = match cli::run(args, &mut out, mcp::serve) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                0
            } else {
                let code = codes.of_error(&err);
                let _ = std::io::Write::flush(&mut out);
                eprintln!("error: {}", cli::worded_chain(&err));
                code
            }
        }
    };
    if let Err(e) = std::io::Write::flush(&mut out)
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write output: {e}");
        std::process::exit(1);
    }
    drop(out);
    // `out`'s flush above flushed stdout too. `_exit` leaves without the
    // atexit handlers `std::process::exit` would run: mimalloc's there collects
    // every heap and gives its pages back, work the kernel does anyway as the
    // process ends (1.5% of a 12-file project's scan). Nothing else is left
    // to flush: stderr is unbuffered, and no destructor would run either way.
    // The instrumented build of pgo/train.sh writes its C profiles first (gcc's
    // runtime would at exit, which `_exit` skips).
    #[cfg(pgo_generate)]
    {
        unsafe extern "C" {
            fn __gcov_dump();
        }
        // SAFETY: gcc's runtime writes the counters it keeps; it takes no argument.
        unsafe { __gcov_dump() }
    }
    // SAFETY: `_exit` only ends the process.
    #[cfg(unix)]
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

/// When mimalloc gives the pages a run frees back to the OS: quickly in a run's
/// first [`purge_delay::EARLY_FOR`], lazily after.
///
/// mimalloc v3 keeps a freed page resident for `mi_option_purge_delay` ms (its
/// default 1 s) in case it is taken again; a page freed and not taken again in
/// that time counts in the peak RSS all the same. In a short run much of what is
/// freed is such garbage: the main thread compiles the rules (a Unicode `\w` in a
/// regex builds a ~1 MB NFA and frees it) and the workers, which parse, take
/// their pages elsewhere in the arena. A long run pays for quick purging in
/// madvise calls and page faults on the pages a parse frees and the next one
/// takes again: against 50 ms throughout, 10 ms cost 3.6% more wall time on the
/// rust and python corpora's rule scans for 3 MB less peak RSS on rust (48 vs
/// 51 MB; ast-grep 57), 100 ms saved 4.8% for 6 MB more. Measured with this
/// switch (`scan --no-cache --json=compact`, medians; ast-grep in brackets):
/// facebook/bpfilter's 60 ms scan peaks at 17.5 MB, 19.8 with 50 ms throughout
/// (16.3-16.8); wvhulle/nu-lint's 230 ms scan 15.9 MB for 17.1, and 3.5% more
/// wall time; souliane/teatree's 480 ms +1.8%; the rust corpus and
/// DataDog/dd-trace-py (1.3 s) the same time and peak within the noise. The
/// thread that raises the delay costs ~1% of a 7 ms run.
mod purge_delay {
    use libmimalloc_sys as mi;

    /// `mi_option_purge_delay` in mimalloc v3's mimalloc.h (libmimalloc-sys has
    /// no constant for it).
    const MI_OPTION_PURGE_DELAY: mi::mi_option_t = 15;

    /// How long a run counts as short.
    pub const EARLY_FOR: std::time::Duration = std::time::Duration::from_millis(100);

    /// Sets the short run's delay, and starts the thread that sets the long
    /// run's after [`EARLY_FOR`].
    pub fn early() {
        set(1);
        // A thread that cannot start leaves the short run's delay: more
        // madvise calls, no wrong result.
        let _ = std::thread::Builder::new().name("purge-delay".into()).stack_size(64 << 10).spawn(|| {
            std::thread::sleep(EARLY_FOR);
            set(50);
        });
    }

    fn set(ms: std::ffi::c_long) {
        super::set_mi_option(MI_OPTION_PURGE_DELAY, ms);
    }
}

/// Has each thread's mimalloc heap collect itself every 1,000 allocations that
/// miss its fast path (mimalloc's default: 10,000; 1,000 is the least it
/// honours). A collect frees the heap's pages that hold no live block, and takes
/// in the blocks other threads freed into its pages: a syntax tree is freed on
/// whichever worker is free (`drop_later` in the library's engine), so the
/// worker that parsed it sees its pages in use until it collects. Until then
/// the next big file's tree takes fresh pages. Measured (`scan --json=compact`,
/// cache cold, medians of 4-5, ast-grep in brackets): DataDog/dd-trace-py's
/// 1.3 s scan peaks at 28.9-29.5 MB for 32.3 (29.2-29.5); the rust corpus's
/// `--no-cache` scan at 44 MB for 48; nushell 23.5 for 24.9; wall times within
/// the noise of the same runs (nu-lint, bpfilter, teatree, qdrant, xp, nushell,
/// dd-trace-py, rust).
fn collect_often() {
    /// `mi_option_generic_collect` in mimalloc v3's mimalloc.h (libmimalloc-sys
    /// has no constant for it).
    const MI_OPTION_GENERIC_COLLECT: libmimalloc_sys::mi_option_t = 34;
    set_mi_option(MI_OPTION_GENERIC_COLLECT, 1000);
}

/// Sets one of mimalloc's options, from any thread.
fn set_mi_option(option: libmimalloc_sys::mi_option_t, value: std::ffi::c_long) {
    // SAFETY: mimalloc stores the value in its option table (an aligned `long`,
    // read afresh at each use: each purge an arena schedules, each collect
    // check); a reader racing with the store takes the old value or the new
    // one, both valid.
    unsafe { libmimalloc_sys::mi_option_set(option, value) }
}

/// Turns transparent huge pages off for this process, on systems where THP is
/// `always` (mimalloc itself is built with its `no_thp` feature, so it no longer
/// asks for them with `MADV_HUGEPAGE`). A huge page backs a whole touched 2 MiB
/// range: peak RSS was ~12 MB higher on every run (measured with THP on:
/// `ast-edit --version` 11.1 MB vs 5.1 MB without; the rust corpus `$A.unwrap()`
/// preview 44 MB vs 32.5 MB), for no CPU gain on these short-lived, parse-bound
/// runs. The flag is checked at page-fault time, so it also covers memory mapped
/// before `main`, where little has been touched.
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this
    // process's paging policy; failure (an old kernel) just leaves THP as it was.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
