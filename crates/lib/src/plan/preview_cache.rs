//! A preview's entries in the scan cache (`plan/cache.rs`, docs/DESIGN.md
//! section 2.14): what the engine made of one file ([`Rewrite`]: the edits,
//! the checks' findings, the matches left alone or dropped, the findings of
//! rules without a fix; or nothing matched), with the work it took. The plan
//! derives the rest (diff, notes, findings located, the diagnosis's facts)
//! from it in the same code whether the rewrite was made or read.
//!
//! Not stored: the new text, which a hit splices again from the edits and
//! checks against the digest the entry keeps (a mismatch is a miss), and a
//! rewrite a limit, the time or a cancel stopped.

use serde::{Deserialize, Serialize};

use crate::engine::{Rewrite, budget, splice};
use crate::shared::hash::digest;

/// The entries' format; a change of it changes every key.
pub(crate) const FORMAT: &str = "ast-edit preview cache 1";

/// An entry as written.
#[derive(Serialize)]
struct EntryOut<'a> {
    /// The rewrite and `sha256:` of its new text; `None`: nothing matched.
    rewrite: Option<(&'a Rewrite, String)>,
    /// The file's work ([`budget::used`]).
    work: (u64, usize, u64),
}

/// An entry as read.
#[derive(Deserialize)]
struct EntryIn {
    rewrite: Option<(Rewrite, String)>,
    work: (u64, usize, u64),
}

/// The entry of `rw`, the engine's result for a file, with the work the
/// current file's meter counted; `None` (not stored) when a limit, the time
/// or a cancel stopped the file.
pub(crate) fn encode(rw: Option<&Rewrite>) -> Option<Vec<u8>> {
    if rw.is_some_and(|rw| rw.refused.is_some()) {
        return None;
    }
    let entry = EntryOut { rewrite: rw.map(|rw| (rw, digest(&rw.new_text))), work: budget::used() };
    Some(serde_json::to_vec(&entry).expect("plain data serializes"))
}

/// The engine's result for the file `text` read from `entry`, its new text
/// spliced again, and its work replayed on the current file's meter
/// ([`budget::replay`]); `None` (a miss) when the entry does not parse, a
/// place in it is not in the text, or the spliced text is not the one stored.
pub(crate) fn decode(text: &str, entry: &[u8]) -> Option<Option<Rewrite>> {
    let entry: EntryIn = serde_json::from_slice(entry).ok()?;
    let rw = match entry.rewrite {
        None => None,
        Some((mut rw, new_digest)) => {
            if !fits(text, &rw) {
                return None;
            }
            let new_text = splice(text.as_bytes(), &rw.edits);
            if digest(&new_text) != new_digest {
                return None;
            }
            rw.new_text = new_text;
            Some(rw)
        }
    };
    budget::replay(entry.work);
    Some(rw)
}

/// True when every place `rw` names is a character boundary of `text` and its
/// edits are in order without overlaps (what splicing and locating need).
fn fits(text: &str, rw: &Rewrite) -> bool {
    let edits_ordered = rw.edits.iter().all(|e| e.start <= e.end) && rw.edits.windows(2).all(|w| w[0].end <= w[1].start);
    let places = rw.edits.iter().flat_map(|e| [e.start, e.end]).chain(rw.dropped.iter().map(|d| d.at)).chain(rw.unparsed.iter().copied());
    edits_ordered && places.chain(rw.findings.iter().map(|f| f.start)).all(|at| text.is_char_boundary(at))
}
