//! The Linux evdev fallback: controllers gilrs-core skips. Its Linux backend drops any device
//! with no button or fewer than two absolute axes, which is exactly rudder pedals (axes, no
//! buttons) and many single-axis throttles; this module lists `/dev/input/event*`, reads each
//! device's capabilities (EVIOCGNAME, EVIOCGID, EVIOCGBIT, EVIOCGABS, EVIOCGPROP), takes the
//! controllers gilrs would skip — the complement of gilrs's own test, so no device is listed
//! twice — and reads their `struct input_event` records without blocking, as [`DeviceEvent`]s
//! with axes normalised by each axis's absinfo minimum and maximum.
//!
//! The device access is behind two traits ([`DeviceDir`], [`EventDevice`]) so tests feed fake
//! capabilities and a file of raw records through the same scanning and decoding code the real
//! backend runs. Owns the ioctls (the only `unsafe` of the crate, in [`eviocg`]), the record
//! layout, hot-plug by rescanning, and recovery after the kernel drops events. Must not decide
//! what a control does, block, or fail the game: a device that cannot be opened is skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::EVDEV_SLOT_BASE;
use crate::device::{DeviceEvent, DeviceInfo, DeviceKind, DeviceSlot, clean_name};

pub const EV_SYN: u16 = 0x00;
pub const EV_KEY: u16 = 0x01;
pub const EV_ABS: u16 = 0x03;
pub const SYN_REPORT: u16 = 0;
pub const SYN_DROPPED: u16 = 3;
/// The highest key code (`KEY_MAX`).
pub const KEY_MAX: u16 = 0x2ff;
/// The highest absolute axis code (`ABS_MAX`).
pub const ABS_MAX: u16 = 0x3f;
const BTN_LEFT: u16 = 0x110;
const BTN_TOUCH: u16 = 0x14a;
const INPUT_PROP_ACCELEROMETER: u16 = 0x06;
/// Bytes of one `struct input_event` on this platform (24 on 64-bit Linux).
pub const RECORD: usize = size_of::<libc::input_event>();
/// Polls between two scans of the device folder (hot-plug; about a second at 60 fps).
pub const SCAN_EVERY_POLLS: u32 = 60;
/// Records read from one device in one poll at most.
const MAX_RECORDS_PER_POLL: usize = 1_024;
/// Device nodes looked at per scan at most.
const MAX_NODES: usize = 256;
/// Devices opened by the fallback at most.
const MAX_OPEN: usize = 16;

/// One axis's range, from EVIOCGABS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AbsInfo {
    pub value: i32,
    pub minimum: i32,
    pub maximum: i32,
}

impl AbsInfo {
    /// `v` as −1 (minimum) … 1 (maximum); 0 for a range that is empty or backwards.
    pub fn normalise(&self, v: i32) -> f32 {
        let (lo, hi) = (i64::from(self.minimum), i64::from(self.maximum));
        if hi <= lo {
            return 0.0;
        }
        let t = (i64::from(v) - lo) as f64 / (hi - lo) as f64;
        (t * 2.0 - 1.0).clamp(-1.0, 1.0) as f32
    }
}

/// A device's bus, vendor, product and version (EVIOCGID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InputIdent {
    pub bustype: u16,
    pub vendor: u16,
    pub product: u16,
    pub version: u16,
}

impl InputIdent {
    /// The UUID gilrs gives the same device (SDL's GUID layout), so a device's id has one form
    /// whichever backend finds it.
    pub fn uuid(&self) -> [u8; 16] {
        let bus = u32::from(self.bustype).to_be().to_be_bytes();
        let vendor = self.vendor.to_be().to_be_bytes();
        let product = self.product.to_be();
        let version = self.version.to_be();
        [
            bus[0],
            bus[1],
            bus[2],
            bus[3],
            vendor[0],
            vendor[1],
            0,
            0,
            (product >> 8) as u8,
            product as u8,
            0,
            0,
            (version >> 8) as u8,
            version as u8,
            0,
            0,
        ]
    }
}

/// What a device can report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Caps {
    pub name: String,
    pub id: InputIdent,
    /// Key and button codes (EV_KEY bits).
    pub keys: Vec<u16>,
    /// Absolute axes and their ranges (EV_ABS bits, EVIOCGABS).
    pub abs: Vec<(u16, AbsInfo)>,
    /// The kernel marks it an accelerometer (a phone or controller's motion sensor).
    pub accelerometer: bool,
}

impl Caps {
    /// gilrs-core's Linux backend takes this device (`!buttons.is_empty() && axes.len() >= 2`,
    /// counting every key bit and every absolute axis bit, as it does).
    pub fn gilrs_sees(&self) -> bool {
        !self.keys.is_empty() && self.abs.len() >= 2
    }

