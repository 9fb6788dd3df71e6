//! One QUIC connection as the transport sees it: the sync-side handle (`Link`: non-blocking
//! send, stats, disconnect) and the async tasks that move its bytes (reliable stream writer and
//! reader, datagram reader with reassembly).
//!
//! Owns: per-connection queues and their bounds, the inbound byte budget (a semaphore whose
//! permits come back when the application polls a message), close reasons, loss sampling (the
//! sender's view from quinn, and the receiver's from the datagram sequence, see `seq`).
//! Must not: block the caller of `send`/`disconnect`/`stats`, allocate a frame before its
//! length is checked, or let one connection's backlog hold up another's tasks.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use quinn::{Connection, ConnectionError, ReadExactError, RecvStream, SendStream, VarInt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::seq::{SEQ_HEADER, SeqTracker};
use super::wire::{self, Datagram, Reassembler, ReassemblyLimits};
use crate::{Channel, DisconnectReason, LinkStats, MAX_RELIABLE_MESSAGE, SendError};

/// Application close codes (QUIC `APPLICATION_CLOSE` error codes).
pub(crate) const CODE_CLOSED: u32 = 0;
pub(crate) const CODE_PROTOCOL_VIOLATION: u32 = 1;
pub(crate) const CODE_OVERFLOW: u32 = 2;
pub(crate) const CODE_SHUTDOWN: u32 = 3;
/// A client that only read the server's identity (`QuicClient::probe_identity`).
pub(crate) const CODE_PROBE: u32 = 4;

/// Close reasons sent to the peer are cut to this many bytes.
const MAX_REASON_BYTES: usize = 512;
/// Bookkeeping charged per inbound message against the inbound byte budget.
const MESSAGE_OVERHEAD: usize = 64;
/// How long a reader may finish delivering what it already read after the connection closed.
const READER_GRACE: Duration = Duration::from_millis(200);
/// Loss samples: spacing and window.
const LOSS_SAMPLE_EVERY: Duration = Duration::from_millis(100);
const LOSS_WINDOW: Duration = Duration::from_secs(2);

/// Per-connection bounds (shared by server and client configs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_unreliable_message: usize,
    pub max_reliable_queue: usize,
    pub max_inbound_bytes: usize,
    pub close_flush_timeout: Duration,
    pub reassembly: ReassemblyLimits,
    /// quinn's datagram send buffer (what `datagram_backlog_bytes` is measured against).
    pub datagram_send_buffer: usize,
}

/// Where a link hands received messages (the server tags them with the peer id).
pub(crate) trait Sink: Send + Sync + 'static {
    fn received(&self, channel: Channel, payload: Vec<u8>, credit: OwnedSemaphorePermit);
}

enum WriterCmd {
    Frame(Bytes),
    Close(String),
}

#[derive(Debug, Default)]
struct LossSampler {
    samples: VecDeque<(Instant, u64, u64)>,
}

impl LossSampler {
    fn sample(&mut self, now: Instant, sent: u64, lost: u64) -> f64 {
        if self
            .samples
            .back()
            .is_none_or(|&(t, _, _)| now.saturating_duration_since(t) >= LOSS_SAMPLE_EVERY)
        {
            self.samples.push_back((now, sent, lost));
        }
        while self.samples.len() > 2
            && self
                .samples
                .front()
                .is_some_and(|&(t, _, _)| now.saturating_duration_since(t) > LOSS_WINDOW)
        {
            self.samples.pop_front();
        }
        let (_, sent0, lost0) = self.samples.front().copied().unwrap_or((now, 0, 0));
        let (ds, dl) = (sent.saturating_sub(sent0), lost.saturating_sub(lost0));
        let (s, l) = if ds == 0 { (sent, lost) } else { (ds, dl) };
        if s == 0 {
            0.0
        } else {
            (l as f64 / s as f64).min(1.0)
        }
    }
}

