//! ast-grep projects and rule files: an `sgconfig.yml` with its rules, utilities
//! and tests (`project`), `ast-edit test`'s rule tests (`ruletest`) and whole-file
//! checks (`checks`), and the JSON codemod catalog (`catalog`). Above `plan/`,
//! whose diffs they show; below the store.

pub mod catalog;
pub mod checks;
pub mod project;
pub mod ruletest;
