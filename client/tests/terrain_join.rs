//! A server standing on a pack's terrain, over QUIC on 127.0.0.1 (the real embedded server and
//! the headless client): a client without that pack, with a changed copy of it, or with terrain
//! the server does not have is refused at join with the pack named; the same pack joins and flies.

use fighters_legacy::content::{self, ContentOptions};
use fighters_legacy::headless::{HeadlessOptions, HeadlessSummary, Mode, run};
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A 129 × 129 16-bit height tile.
fn tile(metres: i32) -> Vec<u8> {
    let v = ((metres + 32768) as u16).to_be_bytes();
    let data: Vec<u8> = (0..129 * 129).flat_map(|_| v).collect();
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 129, 129);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Sixteen);
        let mut w = enc.write_header().expect("header");
        w.write_image_data(&data).expect("data");
    }
    out
}

/// A pack with a theater over Nevada and one level-3 tile there at `metres`.
fn terrain_pack(root: &Path, id: &str, metres: i32) -> PathBuf {
    let dir = root.join(id);
    std::fs::create_dir_all(dir.join("theaters")).expect("mkdir");
    std::fs::write(
        dir.join("manifest.toml"),
        format!("[mod]\nid = \"{id}\"\nname = \"{id}\"\nversion = \"1.0\"\nengine-api = \"1.0\"\npriority = 10\n"),
    )
    .expect("manifest");
    std::fs::write(
        dir.join("theaters/nv.toml"),
        "[theater]\nid = \"nv\"\nbounds = { min_lat = 35.0, min_lon = -117.5, max_lat = 38.5, max_lon = -113.5 }\nterrain = \"world\"\n",
    )
    .expect("theater");
    let t = dir.join("terrain/world/f1/l3");
    std::fs::create_dir_all(&t).expect("mkdir");
    std::fs::write(t.join("tile_1_7.png"), tile(metres)).expect("tile");
    dir
}

fn only(packs: Vec<PathBuf>) -> ContentOptions {
    ContentOptions {
        user_mods: false,
        mods_dirs: Vec::new(),
        pack_dirs: packs,
    }
}

#[test]
fn a_client_on_other_terrain_is_refused_naming_the_pack_and_the_same_terrain_flies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nevada = terrain_pack(dir.path(), "nevada", 1500);
    let changed_root = dir.path().join("changed");
    let changed = terrain_pack(&changed_root, "nevada", 1501);
    let extra = terrain_pack(dir.path(), "korea", 300);
    let server_content = content::load(&only(vec![nevada.clone()]), None).expect("loads");
    // The pack's terrain is really in the server's world.
    let t =
        fl_terrain::Terrain::from_content(&server_content, fl_terrain::TerrainConfig::default());
    assert_eq!(t.index().levels(1), vec![3]);
    let server = LocalServer::start(
        LocalServerConfig {
            content: Some(server_content),
            ..LocalServerConfig::default()
        },
        Duration::from_secs(30),
    )
    .expect("server");
    let info = server.info().expect("ready");
    let connect = |packs: Vec<PathBuf>| -> HeadlessSummary {
        let mut opts = HeadlessOptions {
            mode: Mode::Connect {
                host: "127.0.0.1".into(),
                port: info.addr.port(),
            },
            seconds: 1.5,
            autopilot: "level".into(),
            pin: Some(info.fingerprint),
            ..HeadlessOptions::default()
        };
        let c = content::load(&only(packs), None).expect("client content");
        opts.session.packs = content::manifest(&c);
        opts.session.pack_hashes = content::pack_hashes(&c);
        opts.content = Some(c);
        run(&opts).expect("runs")
    };
    let refused = |packs: Vec<PathBuf>, want: &str| {
        let r = connect(packs);
        assert!(!r.session.admitted, "{want}");
        let msg = r.session.ended.expect("ended");
        assert!(msg.starts_with(want), "{msg}");
    };

    refused(Vec::new(), "Missing required pack(s): nevada (terrain)");
    refused(
        vec![changed],
        "Pack nevada: terrain differs from the server's",
    );
    refused(
        vec![nevada.clone(), extra],
        "Pack korea: terrain the server does not have",
    );
    let flew = connect(vec![nevada]);
    assert!(flew.session.admitted, "{:?}", flew.session.ended);
    assert!(flew.prediction.enabled);
    drop(server);
}
