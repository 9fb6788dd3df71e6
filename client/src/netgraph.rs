//! The net graph (F3): what the connection has been doing over the last ten seconds, sampled
//! from a [`Client`] once per frame into bounded rings and drawn as a small overlay with one
//! strip per series — round-trip time, snapshot interval and jitter, prediction corrections
//! (count and size), interpolation delay, bytes per second in and out, and the server's tick
//! time (not on the wire: the strip says so and shows the server-throttle flag instead).
//!
//! Also builds the HUD's network items ([`extras_from_client`]): ping, loss, the throttle flag,
//! recent server notices and the MOTD, from what the session really knows.
//!
//! Owns the rings and the arrival/jitter bookkeeping. Sampling allocates nothing after
//! [`NetGraph::new`] (fixed-capacity rings, counters read by value); drawing is a pure function
//! of the graph's state (its right edge is the last sample's time, no clock is read). Every
//! number comes from the session, the transport's link statistics, prediction or the render
//! bridge (docs/netgraph.md says which).

use std::time::Duration;

use egui::{Align2, Color32, FontId, Painter, Pos2, Rect, Shape, Stroke, Vec2, pos2, vec2};

use crate::TICK_S;
use crate::client::Client;
use crate::hud::canvas::{Canvas, SHADOW};
use crate::hud::{HudExtras, MAX_NOTICE_LINES};
use crate::session::SessionState;

/// How much history the graph shows.
pub const WINDOW: Duration = Duration::from_secs(10);
/// Entries each ring holds at most (the memory bound, whatever the frame rate).
pub const CAPACITY: usize = 1024;
/// Level series (RTT, delay, bytes/s) are sampled at most this often, so [`CAPACITY`] of them
/// cover the whole [`WINDOW`] at any frame rate.
pub const LEVEL_SPACING_S: f64 = 10.0 / CAPACITY as f64;
/// The trailing span bytes per second are measured over, s.
pub const RATE_SPAN_S: f64 = 1.0;
/// Corrections are counted in buckets of this length, s (aligned to the clock, so the bars do
/// not shimmer as the window slides).
pub const CORRECTION_BUCKET_S: f64 = 0.5;
/// A level series with no sample for longer than this is drawn with a gap (not in the world,
/// a stalled frame).
pub const LEVEL_GAP_S: f64 = 0.25;
/// RFC 3550's jitter gain.
const JITTER_GAIN: f64 = 1.0 / 16.0;
/// The correction-size strip's logarithmic range, m (0.1 mm to 10 m).
const SIZE_LOG_RANGE: (f64, f64) = (1e-4, 10.0);
/// How long a server notice stays on the HUD after it arrived.
pub const NOTICE_DISPLAY: Duration = Duration::from_secs(15);

/// A fixed-capacity ring of timestamped values, oldest first. Pushing into a full ring
/// overwrites the oldest entry; [`Ring::trim_before`] drops entries older than a time. Times
/// are expected not to decrease (the graph clears itself when they do).
#[derive(Debug, Clone)]
pub struct Ring<T> {
    buf: Vec<(f64, T)>,
    start: usize,
    len: usize,
}

impl<T: Copy + Default> Ring<T> {
    /// A ring of `cap` entries (at least 1), allocated once here.
    pub fn with_capacity(cap: usize) -> Self {
        Self {
            buf: vec![(0.0, T::default()); cap.max(1)],
            start: 0,
            len: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `v` at time `t`, overwriting the oldest entry when full.
    pub fn push(&mut self, t: f64, v: T) {
        let cap = self.buf.len();
        if self.len == cap {
            self.buf[self.start] = (t, v);
            self.start = (self.start + 1) % cap;
        } else {
            self.buf[(self.start + self.len) % cap] = (t, v);
            self.len += 1;
        }
    }

    /// Drops the entries older than `t0`.
    pub fn trim_before(&mut self, t0: f64) {
        while self.len > 0 && self.buf[self.start].0 < t0 {
            self.start = (self.start + 1) % self.buf.len();
            self.len -= 1;
        }
    }

    pub fn clear(&mut self) {
        self.start = 0;
        self.len = 0;
    }

    /// The `i`-th entry, oldest first.
    pub fn get(&self, i: usize) -> Option<(f64, T)> {
        (i < self.len).then(|| self.buf[(self.start + i) % self.buf.len()])
    }

    pub fn first(&self) -> Option<(f64, T)> {
        self.get(0)
    }

    pub fn last(&self) -> Option<(f64, T)> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (f64, T)> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }

    /// How many entries are older than or at `t` (binary search; times are ordered).
    pub fn count_at_or_before(&self, t: f64) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid) {
                Some((tm, _)) if tm <= t => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }
}

/// Snapshot arrivals: the wall interval between them and RFC 3550's interarrival jitter
/// (`J += (|D| − J) / 16`, with `D` the difference of the two arrivals' transit: their local
/// interval minus the server ticks between them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArrivalJitter {
    last: Option<(f64, u64)>,
    jitter_s: f64,
}

impl ArrivalJitter {
    /// One arrival of the snapshot of server tick `tick` at local time `t` (s). Returns the
    /// interval since the previous arrival and the jitter after this one, s (`None` for the
    /// first arrival, or a tick not newer than the previous one).
    pub fn arrive(&mut self, t: f64, tick: u64) -> Option<(f64, f64)> {
        let out = match self.last {
            Some((t0, tick0)) if tick > tick0 => {
                let interval = t - t0;
                let d = interval - (tick - tick0) as f64 * TICK_S;
                self.jitter_s += (d.abs() - self.jitter_s) * JITTER_GAIN;
                Some((interval, self.jitter_s))
            }
            Some(_) => return None,
            None => None,
        };
        self.last = Some((t, tick));
        out
    }

    /// The current jitter, s.
    pub fn jitter_s(&self) -> f64 {
        self.jitter_s
    }
}

/// One frame's reading of the client: cumulative counters and current values, copied out so
/// the graph can be fed without a client (tests, the golden image).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NetSample {
    /// The session is in the world (RTT is only plotted then).
    pub in_world: bool,
    /// The transport's smoothed round-trip time.
    pub rtt: Option<Duration>,
    /// Snapshots applied so far, and the newest applied tick.
    pub snapshots_applied: u64,
    pub last_snapshot_tick: Option<u64>,
    /// Prediction corrections so far (compared predictions that differed from the server).
    pub corrections: u64,
    /// The sum of the compared predictions' position errors so far, m (exact compares add 0).
    pub correction_error_sum_m: f64,
    /// The interpolation delay of the last frame built (`None` before the render clock runs).
    pub interpolation_delay: Option<Duration>,
    /// Payload bytes received from / sent to the server so far.
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// The server's throttle (load %, snapshot interval in ticks) while latched.
    pub server_throttle: Option<(u8, u8)>,
}

