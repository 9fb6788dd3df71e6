//! The ground height under a moving camera, read on a thread of its own: a height may need a
//! terrain tile read from disk, which must never stall the render thread. Owns the probe thread;
//! must not decide what the height is used for (clearance rules belong to the camera).

use std::sync::mpsc;

use fl_terrain::Terrain;

/// The ground height under the camera, read on a thread of its own (a height may need a tile
/// read from disk). The render thread asks with the latest place and uses the last answer.
#[derive(Debug)]
pub struct GroundProbe {
    tx: Option<mpsc::Sender<(f64, f64)>>,
    rx: mpsc::Receiver<f64>,
    asked: bool,
    last_m: f64,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl GroundProbe {
    /// Starts the probe over `terrain` with a first answer for the start place (read here,
    /// before the first frame).
    pub fn new(terrain: Terrain, lat: f64, lon: f64) -> std::io::Result<Self> {
        let last_m = terrain.height_at(lat, lon);
        let (tx, req) = mpsc::channel::<(f64, f64)>();
        let (done, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("fl-ground-probe".into())
            .spawn(move || {
                while let Ok((lat, lon)) = req.recv() {
                    if done.send(terrain.height_at(lat, lon)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Self {
            tx: Some(tx),
            rx,
            asked: false,
            last_m,
            thread: Some(thread),
        })
    }

    /// The latest known ground height; asks for `lat`, `lon` when no question is open. Never
    /// waits.
    pub fn height(&mut self, lat: f64, lon: f64) -> f64 {
        while let Ok(h) = self.rx.try_recv() {
            self.asked = false;
            if h.is_finite() {
                self.last_m = h;
            }
        }
        if !self.asked
            && let Some(tx) = &self.tx
        {
            self.asked = tx.send((lat, lon)).is_ok();
        }
        self.last_m
    }
}

impl Drop for GroundProbe {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
