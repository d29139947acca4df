//! Paths every stage needs: the working directory, with an error that says so,
//! and where a path really leads once its symlinks are followed.

use std::path::{Component, Path, PathBuf};

use crate::shared::error::{Error, Result};

/// The process's working directory.
pub fn current_dir() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| Error::io("cannot read the working directory", e))
}

/// Where the absolute `path` really leads: its longest part that exists with
/// every symlink followed, then the rest as written (those names do not exist
/// yet, so no symlink can be among them). `None` when a part exists but cannot
/// be followed (a dangling or looping symlink, a folder that cannot be read):
/// where such a path leads is unknown, and a check of confinement refuses it.
///
/// A lexical check is not enough for a path that is not there yet: in
/// `link/new/file`, with `link` a symlink to another folder, creating `new`
/// and `file` writes in that other folder.
pub fn real_location(path: &Path) -> Option<PathBuf> {
    let parts: Vec<Component<'_>> = path.components().collect();
    for known in (1..=parts.len()).rev() {
        let head: PathBuf = parts[..known].iter().collect();
        match head.canonicalize() {
            Ok(mut real) => {
                for part in &parts[known..] {
                    match part {
                        Component::ParentDir => {
                            real.pop();
                        }
                        Component::CurDir => {}
                        other => real.push(other),
                    }
                }
                return Some(real);
            }
            // There but not to be followed: unknown.
            Err(_) if std::fs::symlink_metadata(&head).is_ok() => return None,
            Err(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_path_not_there_yet_leads_where_its_existing_symlinks_lead() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (inside, outside) = (base.join("in"), base.join("out"));
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        assert_eq!(real_location(&inside.join("link/new/file")), Some(outside.join("new/file")));
        assert_eq!(real_location(&inside.join("plain/new")), Some(inside.join("plain/new")));
        assert_eq!(real_location(&inside.join("link/../x")), Some(base.join("x")));
        std::os::unix::fs::symlink(base.join("nowhere"), inside.join("dangling")).unwrap();
        assert_eq!(real_location(&inside.join("dangling/new")), None);
    }
}
