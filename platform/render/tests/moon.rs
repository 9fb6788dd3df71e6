//! The moon in the sky: where the ephemeris puts it, lit on the side facing the sun (its phase),
//! and absent when the frame has no moon.

mod common;

use fl_render::sun::{UtcTime, geodetic_direction};
use fl_render::{Camera, Frame, SkyParams};
use glam::DVec3;

const SIZE: u32 = 128;

/// A camera 2 km over Nevada looking straight at the moon with a 4° field of view (the disc,
/// 0.52° across, spans about 16 px).
fn moon_frame(time: UtcTime) -> Frame {
    let (lat, lon) = (36.27f64.to_radians(), (-115.64f64).to_radians());
    let up = geodetic_direction(lat, lon);
    let position = DVec3::new(0.0, -fl_render::frame::PLANET_RADIUS_M, 0.0)
        + up * (fl_render::frame::PLANET_RADIUS_M + 2000.0);
    let sky = SkyParams::at(time);
    let moon = sky.moon_direction.expect("SkyParams::at sets the moon");
    assert!(
        moon.dot(up) > 0.3,
        "the test's moon is well above the horizon"
    );
    Frame {
        camera: Camera::looking_at(position, position + moon * 1e6, up, 4f64.to_radians()),
        sky,
        lights: Vec::new(),
        terrain: Vec::new(),
        instances: Vec::new(),
    }
}

fn luminance(p: &image::Rgba<u8>) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

#[test]
fn full_moon_is_a_bright_disc_where_the_ephemeris_puts_it() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = fl_render::Renderer::new(&gpu).expect("renderer");
    // Full moon 2026-01-03 10:03 UTC: about 02:20 local time in Nevada, the moon high, the sun
    // far below the horizon.
    let frame = moon_frame(UtcTime::new(2026, 1, 3, 10, 3, 0.0));
    let img = common::render(&gpu, &mut renderer, &frame, SIZE, SIZE);
    common::keep("moon_full", &img);
    let c = SIZE / 2;
    let centre = luminance(img.get_pixel(c, c));
    let sky = luminance(img.get_pixel(c + 20, c));
    assert!(
        centre > 120.0 && centre > sky + 80.0,
        "the disc {centre} against the night sky {sky}"
    );
    // Without a moon the same pixel is night sky.
    let none = Frame {
        sky: SkyParams {
            moon_direction: None,
            ..frame.sky
        },
        ..frame
    };
    let dark = common::render(&gpu, &mut renderer, &none, SIZE, SIZE);
    assert!(
        luminance(dark.get_pixel(c, c)) < sky + 10.0,
        "no moon: {:?}",
        dark.get_pixel(c, c)
    );
}

#[test]
fn first_quarter_moon_is_lit_on_the_side_towards_the_sun() {
    let Some(gpu) = common::gpu() else { return };
    let mut renderer = fl_render::Renderer::new(&gpu).expect("renderer");
    // First quarter 2026-01-26 04:47 UTC: evening in Nevada, the moon in the south-west.
    let frame = moon_frame(UtcTime::new(2026, 1, 26, 4, 47, 0.0));
    let img = common::render(&gpu, &mut renderer, &frame, SIZE, SIZE);
    common::keep("moon_quarter", &img);
    // Which side of the image the sun is on: the sun's direction in the camera's right axis.
    let right = frame.camera.orientation * DVec3::X;
    let sun_right = frame.sky.sun_direction.dot(right) > 0.0;
    let c = SIZE / 2;
    let (lit_x, dark_x) = if sun_right {
        (c + 5, c - 5)
    } else {
        (c - 5, c + 5)
    };
    let (lit, dark) = (
        luminance(img.get_pixel(lit_x, c)),
        luminance(img.get_pixel(dark_x, c)),
    );
    assert!(
        lit > dark + 60.0,
        "sunward half {lit} against the other {dark}"
    );
}
