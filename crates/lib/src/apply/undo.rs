//! `undo`: the files of the caller's last apply (or of the action named by id)
//! put back from the journal, only where a file still has the bytes the apply
//! wrote, and never under a later apply of the same file (docs/DESIGN.md section
//! 4.7).

use super::*;
use crate::shared::message::{Say, Words};
use crate::store::session::owner_label;

/// Result of `undo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoOutcome {
    /// The action undone.
    pub id: String,
    /// Its label, when its undo record has one (records of builds before
    /// labels were journalled have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `restored` or `incomplete`.
    pub status: UndoStatus,
    /// Files now holding their original bytes: those put back, and those that
    /// already held them (never written by an interrupted apply, or put back since).
    pub restored: Vec<String>,
    /// Files left alone, with reasons.
    pub outstanding: Vec<Outstanding>,
    /// The files of `restored` that already held their original bytes and were
    /// not written: counted apart in the text, not a key of the JSON.
    #[serde(skip)]
    pub unchanged: Vec<String>,
    /// Some file could not be written back (`outstanding` says why), so the
    /// undo record is kept for the next undo: said in the text, not a key of
    /// the JSON.
    #[serde(skip)]
    pub kept: bool,
}

impl UndoOutcome {
    /// The result text.
    pub fn text(&self) -> String {
        let unchanged: std::collections::HashSet<&String> = self.unchanged.iter().collect();
        let put_back: Vec<&String> = self.restored.iter().filter(|r| !unchanged.contains(r)).collect();
        let label = self.label.as_deref().map_or_else(String::new, |l| format!(" ({})", escape_controls(l)));
        let mut s = format!("Undid {}{label}: restored {}", self.id, plural(put_back.len(), "file"));
        match self.unchanged.len() {
            0 => {}
            1 => s.push_str("; 1 file already held its original bytes (never written, or put back since) and was left as it is"),
            n => s.push_str(&format!("; {n} files already held their original bytes (never written, or put back since) and were left as they are")),
        }
        s.push('.');
        for r in put_back {
            s.push_str(&format!("\n  restored {}", display_name(r)));
        }
        for o in &self.outstanding {
            s.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
        }
        if self.kept {
            s.push_str("\nThe undo record is kept, originals and all: undo again once these files can be written.");
        }
        s
    }
}

/// The result of `undo` as both front ends report it: `{content, isError,
/// details}` (the shape of a resolve result).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoResult {
    /// The result text.
    pub content: String,
    /// True when there was nothing to undo.
    pub is_error: bool,
    /// The report, when something was undone.
    pub details: Option<UndoOutcome>,
}

impl UndoResult {
    /// Undoes the caller's last apply, or with `id` the last apply of that action
    /// (see [`pick_undo`]); a refusal's text is in the words of `words`.
    pub fn run(store: &Locked<'_>, id: Option<&str>, words: &dyn Words) -> Result<Self> {
        Ok(match pick_undo(store, id)? {
            Err(refused) => UndoResult { content: refused.render(words), is_error: true, details: None },
            Ok(choice) => {
                let r = undo(store, choice)?;
                UndoResult { content: r.text(), is_error: false, details: Some(r) }
            }
        })
    }

    /// Exit code: 0 restored, 1 nothing to undo (or refused), 3 some files left alone.
    pub fn exit_code(&self) -> i32 {
        match &self.details {
            None => 1,
            Some(r) if r.status == UndoStatus::Restored => 0,
            Some(_) => 3,
        }
    }
}

/// The text when the journal holds no undo record at all (docs/DESIGN.md §5.3).
pub const NOTHING_TO_UNDO: &str = "Nothing to undo: no applied action in the journal.";

/// Other sessions' applies listed when the caller has none to undo; the rest
/// are counted.
const MAX_OTHER_APPLIES_LISTED: usize = 10;

/// The undo record that [`undo`] is to take, picked by [`pick_undo`]: its
/// action's id, the session that applied it, and the absolute paths of its files
/// (the MCP server checks them before it undoes).
#[derive(Clone, Debug)]
pub struct UndoChoice {
    /// The action's id (`run-U` or `review` for an apply without one).
    pub id: String,
    /// The session that applied it.
    pub owner: String,
    /// The files it wrote, absolute.
    pub files: Vec<PathBuf>,
    dir: PathBuf,
}

/// A record of the journal as [`pick_undo`] weighs it.
struct Seen {
    id: String,
    owner: String,
    /// Absolute path and display path of each file.
    files: Vec<(PathBuf, String)>,
}

