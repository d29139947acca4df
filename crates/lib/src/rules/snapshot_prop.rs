//! Property test of where `test -U` writes a snapshot (docs/DESIGN.md §7, "where
//! `test -U` writes a snapshot"): for any rule id and snapshot folder, the file
//! is `<folder>/<id>-snapshot.yml` in that very folder, and a folder of the
//! project's `testConfigs` lies inside the project; otherwise nothing is
//! written. The ids and folders try to break it: separators of both kinds,
//! `..`, absolute paths, dots, non-ASCII, names too long for a file.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::project::Project;
use super::ruletest::snapshot_target;

/// A project in a temp folder, opened as `test` opens it.
fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sgconfig.yml"), "ruleDirs: [rules]\n").unwrap();
    std::fs::create_dir(dir.path().join("rules")).unwrap();
    let p = Project::open(&dir.path().join("sgconfig.yml")).unwrap();
    (dir, p)
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("/".to_string()),
        Just("\\".to_string()),
        "[a-z_-]{1,6}",
        "[éß東]{1,3}",
        Just("x".repeat(120)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn a_snapshot_lands_in_its_folder_and_a_projects_folder_in_the_project(
        id in proptest::collection::vec(piece(), 1..6).prop_map(|v| v.concat()),
        folder in proptest::collection::vec(piece(), 0..4).prop_map(|v| v.concat()),
        absolute in any::<bool>(),
        confined in any::<bool>(),
    ) {
        let (_tmp, project) = project();
        let dir: PathBuf = if absolute { Path::new("/tmp").join(&folder) } else { project.dir.join("tests").join(&folder) };
        match snapshot_target(&project, &dir, &id, confined) {
            Err(_) => {}
            Ok(path) => {
                prop_assert_eq!(path.parent(), Some(dir.as_path()), "{:?} {:?}", id, dir);
                let name = format!("{id}-snapshot.yml");
                prop_assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(name.as_str()));
                prop_assert!(!id.contains(['/', '\\']), "{:?}", id);
                prop_assert!(path.file_name().unwrap().len() <= 255);
                if confined {
                    let real = crate::shared::paths::real_location(&dir);
                    prop_assert!(real.as_ref().is_some_and(|r| r.starts_with(&project.dir)), "{:?} outside {:?}", real, project.dir);
                }
            }
        }
        // Where nothing could go wrong it is written: a plain id in the project's own folder.
        prop_assert!(snapshot_target(&project, &project.dir.join("tests"), "plain-id", true).is_ok());
    }
}
