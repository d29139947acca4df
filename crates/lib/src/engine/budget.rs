//! The work one file's matching may do, and the request's time, if it has a limit
//! (docs/DESIGN.md §2.5.7). The plan sets a file's meter around its work
//! ([`Budget::within`]); every step of a walk over the file's tree ([`super::metered`],
//! and the engine's own walks) is counted on it ([`tick`]), and so is the text ast-grep
//! builds ([`built`]). Counts, not time: [`MAX_FILE_STEPS`], [`MAX_STACK_USE`],
//! [`text_budget`]; a time limit only where one was asked, and a stop flag, both polled
//! every [`POLL_EVERY`] steps. Once a limit is met the file's walks all end and the file
//! is skipped with the reason ([`spent`]), never half matched.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::request::read::{SkipReason, WorkLimit};

pub use crate::request::MAX_FILE_STEPS;

/// Most stack one file's matching may use, in bytes, below where its work
/// started (the workers have far more: `THREAD_STACK_BYTES`).
pub const MAX_STACK_USE: usize = 4 << 20;

/// Steps between two polls of the stop flag and the time limit.
pub const POLL_EVERY: u64 = 4096;

/// The most text (bytes) transforms and fixes may build for a file of `len`
/// bytes: 16 times its size plus 256 MiB.
pub fn text_budget(len: usize) -> u64 {
    (len as u64).saturating_mul(16).saturating_add(256 << 20)
}

/// One request's budget: its time limit, if any, and its stop flag. Clones
/// share the flag and the peak.
#[derive(Clone, Debug)]
pub struct Budget {
    until: Option<(Instant, Duration)>,
    stop: Arc<AtomicBool>,
    /// The most steps per file.
    steps: u64,
    /// The most work one file did so far ([`Budget::note`]).
    peak: Arc<Mutex<Peak>>,
}

/// The most work one file of a request did, each with the index of the file
/// (in the list the caller gave [`Budget::note`]): how far a run stayed under
/// each limit (`--stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Peak {
    /// Steps.
    pub steps: (u64, Option<usize>),
    /// Bytes of stack below the file's start.
    pub stack: (u64, Option<usize>),
    /// Bytes of text built by transforms and fixes.
    pub text: (u64, Option<usize>),
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new()
    }
}

impl Budget {
    /// A budget of [`MAX_FILE_STEPS`] per file, without a time limit.
    pub fn new() -> Budget {
        Budget { until: None, stop: Arc::default(), steps: MAX_FILE_STEPS, peak: Arc::default() }
    }

    /// A budget that ends `limit` from now.
    pub fn timed(limit: Duration) -> Budget {
        Budget { until: Some((Instant::now() + limit, limit)), ..Budget::new() }
    }

    /// A budget of `steps` per file, without a time limit: an apply's re-run
    /// matches as the preview did, whatever the time.
    pub fn with_steps(steps: u64) -> Budget {
        Budget { steps, ..Budget::new() }
    }

    /// The budget of request `req`: its steps per file, and its time limit
    /// from now, if it has one.
    pub fn of(req: &crate::request::Request) -> Budget {
        let b = req.time_limit.map_or_else(Budget::new, Budget::timed);
        Budget { steps: req.max_steps, ..b }
    }

    /// Adds the work of the file whose meter this thread holds (call it inside
    /// [`Budget::within`], after the file's work) to the request's peak, as
    /// file `item`.
    pub fn note(&self, item: usize) {
        let (steps, stack, text) = used();
        let mut guard = self.peak.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let peak = &mut *guard;
        for (at, now) in [(&mut peak.steps, steps), (&mut peak.stack, stack as u64), (&mut peak.text, text)] {
            // On a tie the first file in the list: the same at any thread count.
            if now > at.0 || (now == at.0 && now > 0 && at.1.is_some_and(|i| item < i)) {
                *at = (now, Some(item));
            }
        }
    }

    /// The most work one file did so far, of those noted.
    pub fn peak(&self) -> Peak {
        *self.peak.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stops every file of the request at its next poll (a cancelled request).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Runs `f` under a fresh meter of [`Budget::new`] when the thread has
    /// no file's meter (an engine call outside a plan: a rule check, an
    /// apply's re-run, standard input), else as it is.
    pub(crate) fn ensure<R>(f: impl FnOnce() -> R) -> R {
        if METER.with(|m| m.base.get() != 0) { f() } else { Budget::new().within(f) }
    }

    /// Runs `f` (one file's work) on this thread with a fresh meter under
    /// this budget.
    pub fn within<R>(&self, f: impl FnOnce() -> R) -> R {
        let here = 0u8;
        let base = std::hint::black_box(&here) as *const u8 as usize;
        let before = METER.with(|m| m.enter(base, self.clone()));
        // Put back on the way out, a panic too (rayon may run another file on
        // this thread inside `f`, which sets and restores its own).
        struct Restore(Option<Saved>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(saved) = self.0.take() {
                    METER.with(|m| m.leave(saved));
                }
            }
        }
        let _restore = Restore(Some(before));
        f()
    }
}

