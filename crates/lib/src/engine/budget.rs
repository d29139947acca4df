//! The time a file's matching may take, and the request's (docs/DESIGN.md
//! section 2.5.7): a deadline per file and one per request, and a stop flag
//! that a cancelled request raises. The plan sets them around each file
//! ([`Budget::within`], on the thread that works on it); the engine polls them
//! between nodes of its walk ([`spent`]), every [`POLL_EVERY`] nodes, and before
//! it parses a file. Matching one node is bounded by the static limits of
//! `compile::work` and of the code depth, so the poll comes round within a
//! bounded time and a stopped file ends its work there: skipped with the
//! reason, or, for a cancelled request, thrown away with the whole run.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::request::read::SkipReason;

/// Most time matching one file may take (parsing, matching, rewriting, the
/// checks): past it the file is skipped with the reason.
pub const MAX_FILE_WORK: Duration = Duration::from_secs(10);

/// Most time one request's files may take together: the files not finished by
/// then are skipped with the reason.
pub const MAX_REQUEST_WORK: Duration = Duration::from_secs(600);

/// Nodes walked between two polls of the budget.
pub const POLL_EVERY: usize = 256;

/// One request's budget: its deadline and its stop flag. Clones share the flag.
#[derive(Clone, Debug)]
pub struct Budget {
    until: Instant,
    stop: Arc<AtomicBool>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new()
    }
}

/// The budget of the file the current thread works on.
struct Current {
    file_until: Instant,
    budget: Budget,
}

thread_local! {
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

impl Budget {
    /// A request's budget, from now: [`MAX_REQUEST_WORK`].
    pub fn new() -> Budget {
        Budget { until: Instant::now() + MAX_REQUEST_WORK, stop: Arc::new(AtomicBool::new(false)) }
    }

    /// Stops every file of the request at its next poll (a cancelled request).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Runs `f` (one file's work) on this thread under this budget: its own
    /// deadline is [`MAX_FILE_WORK`] from now, or the request's if sooner.
    pub fn within<R>(&self, f: impl FnOnce() -> R) -> R {
        let file_until = (Instant::now() + MAX_FILE_WORK).min(self.until);
        let before = CURRENT.with(|c| c.replace(Some(Current { file_until, budget: self.clone() })));
        // Put back on the way out, a panic too (rayon may run another file on
        // this thread inside `f`, which sets and restores its own).
        struct Restore(Option<Option<Current>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take().flatten();
                CURRENT.with(|c| *c.borrow_mut() = before);
            }
        }
        let _restore = Restore(Some(before));
        f()
    }
}

/// Why the current file must stop now, if it must: the request was stopped,
/// or a deadline passed. `None` outside [`Budget::within`].
pub(crate) fn spent() -> Option<SkipReason> {
    CURRENT.with(|c| {
        let c = c.borrow();
        let c = c.as_ref()?;
        if c.budget.stop.load(Ordering::Relaxed) {
            return Some(SkipReason::Stopped);
        }
        let now = Instant::now();
        if now < c.file_until {
            return None;
        }
        Some(if now >= c.budget.until {
            SkipReason::TookTooLong { limit_secs: MAX_REQUEST_WORK.as_secs(), request: true }
        } else {
            SkipReason::TookTooLong { limit_secs: MAX_FILE_WORK.as_secs(), request: false }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_budget_nothing_is_spent_and_a_stop_or_a_past_deadline_is() {
        assert_eq!(spent(), None);
        let b = Budget::new();
        assert_eq!(b.within(spent), None);
        let over = Budget { until: Instant::now(), stop: Arc::default() };
        assert_eq!(over.within(spent), Some(SkipReason::TookTooLong { limit_secs: 600, request: true }));
        b.stop();
        assert_eq!(b.within(spent), Some(SkipReason::Stopped));
        // Nested: the inner budget, then the outer one again.
        let fresh = Budget::new();
        assert_eq!(b.within(|| (fresh.within(spent), spent())), (None, Some(SkipReason::Stopped)));
        assert_eq!(spent(), None);
    }
}
