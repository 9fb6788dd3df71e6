//! A server flying a pack's aircraft, over QUIC on 127.0.0.1: a client without the pack is
//! refused with a message naming the pack and where to put it; the same client with the pack
//! joins in that aircraft and predicts it with its own copy of the flight model.

use fighters_legacy::content::{self, ContentOptions};
use fighters_legacy::headless::{HeadlessOptions, Mode, run};
use fighters_legacy::local_server::{LocalServer, LocalServerConfig};
use std::time::Duration;

#[test]
fn a_client_lacking_the_servers_pack_is_told_which_and_where_and_with_it_flies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pack = dir.path().join("my-pack");
    fl_content::example::write_example_pack(&pack, "my-pack", "my", "trainer").expect("pack");
    let with_pack = ContentOptions {
        user_mods: false,
        mods_dirs: Vec::new(),
        pack_dirs: vec![pack.clone()],
    };
    let server_content = content::load(&with_pack, Some("my:trainer")).expect("loads");
    let mut cfg = LocalServerConfig {
        content: Some(server_content),
        ..LocalServerConfig::default()
    };
    cfg.server.player_entity_type = "my:trainer".into();
    let server = LocalServer::start(cfg, Duration::from_secs(30)).expect("server");
    let info = server.info().expect("ready");
    let connect = |client_content: Option<ContentOptions>| {
        let mut opts = HeadlessOptions {
            mode: Mode::Connect {
                host: "127.0.0.1".into(),
                port: info.addr.port(),
            },
            seconds: 2.0,
            autopilot: "level".into(),
            pin: Some(info.fingerprint),
            ..HeadlessOptions::default()
        };
        if let Some(c) = client_content {
            let c = content::load(&c, None).expect("client content");
            opts.session.packs = content::manifest(&c);
            opts.content = Some(c);
        }
        run(&opts).expect("runs")
    };

    let refused = connect(None);
    assert!(!refused.session.admitted);
    let msg = refused.session.ended.expect("ended");
    assert!(
        msg.starts_with("Missing required pack(s): my-pack (for my:trainer): ")
            && msg.contains("--pack DIR"),
        "{msg}"
    );

    let flew = connect(Some(with_pack));
    assert!(flew.session.admitted, "{:?}", flew.session.ended);
    assert_eq!(flew.session.aircraft.as_deref(), Some("my:trainer"));
    assert!(flew.prediction.enabled);
    // Another model would differ from the server on nearly every compare.
    assert!(
        flew.prediction.compared > 10 && flew.prediction.corrections * 4 < flew.prediction.compared,
        "compared {} corrections {}",
        flew.prediction.compared,
        flew.prediction.corrections
    );
    drop(server);
}
