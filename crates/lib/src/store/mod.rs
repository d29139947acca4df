//! The pending-action store on disk: staged previews and custom actions
//! (`pending`) in the shapes of format version 4 (`pending_format`; an
//! `ast_edit` entry's plan as the store's own types: `stored_plan` and the
//! `stored_*` files beside it), the sessions that own them (`session`), and
//! the undo journal's records; and the scan cache of reports (`scan_cache`).
//! Holds plans; never writes source files.

pub mod pending;
pub mod session;
pub(crate) mod pending_format;
mod retention;
pub mod scan_cache;
mod stored_plan;
mod stored_request;
mod stored_skip;
mod stored_text;
mod stored_warning;

/// Most bytes of one file of the store read back (a pending action, a resolved
/// record, an undo record's `record.json`): a larger one, or one that is not a
/// regular file (a FIFO, a link to `/dev/zero`), is reported as damaged, never
/// read (docs/DESIGN.md §7).
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// Reads a file of the store: [`crate::shared::named::read_capped`] at
/// [`MAX_ENTRY_BYTES`].
pub(crate) fn read_entry(path: &std::path::Path) -> std::result::Result<Vec<u8>, crate::shared::named::Unread> {
    crate::shared::named::read_capped(path, MAX_ENTRY_BYTES)
}

pub use retention::{
    JOURNAL_MAX_BYTES, JOURNAL_MAX_RECORDS, Kept, PENDING_MAX_AGE_DAYS, PENDING_MAX_BYTES, PENDING_MAX_COUNT, RESOLVED_MAX_AGE_DAYS, RESOLVED_MAX_COUNT,
};
