//! Backpressure of the stdio transport (docs/DESIGN.md §2.10): one bound on what a
//! client can make the server owe it, whatever the methods it calls. Every request
//! read (`tools/call`, `tools/list`, `ping`, `initialize`, any method) is owed a reply
//! from the moment it is read until that reply is queued for stdout or the request is
//! cancelled; every reply queued (rmcp's, and the transport's own error replies to
//! lines it cannot read) counts until it is written. Reading stops while the requests
//! owed number [`MAX_UNANSWERED`] or hold more than [`MAX_UNANSWERED_BYTES`], or while
//! the replies not yet written hold more than [`MAX_UNSENT_BYTES`], so a client that
//! writes without reading blocks on its own writes and the server's memory stays
//! bounded. Within that, at most [`MAX_CALLS_IN_FLIGHT`] `tools/call` requests run at
//! once; later ones wait in the transport in order (a cancelled waiting call is
//! dropped there), and none starts while the replies are backed up.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Most `tools/call` requests running at once.
pub const MAX_CALLS_IN_FLIGHT: usize = 16;

/// Most requests read and not yet answered, whatever their method: running or
/// waiting tool calls, and requests rmcp answers at once (`ping`, `tools/list`, ...)
/// whose replies are not yet queued.
pub const MAX_UNANSWERED: usize = 256;

/// Most bytes of the requests read and not yet answered (their lines as read).
pub const MAX_UNANSWERED_BYTES: usize = 16 * 1024 * 1024;

/// Most bytes of replies queued for stdout before reading pauses. Each line counts
/// its bytes and [`LINE_COST`] more.
pub const MAX_UNSENT_BYTES: usize = 16 * 1024 * 1024;

/// What one queued line counts beyond its bytes: the queue's slot, the task and the
/// channel that wait for it to be written, so that many small replies (pings) are
/// bounded as a few large ones are. Without it, a client that sent pings without
/// reading had a debug build hold 220 MB after 345,000 of them (16 MiB of their
/// replies is 440,000), about 550 bytes each; with it, 44 MB after 32,000.
pub const LINE_COST: usize = 512;

/// The requests owed a reply, by request key.
#[derive(Debug, Default)]
struct Owed {
    /// Each request's bytes, and whether it is a tool call that was started.
    requests: HashMap<String, (usize, bool)>,
    bytes: usize,
    /// Tool calls started and not yet answered.
    running: usize,
}

/// The requests owed a reply and the bytes queued for stdout, shared by the reading
/// side, the replies, and the writer task.
#[derive(Debug, Default)]
pub(super) struct Flow {
    owed: Mutex<Owed>,
    unsent: AtomicUsize,
    /// Fires when a request is answered or cancelled, or the writer has written a line.
    pub(super) changed: Notify,
}

impl Flow {
    fn owed(&self) -> std::sync::MutexGuard<'_, Owed> {
        self.owed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A request with this key and size was read: a reply is owed from now. False,
    /// and nothing counted, when a request with the same key is still owed one.
    pub(super) fn read(&self, key: String, bytes: usize) -> bool {
        let mut owed = self.owed();
        if owed.requests.contains_key(&key) {
            return false;
        }
        owed.requests.insert(key, (bytes, false));
        owed.bytes += bytes;
        true
    }

    /// The tool call with this key was passed on: it takes a slot.
    pub(super) fn start_call(&self, key: &str) {
        let mut owed = self.owed();
        if let Some((_, started)) = owed.requests.get_mut(key)
            && !*started
        {
            *started = true;
            owed.running += 1;
        }
    }

    /// The request with this key was answered (its reply queued), cancelled, or
    /// dropped before it was passed on.
    pub(super) fn end(&self, key: &str) {
        let mut owed = self.owed();
        if let Some((bytes, started)) = owed.requests.remove(key) {
            owed.bytes -= bytes;
            owed.running -= usize::from(started);
            drop(owed);
            self.changed.notify_waiters();
        }
    }

    /// A waiting tool call may start: a slot is free and the replies are not backed up.
    pub(super) fn has_room(&self) -> bool {
        self.owed().running < MAX_CALLS_IN_FLIGHT && !self.backed_up()
    }

    /// Reading must wait: the requests owed or the replies unsent are at their bound.
    pub(super) fn full(&self) -> bool {
        let owed = self.owed();
        owed.requests.len() >= MAX_UNANSWERED || owed.bytes > MAX_UNANSWERED_BYTES || self.backed_up()
    }

    /// A line of `n` bytes was queued for stdout.
    pub(super) fn queued(&self, n: usize) {
        self.unsent.fetch_add(n + LINE_COST, Ordering::Relaxed);
    }

    /// A queued line of `n` bytes was written (or dropped).
    pub(super) fn written(&self, n: usize) {
        self.unsent.fetch_sub(n + LINE_COST, Ordering::Relaxed);
        self.changed.notify_waiters();
    }

    /// The replies not yet written are over [`MAX_UNSENT_BYTES`].
    pub(super) fn backed_up(&self) -> bool {
        self.unsent.load(Ordering::Relaxed) > MAX_UNSENT_BYTES
    }
}
