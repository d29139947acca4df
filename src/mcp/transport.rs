//! The server's stdio transport: one JSON-RPC message per line on stdin, one per line on
//! stdout. It answers as JSON-RPC asks where rmcp's own transport does not (`-32700`,
//! `-32600`, `-32602`, and the server keeps serving), bounds what a client can make the
//! server hold ([`super::flow`]), and decides when the input has ended: at the end of
//! stdin or when stdout breaks, but only once every `resolve` it passed on has run to its
//! end ([`InFlight`], registered as the call is read). docs/DESIGN.md §2.10 and §4.10;
//! the replies as a client sees them: docs/MCP.md, "Errors" and "Shutdown".

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use super::flow::Flow;
pub(super) use super::in_flight::InFlight;
use super::in_flight::key;

/// Cap on one incoming line (one JSON-RPC message), as rmcp's own stdio transport
/// has: a longer line is dropped as it is read (memory never holds more of it) and
/// answered with `-32600`.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How long a `resolve` call read just before the input ended may take to start
/// (its handler task runs at the next turn of the runtime) before the server stops
/// waiting for it. A resolve that has started is waited for however long it takes.
pub const RESOLVE_START_GRACE: Duration = Duration::from_secs(5);

/// serde_json's nesting limit (not configurable): a deeper message is a parse error.
const JSON_DEPTH_LIMIT: usize = 128;

/// A line for the writer task, with where to report its outcome.
type Outgoing = (Vec<u8>, Option<oneshot::Sender<io::Result<()>>>);

/// A tool call read while it could not start (every slot taken, or the replies
/// backed up): the message and its key.
struct Held {
    msg: Box<RxJsonRpcMessage<RoleServer>>,
    key: String,
}

/// The transport: reads `read` line by line, writes through a task that owns the
/// writer (so that a reply written from [`Transport::receive`], which rmcp may drop
/// at any await, is never cut or lost).
pub(super) struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    out: Option<mpsc::UnboundedSender<Outgoing>>,
    /// Turns true when a write to stdout failed: the client cannot hear us.
    broken: watch::Receiver<bool>,
    in_flight: Arc<InFlight>,
    /// When the input ended (the grace of [`RESOLVE_START_GRACE`] counts from it).
    ended_at: Option<Instant>,
    flow: Arc<Flow>,
    /// The tool calls waiting for a slot, in the order read (each counted in
    /// `flow` as owed a reply).
    held: VecDeque<Held>,
    /// The input ended (why), with calls still held: they are passed on as
    /// slots free, then the end is reported.
    over: Option<&'static str>,
}