impl NetSample {
    /// Reads `client` (a few counters and the transport's link statistics; no allocation).
    pub fn from_client(client: &Client) -> NetSample {
        let session = client.session();
        let link = session.link_stats();
        let stats = session.stats();
        let prediction = &client.prediction().stats;
        let frame = client.render_frame();
        let in_world = session.state() == SessionState::InWorld;
        NetSample {
            in_world,
            rtt: in_world.then_some(link.rtt),
            snapshots_applied: stats.snapshots_applied,
            last_snapshot_tick: session.last_snapshot_tick(),
            corrections: prediction.corrections,
            correction_error_sum_m: prediction.correction_m.mean()
                * prediction.correction_m.count() as f64,
            interpolation_delay: frame.render_tick.map(|_| frame.delay),
            bytes_in: link.bytes_received,
            bytes_out: link.bytes_sent,
            server_throttle: session.server_throttle(),
        }
    }
}

/// Corrections found in one frame: how many, and their mean position error.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Corrections {
    pub count: u32,
    pub size_m: f32,
}

/// The net graph's history.
#[derive(Debug, Clone)]
pub struct NetGraph {
    rtt_ms: Ring<f32>,
    interval_ms: Ring<f32>,
    jitter_ms: Ring<f32>,
    corrections: Ring<Corrections>,
    delay_ms: Ring<f32>,
    /// Bytes per second in and out over the trailing [`RATE_SPAN_S`].
    rate: Ring<(f32, f32)>,
    /// The cumulative byte counters the rates are measured from.
    counters: Ring<(u64, u64)>,
    /// (load %, interval ticks) sampled while the server throttles this client.
    throttle: Ring<(u8, u8)>,
    arrivals: ArrivalJitter,
    /// The previous sample's counters (`None`: the next sample only sets the baseline).
    prev: Option<NetSample>,
    last_t: Option<f64>,
    last_level_t: Option<f64>,
}

impl Default for NetGraph {
    fn default() -> Self {
        Self::new()
    }
}

impl NetGraph {
    /// An empty graph; every ring is allocated here, once.
    pub fn new() -> Self {
        Self {
            rtt_ms: Ring::with_capacity(CAPACITY),
            interval_ms: Ring::with_capacity(CAPACITY),
            jitter_ms: Ring::with_capacity(CAPACITY),
            corrections: Ring::with_capacity(CAPACITY),
            delay_ms: Ring::with_capacity(CAPACITY),
            rate: Ring::with_capacity(CAPACITY),
            counters: Ring::with_capacity(CAPACITY),
            throttle: Ring::with_capacity(CAPACITY),
            arrivals: ArrivalJitter::default(),
            prev: None,
            last_t: None,
            last_level_t: None,
        }
    }

    /// Forgets everything (a new session).
    pub fn clear(&mut self) {
        self.rtt_ms.clear();
        self.interval_ms.clear();
        self.jitter_ms.clear();
        self.corrections.clear();
        self.delay_ms.clear();
        self.rate.clear();
        self.counters.clear();
        self.throttle.clear();
        self.arrivals = ArrivalJitter::default();
        self.prev = None;
        self.last_t = None;
        self.last_level_t = None;
    }

    /// Samples `client` at `now` — the same `now` the frame was run with (snapshot arrivals are
    /// timed by it, as the session times them). Call once per frame.
    pub fn sample(&mut self, now: Duration, client: &Client) {
        self.push(now, &NetSample::from_client(client));
    }

    /// Records one frame's reading.
    pub fn push(&mut self, now: Duration, s: &NetSample) {
        let t = now.as_secs_f64();
        if self.last_t.is_some_and(|last| t < last) {
            // Another clock (a new session's origin): the old history means nothing on it.
            self.clear();
        }
        self.last_t = Some(t);
        let prev = match self.prev {
            // Counters that went backwards belong to another client: start over from here.
            Some(p)
                if s.snapshots_applied >= p.snapshots_applied
                    && s.corrections >= p.corrections
                    && s.bytes_in >= p.bytes_in
                    && s.bytes_out >= p.bytes_out =>
            {
                Some(p)
            }
            _ => None,
        };
        self.prev = Some(*s);

        if let Some(p) = prev {
            if s.snapshots_applied > p.snapshots_applied
                && let Some(tick) = s.last_snapshot_tick
                && let Some((interval, jitter)) = self.arrivals.arrive(t, tick)
            {
                self.interval_ms.push(t, (interval * 1e3) as f32);
                self.jitter_ms.push(t, (jitter * 1e3) as f32);
            }
            let n = s.corrections - p.corrections;
            if n > 0 {
                let sum = s.correction_error_sum_m - p.correction_error_sum_m;
                self.corrections.push(
                    t,
                    Corrections {
                        count: n.min(u64::from(u32::MAX)) as u32,
                        size_m: (sum / n as f64).max(0.0) as f32,
                    },
                );
            }
        } else if let Some(tick) = s.last_snapshot_tick {
            // The baseline: the newest arrival is the previous one of the next.
            self.arrivals = ArrivalJitter::default();
            let _ = self.arrivals.arrive(t, tick);
        }

        if self.last_level_t.is_none_or(|l| t - l >= LEVEL_SPACING_S) {
            self.last_level_t = Some(t);
            if let Some(rtt) = s.rtt {
                self.rtt_ms.push(t, (rtt.as_secs_f64() * 1e3) as f32);
            }
            if let Some(d) = s.interpolation_delay {
                self.delay_ms.push(t, (d.as_secs_f64() * 1e3) as f32);
            }
            if let Some(th) = s.server_throttle {
                self.throttle.push(t, th);
            }
            if prev.is_none() {
                self.counters.clear();
            }
            self.counters.push(t, (s.bytes_in, s.bytes_out));
            if let Some(r) = self.trailing_rate(t) {
                self.rate.push(t, r);
            }
        }

        let t0 = t - WINDOW.as_secs_f64();
        for r in [
            &mut self.rtt_ms,
            &mut self.interval_ms,
            &mut self.jitter_ms,
            &mut self.delay_ms,
        ] {
            r.trim_before(t0);
        }
        self.corrections.trim_before(t0);
        self.rate.trim_before(t0);
        self.throttle.trim_before(t0);
        self.counters.trim_before(t - 2.0 * RATE_SPAN_S);
    }

