//! The fixture pack's sounds by purpose (fl-base-pack's `audio/sfx`, `audio/music`,
//! `audio/radio`), loaded through the content stack into a bank and played through the mix:
//! an explosion heard from 300 m, the menu music looping on the music bus, a radio call on
//! the radio bus. Without the fixture pack each test records an `FL-SKIP` and returns.

use fl_audio::{
    Bus, Command, DVec3, Emitter, Mixer, MusicTrack, Positional, Sfx, Sound, SoundBank, SourceId,
};
use fl_content::{Content, LoadOptions};

const RATE: u32 = 48_000;

fn rms(s: &[f32]) -> f32 {
    (s.iter().map(|v| v * v).sum::<f32>() / s.len().max(1) as f32).sqrt()
}

fn fixture_content() -> Option<Content> {
    let pack = fl_fixtures::fixture_pack_or("no pack sounds to load")?;
    Some(
        Content::load(&LoadOptions {
            pack_dirs: vec![pack],
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{e}")),
    )
}

#[test]
fn the_fixture_packs_sounds_load_by_purpose_and_play() {
    let Some(content) = fixture_content() else {
        return;
    };
    let bank = SoundBank::load(&content);
    assert!(bank.problems().is_empty(), "{:?}", bank.problems());
    for s in Sfx::ALL {
        let c = bank.sfx(s).unwrap_or_else(|| panic!("{s:?} missing"));
        assert!(
            c.seconds() > 0.05 && c.seconds() < 1.0,
            "{s:?}: {}",
            c.seconds()
        );
    }
    let menu = bank
        .music(MusicTrack::Menu)
        .unwrap_or_else(|| panic!("no menu music"));
    println!("menu music: {:.1} s at {} Hz", menu.seconds(), menu.rate());
    assert!(menu.seconds() > 60.0, "{}", menu.seconds());
    // The pack ships only the menu theme.
    assert!(bank.music(MusicTrack::Combat).is_none());
    let keys: Vec<&str> = bank.radio_keys().collect();
    println!(
        "{} radio calls, {} samples in all",
        keys.len(),
        bank.samples()
    );
    assert_eq!(keys.len(), 42, "{keys:?}");
    assert!(keys.contains(&"atc.cleared_takeoff") && keys.contains(&"wingman.copy"));

    // An explosion 300 m off on the weapons bus, the menu music, a radio call.
    let mut m = Mixer::new(RATE);
    let explosion = bank
        .sfx(Sfx::Explosion)
        .cloned()
        .unwrap_or_else(|| panic!());
    m.apply(Command::Spawn(
        SourceId(1),
        Positional {
            sound: Sound::Clip(explosion),
            bus: Sfx::Explosion.bus(),
            looping: false,
            falloff: Sfx::Explosion.falloff(),
            emitter: Emitter::at(DVec3::new(0.0, 0.0, -300.0), DVec3::ZERO),
        },
    ));
    let mut boom = vec![0.0; 2 * RATE as usize];
    m.render(&mut boom);
    assert!(rms(&boom) > 0.005, "{}", rms(&boom));
    assert_eq!(m.stats().sources, 0, "the one-shot ended");

    m.apply(Command::Music {
        clip: bank.music(MusicTrack::Menu).cloned(),
        looping: true,
    });
    m.apply(Command::Radio(
        bank.radio("atc.cleared_takeoff")
            .cloned()
            .unwrap_or_else(|| panic!()),
    ));
    let mut both = vec![0.0; 4 * RATE as usize];
    m.render(&mut both);
    m.set_bus_volume(Bus::Music, 0.0);
    m.set_bus_volume(Bus::Radio, 0.0);
    let mut glide = vec![0.0; RATE as usize];
    m.render(&mut glide);
    let mut none = vec![0.0; RATE as usize];
    m.render(&mut none);
    println!(
        "music + radio: RMS {:.3}; both buses at 0: {:.6}",
        rms(&both),
        rms(&none)
    );
    assert!(rms(&both[2 * RATE as usize..]) > 0.02);
    assert!(rms(&none) < 1e-6);
}
