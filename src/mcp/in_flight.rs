//! The work the MCP server's exit waits for, and the end of the session
//! (docs/DESIGN.md section 4.10): each `resolve` call from the moment the
//! transport reads it, the staging of each `ast_edit`, and the clock after
//! which the work that may be abandoned (planning, searching) stops
//! ([`InFlight::closing`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::RequestId;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The work that must end before the process exits: each `resolve` call (read from
/// stdin, then running), and the staging step of each `ast_edit` (planning is not
/// waited for: a cancelled request abandons it). Keyed by request id; the value
/// says which tool and whether its handler has started.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    calls: Mutex<HashMap<String, (&'static str, bool)>>,
    changed: Notify,
    announced: AtomicBool,
    /// Turns true [`super::SHUTDOWN_GRACE`] after the input ended: the work
    /// that may be abandoned (planning, searching) stops then.
    closing: AtomicBool,
    closed: Notify,
    /// The clock of `closing` was started.
    close_started: AtomicBool,
}

/// Marks a call as running until dropped (when its work ends, however it ends).
pub(super) struct Running {
    in_flight: Arc<InFlight>,
    key: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.in_flight.calls.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.key);
        self.in_flight.changed.notify_waiters();
    }
}

pub(super) fn key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

impl InFlight {
    pub(super) fn set(&self, id: &RequestId, tool: &'static str, running: bool) {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).insert(key(id), (tool, running));
        self.changed.notify_waiters();
    }

    /// Request `id` (a call of `tool`, "resolve" or "ast_edit") runs work that must
    /// end before the process exits, until the guard is dropped.
    pub(super) fn start(self: &Arc<Self>, id: &RequestId, tool: &'static str) -> Running {
        self.set(id, tool, true);
        Running { in_flight: self.clone(), key: key(id) }
    }

    /// A reply to `id` went out: if its handler never started (rmcp answered it
    /// itself), it is no longer awaited.
    pub(super) fn answered(&self, id: &RequestId) {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if calls.get(&key(id)).is_some_and(|(_, running)| !running) {
            calls.remove(&key(id));
            drop(calls);
            self.changed.notify_waiters();
        }
    }

    /// The session is ending: planning and searching stop now.
    pub(super) fn closing(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    /// Waits until [`InFlight::closing`].
    pub(super) async fn wait_closing(&self) {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            if self.closing() {
                return;
            }
            closed.await;
        }
    }

    /// Starts the clock of [`InFlight::closing`] (once): the input ended.
    pub(super) fn close_after(self: &Arc<Self>, grace: Duration) {
        if self.close_started.swap(true, Ordering::Relaxed) {
            return;
        }
        let me = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(grace).await;
            me.closing.store(true, Ordering::Relaxed);
            me.closed.notify_waiters();
        });
    }

    /// (tools running, calls waiting to start)
    fn counts(&self) -> (Vec<&'static str>, usize) {
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let mut running: Vec<&'static str> = calls.values().filter(|(_, r)| *r).map(|(t, _)| *t).collect();
        running.sort_unstable();
        running.dedup();
        (running, calls.values().filter(|(_, r)| !r).count())
    }

    /// Waits until every call has ended: those running however long they take,
    /// those not started yet until `grace_end`. `why` says on stderr why the server
    /// is waiting (once per process).
    pub(super) async fn finish(&self, why: &str, grace_end: Instant) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (running, waiting) = self.counts();
            if running.is_empty() && waiting == 0 {
                return;
            }
            if running.is_empty() && Instant::now() >= grace_end {
                eprintln!("ast-edit mcp: {waiting} `resolve` call(s) read before {why} never started; not waiting for them");
                return;
            }
            if !self.announced.swap(true, Ordering::Relaxed) {
                let what = if running.contains(&"ast_edit") && !running.contains(&"resolve") {
                    "the `ast_edit` call in flight to finish staging before exiting (a preview is staged whole or not at all)"
                } else {
                    "the `resolve` call in flight to finish before exiting (an apply writes all its files or none)"
                };
                eprintln!("ast-edit mcp: {why}; waiting for {what}");
            }
            if running.is_empty() {
                tokio::select! {
                    _ = notified => {}
                    _ = tokio::time::sleep_until(grace_end) => {}
                }
            } else {
                notified.await;
            }
        }
    }
}
