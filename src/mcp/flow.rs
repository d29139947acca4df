//! Backpressure of the stdio transport (docs/DESIGN.md §2.10): at most
//! [`MAX_CALLS_IN_FLIGHT`] `tools/call` requests run at once, later ones wait in the
//! transport in order (a cancelled waiting call is dropped there), and reading stops
//! while the waiting calls hold more than [`MAX_HELD_BYTES`] or the unsent replies more
//! than [`MAX_UNSENT_BYTES`], so a client that writes without reading blocks on its own
//! writes and the server's memory stays bounded.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Most `tools/call` requests running at once.
pub const MAX_CALLS_IN_FLIGHT: usize = 16;

/// Most bytes of `tools/call` requests read and waiting for a free slot.
pub const MAX_HELD_BYTES: usize = 16 * 1024 * 1024;

/// Most bytes of replies queued for stdout before reading pauses.
pub const MAX_UNSENT_BYTES: usize = 16 * 1024 * 1024;

/// The calls running and the bytes queued for stdout, shared by the reading
/// side, the replies, and the writer task.
#[derive(Debug, Default)]
pub(super) struct Flow {
    calls: Mutex<HashSet<String>>,
    unsent: AtomicUsize,
    /// Fires when a call ends or the writer has written a line.
    pub(super) changed: Notify,
}

impl Flow {
    /// A call with this request key was passed on.
    pub(super) fn start(&self, key: String) {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).insert(key);
    }

    /// The call with this key was answered or cancelled.
    pub(super) fn end(&self, key: &str) {
        if self.calls.lock().unwrap_or_else(|e| e.into_inner()).remove(key) {
            self.changed.notify_waiters();
        }
    }

    /// A slot is free for one more call.
    pub(super) fn has_room(&self) -> bool {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).len() < MAX_CALLS_IN_FLIGHT
    }

    /// `n` bytes were queued for stdout.
    pub(super) fn queued(&self, n: usize) {
        self.unsent.fetch_add(n, Ordering::Relaxed);
    }

    /// `n` queued bytes were written (or dropped).
    pub(super) fn written(&self, n: usize) {
        self.unsent.fetch_sub(n, Ordering::Relaxed);
        self.changed.notify_waiters();
    }

    /// The replies not yet written are over [`MAX_UNSENT_BYTES`].
    pub(super) fn backed_up(&self) -> bool {
        self.unsent.load(Ordering::Relaxed) > MAX_UNSENT_BYTES
    }
}
