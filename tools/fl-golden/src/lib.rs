//! Dev-only golden-image checks shared by the renderer's test suites (fl-render, fl-view): the
//! mean NVIDIA FLIP error between a render and its reference, and on a mismatch the `-actual`
//! and `-difference` images written where the failure message says. Must not: render anything
//! or know about GPUs — a test renders, this only compares.

use std::path::{Path, PathBuf};

/// Environment variable that rewrites the golden references from the current renders.
pub const UPDATE_GOLDEN_VAR: &str = "FL_UPDATE_GOLDEN";

/// A failed comparison: the mean FLIP error and where the evidence was written.
#[derive(Debug)]
pub struct GoldenMismatch {
    pub mean: f32,
    pub actual: PathBuf,
    pub difference: PathBuf,
}

/// Where a suite's golden references live and where its evidence goes.
#[derive(Debug, Clone)]
pub struct GoldenDirs {
    /// The committed references (`<name>.png`).
    pub references: PathBuf,
    /// Renders and `-actual`/`-difference` images (created on demand).
    pub output: PathBuf,
}

impl GoldenDirs {
    pub fn new(references: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        GoldenDirs {
            references: references.into(),
            output: output.into(),
        }
    }

    /// `output/<file>`, creating the output directory if needed.
    pub fn output_path(&self, file: &str) -> PathBuf {
        let _ = std::fs::create_dir_all(&self.output);
        self.output.join(file)
    }

    /// The golden check: `references/<name>.png` against `actual` (mean FLIP ≤ `threshold`);
    /// `FL_UPDATE_GOLDEN=1` rewrites the reference instead. Panics (it is a test assertion) with
    /// the paths of the evidence.
    pub fn check(&self, name: &str, actual: &image::RgbaImage, threshold: f32) -> f32 {
        let path = self.references.join(format!("{name}.png"));
        if std::env::var(UPDATE_GOLDEN_VAR).as_deref() == Ok("1") {
            save(actual, &path);
            eprintln!("golden {name}: reference rewritten at {}", path.display());
            return 0.0;
        }
        let reference = match image::open(&path) {
            Ok(i) => i.to_rgba8(),
            Err(e) => {
                let a = self.output_path(&format!("{name}-actual.png"));
                save(actual, &a);
                panic!(
                    "golden {name}: no readable reference at {} ({e}); this render is at {}; \
                     run with {UPDATE_GOLDEN_VAR}=1 to accept it",
                    path.display(),
                    a.display()
                );
            }
        };
        match self.compare(name, &reference, actual, threshold) {
            Ok(mean) => {
                eprintln!("golden {name}: mean FLIP {mean:.4} (threshold {threshold})");
                mean
            }
            Err(m) => panic!(
                "golden {name}: mean FLIP {:.4} is above {threshold}; actual: {}, difference: {}; \
                 if the change is intended, rerun with {UPDATE_GOLDEN_VAR}=1",
                m.mean,
                m.actual.display(),
                m.difference.display()
            ),
        }
    }

    /// Compares `actual` with `reference`; above `threshold`, writes `<name>-actual.png` and
    /// `<name>-difference.png` into the output directory and says where.
    pub fn compare(
        &self,
        name: &str,
        reference: &image::RgbaImage,
        actual: &image::RgbaImage,
        threshold: f32,
    ) -> Result<f32, GoldenMismatch> {
        let (mean, diff) = flip_mean(reference, actual);
        if mean <= threshold {
            return Ok(mean);
        }
        let a = self.output_path(&format!("{name}-actual.png"));
        let d = self.output_path(&format!("{name}-difference.png"));
        save(actual, &a);
        if let Err(e) = diff.save(&d) {
            panic!("cannot write {}: {e}", d.display());
        }
        Err(GoldenMismatch {
            mean,
            actual: a,
            difference: d,
        })
    }
}

fn save(img: &image::RgbaImage, path: &Path) {
    if let Err(e) = img.save(path) {
        panic!("cannot write {}: {e}", path.display());
    }
}

/// Mean FLIP error between two same-sized images (0 = identical) and the error map in the magma
/// colour map. Panics when the sizes differ (a test assertion).
pub fn flip_mean(reference: &image::RgbaImage, test: &image::RgbaImage) -> (f32, image::RgbImage) {
    assert_eq!(
        reference.dimensions(),
        test.dimensions(),
        "image sizes differ"
    );
    let (w, h) = reference.dimensions();
    let rgb = |i: &image::RgbaImage| {
        image::DynamicImage::ImageRgba8(i.clone())
            .to_rgb8()
            .into_raw()
    };
    let r = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(reference));
    let t = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(test));
    let err = nv_flip::flip(r, t, nv_flip::DEFAULT_PIXELS_PER_DEGREE);
    let pool = nv_flip::FlipPool::from_image(&err);
    let vis = err.apply_color_lut(&nv_flip::magma_lut());
    let diff =
        image::RgbImage::from_raw(w, h, vis.to_vec()).unwrap_or_else(|| image::RgbImage::new(w, h));
    (pool.mean(), diff)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(shift: u8) -> image::RgbaImage {
        image::RgbaImage::from_fn(64, 48, |x, y| {
            image::Rgba([(x * 4) as u8, (y * 5) as u8, 128u8.wrapping_add(shift), 255])
        })
    }

    #[test]
    fn identical_images_have_no_error_and_a_changed_one_fails_with_evidence() {
        let dir = std::env::temp_dir().join(format!("fl-golden-test-{}", std::process::id()));
        let dirs = GoldenDirs::new(&dir, &dir);
        let a = gradient(0);
        assert_eq!(flip_mean(&a, &a).0, 0.0);
        assert!(dirs.compare("same", &a, &a, 0.01).is_ok());
        let mut b = a.clone();
        for p in b.pixels_mut().take(64 * 24) {
            *p = image::Rgba([255, 0, 255, 255]);
        }
        let Err(m) = dirs.compare("changed", &a, &b, 0.01) else {
            panic!("a changed image passed");
        };
        assert!(m.mean > 0.05, "{}", m.mean);
        assert!(m.actual.exists() && m.difference.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