/// The sync side of one connection.
pub(crate) struct Link {
    conn: Connection,
    rt: tokio::runtime::Handle,
    limits: Limits,
    writer: mpsc::UnboundedSender<WriterCmd>,
    reliable_queued: AtomicUsize,
    closing: AtomicBool,
    local_reason: Mutex<Option<String>>,
    inbound: Arc<Semaphore>,
    next_msg_id: AtomicU32,
    next_datagram_seq: AtomicU32,
    rx_seq: Mutex<SeqTracker>,
    bytes_sent: AtomicU64,
    bytes_received: AtomicU64,
    messages_sent: AtomicU64,
    messages_received: AtomicU64,
    loss: Mutex<LossSampler>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("remote", &self.conn.remote_address())
            .field("closing", &self.closing.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Link {
    fn lock_reason(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.local_reason.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a message; never blocks.
    pub(crate) fn send(&self, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        if self.closing.load(Ordering::Acquire) || self.conn.close_reason().is_some() {
            return Err(SendError::NotConnected);
        }
        match channel {
            Channel::Reliable => self.send_reliable(payload)?,
            Channel::Unreliable | Channel::Voice => self.send_unreliable(channel, payload)?,
        }
        self.messages_sent.fetch_add(1, Ordering::Relaxed);
        self.bytes_sent
            .fetch_add(payload.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn send_reliable(&self, payload: &[u8]) -> Result<(), SendError> {
        if payload.len() > MAX_RELIABLE_MESSAGE {
            return Err(SendError::TooLarge {
                size: payload.len(),
                max: MAX_RELIABLE_MESSAGE,
            });
        }
        let cost = payload.len() + wire::FRAME_HEADER;
        let before = self.reliable_queued.fetch_add(cost, Ordering::AcqRel);
        if before + cost > self.limits.max_reliable_queue {
            self.reliable_queued.fetch_sub(cost, Ordering::AcqRel);
            tracing::warn!(
                remote = %self.conn.remote_address(),
                queued = before,
                "reliable send queue overflow: closing the connection"
            );
            self.close_now(
                CODE_OVERFLOW,
                "reliable send queue overflow: the peer is not keeping up",
            );
            return Err(SendError::QueueFull);
        }
        if self
            .writer
            .send(WriterCmd::Frame(wire::encode_frame(payload)))
            .is_err()
        {
            self.reliable_queued.fetch_sub(cost, Ordering::AcqRel);
            return Err(SendError::NotConnected);
        }
        Ok(())
    }

    fn send_unreliable(&self, channel: Channel, payload: &[u8]) -> Result<(), SendError> {
        let max = self.limits.max_unreliable_message;
        if payload.len() > max {
            return Err(SendError::TooLarge {
                size: payload.len(),
                max,
            });
        }
        // Read right before sending: it grows as path MTU discovery succeeds.
        let Some(dgram_max) = self.conn.max_datagram_size() else {
            return Err(SendError::NotConnected);
        };
        let id = self.next_msg_id.fetch_add(1, Ordering::Relaxed) as u16;
        let datagrams = wire::split(channel, id, payload, dgram_max.saturating_sub(SEQ_HEADER))
            .map_err(|e| SendError::TooLarge {
                size: payload.len(),
                max: e.max.min(max),
            })?;
        let total: usize = datagrams.iter().map(|d| d.len() + SEQ_HEADER).sum();
        if self.conn.datagram_send_buffer_space() < total {
            return Err(SendError::QueueFull);
        }
        for d in datagrams {
            let seq = self.next_datagram_seq.fetch_add(1, Ordering::Relaxed) as u16;
            let mut b = bytes::BytesMut::with_capacity(SEQ_HEADER + d.len());
            b.extend_from_slice(&seq.to_le_bytes());
            b.extend_from_slice(&d);
            match self.conn.send_datagram(b.freeze()) {
                Ok(()) => {}
                Err(quinn::SendDatagramError::TooLarge) => {
                    // The path shrank between the size check and the send (rare): the message
                    // is lost, as if the network dropped it.
                    return Ok(());
                }
                Err(_) => return Err(SendError::NotConnected),
            }
        }
        Ok(())
    }

    /// Flushes queued reliable data (bounded by the flush timeout), then closes.
    pub(crate) fn disconnect(&self, reason: &str) {
        if self.closing.swap(true, Ordering::AcqRel) {
            return;
        }
        *self.lock_reason() = Some(reason.to_owned());
        if self
            .writer
            .send(WriterCmd::Close(reason.to_owned()))
            .is_err()
        {
            self.conn
                .close(VarInt::from_u32(CODE_CLOSED), reason_bytes(reason));
            return;
        }
        // The writer may be stuck behind a peer that stopped reading: close regardless once
        // the flush time is up (closing twice is harmless).
        let conn = self.conn.clone();
        let reason = reason.to_owned();
        let wait = self.limits.close_flush_timeout;
        self.rt.spawn(async move {
            tokio::time::sleep(wait).await;
            conn.close(VarInt::from_u32(CODE_CLOSED), reason_bytes(&reason));
        });
    }

    /// Closes at once (nothing more is flushed).
    pub(crate) fn close_now(&self, code: u32, reason: &str) {
        self.closing.store(true, Ordering::Release);
        {
            let mut r = self.lock_reason();
            if r.is_none() {
                *r = Some(reason.to_owned());
            }
        }
        self.conn
            .close(VarInt::from_u32(code), reason_bytes(reason));
    }

    pub(crate) fn stats(&self) -> LinkStats {
        let s = self.conn.stats();
        let loss = self.loss.lock().unwrap_or_else(|p| p.into_inner()).sample(
            Instant::now(),
            s.path.sent_packets,
            s.path.lost_packets,
        );
        let (loss_in, datagrams_in, datagrams_missing) = {
            let rx = self.rx_seq.lock().unwrap_or_else(|p| p.into_inner());
            (rx.loss(), rx.datagrams_in(), rx.missing())
        };
        LinkStats {
            rtt: self.conn.rtt(),
            loss,
            loss_in,
            datagrams_in,
            datagrams_missing,
            bytes_sent: self.bytes_sent.load(Ordering::Relaxed),
            bytes_received: self.bytes_received.load(Ordering::Relaxed),
            messages_sent: self.messages_sent.load(Ordering::Relaxed),
            messages_received: self.messages_received.load(Ordering::Relaxed),
            max_datagram_size: self
                .conn
                .max_datagram_size()
                .map_or(0, |m| m.saturating_sub(SEQ_HEADER + wire::WHOLE_HEADER)),
            reliable_backlog_bytes: self.reliable_queued.load(Ordering::Relaxed),
            datagram_backlog_bytes: self
                .limits
                .datagram_send_buffer
                .saturating_sub(self.conn.datagram_send_buffer_space()),
        }
    }

    /// Why the connection ended, in the crate's terms.
    fn reason(&self, err: &ConnectionError) -> DisconnectReason {
        let local = || {
            self.lock_reason()
                .clone()
                .unwrap_or_else(|| "closed".to_owned())
        };
        match err {
            ConnectionError::LocallyClosed => DisconnectReason::Local(local()),
            ConnectionError::ApplicationClosed(close) => {
                DisconnectReason::Remote(String::from_utf8_lossy(&close.reason).into_owned())
            }
            ConnectionError::ConnectionClosed(close) => {
                DisconnectReason::Remote(format!("transport close: {close}"))
            }
            ConnectionError::TimedOut => DisconnectReason::TimedOut,
            ConnectionError::Reset => {
                DisconnectReason::Transport("connection reset by the peer".to_owned())
            }
            other => DisconnectReason::Transport(other.to_string()),
        }
    }

    fn deliver(
        &self,
        sink: &dyn Sink,
        channel: Channel,
        payload: Vec<u8>,
        credit: OwnedSemaphorePermit,
    ) {
        self.messages_received.fetch_add(1, Ordering::Relaxed);
        self.bytes_received
            .fetch_add(payload.len() as u64, Ordering::Relaxed);
        sink.received(channel, payload, credit);
    }
}

pub(crate) fn reason_bytes(reason: &str) -> &[u8] {
    let mut end = reason.len().min(MAX_REASON_BYTES);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    &reason.as_bytes()[..end]
}

fn inbound_cost(len: usize) -> u32 {
    // len <= MAX_RELIABLE_MESSAGE or max_unreliable_message, both far below u32::MAX.
    u32::try_from(len + MESSAGE_OVERHEAD).unwrap_or(u32::MAX)
}

/// Builds a link over an established connection and its reliable stream, and runs it on the
/// current runtime. `on_ready` gets the link before any message can be delivered (so a
/// "connected" event always precedes the first message); `on_end` receives the reason once
/// every task of the link has stopped (so it follows the last message).
pub(crate) fn start(
    conn: Connection,
    send: SendStream,
    recv: RecvStream,
    limits: Limits,
    sink: Arc<dyn Sink>,
    on_ready: impl FnOnce(Arc<Link>),
    on_end: impl FnOnce(DisconnectReason) + Send + 'static,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let link = Arc::new(Link {
        conn,
        rt: tokio::runtime::Handle::current(),
        limits,
        writer: tx,
        reliable_queued: AtomicUsize::new(0),
        closing: AtomicBool::new(false),
        local_reason: Mutex::new(None),
        inbound: Arc::new(Semaphore::new(limits.max_inbound_bytes)),
        next_msg_id: AtomicU32::new(0),
        next_datagram_seq: AtomicU32::new(0),
        rx_seq: Mutex::new(SeqTracker::default()),
        bytes_sent: AtomicU64::new(0),
        bytes_received: AtomicU64::new(0),
        messages_sent: AtomicU64::new(0),
        messages_received: AtomicU64::new(0),
        loss: Mutex::new(LossSampler::default()),
    });
    on_ready(link.clone());
    let l = link;
    tokio::spawn(async move {
        let writer = tokio::spawn(write_frames(l.clone(), send, rx));
        let reader = tokio::spawn(read_frames(l.clone(), recv, sink.clone()));
        let datagrams = tokio::spawn(read_datagrams(l.clone(), sink));
        let err = l.conn.closed().await;
        writer.abort();
        // Readers stop on their own once reads fail; give them a moment to hand over what
        // they already read, then stop them (one blocked on the inbound budget, say).
        for mut task in [reader, datagrams] {
            if tokio::time::timeout(READER_GRACE, &mut task).await.is_err() {
                task.abort();
                let _ = task.await;
            }
        }
        let _ = writer.await;
        let reason = l.reason(&err);
        tracing::debug!(remote = %l.conn.remote_address(), %reason, "connection ended");
        on_end(reason);
    });
}

/// A connection error before a link existed, in the crate's terms.
pub(crate) fn early_reason(err: &ConnectionError) -> DisconnectReason {
    match err {
        ConnectionError::LocallyClosed => DisconnectReason::Local("closed".to_owned()),
        ConnectionError::ApplicationClosed(close) => {
            DisconnectReason::Remote(String::from_utf8_lossy(&close.reason).into_owned())
        }
        ConnectionError::ConnectionClosed(close) if is_alpn_mismatch(close) => {
            DisconnectReason::Remote(ALPN_MISMATCH.to_owned())
        }
        ConnectionError::ConnectionClosed(close) => {
            DisconnectReason::Remote(format!("transport close: {close}"))
        }
        ConnectionError::TimedOut => DisconnectReason::TimedOut,
        other => DisconnectReason::Transport(other.to_string()),
    }
}

/// What a player reads when the other side speaks another transport version.
pub(crate) const ALPN_MISMATCH: &str = "the server runs an incompatible version of the game \
     (its network transport differs from this build's); update the game or the server";

/// The handshake failed because the two sides share no ALPN protocol: different builds.
fn is_alpn_mismatch(close: &quinn::ConnectionClose) -> bool {
    close.error_code == quinn::TransportErrorCode::crypto(super::TLS_ALERT_NO_APPLICATION_PROTOCOL)
}

async fn write_frames(
    link: Arc<Link>,
    mut send: SendStream,
    mut rx: mpsc::UnboundedReceiver<WriterCmd>,
) {
    while let Some(cmd) = rx.recv().await {
        match cmd {
            WriterCmd::Frame(frame) => {
                let len = frame.len();
                let res = send.write_chunk(frame).await;
                link.reliable_queued.fetch_sub(len, Ordering::AcqRel);
                if res.is_err() {
                    return; // the connection is gone; `closed()` reports why
                }
            }
            WriterCmd::Close(reason) => {
                // Everything queued before the close has been written; wait (bounded) until
                // the peer acknowledged it, so the close does not discard it.
                let _ = send.finish();
                let _ = tokio::time::timeout(link.limits.close_flush_timeout, send.stopped()).await;
                link.conn
                    .close(VarInt::from_u32(CODE_CLOSED), reason_bytes(&reason));
                return;
            }
        }
    }
}

async fn read_frames(link: Arc<Link>, mut recv: RecvStream, sink: Arc<dyn Sink>) {
    if let Err(violation) = read_frames_inner(&link, &mut recv, &*sink).await {
        tracing::warn!(remote = %link.conn.remote_address(), %violation, "closing the connection");
        link.close_now(CODE_PROTOCOL_VIOLATION, &violation);
    }
}

/// Reads frames until the stream ends; `Err` is a protocol violation.
async fn read_frames_inner(
    link: &Link,
    recv: &mut RecvStream,
    sink: &dyn Sink,
) -> Result<(), String> {
    loop {
        let mut header = [0u8; wire::FRAME_HEADER];
        match recv.read_exact(&mut header).await {
            Ok(()) => {}
            Err(ReadExactError::FinishedEarly(0)) => return Ok(()), // the peer is closing
            Err(ReadExactError::FinishedEarly(_)) => {
                return Err(
                    "protocol violation: reliable stream ended inside a frame header".into(),
                );
            }
            Err(ReadExactError::ReadError(_)) => return Ok(()),
        }
        let len = wire::check_frame_len(header)?;
        // Wait for budget before allocating: a peer that sends faster than the application
        // polls is held back by QUIC flow control, not by our memory.
        let Ok(credit) = link
            .inbound
            .clone()
            .acquire_many_owned(inbound_cost(len))
            .await
        else {
            return Ok(());
        };
        let mut payload = vec![0u8; len];
        match recv.read_exact(&mut payload).await {
            Ok(()) => {}
            Err(ReadExactError::FinishedEarly(_)) => {
                return Err("protocol violation: reliable stream ended inside a frame".into());
            }
            Err(ReadExactError::ReadError(_)) => return Ok(()),
        }
        link.deliver(sink, Channel::Reliable, payload, credit);
    }
}

async fn read_datagrams(link: Arc<Link>, sink: Arc<dyn Sink>) {
    let mut reassembler = Reassembler::new(link.limits.reassembly);
    let mut malformed = 0u64;
    let mut budget_drops = 0u64;
    loop {
        let Ok(d) = link.conn.read_datagram().await else {
            break;
        };
        if d.len() < SEQ_HEADER {
            malformed += 1;
            continue;
        }
        let seq = u16::from_le_bytes([d[0], d[1]]);
        link.rx_seq
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(seq);
        let (channel, payload) = match wire::parse(d.slice(SEQ_HEADER..)) {
            None => {
                malformed += 1;
                if malformed.is_power_of_two() {
                    tracing::debug!(remote = %link.conn.remote_address(), malformed, "dropping malformed datagrams");
                }
                continue;
            }
            Some(Datagram::Whole { channel, payload }) => (channel, payload.to_vec()),
            Some(Datagram::Fragment {
                channel,
                msg_id,
                index,
                count,
                chunk,
            }) => match reassembler.push(Instant::now(), channel, msg_id, index, count, chunk) {
                Some(p) => (channel, p),
                None => continue,
            },
        };
        match link
            .inbound
            .clone()
            .try_acquire_many_owned(inbound_cost(payload.len()))
        {
            Ok(credit) => link.deliver(&*sink, channel, payload, credit),
            Err(_) => {
                budget_drops += 1;
                if budget_drops.is_power_of_two() {
                    tracing::debug!(remote = %link.conn.remote_address(), budget_drops, "inbound budget full: dropping unreliable messages");
                }
            }
        }
    }
}
