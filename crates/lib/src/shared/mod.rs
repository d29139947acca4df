//! Stage 0, below every other folder: what every stage shares and no stage owns.
//! Typed errors and their exit codes (`error`), messages as typed texts that
//! each front end words (`message`), the statuses users read (`status`), text
//! budgets (`text`), file names as people see them (`quote`), atomic whole-file
//! writes (`atomic`), walks over syntax trees (`nodes`), the working
//! directory (`paths`), reading a named file safely (`named`), checking the
//! ignore files a walk reads before the `ignore` crate reads them
//! (`ignore_files`), content digests (`hash`) and one big file's checks shared
//! with a second thread (`beside`).
//! Imports no other folder.

pub(crate) mod atomic;
pub(crate) mod beside;
pub mod error;
pub mod hash;
pub mod ignore_files;
pub mod message;
pub mod named;
pub(crate) mod nodes;
pub mod paths;
pub mod quote;
pub mod status;
pub mod text;
