//! One big job on two threads: the per-edit checks of a file with tens of
//! thousands of edits are shared, in chunks, between the thread that has the
//! file and one helper thread, which first runs one other job of the same file
//! (docs/DESIGN.md section 2.5.10). A plain scoped thread, not a pool's worker:
//! it never takes another file's work onto its stack. Results come back in the
//! items' order whichever thread computed them, so the output is the same at
//! any thread count.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Fewest items worth a second thread (below it, all on the calling thread).
pub(crate) const MIN_ITEMS: usize = 2048;

/// Items per chunk taken at a time.
const CHUNK: usize = 256;

/// The helper thread's stack: the checks walk trees with cursors, without
/// recursion; this is headroom.
const HELPER_STACK_BYTES: usize = 16 << 20;

/// `aside()` and `f` of each of `items`, in order. With fewer than
/// [`MIN_ITEMS`] items (or when no thread can be started) all runs on the
/// calling thread; else one helper thread runs `aside` and then takes chunks of
/// `items` as the calling thread does. A panic on either thread reaches the
/// caller.
///
/// `init` makes a state for each run of items taken in order (all of them on
/// the calling thread, or each chunk), which `f` may carry from one item to
/// the next (a cursor that goes on from the last item's place).
pub(crate) fn beside<T, A, R, S>(items: &[T], aside: impl FnOnce() -> A + Send, init: impl Fn() -> S + Sync, f: impl Fn(&mut S, &T) -> R + Sync) -> (A, Vec<R>)
where
    T: Sync,
    A: Send,
    R: Send,
{
    let (a, (), out) = beside_with(items, aside, || (), init, f);
    (a, out)
}

/// [`beside`], the calling thread running `mine()` first, before it takes
/// its chunks of `items` (a job that must stay on it, or that the helper's
/// `aside` is to run beside). With fewer than [`MIN_ITEMS`] items, `aside`,
/// `mine` and the items run in turn on the calling thread.
pub(crate) fn beside_with<T, A, M, R, S>(
    items: &[T],
    aside: impl FnOnce() -> A + Send,
    mine: impl FnOnce() -> M,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> (A, M, Vec<R>)
where
    T: Sync,
    A: Send,
    R: Send,
{
    if items.len() < MIN_ITEMS {
        let a = aside();
        let m = mine();
        let mut state = init();
        return (a, m, items.iter().map(|t| f(&mut state, t)).collect());
    }
    let chunks = items.len().div_ceil(CHUNK);
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let c = next.fetch_add(1, Ordering::Relaxed);
            if c >= chunks {
                return done;
            }
            let from = c * CHUNK;
            let mut state = init();
            done.push((c, items[from..(from + CHUNK).min(items.len())].iter().map(|t| f(&mut state, t)).collect()));
        }
    };
    let aside = Mutex::new(Some(aside));
    let take_aside = || aside.lock().unwrap_or_else(|p| p.into_inner()).take();
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new().name("ast-edit-beside".into()).stack_size(HELPER_STACK_BYTES).spawn_scoped(s, || {
            let job = take_aside();
            (job.map(|a| a()), take())
        });
        let m = mine();
        let mut mine = take();
        let (a, theirs) = match helper {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => (None, Vec::new()),
        };
        let a = match a {
            Some(a) => a,
            None => take_aside().expect("the aside job runs on one thread or the other")(),
        };
        mine.extend(theirs);
        mine.sort_unstable_by_key(|(c, _)| *c);
        (a, m, mine.into_iter().flat_map(|(_, r)| r).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_with_the_aside_job() {
        for n in [0, 1, MIN_ITEMS - 1, MIN_ITEMS, MIN_ITEMS * 3 + 7] {
            let items: Vec<usize> = (0..n).collect();
            let (a, out) = beside(&items, || "aside", || (), |_, &i| i * 2);
            assert_eq!(a, "aside");
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{n} items");
        }
    }

    #[test]
    fn a_panic_on_the_helper_reaches_the_caller() {
        let items: Vec<usize> = (0..MIN_ITEMS).collect();
        let caught = std::panic::catch_unwind(|| beside(&items, || panic!("aside failed"), || (), |_, &i| i));
        assert!(caught.is_err());
    }
}