/// Picks the undo record to take, changing nothing: with `id`, the newest
/// record of that action, whichever session applied it; without, the newest
/// record applied by the caller's session (another session's only by `id`).
/// `Err(text)` (nothing to write) when there is none, or when a later record, of
/// any session, wrote one of its files: undo records are a stack per file, and
/// that later one goes first.
pub fn pick_undo(store: &Locked<'_>, id: Option<&str>) -> Result<std::result::Result<UndoChoice, Text>> {
    let dirs = journal_records(store)?;
    if dirs.is_empty() && id.is_none() {
        return Ok(Err(Text::from(NOTHING_TO_UNDO)));
    }
    let session = store.session();
    let mut newer: Vec<Seen> = Vec::new();
    for dir in dirs.into_iter().rev() {
        let rec = read_record(&dir)?;
        let wanted = match id {
            Some(id) => rec.id == id,
            None => session.owns(&rec.owner),
        };
        if !wanted {
            newer.push(Seen {
                id: rec.id,
                owner: owner_label(&rec.owner, rec.owner_client.as_deref()),
                files: rec.files.into_iter().map(|f| (f.abs, f.path)).collect(),
            });
            continue;
        }
        let mine: std::collections::HashSet<&Path> = rec.files.iter().map(|f| f.abs.as_path()).collect();
        let later = newer.iter().find_map(|n| {
            let hit: Vec<&String> = n.files.iter().filter(|(abs, _)| mine.contains(abs.as_path())).map(|(_, p)| p).collect();
            (!hit.is_empty()).then_some((n, hit))
        });
        if let Some((n, hit)) = later {
            let more = if hit.len() > 1 { format!(" and {} more of its files", hit.len() - 1) } else { String::new() };
            return Ok(Err(Text::from(format!(
                "Cannot undo {}: a later apply, {} by {}, also wrote {}{more}; undo {} first: ",
                rec.id,
                n.id,
                n.owner,
                display_name(hit[0]),
                n.id
            ))
            .say(Say::UndoById(n.id.clone()))
            .lit(". Nothing was written.")));
        }
        return Ok(Ok(UndoChoice { id: rec.id, owner: rec.owner, files: rec.files.into_iter().map(|f| f.abs).collect(), dir }));
    }
    if let Some(id) = id {
        if let Ok(Some(r)) = store.resolution(id)
            && r.resolution == Resolution::Undone
        {
            return Ok(Err(crate::shared::error::resolved_text(id, r.resolution, &r.at, r.superseded_by.as_deref())));
        }
        return Ok(Err(Text::from(format!(
            "Nothing to undo: the journal holds no apply of `{id}` (it keeps the newest {} applies).",
            crate::store::JOURNAL_MAX_RECORDS
        ))));
    }
    let mut t = Text::from(format!(
        "Nothing to undo: no applied action of this session in the journal.\nOther sessions' applies, newest first, which a session undoes only by id ({}):",
        plural(newer.len(), "apply")
    ));
    for n in newer.iter().take(MAX_OTHER_APPLIES_LISTED) {
        t.push_str(&format!("\n  {}  {}  {}", n.id, n.owner, plural(n.files.len(), "file")));
    }
    if newer.len() > MAX_OTHER_APPLIES_LISTED {
        t.push_str(&format!("\n  … and {} more", newer.len() - MAX_OTHER_APPLIES_LISTED));
    }
    Ok(Err(t.lit("\nUndo one by its id: ").say(Say::UndoById(newer[0].id.clone())).lit(".")))
}