    /// The fallback takes it: gilrs does not, and it is a controller — a stick, throttle,
    /// pedal, wheel or hat axis; no mouse, touch surface or motion sensor.
    pub fn wanted(&self) -> bool {
        let controller_axis = self
            .abs
            .iter()
            .any(|(c, _)| *c <= 0x0a || (0x10..=0x17).contains(c));
        !self.gilrs_sees()
            && controller_axis
            && !self.accelerometer
            && !self.keys.contains(&BTN_LEFT)
            && !self.keys.contains(&BTN_TOUCH)
    }

    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: clean_name(&self.name),
            uuid: self.id.uuid(),
            kind: DeviceKind::Joystick,
        }
    }
}

/// One `struct input_event`, without its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    pub kind: u16,
    pub code: u16,
    pub value: i32,
}

/// The whole records in `bytes` (the kernel writes whole records; a partial tail is left to the
/// caller). Each record is the time (`RECORD` − 8 bytes, ignored: the game counts ticks), then
/// type, code and value in the machine's byte order.
pub fn decode(bytes: &[u8]) -> impl Iterator<Item = RawEvent> + '_ {
    bytes.chunks_exact(RECORD).map(|r| {
        let t = RECORD - 8;
        RawEvent {
            kind: u16::from_ne_bytes([r[t], r[t + 1]]),
            code: u16::from_ne_bytes([r[t + 2], r[t + 3]]),
            value: i32::from_ne_bytes([r[t + 4], r[t + 5], r[t + 6], r[t + 7]]),
        }
    })
}

/// A device's state as the kernel has it now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceState {
    /// Every absolute axis's value.
    pub axes: Vec<(u16, i32)>,
    /// The keys and buttons held.
    pub keys: Vec<u16>,
}

/// One event device, opened.
pub trait EventDevice {
    fn caps(&self) -> std::io::Result<Caps>;
    /// Reads records without blocking (`WouldBlock` or 0 bytes: nothing more now).
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize>;
    /// Every axis's value and the keys held now (to recover after the kernel dropped events).
    fn state(&self, caps: &Caps) -> std::io::Result<DeviceState>;
}

/// Where event devices are found.
pub trait DeviceDir {
    type Device: EventDevice;
    /// The device nodes present now.
    fn list(&mut self) -> std::io::Result<Vec<PathBuf>>;
    fn open(&mut self, path: &Path) -> std::io::Result<Self::Device>;
}

/// Turns one device's records into [`DeviceEvent`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoder {
    slot: DeviceSlot,
    abs: BTreeMap<u16, AbsInfo>,
    held: BTreeSet<u16>,
    /// The kernel dropped events: ignore records until the next report, then resynchronise.
    dropping: bool,
}

impl Decoder {
    pub fn new(slot: DeviceSlot, caps: &Caps) -> Self {
        Decoder {
            slot,
            abs: caps.abs.iter().copied().collect(),
            held: BTreeSet::new(),
            dropping: false,
        }
    }

    /// One record; returns `true` when the device's state must be read again
    /// ([`Decoder::resync`]).
    pub fn record(&mut self, ev: RawEvent, out: &mut Vec<DeviceEvent>) -> bool {
        if self.dropping {
            if ev.kind == EV_SYN && ev.code == SYN_REPORT {
                self.dropping = false;
                return true;
            }
            return false;
        }
        match (ev.kind, ev.code) {
            (EV_SYN, SYN_DROPPED) => self.dropping = true,
            (EV_ABS, code) => {
                if let Some(info) = self.abs.get(&code) {
                    out.push(self.axis(code, info.normalise(ev.value)));
                }
            }
            // 2 is the kernel's auto-repeat of a held key.
            (EV_KEY, code) if ev.value == 0 || ev.value == 1 => {
                let pressed = ev.value == 1;
                let changed = if pressed {
                    self.held.insert(code)
                } else {
                    self.held.remove(&code)
                };
                if changed {
                    out.push(DeviceEvent::Button {
                        slot: self.slot,
                        code: u32::from(code),
                        named: None,
                        pressed,
                    });
                }
            }
            _ => {}
        }
        false
    }

    /// Reports the device's current state after dropped events: every axis, and every key
    /// whose state differs from what was last reported.
    pub fn resync(&mut self, state: &DeviceState, out: &mut Vec<DeviceEvent>) {
        for (code, v) in &state.axes {
            if let Some(info) = self.abs.get(code) {
                out.push(self.axis(*code, info.normalise(*v)));
            }
        }
        let now: BTreeSet<u16> = state.keys.iter().copied().collect();
        for code in self.held.symmetric_difference(&now) {
            out.push(DeviceEvent::Button {
                slot: self.slot,
                code: u32::from(*code),
                named: None,
                pressed: now.contains(code),
            });
        }
        self.held = now;
    }