/// Why a file's meter stopped it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Limit(WorkLimit),
    Late,
    Cancelled,
}

/// The meter of the file the current thread works on.
struct Meter {
    steps: Cell<u64>,
    /// The step count at which [`Meter::slow`] runs next (0 once stopped).
    check_at: Cell<u64>,
    next_poll: Cell<u64>,
    text: Cell<u64>,
    text_limit: Cell<u64>,
    /// How many times its input one transform step may make its output.
    growth: Cell<u64>,
    /// The stack address where the file's work started (0: no file).
    base: Cell<usize>,
    deepest: Cell<usize>,
    stopped: Cell<Option<Stop>>,
    budget: RefCell<Option<Budget>>,
    /// The most steps of this file.
    limit: Cell<u64>,
}

/// A meter's state, kept while a nested file's work runs.
struct Saved {
    steps: u64,
    check_at: u64,
    next_poll: u64,
    text: u64,
    text_limit: u64,
    growth: u64,
    base: usize,
    deepest: usize,
    stopped: Option<Stop>,
    budget: Option<Budget>,
    limit: u64,
}

thread_local! {
    static METER: Meter = const {
        Meter {
            steps: Cell::new(0),
            check_at: Cell::new(u64::MAX),
            next_poll: Cell::new(u64::MAX),
            text: Cell::new(0),
            text_limit: Cell::new(u64::MAX),
            growth: Cell::new(1),
            base: Cell::new(0),
            deepest: Cell::new(0),
            stopped: Cell::new(None),
            budget: RefCell::new(None),
            limit: Cell::new(u64::MAX),
        }
    };
}

impl Meter {
    fn enter(&self, base: usize, budget: Budget) -> Saved {
        Saved {
            limit: self.limit.replace(budget.steps),
            steps: self.steps.replace(0),
            check_at: self.check_at.replace(POLL_EVERY.min(budget.steps)),
            next_poll: self.next_poll.replace(POLL_EVERY),
            text: self.text.replace(0),
            text_limit: self.text_limit.replace(u64::MAX),
            growth: self.growth.replace(1),
            base: self.base.replace(base),
            deepest: self.deepest.replace(0),
            stopped: self.stopped.replace(None),
            budget: self.budget.replace(Some(budget)),
        }
    }

    fn leave(&self, s: Saved) {
        self.steps.set(s.steps);
        self.check_at.set(s.check_at);
        self.next_poll.set(s.next_poll);
        self.text.set(s.text);
        self.text_limit.set(s.text_limit);
        self.growth.set(s.growth);
        self.base.set(s.base);
        self.deepest.set(s.deepest);
        self.stopped.set(s.stopped);
        *self.budget.borrow_mut() = s.budget;
        self.limit.set(s.limit);
    }

    fn stop(&self, why: Stop) -> bool {
        if self.stopped.get().is_none() {
            self.stopped.set(Some(why));
        }
        self.check_at.set(0);
        false
    }

    /// The stack used below the file's start, at the caller.
    #[inline(always)]
    fn stack_used(&self) -> usize {
        let here = 0u8;
        let at = std::hint::black_box(&here) as *const u8 as usize;
        let base = self.base.get();
        if base == 0 { 0 } else { base.saturating_sub(at) }
    }

    /// The poll and the limits, past [`Meter::check_at`] steps.
    #[cold]
    fn slow(&self) -> bool {
        if self.stopped.get().is_some() || self.base.get() == 0 {
            return self.stopped.get().is_none();
        }
        let steps = self.steps.get();
        if steps >= self.limit.get() {
            return self.stop(Stop::Limit(WorkLimit::Steps));
        }
        if steps >= self.next_poll.get() {
            self.next_poll.set(steps + POLL_EVERY);
            let budget = self.budget.borrow();
            if let Some(b) = budget.as_ref() {
                if b.stop.load(Ordering::Relaxed) {
                    drop(budget);
                    return self.stop(Stop::Cancelled);
                }
                if b.until.is_some_and(|(until, _)| Instant::now() >= until) {
                    drop(budget);
                    return self.stop(Stop::Late);
                }
            }
        }
        self.check_at.set(self.next_poll.get().min(self.limit.get()));
        true
    }
}

/// Counts `n` steps of the current file's work; false once its budget is
/// spent (then its walks must end).
#[inline]
pub(crate) fn tick(n: u64) -> bool {
    METER.with(|m| {
        let steps = m.steps.get().wrapping_add(n);
        m.steps.set(steps);
        let used = m.stack_used();
        if used > m.deepest.get() {
            m.deepest.set(used);
            if used > MAX_STACK_USE {
                return m.stop(Stop::Limit(WorkLimit::Stack));
            }
        }
        steps < m.check_at.get() || m.slow()
    })
}