enum LineRead {
    Line,
    Oversized,
    Eof,
    Io(io::Error),
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    /// Must be called inside the runtime (it spawns the writer task).
    pub(super) fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W, in_flight: Arc<InFlight>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let (broken_tx, broken) = watch::channel(false);
        let flow = Arc::new(Flow::default());
        tokio::spawn(write_lines(write, rx, broken_tx, flow.clone()));
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            out: Some(tx),
            broken,
            in_flight,
            ended_at: None,
            flow,
            held: VecDeque::new(),
            over: None,
        }
    }

    /// Passes a request on to rmcp. A tool call takes a slot, and a `resolve` is
    /// registered as work the exit waits for ([`InFlight`]).
    fn pass(&mut self, msg: Box<RxJsonRpcMessage<RoleServer>>) -> RxJsonRpcMessage<RoleServer> {
        if let JsonRpcMessage::Request(r) = msg.as_ref()
            && let ClientRequest::CallToolRequest(call) = &r.request
        {
            self.flow.start_call(&key(&r.id));
            if call.params.name == "resolve" {
                self.in_flight.set(&r.id, "resolve", false);
            }
        }
        *msg
    }

    /// Reads one `\n`-terminated line into `self.line` (or what is left at the end
    /// of the input), never holding more than [`MAX_MESSAGE_BYTES`] of it.
    /// Cancel-safe: a partial line stays in `self.line`.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(a) => a,
                Err(e) => return LineRead::Io(e),
            };
            if available.is_empty() {
                // A last message without its `\n` is still a message.
                if !self.line.is_empty() && !self.discarding {
                    return LineRead::Line;
                }
                return LineRead::Eof;
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            let mut outcome = None;
            if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
            } else if self.line.len() + take > MAX_MESSAGE_BYTES + 1 {
                self.line.clear();
                self.discarding = newline.is_none();
                outcome = Some(LineRead::Oversized);
            } else {
                self.line.extend_from_slice(&available[..take]);
                if newline.is_some() {
                    outcome = Some(LineRead::Line);
                }
            }
            self.read.consume(take);
            if let Some(o) = outcome {
                return o;
            }
        }
    }

    /// Queues a reply written by the transport itself (no one awaits it).
    fn reply(&self, msg: &Value) {
        let mut bytes = serde_json::to_vec(msg).expect("a JSON value serializes");
        bytes.push(b'\n');
        self.queue(bytes, None);
    }

    /// Queues one line for the writer task at once, counted in [`Flow`] until it is
    /// written; `done` hears how the write went. False when the transport is closed.
    fn queue(&self, bytes: Vec<u8>, done: Option<oneshot::Sender<io::Result<()>>>) -> bool {
        let Some(out) = &self.out else { return false };
        let len = bytes.len();
        self.flow.queued(len);
        if out.send((bytes, done)).is_err() {
            self.flow.written(len);
            return false;
        }
        true
    }

    /// The input has ended: writes out the replies queued so far, then waits for the
    /// work in flight ([`InFlight::finish`]).
    async fn finish(&mut self, why: &str) {
        self.in_flight.close_after(super::SHUTDOWN_GRACE);
        let ended_at = *self.ended_at.get_or_insert_with(Instant::now);
        if let Some(out) = &self.out {
            let (tx, rx) = oneshot::channel();
            if out.send((Vec::new(), Some(tx))).is_ok() {
                let _ = rx.await;
            }
        }
        self.in_flight.finish(why, ended_at + RESOLVE_START_GRACE).await;
    }
}

/// Writes each line and flushes it. After the first failure (the client closed its
/// end of stdout) nothing more is written, each later line fails at once, and
/// `broken` turns true.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut rx: mpsc::UnboundedReceiver<Outgoing>, broken: watch::Sender<bool>, flow: Arc<Flow>) {
    let mut failed: Option<io::ErrorKind> = None;
    while let Some((bytes, done)) = rx.recv().await {
        let len = bytes.len();
        let result = match failed {
            Some(kind) => Err(io::Error::new(kind, "stdout is closed")),
            None if bytes.is_empty() => Ok(()),
            None => match write.write_all(&bytes).await {
                Ok(()) => write.flush().await,
                Err(e) => Err(e),
            },
        };
        if let Err(e) = &result
            && failed.is_none()
        {
            eprintln!("ast-edit mcp: cannot write to stdout ({e}): the client is gone; ending the session");
            failed = Some(e.kind());
            let _ = broken.send(true);
        }
        // The empty line of `finish` was never counted.
        if len > 0 {
            flow.written(len);
        }
        if let Some(done) = done {
            let _ = done.send(result);
        }
    }
}

/// What to do with one line read.
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Reply(Value),
    Skip,
}

/// A JSON-RPC error object, with `id` (null when it cannot be told).
fn error_reply(id: Option<&Value>, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null), "error": {"code": code, "message": message}})
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The request methods this server answers; params of the wrong shape for one of
/// them are `-32602`, not "method not found".
const SERVED_METHODS: [&str; 5] = ["initialize", "ping", "server/discover", "tools/list", "tools/call"];

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Why the params of a `tools/call` do not fit, in the caller's words.
fn tools_call_params_error(params: Option<&Value>) -> String {
    let Some(Value::Object(p)) = params else {
        return "`params` must be a JSON object like {\"name\": \"ast_edit\", \"arguments\": {...}}".to_string();
    };
    match p.get("name") {
        Some(Value::String(_)) => {}
        Some(other) => {
            return format!(
                "`params.name` must be a string naming one of the tools `tools/list` lists (`ast_search`, `ast_edit`, `resolve`, ...), not a {}",
                json_type(other)
            );
        }
        None => {
            return "`params.name` is missing: name the tool to call, one of those `tools/list` lists (`ast_search`, `ast_edit`, `resolve`, ...)".to_string();
        }
    }
    if let Some(args) = p.get("arguments")
        && !matches!(args, Value::Object(_) | Value::Null)
    {
        let like = match p.get("name").and_then(Value::as_str) {
            Some("ast_edit") => " (like {\"ops\": [{\"pat\": \"foo($A)\", \"out\": \"bar($A)\"}]})",
            Some("resolve") => " (like {\"action\": \"apply\", \"reason\": \"...\"})",
            _ => "",
        };
        return format!("`arguments` must be a JSON object holding the tool's arguments by name{like}, not a {}", json_type(args));
    }
    match serde_path_to_error::deserialize::<_, rmcp::model::CallToolRequestParams>(Value::Object(p.clone())) {
        Err(e) => {
            let path = e.path().to_string();
            let at = if path == "." { "`params`".to_string() } else { format!("`params.{path}`") };
            format!("{at}: {}", e.into_inner())
        }
        Ok(_) => "`params` do not match the MCP schema of `tools/call`".to_string(),
    }
}