    fn axis(&self, code: u16, value: f32) -> DeviceEvent {
        DeviceEvent::Axis {
            slot: self.slot,
            code: u32::from(code),
            named: None,
            value,
        }
    }
}

/// An opened device.
struct Opened<D> {
    dev: D,
    slot: DeviceSlot,
    caps: Caps,
    decoder: Decoder,
    /// A partial record left from the last read.
    carry: Vec<u8>,
}

/// The fallback backend over a [`DeviceDir`].
pub struct Evdev<D: DeviceDir> {
    dir: D,
    open: BTreeMap<PathBuf, Opened<D::Device>>,
    /// Nodes looked at and not taken (gilrs's, not controllers, or not openable), until they
    /// go away.
    passed: BTreeSet<PathBuf>,
    next_slot: u32,
    polls: u32,
    buf: Vec<u8>,
}

impl<D: DeviceDir> std::fmt::Debug for Evdev<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evdev")
            .field("open", &self.open.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<D: DeviceDir> Evdev<D> {
    pub fn with_dir(dir: D) -> Self {
        Evdev {
            dir,
            open: BTreeMap::new(),
            passed: BTreeSet::new(),
            next_slot: 0,
            polls: 0,
            buf: vec![0; RECORD * 64],
        }
    }

    /// The device folder (tests change their fake one).
    pub fn dir_mut(&mut self) -> &mut D {
        &mut self.dir
    }

    /// The names of the devices the fallback has open.
    pub fn names(&self) -> Vec<String> {
        self.open.values().map(|o| o.caps.name.clone()).collect()
    }

    /// Appends what happened since the last poll: devices found or gone (the folder is scanned
    /// on the first poll and every [`SCAN_EVERY_POLLS`]), and every open device's records.
    pub fn poll(&mut self, out: &mut Vec<DeviceEvent>) {
        if self.polls.is_multiple_of(SCAN_EVERY_POLLS) {
            self.rescan(out);
        }
        self.polls = self.polls.wrapping_add(1);
        let mut gone = Vec::new();
        for (path, o) in &mut self.open {
            if read_device(o, &mut self.buf, out).is_err() {
                gone.push(path.clone());
            }
        }
        for path in gone {
            if let Some(o) = self.open.remove(&path) {
                tracing::info!("{} ({}) went away", o.caps.name, path.display());
                out.push(DeviceEvent::Disconnected { slot: o.slot });
            }
        }
    }

    /// Looks at the device folder now: opens new controllers gilrs skips, reports those gone.
    pub fn rescan(&mut self, out: &mut Vec<DeviceEvent>) {
        let listed: BTreeSet<PathBuf> = match self.dir.list() {
            Ok(l) => l.into_iter().take(MAX_NODES).collect(),
            Err(e) => {
                tracing::debug!("input devices not listed: {e}");
                return;
            }
        };
        let gone: Vec<PathBuf> = self
            .open
            .keys()
            .filter(|p| !listed.contains(*p))
            .cloned()
            .collect();
        for p in gone {
            if let Some(o) = self.open.remove(&p) {
                out.push(DeviceEvent::Disconnected { slot: o.slot });
            }
        }
        self.passed.retain(|p| listed.contains(p));
        for path in listed {
            if self.open.contains_key(&path)
                || self.passed.contains(&path)
                || self.open.len() >= MAX_OPEN
            {
                continue;
            }
            self.passed.insert(path.clone());
            let dev = match self.dir.open(&path) {
                Ok(d) => d,
                Err(e) => {
                    tracing::debug!("{} not opened: {e}", path.display());
                    continue;
                }
            };
            let caps = match dev.caps() {
                Ok(c) if c.wanted() => c,
                Ok(_) => continue,
                Err(e) => {
                    tracing::debug!("{}: capabilities not read: {e}", path.display());
                    continue;
                }
            };
            self.passed.remove(&path);
            let slot = DeviceSlot(EVDEV_SLOT_BASE + (self.next_slot % EVDEV_SLOT_BASE));
            self.next_slot = self.next_slot.wrapping_add(1);
            tracing::info!(
                "{} ({}): a controller gilrs skips, read through evdev",
                caps.name,
                path.display()
            );
            out.push(DeviceEvent::Connected {
                slot,
                info: caps.info(),
            });
            for (code, info) in &caps.abs {
                out.push(DeviceEvent::Axis {
                    slot,
                    code: u32::from(*code),
                    named: None,
                    value: info.normalise(info.value),
                });
            }
            let decoder = Decoder::new(slot, &caps);
            self.open.insert(
                path,
                Opened {
                    dev,
                    slot,
                    caps,
                    decoder,
                    carry: Vec::new(),
                },
            );
        }
    }
}

/// Reads what a device has (bounded); an error other than "nothing now" means it is gone.
fn read_device<D: EventDevice>(
    o: &mut Opened<D>,
    buf: &mut [u8],
    out: &mut Vec<DeviceEvent>,
) -> std::io::Result<()> {
    let mut records = 0;
    while records < MAX_RECORDS_PER_POLL {
        let n = match o.dev.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        o.carry.extend_from_slice(&buf[..n.min(buf.len())]);
        let whole = o.carry.len() / RECORD * RECORD;
        let mut resync = false;
        for ev in decode(&o.carry[..whole]) {
            resync |= o.decoder.record(ev, out);
            records += 1;
        }
        o.carry.drain(..whole);
        if resync {
            let state = o.dev.state(&o.caps)?;
            o.decoder.resync(&state, out);
        }
    }
    Ok(())
}

/// The real device folder, `/dev/input`.
#[derive(Debug, Clone)]
pub struct LinuxDir {
    root: PathBuf,
}

impl Default for LinuxDir {
    fn default() -> Self {
        LinuxDir {
            root: PathBuf::from("/dev/input"),
        }
    }
}

/// The fallback over `/dev/input`.
pub fn start() -> Evdev<LinuxDir> {
    Evdev::with_dir(LinuxDir::default())
}

impl DeviceDir for LinuxDir {
    type Device = LinuxDevice;

    fn list(&mut self) -> std::io::Result<Vec<PathBuf>> {
        let mut nodes: Vec<PathBuf> = std::fs::read_dir(&self.root)?
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("event"))
            .map(|e| e.path())
            .take(MAX_NODES)
            .collect();
        nodes.sort();
        Ok(nodes)
    }

    fn open(&mut self, path: &Path) -> std::io::Result<LinuxDevice> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)?;
        Ok(LinuxDevice { file })
    }
}

