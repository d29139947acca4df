//! Criterion micro-benchmarks of the engine's stages on `fixtures/`, through the
//! library API: walk, compile (Engine::new), the literal prefilter, parse + match +
//! rewrite of one file, the unified diff, and the whole dry run (`plan::build`).
//!
//! The fixture files are a few hundred bytes each, so the per-file stages are also
//! run on a "big" text: `fixtures/python/app.py` repeated until it is ~100 KB
//! (the median size class of real source files is 5-20 KB; 100 KB keeps parse time
//! well above timer noise).
//!
//! Run: `cargo bench --bench engine` (or `-- rewrite` to filter); compile only:
//! `cargo bench --no-run`. Real-corpus timings against ast-grep are in
//! `benches/compare.sh` / `benches/RESULTS.md`, not here.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use ast_edit::app::plan;
use ast_edit::app::request::{DEFAULT_MAX_FILESIZE, Op, RawRequest, Request, WalkOptions};
use ast_edit::testing::{self, Engine, RewriteOptions};
use ast_grep_language::SupportLang;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const PAT: &str = "fetch_data($$$ARGS)";
const REW: &str = "load_data($$$ARGS)";
const FULL: RewriteOptions = RewriteOptions { prefilter: true, check_syntax: true, rewrite_nested: false, verbatim: false };
const NO_PREFILTER: RewriteOptions = RewriteOptions { prefilter: false, check_syntax: true, rewrite_nested: false, verbatim: false };
const NO_CHECK: RewriteOptions = RewriteOptions { prefilter: true, check_syntax: false, rewrite_nested: false, verbatim: false };

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn request(pat: &str, out: &str, lang: Option<&str>) -> Request {
    let raw = RawRequest { ops: vec![Op { pat: pat.into(), out: out.into() }], lang: lang.map(str::to_string), ..Default::default() };
    raw.validate(&fixtures(), WalkOptions::default(), DEFAULT_MAX_FILESIZE).expect("valid request")
}

fn python_engine(pat: &str, out: &str) -> Engine {
    Engine::new(&request(pat, out, Some("python")), [SupportLang::Python], &fixtures()).expect("compiles")
}

/// `app.py` repeated to about `bytes` bytes.
fn big_python(bytes: usize) -> String {
    let one = std::fs::read_to_string(fixtures().join("python/app.py")).expect("fixture");
    one.repeat(bytes.div_ceil(one.len()))
}

fn bench_walk(c: &mut Criterion) {
    let req = request(PAT, REW, None);
    let cwd = fixtures();
    c.bench_function("walk/fixtures", |b| b.iter(|| black_box(testing::walk(&req, &cwd).unwrap().files.len())));
}

fn bench_compile(c: &mut Criterion) {
    let cwd = fixtures();
    let req = request(PAT, REW, Some("python"));
    c.bench_function("compile/one_op_python", |b| b.iter(|| black_box(Engine::new(&req, [SupportLang::Python], &cwd).unwrap())));
    // every language of the fixtures, language inferred per file (the C pattern
    // fails and becomes a warning, as in the run of fixtures/README.md)
    let req = request(PAT, REW, None);
    let langs = [SupportLang::Python, SupportLang::Rust, SupportLang::TypeScript, SupportLang::JavaScript, SupportLang::Go, SupportLang::C];
    c.bench_function("compile/one_op_six_langs", |b| b.iter(|| black_box(Engine::new(&req, langs, &cwd).unwrap())));
}

fn bench_rewrite(c: &mut Criterion) {
    let e = python_engine(PAT, REW);
    let ops = e.ops_for(SupportLang::Python, Path::new("/x.py"));
    let small = std::fs::read_to_string(fixtures().join("python/app.py")).unwrap();
    let big = big_python(100_000);
    let absent = python_engine("zzz_no_such_fn($A)", "zzz($A)");
    let absent_ops = absent.ops_for(SupportLang::Python, Path::new("/x.py"));

    let mut g = c.benchmark_group("rewrite");
    for (name, text) in [("app.py", &small), ("app.py_x100KB", &big)] {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::new("match+rewrite+syntax_check", name), text, |b, t| {
            b.iter(|| black_box(testing::rewrite(&ops, SupportLang::Python, t, FULL)))
        });
        g.bench_with_input(BenchmarkId::new("match+rewrite", name), text, |b, t| {
            b.iter(|| black_box(testing::rewrite(&ops, SupportLang::Python, t, NO_CHECK)))
        });
        // a pattern whose literal is absent: the prefilter skips the parse ...
        g.bench_with_input(BenchmarkId::new("absent_literal_prefilter", name), text, |b, t| {
            b.iter(|| black_box(testing::rewrite(&absent_ops, SupportLang::Python, t, FULL)))
        });
        // ... and without it the file is parsed and searched for nothing
        g.bench_with_input(BenchmarkId::new("absent_literal_parse", name), text, |b, t| {
            b.iter(|| black_box(testing::rewrite(&absent_ops, SupportLang::Python, t, NO_PREFILTER)))
        });
    }
    g.finish();
}

fn bench_text_checks(c: &mut Criterion) {
    let big = big_python(100_000);
    let mut g = c.benchmark_group("text");
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.bench_function("check_text_100KB", |b| b.iter(|| black_box(testing::check_text(big.as_bytes()).is_ok())));
    g.bench_function("digest_100KB", |b| b.iter(|| black_box(testing::digest(big.as_bytes()))));
    g.finish();
}

fn bench_diff(c: &mut Criterion) {
    let e = python_engine(PAT, REW);
    let ops = e.ops_for(SupportLang::Python, Path::new("/x.py"));
    let mut g = c.benchmark_group("diff");
    for (name, old) in [("app.py", std::fs::read_to_string(fixtures().join("python/app.py")).unwrap()), ("app.py_x100KB", big_python(100_000))] {
        let rw = testing::rewrite(&ops, SupportLang::Python, &old, NO_CHECK).expect("fixture has matches");
        let new = String::from_utf8(rw.new_text).unwrap();
        g.throughput(Throughput::Bytes(old.len() as u64));
        g.bench_with_input(BenchmarkId::new("unified", name), &(&old, &new), |b, (o, n)| b.iter(|| black_box(testing::unified("python/app.py", o, n))));
        g.bench_with_input(BenchmarkId::new("unified_bounded", name), &(&old, &new), |b, (o, n)| {
            b.iter(|| black_box(testing::unified_bounded("python/app.py", o, n, &rw.edits, testing::MAX_DIFF_LINE)))
        });
        g.bench_with_input(BenchmarkId::new("splice", name), &old, |b, o| b.iter(|| black_box(testing::splice(o.as_bytes(), &rw.edits))));
    }
    g.finish();
}

fn bench_plan(c: &mut Criterion) {
    let cwd = fixtures();
    let mut g = c.benchmark_group("plan");
    let all = request(PAT, REW, None);
    g.bench_function("build/fixtures_all_langs", |b| b.iter(|| black_box(plan::build(&all, &cwd).unwrap().files.len())));
    let py = request(PAT, REW, Some("python"));
    g.bench_function("build/fixtures_python", |b| b.iter(|| black_box(plan::build(&py, &cwd).unwrap().files.len())));
    let none = request("zzz_no_such_fn($A)", "zzz($A)", Some("python"));
    g.bench_function("build/fixtures_python_absent", |b| b.iter(|| black_box(plan::build(&none, &cwd).unwrap().files.len())));
    g.finish();
}

criterion_group!(benches, bench_walk, bench_compile, bench_rewrite, bench_text_checks, bench_diff, bench_plan);
criterion_main!(benches);