    /// Bytes per second in and out over the last [`RATE_SPAN_S`] (a shorter span in the first
    /// second, once a quarter of a second is covered).
    fn trailing_rate(&self, t: f64) -> Option<(f32, f32)> {
        let (_, (bin, bout)) = self.counters.last()?;
        let k = self.counters.count_at_or_before(t - RATE_SPAN_S);
        let (t0, (in0, out0)) = match k.checked_sub(1) {
            Some(i) => self.counters.get(i)?,
            None => self.counters.first()?,
        };
        let span = t - t0;
        (span >= 0.25 * RATE_SPAN_S).then(|| {
            (
                (bin.saturating_sub(in0) as f64 / span) as f32,
                (bout.saturating_sub(out0) as f64 / span) as f32,
            )
        })
    }

    /// The time of the newest sample (the graph's right edge), s.
    pub fn now_s(&self) -> Option<f64> {
        self.last_t
    }

    /// RTT, ms.
    pub fn rtt_ms(&self) -> &Ring<f32> {
        &self.rtt_ms
    }

    /// The local interval between snapshot arrivals, ms (one entry per frame that applied
    /// snapshots).
    pub fn snapshot_interval_ms(&self) -> &Ring<f32> {
        &self.interval_ms
    }

    /// RFC 3550 jitter after each arrival, ms.
    pub fn jitter_ms(&self) -> &Ring<f32> {
        &self.jitter_ms
    }

    /// Frames that found corrections: how many and their mean size.
    pub fn corrections(&self) -> &Ring<Corrections> {
        &self.corrections
    }

    /// The interpolation delay, ms.
    pub fn interpolation_delay_ms(&self) -> &Ring<f32> {
        &self.delay_ms
    }

    /// Bytes per second (in, out).
    pub fn bytes_per_s(&self) -> &Ring<(f32, f32)> {
        &self.rate
    }

    /// (load %, snapshot interval ticks) while the server throttled this client.
    pub fn server_throttle(&self) -> &Ring<(u8, u8)> {
        &self.throttle
    }

    /// The overlay's size for a screen `screen_height` points high at `ui_scale` (the HUD's
    /// design unit, so it grows with the window like the HUD's text).
    pub fn preferred_size(screen_height: f32, ui_scale: f32) -> Vec2 {
        let scale = if ui_scale.is_finite() {
            ui_scale.clamp(0.25, 4.0)
        } else {
            1.0
        };
        let u = (screen_height.max(1.0) / 1080.0).powf(0.6) * scale;
        let font = (13.0 * u).max(8.0);
        vec2(
            COLUMNS_FONT * font,
            STRIPS as f32 * STRIP_FONTS * font + 2.0 * PAD_FONTS * font,
        )
    }

    /// Draws the overlay into `rect` (points): a translucent panel with one strip per series,
    /// its name and current value on the left, the plot of the last [`WINDOW`] on the right
    /// with its scale. Text size follows the strip height; every line and glyph is outlined.
    pub fn draw(&self, painter: &Painter, rect: Rect) {
        if !(rect.is_finite() && rect.width() >= 8.0 && rect.height() >= 8.0) {
            return;
        }
        let strip_h0 = rect.height() / (STRIPS as f32 + 2.0 * PAD_FONTS / STRIP_FONTS);
        let font = (strip_h0 / STRIP_FONTS).clamp(4.0, 48.0);
        let pad = PAD_FONTS * font;
        let inner = rect.shrink(pad);
        let strip_h = inner.height() / STRIPS as f32;
        let px = 1.0 / painter.pixels_per_point().max(0.01);
        let line = (0.11 * font).max(px);
        let outline = (0.09 * font).max(px);
        let painter = painter.with_clip_rect(rect);
        painter.rect_filled(rect, 0.3 * font, PANEL);
        let mut c = Canvas::new(&painter, line, outline);
        let label_w = LABEL_COLUMN_FONTS * font;
        let t_end = self.last_t.unwrap_or(0.0);
        let ctx = DrawCtx {
            painter: &painter,
            font,
            t_end,
        };
        for i in 0..STRIPS {
            let top = inner.top() + i as f32 * strip_h;
            let strip = Rect::from_min_size(pos2(inner.left(), top), vec2(inner.width(), strip_h));
            if i > 0 {
                painter.line_segment(
                    [pos2(strip.left(), top), pos2(strip.right(), top)],
                    Stroke::new(px, SEPARATOR),
                );
            }
            let label = Rect::from_min_max(strip.min, pos2(strip.left() + label_w, strip.bottom()));
            let plot = Rect::from_min_max(
                pos2(label.right() + 0.4 * font, strip.top() + 0.25 * font),
                pos2(strip.right(), strip.bottom() - 0.25 * font),
            );
            if plot.width() < 2.0 || plot.height() < 2.0 {
                continue;
            }
            painter.rect_filled(plot, 0.0, PLOT_BG);
            match i {
                0 => self.draw_rtt(&mut c, &ctx, label, plot),
                1 => self.draw_interval(&mut c, &ctx, label, plot),
                2 => self.draw_jitter(&mut c, &ctx, label, plot),
                3 => self.draw_correction_count(&mut c, &ctx, label, plot),
                4 => self.draw_correction_size(&mut c, &ctx, label, plot),
                5 => self.draw_delay(&mut c, &ctx, label, plot),
                6 => self.draw_bytes(&mut c, &ctx, label, plot),
                _ => self.draw_server_tick(&mut c, &ctx, label, plot),
            }
        }
        c.finish();
    }

    fn draw_rtt(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        let current = fresh_last(&self.rtt_ms, ctx.t_end).map(|v| fmt_ms(f64::from(v)));
        let scale = nice_ceiling(window_max(&self.rtt_ms, ctx.t_end).max(20.0));
        ctx.labels(c, label, "RTT", current.as_deref(), RTT);
        ctx.scale_label(c, plot, &format!("{} ms", fmt_num(scale)));
        ctx.line(c, plot, scale, self.rtt_ms.iter(), LEVEL_GAP_S, RTT);
    }