/// Restores the files of the undo record `choice` ([`pick_undo`]), where they
/// still hold the bytes apply wrote: each original is read from the journal and
/// checked against its recorded digest first, and written back keeping the
/// file's mode, owner and group. The record is then removed.
pub fn undo(store: &Locked<'_>, choice: UndoChoice) -> Result<UndoOutcome> {
    let dir = choice.dir;
    let rec = read_record(&dir)?;
    // Opened as any named file: never waits on a FIFO put there.
    let mut originals =
        crate::shared::named::open_regular(&dir.join(ORIGINALS)).map(|(f, len)| (len, f)).map_err(|e| format!("its {ORIGINALS} {}", e.reason()));
    let mut restored = Vec::new();
    let mut unchanged = Vec::new();
    let mut outstanding = Vec::new();
    let mut tried = 0;
    for f in &rec.files {
        let left = |reason: String| Outstanding { path: f.path.clone(), status: OutstandingStatus::Stale, reason };
        let (current, meta) = match read_if_size(&f.abs, &sizes_of(f, true, true)) {
            Ok(c) => c,
            Err(true) => {
                outstanding.push(left("deleted since the apply; left alone".into()));
                continue;
            }
            Err(false) => {
                outstanding.push(left("changed since the apply; left alone".into()));
                continue;
            }
        };
        let now = crate::shared::hash::digest(&current);
        if now == f.original_digest {
            // Never written (an interrupted apply) or already put back.
            restored.push(f.path.clone());
            unchanged.push(f.path.clone());
            continue;
        }
        if now != f.written_digest {
            outstanding.push(left("changed since the apply; left alone".into()));
            continue;
        }
        tried += 1;
        let restore = match originals.as_mut() {
            Err(e) => Err(format!("cannot read the undo journal: {e}")),
            Ok(_) if super::injected_at("AST_EDIT_FAIL_RESTORE_AT", tried) => Err("injected restore failure".to_string()),
            Ok((size, blob)) => restore_one(blob, *size, f, &meta),
        };
        match restore {
            Ok(()) => restored.push(f.path.clone()),
            Err(reason) => outstanding.push(Outstanding { path: f.path.clone(), status: OutstandingStatus::Failed, reason }),
        }
    }
    // A file that could not be written back (a full disk, a folder that refuses
    // writes, an unreadable journal) keeps the whole record: the originals are
    // never dropped while one of them is still needed, and the next undo finds
    // the files put back so far holding their original bytes and tries the rest.
    let kept = outstanding.iter().any(|o| o.status == OutstandingStatus::Failed);
    if !kept {
        // The action's resolved record (a pending action's; `run -U` and `review`
        // have none) says it was undone. Before the journal record goes: if this
        // fails, the next undo finds the files restored and tries again. A record
        // that cannot be read is left as it is.
        if let Ok(Some(_)) = store.resolution(&rec.id) {
            store.mark(&rec.id, Resolution::Undone)?;
        }
        std::fs::remove_dir_all(&dir).map_err(|e| journal_err(&dir, e))?;
    }
    Ok(UndoOutcome {
        kept,
        id: rec.id,
        label: rec.label,
        status: if outstanding.is_empty() { UndoStatus::Restored } else { UndoStatus::Incomplete },
        restored,
        outstanding,
        unchanged,
    })
}

/// Puts one file back from the journal's `originals.bin` (`blob`, of `size`
/// bytes): the saved bytes must have the recorded original digest, and the file (which holds what
/// apply wrote, `meta`) must have a single link; the original gets the file's
/// current mode, owner and group (those apply kept).
pub(super) fn restore_one(blob: &mut std::fs::File, size: u64, f: &JournalFile, meta: &std::fs::Metadata) -> std::result::Result<(), String> {
    use std::io::{Read, Seek, SeekFrom};
    // Only this file's bytes, checked against the journal's size first (a damaged
    // record's length allocates nothing).
    if (f.offset as u64).checked_add(f.len as u64).is_none_or(|end| end > size) {
        return Err("the undo journal is truncated; left as it is".into());
    }
    let mut orig = vec![0; f.len];
    blob.seek(SeekFrom::Start(f.offset as u64)).and_then(|_| blob.read_exact(&mut orig)).map_err(|e| e.to_string())?;
    if crate::shared::hash::digest(&orig) != f.original_digest {
        return Err("the undo journal's copy of this file is corrupted (digest mismatch); left as it is".into());
    }
    if let Some(reason) = hard_links(meta, "restoring") {
        return Err(format!("{reason}; left as it is"));
    }
    // Held open across the rename and read again after it, as apply does
    // (docs/DESIGN.md §4.7): a write in place made meanwhile is not lost.
    let changed = "changed by another process during the undo: left as that process wrote it";
    super::journal::injected_pause("AST_EDIT_PAUSE_BEFORE_RESTORE", 1);
    let mut held = hold(&f.abs, FileId::of(meta), f.written_len).ok_or_else(|| changed.to_string())?;
    atomic::replace_keeping(&f.abs, &orig, &Kept::of(meta)).map_err(|e| e.to_string())?;
    match still_holds(&mut held, f.written_len, &f.written_digest) {
        Ok(false) => give_back(&mut held, &f.abs, (f.len as u64, &f.original_digest), &Kept::of(meta), "undo").and(Err(changed.to_string())),
        _ => Ok(()),
    }
}
