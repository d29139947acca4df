//! ast-grep projects and rule files: an `sgconfig.yml` with its rules, utilities
//! and tests (`project`), `ast-edit test`'s rule tests (`ruletest`) and whole-file
//! checks (`checks`), command-line severity overrides (`overwrite`), the unused-suppression check (`suppression`), what became of a scan's rules for its trace (`inspect`), and the refusal of the retired JSON rule catalog with its
//! rules written as rule configs (`retired`). Above `plan/`, whose diffs they
//! show; below the store.

pub mod checks;
pub mod inspect;
pub mod overwrite;
pub mod project;
mod project_keys;
pub mod retired;
pub mod suppression;
pub mod ruletest;
#[cfg(test)]
mod snapshot_prop;