    fn draw_interval(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        // The current value: the mean interval over the last second (one interval is mostly
        // the frame it landed in).
        let (mut sum, mut n) = (0.0f64, 0u32);
        for (t, v) in self.interval_ms.iter() {
            if t > ctx.t_end - 1.0 {
                sum += f64::from(v);
                n += 1;
            }
        }
        let current = (n > 0).then(|| fmt_ms(sum / f64::from(n)));
        let scale = nice_ceiling(window_max(&self.interval_ms, ctx.t_end).max(20.0));
        ctx.labels(c, label, "SNAP INT", current.as_deref(), INTERVAL);
        ctx.scale_label(c, plot, &format!("{} ms", fmt_num(scale)));
        // Reference: one tick.
        ctx.reference(plot, scale, (TICK_S * 1e3) as f32);
        ctx.line(
            c,
            plot,
            scale,
            self.interval_ms.iter(),
            f64::INFINITY,
            INTERVAL,
        );
    }

    fn draw_jitter(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        let current = self.jitter_ms.last().map(|(_, v)| fmt_ms(f64::from(v)));
        let scale = nice_ceiling(window_max(&self.jitter_ms, ctx.t_end).max(5.0));
        ctx.labels(c, label, "JITTER", current.as_deref(), JITTER);
        ctx.scale_label(c, plot, &format!("{} ms", fmt_num(scale)));
        ctx.line(c, plot, scale, self.jitter_ms.iter(), f64::INFINITY, JITTER);
    }

    fn draw_correction_count(
        &self,
        c: &mut Canvas<'_>,
        ctx: &DrawCtx<'_>,
        label: Rect,
        plot: Rect,
    ) {
        const BUCKETS: usize = (10.0 / CORRECTION_BUCKET_S) as usize + 1;
        let t0 = ctx.t_end - WINDOW.as_secs_f64();
        let first = (t0 / CORRECTION_BUCKET_S).floor();
        let mut counts = [0u64; BUCKETS];
        let mut total = 0u64;
        for (t, k) in self.corrections.iter() {
            if t < t0 {
                continue;
            }
            let i = ((t / CORRECTION_BUCKET_S).floor() - first).max(0.0) as usize;
            if let Some(b) = counts.get_mut(i.min(BUCKETS - 1)) {
                *b += u64::from(k.count);
            }
            total += u64::from(k.count);
        }
        let max = counts.iter().copied().max().unwrap_or(0);
        let scale = nice_ceiling((max as f32).max(4.0));
        let current = format!("{total} in 10s");
        ctx.labels(c, label, "CORR/0.5s", Some(&current), CORR);
        ctx.scale_label(c, plot, &fmt_num(scale));
        for (i, &n) in counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let a = (first + i as f64) * CORRECTION_BUCKET_S;
            let x0 = ctx.x(plot, a).max(plot.left());
            let x1 = (ctx.x(plot, a + CORRECTION_BUCKET_S) - 1.0).min(plot.right());
            if x1 <= x0 {
                continue;
            }
            let y = ctx.y(plot, scale, n as f32);
            let bar = Rect::from_min_max(pos2(x0, y), pos2(x1, plot.bottom()));
            ctx.painter
                .rect_filled(bar.expand(0.08 * ctx.font), 0.0, SHADOW);
            ctx.painter.rect_filled(bar, 0.0, CORR);
        }
    }

    fn draw_correction_size(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        let current = self
            .corrections
            .last()
            .map(|(_, k)| fmt_length(f64::from(k.size_m)));
        ctx.labels(c, label, "CORR SIZE", current.as_deref(), SIZE);
        ctx.scale_label(c, plot, "10 m log");
        let (lo, hi) = (SIZE_LOG_RANGE.0.log10(), SIZE_LOG_RANGE.1.log10());
        // Decade marks: 1 mm, 1 cm, 10 cm, 1 m.
        for d in [-3.0f64, -2.0, -1.0, 0.0] {
            let f = ((d - lo) / (hi - lo)) as f32;
            ctx.reference(plot, 1.0, f);
        }
        let r = (0.2 * ctx.font).max(1.0);
        let t0 = ctx.t_end - WINDOW.as_secs_f64();
        for (t, k) in self.corrections.iter() {
            if t < t0 {
                continue;
            }
            let m = f64::from(k.size_m).clamp(SIZE_LOG_RANGE.0, SIZE_LOG_RANGE.1);
            let f = ((m.log10() - lo) / (hi - lo)) as f32;
            let p = pos2(ctx.x(plot, t), ctx.y(plot, 1.0, f));
            ctx.painter
                .add(Shape::circle_filled(p, r + 0.09 * ctx.font, SHADOW));
            ctx.painter.add(Shape::circle_filled(p, r, SIZE));
        }
    }

    fn draw_delay(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        let current = fresh_last(&self.delay_ms, ctx.t_end).map(|v| fmt_ms(f64::from(v)));
        let scale = nice_ceiling(window_max(&self.delay_ms, ctx.t_end).max(50.0));
        ctx.labels(c, label, "INTERP", current.as_deref(), DELAY);
        ctx.scale_label(c, plot, &format!("{} ms", fmt_num(scale)));
        ctx.line(c, plot, scale, self.delay_ms.iter(), LEVEL_GAP_S, DELAY);
    }

    fn draw_bytes(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        let last = fresh_last(&self.rate, ctx.t_end);
        let t0 = ctx.t_end - WINDOW.as_secs_f64();
        let max = self
            .rate
            .iter()
            .filter(|(t, _)| *t >= t0)
            .map(|(_, (i, o))| i.max(o))
            .fold(0.0f32, f32::max);
        let scale = nice_ceiling(max.max(1000.0));
        let font = FontId::monospace(ctx.font);
        let half = label.height() / 2.0;
        let x = label.left() + 0.2 * ctx.font;
        let (bin, bout) = match last {
            Some((i, o)) => (fmt_bytes(f64::from(i)), fmt_bytes(f64::from(o))),
            None => ("--".to_owned(), "--".to_owned()),
        };
        c.text(
            pos2(x, label.top() + half),
            Align2::LEFT_BOTTOM,
            &format!("IN  {bin}"),
            font.clone(),
            BYTES_IN,
            0.0,
        );
        c.text(
            pos2(x, label.top() + half),
            Align2::LEFT_TOP,
            &format!("OUT {bout}"),
            font,
            BYTES_OUT,
            0.0,
        );
        ctx.scale_label(c, plot, &format!("{}B/s", fmt_bytes(f64::from(scale))));
        ctx.line(
            c,
            plot,
            scale,
            self.rate.iter().map(|(t, (i, _))| (t, i)),
            LEVEL_GAP_S,
            BYTES_IN,
        );
        ctx.line(
            c,
            plot,
            scale,
            self.rate.iter().map(|(t, (_, o))| (t, o)),
            LEVEL_GAP_S,
            BYTES_OUT,
        );
    }

    fn draw_server_tick(&self, c: &mut Canvas<'_>, ctx: &DrawCtx<'_>, label: Rect, plot: Rect) {
        // The protocol carries no tick time (network-protocol.txt: the tick-budget figures go
        // to --metrics-json and the admin `tickstats` command, not on the wire). What the
        // server does report is that it throttles this client: shown as a band.
        ctx.labels(c, label, "SRV TICK", Some("n/a"), MUTED);
        let t0 = ctx.t_end - WINDOW.as_secs_f64();
        let mut span: Option<(f64, f64)> = None;
        let band = |a: f64, b: f64| {
            let x0 = ctx.x(plot, a).max(plot.left());
            let x1 = ctx.x(plot, b + LEVEL_SPACING_S).min(plot.right());
            if x1 > x0 {
                ctx.painter.rect_filled(
                    Rect::from_min_max(pos2(x0, plot.top()), pos2(x1, plot.bottom())),
                    0.0,
                    THROTTLE_BAND,
                );
            }
        };
        for (t, _) in self.throttle.iter().filter(|(t, _)| *t >= t0) {
            span = match span {
                Some((a, b)) if t - b <= LEVEL_GAP_S => Some((a, t)),
                Some((a, b)) => {
                    band(a, b);
                    Some((t, t))
                }
                None => Some((t, t)),
            };
        }
        if let Some((a, b)) = span {
            band(a, b);
        }
        let (text, colour) = match fresh_last(&self.throttle, ctx.t_end) {
            Some((load, interval)) => (format!("THROTTLED load {load}% 1/{interval}t"), AMBER),
            None => ("not sent by the server".to_owned(), MUTED),
        };
        c.text(
            plot.left_center() + vec2(0.3 * ctx.font, 0.0),
            Align2::LEFT_CENTER,
            &text,
            FontId::monospace(0.85 * ctx.font),
            colour,
            0.0,
        );
    }
}

