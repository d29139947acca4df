//! The shipped `queries/` catalog: `ast-edit test queries` passes every case of
//! every rule, and the catalog is as broad as the project's target (at least 24
//! rules in at least six languages).

mod common;

use common::Tree;

#[test]
fn every_case_of_the_queries_catalog_passes() {
    let t = Tree::empty();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
    let r = t.run(&["test", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let fails: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(fails.is_empty(), "{fails:?}");
    let rules = r.stdout.lines().filter(|l| l.starts_with("PASS ")).count();
    assert!(rules >= 24, "only {rules} rules");
    let mut langs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && std::fs::read_dir(e.path()).unwrap().count() > 0)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    langs.sort();
    assert!(langs.len() >= 6, "{langs:?}");
}