/// Reads one line (without its `\n`).
fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let why = if e.to_string().starts_with("recursion limit exceeded") {
                format!("the message nests JSON deeper than {JSON_DEPTH_LIMIT} levels")
            } else {
                e.to_string()
            };
            return Incoming::Reply(error_reply(None, PARSE_ERROR, format!("Parse error: {why}. Each line must hold one JSON-RPC message, a JSON object.")));
        }
    };
    let Value::Object(obj) = &value else {
        let why = if value.is_array() {
            "batches (JSON arrays) are not supported; send one message per line".to_string()
        } else {
            format!("a message must be a JSON object, not a {}", json_type(&value))
        };
        return Incoming::Reply(error_reply(None, INVALID_REQUEST, format!("Invalid Request: {why}")));
    };
    let id = obj.get("id").filter(|v| v.is_string() || v.is_i64());
    let method = obj.get("method").and_then(Value::as_str);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") && obj.contains_key("id") && method.is_some() {
        return Incoming::Reply(error_reply(id, INVALID_REQUEST, "Invalid Request: `jsonrpc` must be \"2.0\"".to_string()));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(JsonRpcMessage::Request(r)) => match &r.request {
            ClientRequest::CustomRequest(c) if SERVED_METHODS.contains(&c.method.as_str()) => {
                let why = if c.method == "tools/call" {
                    tools_call_params_error(obj.get("params"))
                } else {
                    format!("the params do not match the MCP schema of `{}`", c.method)
                };
                Incoming::Reply(error_reply(id, INVALID_PARAMS, format!("Invalid params: {why}")))
            }
            _ => Incoming::Message(Box::new(JsonRpcMessage::Request(r))),
        },
        Ok(msg) => Incoming::Message(Box::new(msg)),
        // Responses and notifications never get a reply: a notification of a method
        // rmcp does not know is ignored (as rmcp does), one it knows is logged.
        Err(e) if obj.contains_key("id") && !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error")) => {
            eprintln!("ast-edit mcp: ignored a malformed response: {e}");
            Incoming::Skip
        }
        Err(e) if !obj.contains_key("id") => {
            if let Some(m) = method.filter(|m| is_known_notification(m)) {
                eprintln!("ast-edit mcp: ignored a malformed `{m}` notification: {e}");
            }
            Incoming::Skip
        }
        Err(e) => Incoming::Reply(error_reply(id, INVALID_REQUEST, format!("Invalid Request: {e}"))),
    }
}