/// Strips in the overlay.
const STRIPS: usize = 8;
/// A strip's height in text heights.
const STRIP_FONTS: f32 = 2.5;
/// The panel's padding in text heights.
const PAD_FONTS: f32 = 0.4;
/// The preferred width in text heights.
const COLUMNS_FONT: f32 = 26.0;
/// The name/value column's width in text heights (ten monospace characters and a margin).
const LABEL_COLUMN_FONTS: f32 = 6.6;

const PANEL: Color32 = Color32::from_rgba_premultiplied(0, 0, 0, 150);
const PLOT_BG: Color32 = Color32::from_rgba_premultiplied(0, 0, 0, 60);
const SEPARATOR: Color32 = Color32::from_rgba_premultiplied(60, 60, 60, 60);
const GRID: Color32 = Color32::from_rgba_premultiplied(70, 70, 70, 70);
const THROTTLE_BAND: Color32 = Color32::from_rgba_premultiplied(110, 80, 16, 110);
const NAME: Color32 = Color32::from_rgb(235, 240, 235);
const MUTED: Color32 = Color32::from_rgb(175, 180, 175);
const AMBER: Color32 = crate::hud::AMBER;
const RTT: Color32 = crate::hud::GREEN;
const INTERVAL: Color32 = Color32::from_rgb(110, 200, 255);
const JITTER: Color32 = Color32::from_rgb(255, 210, 90);
const CORR: Color32 = Color32::from_rgb(255, 110, 90);
const SIZE: Color32 = Color32::from_rgb(255, 150, 225);
const DELAY: Color32 = Color32::from_rgb(185, 165, 255);
const BYTES_IN: Color32 = Color32::from_rgb(120, 235, 255);
const BYTES_OUT: Color32 = Color32::from_rgb(255, 170, 90);

/// What every strip's drawing shares.
struct DrawCtx<'p> {
    painter: &'p Painter,
    font: f32,
    t_end: f64,
}