/// An event device node, opened read-only and non-blocking.
#[derive(Debug)]
pub struct LinuxDevice {
    file: std::fs::File,
}

/// Plain data the kernel fills byte by byte: any byte pattern is a valid value.
trait Plain {}
impl<const N: usize> Plain for [u8; N] {}
impl Plain for libc::input_id {}
impl Plain for libc::input_absinfo {}

/// The evdev read request `nr` into `out` (`EVIOCG*`, sized for `T`).
#[allow(unsafe_code)]
fn eviocg<T: Plain>(fd: std::os::fd::RawFd, nr: u32, out: &mut T) -> std::io::Result<()> {
    let request = libc::_IOR::<T>(u32::from(b'E'), nr);
    // SAFETY: `request` is built by `_IOR::<T>`, so it encodes exactly `size_of::<T>()` bytes
    // and the kernel writes at most that many into `out`, an exclusively borrowed `T` that stays
    // alive for the call; `T: Plain`, so whatever bytes the kernel writes form a valid `T`. `fd`
    // is an open descriptor owned by the caller's `File`.
    let r = unsafe { libc::ioctl(fd, request, out as *mut T) };
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The codes whose bits are set.
fn bits(b: &[u8]) -> impl Iterator<Item = u16> + '_ {
    b.iter().enumerate().flat_map(|(i, byte)| {
        (0..8u16).filter_map(move |bit| (byte & (1 << bit) != 0).then_some(i as u16 * 8 + bit))
    })
}

const EVIOCGID: u32 = 0x02;
const EVIOCGNAME: u32 = 0x06;
const EVIOCGPROP: u32 = 0x09;
const EVIOCGKEY: u32 = 0x18;
const EVIOCGBIT: u32 = 0x20;
const EVIOCGABS: u32 = 0x40;
const KEY_BYTES: usize = KEY_MAX as usize / 8 + 1;
const ABS_BYTES: usize = ABS_MAX as usize / 8 + 1;

impl LinuxDevice {
    fn fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        self.file.as_raw_fd()
    }

    fn absinfo(&self, code: u16) -> std::io::Result<libc::input_absinfo> {
        let mut ai = libc::input_absinfo {
            value: 0,
            minimum: 0,
            maximum: 0,
            fuzz: 0,
            flat: 0,
            resolution: 0,
        };
        eviocg(self.fd(), EVIOCGABS + u32::from(code), &mut ai)?;
        Ok(ai)
    }
}