/// Counts `n` bytes of text built for the current file, and checks that the
/// next transform step, which may make `next` bytes of input that many times
/// longer ([`set_text`]), still fits; false once the budget is spent (then
/// the text must not be built).
pub(crate) fn built(n: usize, next: usize) -> bool {
    METER.with(|m| {
        if m.stopped.get().is_some() {
            return false;
        }
        let text = m.text.get().saturating_add(n as u64);
        m.text.set(text);
        let ahead = (next as u64).saturating_mul(m.growth.get());
        if text.saturating_add(ahead) > m.text_limit.get() {
            return m.stop(Stop::Limit(WorkLimit::Text));
        }
        true
    })
}

/// Sets the current file's text budget ([`text_budget`] of its length `len`,
/// or of its largest part) and how many times its input one transform step
/// of its rules may make its output (`growth`, the most of its parts').
pub(crate) fn set_text(len: usize, growth: u64) {
    METER.with(|m| {
        if m.base.get() != 0 {
            // A file's regions of embedded code share its meter: the
            // largest part sets the budget.
            let limit = m.text_limit.get();
            m.text_limit.set(if limit == u64::MAX { text_budget(len) } else { limit.max(text_budget(len)) });
            m.growth.set(m.growth.get().max(growth));
        }
    });
}

/// Why the current file must stop now, if it must: a limit of its meter, the
/// request's time, or a cancel. `None` outside [`Budget::within`]. Polls the
/// stop flag and the time on the way.
pub(crate) fn spent() -> Option<SkipReason> {
    METER.with(|m| {
        if m.base.get() == 0 {
            return None;
        }
        if m.stopped.get().is_none() {
            m.next_poll.set(0);
            m.slow();
        }
        Some(match m.stopped.get()? {
            Stop::Limit(what) => SkipReason::OverLimit { what, limit: limit_of(what, m) },
            Stop::Late => {
                let secs = m.budget.borrow().as_ref().and_then(|b| b.until).map_or(0, |(_, d)| d.as_secs());
                SkipReason::TookTooLong { limit_secs: secs }
            }
            Stop::Cancelled => SkipReason::Stopped,
        })
    })
}

/// The value of limit `what` on meter `m`.
fn limit_of(what: WorkLimit, m: &Meter) -> u64 {
    match what {
        WorkLimit::Steps => m.limit.get(),
        WorkLimit::Stack => MAX_STACK_USE as u64,
        WorkLimit::Text => m.text_limit.get(),
    }
}

/// The current file's work so far: steps, the most stack used, text built.
pub(crate) fn used() -> (u64, usize, u64) {
    METER.with(|m| (m.steps.get(), m.deepest.get(), m.text.get()))
}

/// Sets the current file's work to `work` ([`used`]'s three counts), for a
/// file whose result was stored by a run that did that work (the scan cache,
/// `plan/preview_cache.rs`): the request's peak (`--stats`) is then what it
/// is without the cache. Nothing outside [`Budget::within`].
pub(crate) fn replay(work: (u64, usize, u64)) {
    METER.with(|m| {
        if m.base.get() != 0 {
            m.steps.set(work.0);
            m.deepest.set(work.1);
            m.text.set(work.2);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_budget_nothing_is_spent_and_a_stop_or_a_past_deadline_is() {
        assert_eq!(spent(), None);
        assert!(tick(MAX_FILE_STEPS + 1));
        let b = Budget::new();
        assert_eq!(b.within(spent), None);
        let over = Budget::timed(Duration::ZERO);
        assert_eq!(over.within(spent), Some(SkipReason::TookTooLong { limit_secs: 0 }));
        b.stop();
        assert_eq!(b.within(spent), Some(SkipReason::Stopped));
        // Nested: the inner budget, then the outer one again.
        let fresh = Budget::new();
        assert_eq!(b.within(|| (fresh.within(spent), spent())), (None, Some(SkipReason::Stopped)));
        assert_eq!(spent(), None);
    }

    #[test]
    fn steps_text_and_stack_each_stop_the_file_and_the_walks_end_there() {
        let b = Budget::new();
        let steps = b.within(|| {
            assert!(tick(MAX_FILE_STEPS - 1));
            (tick(1), tick(1), spent())
        });
        assert_eq!(steps, (false, false, Some(SkipReason::OverLimit { what: WorkLimit::Steps, limit: MAX_FILE_STEPS })));
        let text = b.within(|| {
            set_text(10, 4);
            let limit = text_budget(10);
            assert!(built(limit as usize - 40, 10));
            (built(1, 10), tick(1), spent())
        });
        assert_eq!(text, (false, false, Some(SkipReason::OverLimit { what: WorkLimit::Text, limit: text_budget(10) })));
        fn down(n: usize) -> bool {
            let pad = [0u8; 1024];
            std::hint::black_box(&pad);
            tick(1) && (n == 0 || down(n - 1))
        }
        // 8 MiB of frames stop at 4 MiB, on a thread with room for them.
        let stack = std::thread::Builder::new()
            .stack_size(32 << 20)
            .spawn(move || b.within(|| (down(8 << 10), spent(), used().1 > MAX_STACK_USE)))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(stack, (false, Some(SkipReason::OverLimit { what: WorkLimit::Stack, limit: MAX_STACK_USE as u64 }), true));
    }
}
