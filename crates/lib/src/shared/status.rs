//! The statuses users read in JSON and text, as types. Each serializes to the
//! exact lower-case string of docs/DESIGN.md section 5 (`no_changes`,
//! `not_selected`, ...) and prints the same way (padding honoured, for the
//! aligned per-file lines), so no code compares status strings.

use serde::{Deserialize, Serialize};

macro_rules! status {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The exact string of this status.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}

status! {
    /// What `resolve` does with an action: its `action` input, and
    /// `AST_EDIT_ACTION` for a command-backed one.
    Action {
        /// Carry the action out.
        Apply => "apply",
        /// Drop it.
        Discard => "discard",
    }
}

status! {
    /// `status` of the preview details.
    PreviewStatus {
        /// Staged as a pending action.
        Pending => "pending",
        /// Nothing to change; nothing staged.
        NoChanges => "no_changes",
        /// `run -U` wrote every file.
        Applied => "applied",
        /// `run -U` wrote some files; the rest are listed.
        Incomplete => "incomplete",
        /// `run -U` wrote nothing.
        Failed => "failed",
    }
}

status! {
    /// `status` of an apply report.
    ApplyStatus {
        /// Every selected file was written and verified.
        Applied => "applied",
        /// Something is `outstanding`.
        Incomplete => "incomplete",
    }
}

status! {
    /// `status` of one file of an apply report.
    FileStatus {
        /// Written and verified.
        Applied => "applied",
        /// Changed or deleted since the preview; not written.
        Stale => "stale",
        /// Written, but it does not hold the planned bytes.
        Failed => "failed",
    }
}

status! {
    /// `status` of an `outstanding` entry (of an apply or an undo).
    OutstandingStatus {
        /// Changed or deleted since the preview (or since the apply, for undo).
        Stale => "stale",
        /// Could not be written or restored.
        Failed => "failed",
        /// Left out by `extra.files` or declined in the review.
        NotSelected => "not_selected",
    }
}

status! {
    /// `status` of an undo report.
    UndoStatus {
        /// Every file is back as it was.
        Restored => "restored",
        /// Some files were left alone (listed in `outstanding`).
        Incomplete => "incomplete",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_serialize_and_print_as_their_strings() {
        assert_eq!(serde_json::to_string(&PreviewStatus::NoChanges).unwrap(), "\"no_changes\"");
        assert_eq!(serde_json::to_string(&OutstandingStatus::NotSelected).unwrap(), "\"not_selected\"");
        assert_eq!(serde_json::from_str::<FileStatus>("\"stale\"").unwrap(), FileStatus::Stale);
        assert_eq!(format!("[{:<8}]", FileStatus::Applied), "[applied ]");
        assert_eq!(UndoStatus::Restored.to_string(), "restored");
    }
}

/// How a pending action ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    /// `resolve apply` carried it out.
    Applied,
    /// `resolve discard` dropped it.
    Discarded,
    /// It was applied, then `undo` restored its files.
    Undone,
    /// `ast-edit pending --clear` dropped it unresolved (no command ran).
    Cleared,
    /// The store's retention dropped it unresolved (see the module docs).
    Expired,
    /// A later preview of the same session with the same ops and paths replaced
    /// it (its record names that one).
    Superseded,
}