impl DrawCtx<'_> {
    fn x(&self, plot: Rect, t: f64) -> f32 {
        let w = WINDOW.as_secs_f64();
        plot.left() + ((t - (self.t_end - w)) / w) as f32 * plot.width()
    }

    /// `v` on a scale of `0..scale` (clamped to the plot).
    fn y(&self, plot: Rect, scale: f32, v: f32) -> f32 {
        let f = if scale > 0.0 && v.is_finite() {
            (v / scale).clamp(0.0, 1.0)
        } else {
            0.0
        };
        plot.bottom() - f * plot.height()
    }

    /// The name (top) and the current value (bottom) in the left column.
    fn labels(
        &self,
        c: &mut Canvas<'_>,
        label: Rect,
        name: &str,
        value: Option<&str>,
        colour: Color32,
    ) {
        let x = label.left() + 0.2 * self.font;
        let mid = label.top() + label.height() / 2.0;
        c.text(
            pos2(x, mid),
            Align2::LEFT_BOTTOM,
            name,
            FontId::monospace(0.85 * self.font),
            NAME,
            0.0,
        );
        c.text(
            pos2(x, mid),
            Align2::LEFT_TOP,
            value.unwrap_or("--"),
            FontId::monospace(self.font),
            colour,
            0.0,
        );
    }

    /// The scale's top value at the plot's top-right corner.
    fn scale_label(&self, c: &mut Canvas<'_>, plot: Rect, text: &str) {
        c.text(
            plot.right_top() + vec2(-0.15 * self.font, 0.0),
            Align2::RIGHT_TOP,
            text,
            FontId::monospace(0.7 * self.font),
            MUTED,
            0.0,
        );
    }

    /// A faint horizontal line at `v`.
    fn reference(&self, plot: Rect, scale: f32, v: f32) {
        let y = self.y(plot, scale, v);
        self.painter.line_segment(
            [pos2(plot.left(), y), pos2(plot.right(), y)],
            Stroke::new(1.0 / self.painter.pixels_per_point().max(0.01), GRID),
        );
    }

    /// A series as a line: the largest value in each column of about 1.5 points, broken where
    /// two samples are more than `max_gap` s apart.
    fn line(
        &self,
        c: &mut Canvas<'_>,
        plot: Rect,
        scale: f32,
        points: impl Iterator<Item = (f64, f32)>,
        max_gap: f64,
        colour: Color32,
    ) {
        let w = WINDOW.as_secs_f64();
        let t0 = self.t_end - w;
        let columns = (plot.width() / 1.5).clamp(1.0, 2048.0) as i64;
        let mut segment: Vec<Pos2> = Vec::new();
        let mut column: Option<(i64, f32)> = None;
        let mut prev_t: Option<f64> = None;
        let flush_column = |seg: &mut Vec<Pos2>, col: Option<(i64, f32)>| {
            if let Some((k, v)) = col {
                let x = plot.left() + (k as f32 + 0.5) / columns as f32 * plot.width();
                seg.push(pos2(x.min(plot.right()), self.y(plot, scale, v)));
            }
        };
        for (t, v) in points {
            if t < t0 || !v.is_finite() {
                continue;
            }
            let k = (((t - t0) / w) * columns as f64).floor() as i64;
            let k = k.clamp(0, columns - 1);
            if prev_t.is_some_and(|p| t - p > max_gap) {
                flush_column(&mut segment, column.take());
                c.polyline(&segment, colour);
                segment.clear();
            }
            prev_t = Some(t);
            column = match column {
                Some((ck, cv)) if ck == k => Some((k, cv.max(v))),
                other => {
                    flush_column(&mut segment, other);
                    Some((k, v))
                }
            };
        }
        flush_column(&mut segment, column);
        if segment.len() == 1 {
            // A lone sample: a short tick so it shows.
            let p = segment[0];
            segment.push(p + vec2(1.5, 0.0));
        }
        c.polyline(&segment, colour);
    }
}

/// The newest value of a level series when it is recent (otherwise the series has stopped).
fn fresh_last<T: Copy + Default>(ring: &Ring<T>, t_end: f64) -> Option<T> {
    ring.last()
        .filter(|(t, _)| t_end - t <= 2.0 * LEVEL_GAP_S)
        .map(|(_, v)| v)
}

/// The largest value in the window (0 when empty).
fn window_max(ring: &Ring<f32>, t_end: f64) -> f32 {
    let t0 = t_end - WINDOW.as_secs_f64();
    ring.iter()
        .filter(|(t, v)| *t >= t0 && v.is_finite())
        .map(|(_, v)| v)
        .fold(0.0, f32::max)
}

/// The smallest of 1, 2, 5 × 10ⁿ at or above `v` (1 for anything not positive and finite).
pub fn nice_ceiling(v: f32) -> f32 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let mut p = 10f32.powf(v.log10().floor());
    // Floating point: a power just under v must not round the ladder down.
    if p > v {
        p /= 10.0;
    }
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= v * (1.0 - 1e-6) {
            return m * p;
        }
    }
    10.0 * p
}

fn fmt_num(v: f32) -> String {
    if v >= 1.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// `4.2 ms`, `42 ms`.
fn fmt_ms(v: f64) -> String {
    if !v.is_finite() {
        "--".to_owned()
    } else if v < 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.0} ms")
    }
}

/// `0.12 mm`, `4.2 mm`, `3.1 cm`, `1.25 m`.
fn fmt_length(m: f64) -> String {
    if !m.is_finite() {
        "--".to_owned()
    } else if m < 1e-3 {
        format!("{:.2} mm", m * 1e3)
    } else if m < 1e-2 {
        format!("{:.1} mm", m * 1e3)
    } else if m < 1.0 {
        format!("{:.1} cm", m * 1e2)
    } else {
        format!("{m:.2} m")
    }
}

/// `850`, `12.3k`, `1.2M` (bytes).
fn fmt_bytes(b: f64) -> String {
    if !b.is_finite() || b < 0.0 {
        "--".to_owned()
    } else if b < 1000.0 {
        format!("{b:.0}")
    } else if b < 1e6 {
        format!("{:.1}k", b / 1e3)
    } else {
        format!("{:.1}M", b / 1e6)
    }
}

