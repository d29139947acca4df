//! The pending-action store on disk: staged previews and custom actions
//! (`pending`) in the shapes of format version 3 (`pending_format`), the
//! sessions that own them (`session`), and the
//! undo journal's records. Holds plans; never writes source files.

pub mod pending;
pub mod session;
pub(crate) mod pending_format;
mod retention;

pub use retention::{JOURNAL_MAX_BYTES, JOURNAL_MAX_RECORDS, PENDING_MAX_AGE_DAYS, PENDING_MAX_BYTES, PENDING_MAX_COUNT, RESOLVED_MAX_AGE_DAYS, RESOLVED_MAX_COUNT};