impl EventDevice for LinuxDevice {
    fn caps(&self) -> std::io::Result<Caps> {
        let fd = self.fd();
        let mut name = [0u8; 256];
        eviocg(fd, EVIOCGNAME, &mut name)?;
        let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
        let mut id = libc::input_id {
            bustype: 0,
            vendor: 0,
            product: 0,
            version: 0,
        };
        eviocg(fd, EVIOCGID, &mut id)?;
        let mut key_bits = [0u8; KEY_BYTES];
        eviocg(fd, EVIOCGBIT + u32::from(EV_KEY), &mut key_bits)?;
        let mut abs_bits = [0u8; ABS_BYTES];
        eviocg(fd, EVIOCGBIT + u32::from(EV_ABS), &mut abs_bits)?;
        let mut props = [0u8; 4];
        let accelerometer = eviocg(fd, EVIOCGPROP, &mut props).is_ok()
            && bits(&props).any(|p| p == INPUT_PROP_ACCELEROMETER);
        let mut abs = Vec::new();
        for code in bits(&abs_bits) {
            let ai = self.absinfo(code)?;
            abs.push((
                code,
                AbsInfo {
                    value: ai.value,
                    minimum: ai.minimum,
                    maximum: ai.maximum,
                },
            ));
        }
        Ok(Caps {
            name: String::from_utf8_lossy(&name[..end]).into_owned(),
            id: InputIdent {
                bustype: id.bustype,
                vendor: id.vendor,
                product: id.product,
                version: id.version,
            },
            keys: bits(&key_bits).collect(),
            abs,
            accelerometer,
        })
    }

    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.file.read(buf)
    }

    fn state(&self, caps: &Caps) -> std::io::Result<DeviceState> {
        let mut axes = Vec::with_capacity(caps.abs.len());
        for (code, _) in &caps.abs {
            axes.push((*code, self.absinfo(*code)?.value));
        }
        let mut keys = [0u8; KEY_BYTES];
        eviocg(self.fd(), EVIOCGKEY, &mut keys)?;
        Ok(DeviceState {
            axes,
            keys: bits(&keys).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Action;
    use crate::axis::{AxisPart, AxisSettings};
    use crate::binding::{Binding, Bindings, Input, Slot, Source};
    use crate::device::DeviceId;
    use crate::mapper::{InputEvent, Mapper};
    use std::io::Write;

    const ABS_X: u16 = 0x00;
    const ABS_Y: u16 = 0x01;
    const ABS_RZ: u16 = 0x05;
    const ABS_THROTTLE: u16 = 0x06;
    const BTN_TRIGGER: u16 = 0x120;
    const BTN_SOUTH: u16 = 0x130;

    /// One record as the kernel writes it (time zero).
    fn record(kind: u16, code: u16, value: i32) -> Vec<u8> {
        let mut r = vec![0u8; RECORD - 8];
        r.extend_from_slice(&kind.to_ne_bytes());
        r.extend_from_slice(&code.to_ne_bytes());
        r.extend_from_slice(&value.to_ne_bytes());
        r
    }

    fn abs(code: u16, minimum: i32, maximum: i32, value: i32) -> (u16, AbsInfo) {
        (
            code,
            AbsInfo {
                value,
                minimum,
                maximum,
            },
        )
    }

    /// A fake device: capabilities, a file of raw records read as the device would be, and
    /// the state a resync reads.
    struct FakeDevice {
        caps: Caps,
        file: std::fs::File,
        state: DeviceState,
        /// Reads fail as an unplugged device's do.
        unplugged: bool,
    }

    impl EventDevice for FakeDevice {
        fn caps(&self) -> std::io::Result<Caps> {
            Ok(self.caps.clone())
        }

        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.unplugged {
                return Err(std::io::Error::from_raw_os_error(libc::ENODEV));
            }
            self.file.read(buf)
        }

        fn state(&self, _: &Caps) -> std::io::Result<DeviceState> {
            Ok(self.state.clone())
        }
    }

    /// A fake `/dev/input`: nodes with capabilities and the file each reads its records from.
    #[derive(Default)]
    struct FakeDir {
        nodes: BTreeMap<PathBuf, (Caps, PathBuf)>,
        state: BTreeMap<PathBuf, DeviceState>,
        unplugged: BTreeSet<PathBuf>,
        opened: Vec<PathBuf>,
    }

    impl DeviceDir for FakeDir {
        type Device = FakeDevice;

        fn list(&mut self) -> std::io::Result<Vec<PathBuf>> {
            Ok(self.nodes.keys().cloned().collect())
        }

        fn open(&mut self, path: &Path) -> std::io::Result<FakeDevice> {
            let (caps, file) = self
                .nodes
                .get(path)
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
            self.opened.push(path.to_owned());
            Ok(FakeDevice {
                caps: caps.clone(),
                file: std::fs::File::open(file)?,
                state: self.state.get(path).cloned().unwrap_or_default(),
                unplugged: self.unplugged.contains(path),
            })
        }
    }

    fn pedals() -> Caps {
        Caps {
            name: "Saitek Pro Flight Rudder Pedals".into(),
            id: InputIdent {
                bustype: 3,
                vendor: 0x06a3,
                product: 0x0763,
                version: 0x0111,
            },
            keys: vec![],
            // Toe brakes 0 … 127 resting released; rudder 0 … 511 centred.
            abs: vec![
                abs(ABS_X, 0, 127, 0),
                abs(ABS_Y, 0, 127, 0),
                abs(ABS_RZ, 0, 511, 256),
            ],
            accelerometer: false,
        }
    }

    fn throttle() -> Caps {
        Caps {
            name: "One-Axis Throttle".into(),
            id: InputIdent {
                bustype: 3,
                vendor: 0x1234,
                product: 0x0001,
                version: 1,
            },
            keys: vec![BTN_TRIGGER, BTN_TRIGGER + 1],
            abs: vec![abs(ABS_THROTTLE, -32768, 32767, -32768)],
            accelerometer: false,
        }
    }

    fn others() -> Vec<(&'static str, Caps)> {
        let gamepad = Caps {
            name: "Xbox Controller".into(),
            keys: vec![BTN_SOUTH],
            abs: vec![abs(ABS_X, -32768, 32767, 0), abs(ABS_Y, -32768, 32767, 0)],
            ..Caps::default()
        };
        let keyboard = Caps {
            name: "AT Keyboard".into(),
            keys: vec![30, 31, 32],
            ..Caps::default()
        };
        let motion = Caps {
            name: "Motion Sensors".into(),
            abs: vec![abs(ABS_X, -100, 100, 0)],
            accelerometer: true,
            ..Caps::default()
        };
        let mouse = Caps {
            name: "Mouse with a wheel axis".into(),
            keys: vec![BTN_LEFT],
            abs: vec![abs(ABS_X, 0, 10, 0)],
            ..Caps::default()
        };
        let volume = Caps {
            name: "Volume knob".into(),
            abs: vec![abs(0x20, 0, 100, 0)],
            ..Caps::default()
        };
        vec![
            ("event2", gamepad),
            ("event3", keyboard),
            ("event4", motion),
            ("event5", mouse),
            ("event6", volume),
        ]
    }

    struct Rig {
        _dir: tempfile::TempDir,
        files: BTreeMap<&'static str, PathBuf>,
        evdev: Evdev<FakeDir>,
    }

    impl Rig {
        fn new() -> Self {
            let dir = tempfile::tempdir().expect("tempdir");
            let mut fake = FakeDir::default();
            let mut files = BTreeMap::new();
            let mut all = vec![("event0", pedals()), ("event1", throttle())];
            all.extend(others());
            for (node, caps) in all {
                let file = dir.path().join(format!("{node}.bin"));
                std::fs::write(&file, []).expect("write");
                fake.nodes.insert(
                    PathBuf::from(format!("/dev/input/{node}")),
                    (caps, file.clone()),
                );
                files.insert(node, file);
            }
            Rig {
                _dir: dir,
                files,
                evdev: Evdev::with_dir(fake),
            }
        }

        /// Appends records to a node's file (the device produced them).
        fn emit(&self, node: &str, records: &[(u16, u16, i32)]) {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&self.files[node])
                .expect("open");
            for (k, c, v) in records {
                f.write_all(&record(*k, *c, *v)).expect("append");
            }
        }

        fn poll(&mut self) -> Vec<DeviceEvent> {
            let mut out = Vec::new();
            self.evdev.poll(&mut out);
            out
        }
    }

    fn slot_of(events: &[DeviceEvent], name: &str) -> DeviceSlot {
        events
            .iter()
            .find_map(|e| match e {
                DeviceEvent::Connected { slot, info } if info.name == name => Some(*slot),
                _ => None,
            })
            .expect(name)
    }

    #[test]
    fn only_what_gilrs_skips_is_listed() {
        // Against gilrs-core 0.6.8's test: a button and two axes.
        assert!(!pedals().gilrs_sees() && pedals().wanted());
        assert!(!throttle().gilrs_sees() && throttle().wanted());
        for (node, c) in others() {
            assert!(!c.wanted(), "{node}: {}", c.name);
        }
        assert!(others()[0].1.gilrs_sees());
        let mut rig = Rig::new();
        let first = rig.poll();
        let names: Vec<&str> = first
            .iter()
            .filter_map(|e| match e {
                DeviceEvent::Connected { info, .. } => Some(info.name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            names,
            ["Saitek Pro Flight Rudder Pedals", "One-Axis Throttle"]
        );
        // Initial axis values come with the connect, normalised by absinfo.
        let pedal_slot = slot_of(&first, "Saitek Pro Flight Rudder Pedals");
        let values: Vec<(u32, f32)> = first
            .iter()
            .filter_map(|e| match e {
                DeviceEvent::Axis {
                    slot, code, value, ..
                } if *slot == pedal_slot => Some((*code, *value)),
                _ => None,
            })
            .collect();
        assert_eq!(values.len(), 3);
        assert_eq!(values[0], (0, -1.0));
        assert!((values[2].1 - (256.0 / 511.0 * 2.0 - 1.0)).abs() < 1e-6);
        // Nodes passed over are not opened again on the next scans.
        let opened = rig.evdev.dir_mut().opened.len();
        for _ in 0..SCAN_EVERY_POLLS * 2 {
            rig.poll();
        }
        assert_eq!(rig.evdev.dir_mut().opened.len(), opened);
        // The ids follow gilrs's UUID layout (SDL's GUID: bus, vendor, product, version).
        let DeviceEvent::Connected { info, .. } = &first[0] else {
            panic!("connect first");
        };
        let id = DeviceId {
            key: DeviceId::key_of(info),
            ordinal: 0,
        };
        if cfg!(target_endian = "little") {
            assert_eq!(id.to_string(), "uuid:03000000a30600006307000011010000#0");
        }
    }

    #[test]
    fn records_from_a_file_decode_through_the_real_reader() {
        let mut rig = Rig::new();
        let first = rig.poll();
        let pedals = slot_of(&first, "Saitek Pro Flight Rudder Pedals");
        let throttle = slot_of(&first, "One-Axis Throttle");
        rig.emit(
            "event0",
            &[
                (EV_ABS, ABS_RZ, 511),
                (EV_ABS, ABS_X, 127),
                (EV_SYN, SYN_REPORT, 0),
                (EV_ABS, 0x3e, 5), // an axis the device never declared: ignored
            ],
        );
        rig.emit(
            "event1",
            &[
                (EV_ABS, ABS_THROTTLE, 32767),
                (EV_KEY, BTN_TRIGGER, 1),
                (EV_KEY, BTN_TRIGGER, 2), // auto-repeat: ignored
                (EV_SYN, SYN_REPORT, 0),
                (EV_KEY, BTN_TRIGGER, 0),
                (EV_SYN, SYN_REPORT, 0),
            ],
        );
        let ev = rig.poll();
        assert_eq!(
            ev,
            [
                DeviceEvent::Axis {
                    slot: pedals,
                    code: u32::from(ABS_RZ),
                    named: None,
                    value: 1.0
                },
                DeviceEvent::Axis {
                    slot: pedals,
                    code: u32::from(ABS_X),
                    named: None,
                    value: 1.0
                },
                DeviceEvent::Axis {
                    slot: throttle,
                    code: u32::from(ABS_THROTTLE),
                    named: None,
                    value: 1.0
                },
                DeviceEvent::Button {
                    slot: throttle,
                    code: u32::from(BTN_TRIGGER),
                    named: None,
                    pressed: true
                },
                DeviceEvent::Button {
                    slot: throttle,
                    code: u32::from(BTN_TRIGGER),
                    named: None,
                    pressed: false
                },
            ]
        );
        // A record split across two reads is put together.
        let r = record(EV_ABS, ABS_RZ, 0);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&rig.files["event0"])
            .and_then(|mut f| f.write_all(&r[..10]))
            .expect("append");
        assert_eq!(rig.poll(), []);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&rig.files["event0"])
            .and_then(|mut f| f.write_all(&r[10..]))
            .expect("append");
        assert_eq!(
            rig.poll(),
            [DeviceEvent::Axis {
                slot: pedals,
                code: u32::from(ABS_RZ),
                named: None,
                value: -1.0
            }]
        );
    }

    #[test]
    fn dropped_events_are_recovered_from_the_device_state() {
        let mut rig = Rig::new();
        rig.evdev.dir_mut().state.insert(
            PathBuf::from("/dev/input/event1"),
            DeviceState {
                axes: vec![(ABS_THROTTLE, 0)],
                keys: vec![BTN_TRIGGER + 1],
            },
        );
        let first = rig.poll();
        let throttle = slot_of(&first, "One-Axis Throttle");
        rig.emit(
            "event1",
            &[
                (EV_SYN, SYN_DROPPED, 0),
                (EV_ABS, ABS_THROTTLE, 100), // part of the lost report: ignored
                (EV_SYN, SYN_REPORT, 0),
            ],
        );
        assert_eq!(
            rig.poll(),
            [
                DeviceEvent::Axis {
                    slot: throttle,
                    code: u32::from(ABS_THROTTLE),
                    named: None,
                    value: AbsInfo {
                        value: 0,
                        minimum: -32768,
                        maximum: 32767
                    }
                    .normalise(0)
                },
                DeviceEvent::Button {
                    slot: throttle,
                    code: u32::from(BTN_TRIGGER + 1),
                    named: None,
                    pressed: true
                },
            ]
        );
    }

    #[test]
    fn hot_plug_of_a_fallback_device_reaches_the_mapper_and_keeps_its_binding() {
        let mut rig = Rig::new();
        let first = rig.poll();
        // The player bound the pedals' rudder axis; the id is the pedals', not their slot.
        let mut m = Mapper::new(Bindings::defaults());
        for e in &first {
            m.event(&InputEvent::Device(e.clone()), true);
        }
        let (_, d) = m
            .devices()
            .iter()
            .find(|(_, d)| d.info.name.starts_with("Saitek"))
            .expect("pedals");
        let src = Source::Device(d.id.clone());
        let mut b = Bindings::defaults();
        b.set(
            &src,
            Action::Yaw,
            Slot::Primary,
            Some(Binding::axis(
                Input::Axis(u32::from(ABS_RZ), AxisPart::Whole),
                AxisSettings::default(),
            )),
        )
        .expect("valid");
        m.set_bindings(b);
        rig.emit("event0", &[(EV_ABS, ABS_RZ, 511), (EV_SYN, SYN_REPORT, 0)]);
        let feed = |m: &mut Mapper, evs: Vec<DeviceEvent>| {
            for e in evs {
                m.event(&InputEvent::Device(e), true);
            }
        };
        feed(&mut m, rig.poll());
        assert_eq!(m.tick().yaw, 1.0);
        // Unplugged mid-flight: reads fail, the device is gone, the rudder lets go, a notice.
        let node = PathBuf::from("/dev/input/event0");
        let fake = rig.evdev.dir_mut();
        fake.unplugged.insert(node.clone());
        // The open device learns it on its next read: make the fake fail from now on.
        rig.evdev.open.get_mut(&node).expect("open").dev.unplugged = true;
        let gone = rig.poll();
        assert!(matches!(
            gone.as_slice(),
            [DeviceEvent::Disconnected { .. }]
        ));
        feed(&mut m, gone);
        assert_eq!(m.tick().yaw, 0.0);
        let notices = m.take_notices();
        assert!(
            notices
                .last()
                .is_some_and(|n| n.contains("disconnected — the keyboard still flies")),
            "{notices:?}"
        );
        // The node disappears, then comes back (plugged in again): a new slot, the same id, and
        // the binding works again.
        let saved = rig.evdev.dir_mut().nodes.remove(&node).expect("node");
        rig.evdev.dir_mut().unplugged.clear();
        for _ in 0..SCAN_EVERY_POLLS {
            rig.poll();
        }
        rig.evdev.dir_mut().nodes.insert(node, saved);
        let mut back = Vec::new();
        for _ in 0..SCAN_EVERY_POLLS {
            back.extend(rig.poll());
        }
        assert!(
            back.iter()
                .any(|e| matches!(e, DeviceEvent::Connected { .. }))
        );
        feed(&mut m, back);
        rig.emit("event0", &[(EV_ABS, ABS_RZ, 0), (EV_SYN, SYN_REPORT, 0)]);
        feed(&mut m, rig.poll());
        assert_eq!(m.tick().yaw, -1.0);
    }

    #[test]
    fn absinfo_normalisation_handles_odd_ranges() {
        let r = AbsInfo {
            value: 0,
            minimum: 0,
            maximum: 255,
        };
        assert_eq!(r.normalise(0), -1.0);
        assert_eq!(r.normalise(255), 1.0);
        assert!((r.normalise(128) - (128.0 / 255.0 * 2.0 - 1.0)).abs() < 1e-6);
        assert_eq!(r.normalise(1_000), 1.0);
        let wide = AbsInfo {
            value: 0,
            minimum: i32::MIN,
            maximum: i32::MAX,
        };
        assert_eq!(wide.normalise(i32::MAX), 1.0);
        assert_eq!(wide.normalise(i32::MIN), -1.0);
        let empty = AbsInfo {
            value: 3,
            minimum: 5,
            maximum: 5,
        };
        assert_eq!(empty.normalise(5), 0.0);
        assert_eq!(decode(&[0u8; RECORD - 1]).count(), 0);
    }

    #[test]
    fn the_real_device_folder_scans_without_failing() {
        // Whatever this machine has (often no readable event nodes at all), scanning and
        // polling never fail or block, and nothing gilrs sees is listed.
        let mut e = start();
        let mut out = Vec::new();
        e.poll(&mut out);
        e.poll(&mut out);
        for ev in &out {
            if let DeviceEvent::Connected { info, .. } = ev {
                assert_eq!(info.kind, DeviceKind::Joystick);
            }
        }
    }
}