/// The HUD's network items from what `client`'s session knows at `now`: ping (the transport's
/// smoothed RTT) and loss (the worse direction's recent loss) while in the world, the
/// server-throttle flag, the newest [`MAX_NOTICE_LINES`] server notices of the last
/// [`NOTICE_DISPLAY`], and the MOTD while its display time lasts (its lines joined by " / ").
/// `max_g` and `bingo_fuel_kg` are the game's own and passed through.
pub fn extras_from_client(
    client: &Client,
    now: Duration,
    max_g: f64,
    bingo_fuel_kg: f64,
) -> HudExtras {
    let session = client.session();
    let in_world = session.state() == SessionState::InWorld;
    let link = in_world.then(|| session.link_stats());
    let notices = session.notices();
    let recent: Vec<String> = notices
        .iter()
        .rev()
        .filter(|n| now.saturating_sub(n.received_at) < NOTICE_DISPLAY && n.received_at <= now)
        .take(MAX_NOTICE_LINES)
        .map(|n| n.text.clone())
        .collect();
    let motd = session
        .motd()
        .filter(|m| m.received_at <= now && now.saturating_sub(m.received_at) < m.display)
        .map(|m| m.lines.join(" / "))
        .filter(|s| !s.is_empty());
    let combat = crate::hud::combat::kill_feed(
        &session.combat().kills,
        session.own_entity().map(|o| o.idx),
        now,
        &|peer| session.social().callsign(peer).map(str::to_owned),
    );
    HudExtras {
        max_g,
        bingo_fuel_kg,
        ping_ms: link.as_ref().map(|l| l.rtt.as_secs_f64() * 1e3),
        loss_percent: link.as_ref().map(|l| l.loss.max(l.loss_in) * 100.0),
        server_throttled: session.server_throttle().is_some(),
        notices: recent.into_iter().rev().collect(),
        motd,
        combat,
        scopes: None,
        objective: None,
        radio: session
            .mission()
            .subtitles(now)
            .map(|l| (l.speaker.clone(), l.text.clone()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn the_ring_keeps_order_overwrites_the_oldest_and_trims_by_time() {
        let mut r: Ring<u32> = Ring::with_capacity(4);
        assert!(r.is_empty() && r.last().is_none());
        for i in 0..6u32 {
            r.push(f64::from(i), i);
        }
        assert_eq!(r.len(), 4);
        let v: Vec<_> = r.iter().collect();
        assert_eq!(v, vec![(2.0, 2), (3.0, 3), (4.0, 4), (5.0, 5)]);
        assert_eq!(r.count_at_or_before(3.5), 2);
        assert_eq!(r.count_at_or_before(1.0), 0);
        assert_eq!(r.count_at_or_before(9.0), 4);
        r.trim_before(4.0);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(4.0, 4), (5.0, 5)]);
        r.push(6.0, 6);
        assert_eq!(r.first(), Some((4.0, 4)));
        assert_eq!(r.last(), Some((6.0, 6)));
        r.trim_before(100.0);
        assert!(r.is_empty());
    }

    fn sample(in_world: bool) -> NetSample {
        NetSample {
            in_world,
            rtt: in_world.then_some(Duration::from_millis(40)),
            interpolation_delay: Some(Duration::from_millis(50)),
            ..NetSample::default()
        }
    }

    #[test]
    fn the_graph_covers_ten_seconds_in_bounded_memory_at_any_frame_rate() {
        for fps in [30.0, 144.0, 1000.0, 5000.0] {
            let mut g = NetGraph::new();
            let mut s = sample(true);
            let frames = (30.0 * fps) as u64;
            for f in 0..frames {
                let t = f as f64 / fps;
                // 60 Hz snapshots, 3 kB/s in, 1 kB/s out, a correction every 10th snapshot.
                let tick = (t * 60.0).floor() as u64;
                if s.last_snapshot_tick != Some(tick) {
                    s.snapshots_applied += 1;
                    s.last_snapshot_tick = Some(tick);
                    if tick.is_multiple_of(10) {
                        s.corrections += 1;
                        s.correction_error_sum_m += 0.002;
                    }
                }
                s.bytes_in = (t * 3000.0) as u64;
                s.bytes_out = (t * 1000.0) as u64;
                g.push(secs(t), &s);
            }
            let end = g.now_s().expect("present");
            for (name, first, len) in [
                ("rtt", g.rtt_ms().first().map(|p| p.0), g.rtt_ms().len()),
                ("delay", g.interpolation_delay_ms().first().map(|p| p.0), 0),
                ("rate", g.bytes_per_s().first().map(|p| p.0), 0),
                (
                    "interval",
                    g.snapshot_interval_ms().first().map(|p| p.0),
                    g.snapshot_interval_ms().len(),
                ),
            ] {
                let first = first.expect("present");
                // The window: nothing older than 10 s, and (bounded by the spacing) nearly all
                // of it covered.
                assert!(
                    end - first <= 10.0 + 1e-9,
                    "{fps} fps {name}: {first} .. {end}"
                );
                assert!(end - first >= 9.9, "{fps} fps {name}: {first} .. {end}");
                assert!(len <= CAPACITY);
            }
            // Corrections: one every 10th snapshot, 6 a second, 2 mm each.
            let n: u32 = g.corrections().iter().map(|(_, k)| k.count).sum();
            assert!((59..=61).contains(&n), "{fps} fps: {n} corrections");
            assert!(
                g.corrections()
                    .iter()
                    .all(|(_, k)| (k.size_m - 0.002).abs() < 1e-6)
            );
            let (i, o) = g.bytes_per_s().last().expect("present").1;
            assert!(
                (i - 3000.0).abs() < 30.0 && (o - 1000.0).abs() < 15.0,
                "{i} {o}"
            );
            for ring in [&g.rtt_ms, &g.delay_ms, &g.interval_ms, &g.jitter_ms] {
                assert_eq!(ring.capacity(), CAPACITY, "no ring grew");
            }
        }
    }

    #[test]
    fn rfc3550_jitter_on_a_known_sequence() {
        // Ticks 1 apart (16.67 ms); arrivals with known deviations from that spacing.
        let tick = TICK_S;
        let arrivals = [
            (0.0, 100u64),
            (tick, 101),               // D = 0
            (2.0 * tick + 0.008, 102), // D = +8 ms
            (3.0 * tick, 103),         // D = −8 ms
            (5.0 * tick + 0.004, 105), // two ticks on: D = +4 ms
            (5.0 * tick + 0.004, 105), // a duplicate tick: ignored
        ];
        let mut j = ArrivalJitter::default();
        let mut out = Vec::new();
        for (t, k) in arrivals {
            out.push(j.arrive(t, k));
        }
        assert_eq!(out[0], None);
        assert_eq!(out[5], None);
        let mut expect = 0.0f64;
        for (i, d) in [(1usize, 0.0f64), (2, 0.008), (3, -0.008), (4, 0.004)] {
            expect += (d.abs() - expect) / 16.0;
            let (interval, jit) = out[i].expect("present");
            assert!(
                (jit - expect).abs() < 1e-12,
                "arrival {i}: {jit} vs {expect}"
            );
            assert!(interval > 0.0);
        }
        // By hand: 0, 0.5 ms, 0.96875 ms, 1.158 ms.
        assert!(
            (j.jitter_s() - 0.001_158_203_125).abs() < 1e-12,
            "{}",
            j.jitter_s()
        );
        // The same through the graph: the series holds exactly these.
        let mut g = NetGraph::new();
        let mut s = sample(true);
        for (n, (t, k)) in arrivals.iter().enumerate() {
            s.snapshots_applied = n as u64 + 1;
            s.last_snapshot_tick = Some(*k);
            g.push(secs(*t), &s);
        }
        let jit: Vec<f32> = g.jitter_ms().iter().map(|(_, v)| v).collect();
        assert_eq!(jit.len(), 4);
        assert!((jit[3] - 1.158_203).abs() < 1e-4, "{jit:?}");
        let iv: Vec<f32> = g.snapshot_interval_ms().iter().map(|(_, v)| v).collect();
        assert!(
            (iv[3] - (2.0 * 1000.0 / 60.0 + 4.0) as f32).abs() < 1e-3,
            "{iv:?}"
        );
    }

    #[test]
    fn a_clock_that_goes_back_or_counters_that_reset_start_the_graph_over() {
        let mut g = NetGraph::new();
        let mut s = sample(true);
        s.bytes_in = 10_000;
        for i in 0..100 {
            s.bytes_in += 100;
            g.push(secs(5.0 + f64::from(i) * 0.02), &s);
        }
        assert!(!g.rtt_ms().is_empty());
        g.push(secs(1.0), &sample(true));
        assert_eq!(g.rtt_ms().len(), 1, "cleared, then one new sample");
        assert!(
            g.bytes_per_s().is_empty(),
            "no rate from another client's counters"
        );
    }

    #[test]
    fn nice_scales_step_one_two_five() {
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(20.0), 20.0);
        assert_eq!(nice_ceiling(21.0), 50.0);
        assert_eq!(nice_ceiling(0.7), 1.0);
        assert_eq!(nice_ceiling(1000.0), 1000.0);
        assert_eq!(nice_ceiling(f32::NAN), 1.0);
        assert_eq!(fmt_length(0.000_12), "0.12 mm");
        assert_eq!(fmt_length(0.031), "3.1 cm");
        assert_eq!(fmt_bytes(12_345.0), "12.3k");
        assert_eq!(fmt_ms(4.25), "4.2 ms");
    }

    /// The shapes `draw` emits, without a GPU.
    fn shapes(g: &NetGraph, rect: Rect) -> usize {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, vec2(480.0, 270.0))),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| g.draw(ui.painter(), rect));
        let n = out.shapes.len();
        out.drop_without_applying_deltas();
        n
    }

    #[test]
    fn hostile_values_and_degenerate_rects_draw_without_panicking() {
        let mut g = NetGraph::new();
        let mut s = NetSample {
            in_world: true,
            rtt: Some(Duration::MAX),
            interpolation_delay: Some(Duration::from_secs(1 << 40)),
            bytes_in: u64::MAX / 2,
            bytes_out: 0,
            server_throttle: Some((100, 255)),
            ..NetSample::default()
        };
        for i in 0..200u64 {
            s.snapshots_applied = i;
            s.last_snapshot_tick = Some(i * 1_000_000);
            s.corrections = i * 1000;
            s.correction_error_sum_m = if i % 2 == 0 { f64::NAN } else { 1e300 };
            g.push(secs(i as f64 * 0.05), &s);
        }
        let rect = Rect::from_min_size(pos2(200.0, 0.0), vec2(280.0, 250.0));
        assert!(shapes(&g, rect) > 0);
        assert!(
            shapes(&NetGraph::new(), rect) > 0,
            "an empty graph draws its frame"
        );
        for bad in [
            Rect::NOTHING,
            Rect::from_min_size(Pos2::ZERO, vec2(0.0, 0.0)),
            Rect::from_min_size(Pos2::ZERO, vec2(f32::NAN, 10.0)),
        ] {
            assert_eq!(shapes(&g, bad), 0);
        }
        // A tiny rect still draws without panicking.
        let _ = shapes(&g, Rect::from_min_size(Pos2::ZERO, vec2(9.0, 9.0)));
    }

    /// A transport that never carries anything: the session is fed with `receive`.
    struct Silent;

    impl fl_net::ClientTransport for Silent {
        fn poll(&mut self, _: &mut Vec<fl_net::ClientEvent>) {}
        fn send(&mut self, _: fl_net::Channel, _: &[u8]) -> Result<(), fl_net::SendError> {
            Ok(())
        }
        fn disconnect(&mut self, _: &str) {}
        fn link_stats(&self) -> fl_net::LinkStats {
            fl_net::LinkStats::default()
        }
    }

    #[test]
    fn hud_extras_carry_recent_notices_and_the_motd_while_it_shows() {
        use fl_protocol::msg::handshake::Motd;
        use fl_protocol::msg::world::ServerNotice;
        use fl_protocol::{FixedStr, Message};
        let session = crate::session::ClientSession::new(
            Box::new(Silent),
            crate::session::SessionConfig::default(),
            Duration::ZERO,
        );
        let mut client = Client::new(session, crate::client::ClientConfig::default(), None);
        let s = client.session_mut();
        let motd = Message::from(Motd {
            display_seconds: 30,
            text: "Welcome\r\n\nto the range".into(),
        });
        s.receive(
            fl_net::Channel::Reliable,
            &motd.encode().expect("present"),
            secs(1.0),
        );
        for (i, at) in [
            (0u16, 2.0),
            (1, 3.0),
            (2, 20.0),
            (3, 21.0),
            (4, 22.0),
            (5, 23.0),
        ] {
            let n = Message::from(ServerNotice {
                seconds_remaining: 300 - i,
                text: FixedStr::new(&format!("notice {i}")),
            });
            s.receive(
                fl_net::Channel::Reliable,
                &n.encode().expect("present"),
                secs(at),
            );
        }
        let e = extras_from_client(&client, secs(23.5), 4.5, 300.0);
        assert_eq!((e.max_g, e.bingo_fuel_kg), (4.5, 300.0));
        // Newest three, oldest first; notices 0 and 1 are older than 15 s anyway.
        assert_eq!(e.notices, vec!["notice 3", "notice 4", "notice 5"]);
        assert_eq!(e.motd.as_deref(), Some("Welcome / to the range"));
        // Not in the world: no ping or loss to show.
        assert_eq!(
            (e.ping_ms, e.loss_percent, e.server_throttled),
            (None, None, false)
        );
        // The MOTD's 30 s are over at 31 s; the last notice goes 15 s after it came.
        let later = extras_from_client(&client, secs(37.5), 0.0, 0.0);
        assert_eq!(later.notices, vec!["notice 5"]);
        assert_eq!(later.motd, None);
        assert!(
            extras_from_client(&client, secs(40.0), 0.0, 0.0)
                .notices
                .is_empty()
        );
    }

    #[test]
    fn the_preferred_size_follows_the_window_and_the_ui_scale() {
        let a = NetGraph::preferred_size(1080.0, 1.0);
        let b = NetGraph::preferred_size(2160.0, 1.0);
        let c = NetGraph::preferred_size(1080.0, 2.0);
        assert!(
            b.y > a.y && (c.y - 2.0 * a.y).abs() < 1e-3,
            "{a:?} {b:?} {c:?}"
        );
        let tiny = NetGraph::preferred_size(270.0, f32::NAN);
        assert!(
            tiny.y >= STRIPS as f32 * STRIP_FONTS * 8.0,
            "text at least 8 px: {tiny:?}"
        );
    }
}