fn is_known_notification(method: &str) -> bool {
    matches!(method, "notifications/cancelled" | "notifications/initialized" | "notifications/progress" | "notifications/roots/list_changed")
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<RoleServer>) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let id = match &item {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        let closed = || io::Error::new(io::ErrorKind::NotConnected, "the transport is closed");
        // Queued now, not when rmcp polls the future: the reply counts in `flow`
        // from the moment its request stops counting.
        let queued = match serde_json::to_vec(&item) {
            Ok(mut bytes) => {
                bytes.push(b'\n');
                let (tx, rx) = oneshot::channel();
                if self.queue(bytes, Some(tx)) { Ok(rx) } else { Err(closed()) }
            }
            Err(e) => Err(io::Error::other(e)),
        };
        if let Some(id) = id {
            self.in_flight.answered(id);
            self.flow.end(&key(id));
        }
        async move { queued?.await.map_err(|_| closed())? }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // A held call starts as soon as a slot is free.
            if self.flow.has_room()
                && let Some(h) = self.held.pop_front()
            {
                return Some(self.pass(h.msg));
            }
            let flow = self.flow.clone();
            let changed = flow.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.flow.has_room() && !self.held.is_empty() {
                continue;
            }
            let mut broken = self.broken.clone();
            if let Some(why) = self.over {
                // The input ended: the held calls go on as slots free, unless
                // nobody can hear their replies.
                if self.held.is_empty() || *broken.borrow() {
                    for h in self.held.drain(..) {
                        self.flow.end(&h.key);
                    }
                    self.finish(why).await;
                    return None;
                }
                tokio::select! {
                    _ = broken.wait_for(|b| *b) => {}
                    _ = &mut changed => {}
                }
                continue;
            }
            let paused = self.flow.full();
            let read = tokio::select! {
                biased;
                _ = broken.wait_for(|b| *b) => None,
                _ = &mut changed, if paused || !self.held.is_empty() => continue,
                r = self.read_line(), if !paused => Some(r),
            };
            match read {
                Some(LineRead::Line) => {}
                Some(LineRead::Oversized) => {
                    self.reply(&error_reply(
                        None,
                        INVALID_REQUEST,
                        format!("Invalid Request: a message longer than {MAX_MESSAGE_BYTES} bytes (MAX_MESSAGE_BYTES) was dropped"),
                    ));
                    continue;
                }
                // The input ended: calls that may be abandoned stop after the
                // grace, so that the held ones get their slots soon.
                Some(LineRead::Eof) => {
                    self.over = Some("stdin closed");
                    self.in_flight.close_after(super::SHUTDOWN_GRACE);
                    continue;
                }
                Some(LineRead::Io(e)) => {
                    eprintln!("ast-edit mcp: cannot read stdin: {e}");
                    self.over = Some("stdin failed");
                    self.in_flight.close_after(super::SHUTDOWN_GRACE);
                    continue;
                }
                None => {
                    self.over = Some("stdout closed");
                    self.in_flight.close_after(super::SHUTDOWN_GRACE);
                    continue;
                }
            }
            let line = std::mem::take(&mut self.line);
            let bytes = line.len();
            let incoming = classify(line.strip_suffix(b"\n").unwrap_or(&line));
            self.line = line;
            self.line.clear();
            match incoming {
                Incoming::Message(msg) => {
                    match msg.as_ref() {
                        // Every request is owed a reply from here, whatever its method.
                        JsonRpcMessage::Request(r) => {
                            let key = key(&r.id);
                            if !self.flow.read(key.clone(), bytes) {
                                let id = serde_json::to_value(&r.id).ok();
                                self.reply(&error_reply(
                                    id.as_ref(),
                                    INVALID_REQUEST,
                                    format!("Invalid Request: id {key} belongs to a request not answered yet; give each request an id of its own"),
                                ));
                                continue;
                            }
                            if matches!(r.request, ClientRequest::CallToolRequest(_)) && !(self.flow.has_room() && self.held.is_empty()) {
                                self.held.push_back(Held { msg, key });
                                continue;
                            }
                            return Some(self.pass(msg));
                        }
                        JsonRpcMessage::Notification(n) => {
                            if let ClientNotification::CancelledNotification(c) = &n.notification
                                && let Some(id) = &c.params.request_id
                            {
                                let k = key(id);
                                if let Some(at) = self.held.iter().position(|h| h.key == k) {
                                    // Never passed on: it just goes.
                                    self.held.remove(at);
                                    self.flow.end(&k);
                                    continue;
                                }
                                // rmcp sends no reply to a cancelled request.
                                self.flow.end(&k);
                            }
                        }
                        _ => {}
                    }
                    return Some(*msg);
                }
                Incoming::Reply(v) => self.reply(&v),
                Incoming::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        self.out = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// Feeds `input` to a transport and collects what it passes on and what it
    /// writes back.
    async fn run(input: Vec<u8>) -> (Vec<String>, String) {
        let (mut client_out, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_in) = tokio::io::duplex(1 << 16);
        let feed = tokio::spawn(async move {
            client_out.write_all(&input).await.unwrap();
        });
        let mut t = LineTransport::new(server_in, server_out, Arc::default());
        let mut passed = Vec::new();
        while let Some(m) = Transport::<RoleServer>::receive(&mut t).await {
            passed.push(serde_json::to_value(&m).unwrap()["method"].as_str().unwrap_or("?").to_string());
        }
        feed.await.unwrap();
        Transport::<RoleServer>::close(&mut t).await.unwrap();
        drop(t);
        let mut written = String::new();
        client_in.read_to_string(&mut written).await.unwrap();
        (passed, written)
    }

    #[tokio::test]
    async fn an_oversized_line_is_dropped_and_answered_and_a_last_line_needs_no_newline() {
        let mut input = vec![b'a'; MAX_MESSAGE_BYTES + 10];
        input.extend_from_slice(b"\nnot json\n");
        input.extend_from_slice(br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#);
        let (passed, written) = run(input).await;
        assert_eq!(passed, ["ping"]);
        let lines: Vec<Value> = written.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{written}");
        assert_eq!(lines[0]["error"]["code"], -32600);
        assert!(lines[0]["error"]["message"].as_str().unwrap().contains("MAX_MESSAGE_BYTES"), "{written}");
        assert_eq!(lines[1]["error"]["code"], -32700);
    }

    fn reply(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Incoming::Reply(v) => v,
            Incoming::Message(m) => panic!("{line}: passed on as {m:?}"),
            Incoming::Skip => panic!("{line}: skipped"),
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_with_id_null() {
        for line in ["not json", "{\"jsonrpc\": \"2.0\", \"id\": 1, ", "\u{7f}"] {
            let r = reply(line);
            assert_eq!(r["id"], Value::Null, "{line}");
            assert_eq!(r["error"]["code"], -32700, "{line}");
            assert!(r["error"]["message"].as_str().unwrap().starts_with("Parse error: "), "{r}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(reply(&deep)["error"]["message"].as_str().unwrap().contains("deeper than 128 levels"));
    }

    #[test]
    fn json_that_is_not_a_message_is_an_invalid_request() {
        assert_eq!(reply("[]")["error"]["code"], -32600);
        assert_eq!(reply("3")["error"]["code"], -32600);
        let r = reply(r#"{"id": 7, "method": "tools/list"}"#);
        assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(7), json!(-32600)));
        assert_eq!(r["error"]["message"], "Invalid Request: `jsonrpc` must be \"2.0\"");
        let r = reply(r#"{"jsonrpc": "2.0", "id": 8, "method": 3}"#);
        assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(8), json!(-32600)));
    }

    #[test]
    fn tools_call_with_arguments_not_an_object_is_invalid_params() {
        let r = reply(r#"{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "ast_edit", "arguments": "x"}}"#);
        assert_eq!(r["id"], "a");
        assert_eq!(r["error"]["code"], -32602);
        assert_eq!(
            r["error"]["message"],
            "Invalid params: `arguments` must be a JSON object holding the tool's arguments by name (like {\"ops\": [{\"pat\": \"foo($A)\", \"out\": \"bar($A)\"}]}), not a string"
        );
        let r = reply(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}"#);
        assert!(r["error"]["message"].as_str().unwrap().contains("`params.name` is missing"), "{r}");
        let r = reply(r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call"}"#);
        assert!(r["error"]["message"].as_str().unwrap().contains("`params` must be a JSON object"), "{r}");
    }

    #[test]
    fn good_messages_pass_and_notifications_never_get_a_reply() {
        for line in [
            r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "resolve", "arguments": {"action": "apply"}}}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}"#,
            "\u{feff}{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\r",
        ] {
            assert!(matches!(classify(line.as_bytes()), Incoming::Message(_)), "{line}");
        }
        for line in ["", "  ", r#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 3}"#, r#"{"method": "$/lsp"}"#] {
            assert!(matches!(classify(line.as_bytes()), Incoming::Skip), "{line}");
        }
    }
}
