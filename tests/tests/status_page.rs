//! The dedicated server's status page in a real headless browser: the real `fl-server` binary
//! with `--http 127.0.0.1:0`, a real Chromium driven over the DevTools protocol as an operator
//! would use the page — it loads and shows the server, its plots grow as the server publishes,
//! an admin command is refused before a login (and a wrong token is refused), and works after
//! it; an operator's `say` line shows in the page's recent chat. Loopback only; both processes are ended through their own handles.
//!
//! Without Chromium (`./dev deps` installs it) the test records a skip.

use fl_e2e::browser::{Browser, chromium_binary};
use fl_e2e::{RunningGame, server_binary};
use std::process::Command;
use std::time::Duration;

const TOKEN: &str = "browser-test-token";

#[test]
fn the_status_page_loads_updates_and_runs_admin_commands_only_after_login() {
    let Some(chromium) = chromium_binary() else {
        fl_fixtures::skip("chromium is not installed (./dev deps installs it)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("server.toml"),
        format!("[server]\nname = \"Browser test\"\n\n[http]\nadmin_token = \"{TOKEN}\"\n"),
    )
    .expect("config");
    let mut cmd = Command::new(server_binary());
    cmd.env_remove("RUST_LOG")
        .current_dir(dir.path())
        .args(["--bind", "127.0.0.1", "--port", "0", "--data-dir", "data"])
        .args(["--http", "127.0.0.1:0", "--ai", "2"]);
    let mut server = RunningGame::spawn(cmd, dir.path().join("server.log"));
    let line = server.wait_for("status page on http://", Duration::from_secs(120));
    let url = line
        .split("status page on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the page's address")
        .to_owned();

    let mut b = Browser::start(&chromium, Duration::from_secs(60));
    b.navigate(&url);
    assert!(
        b.wait_until(
            "document.getElementById('name')?.textContent === 'Browser test' \
             && document.getElementById('conn').textContent === 'live'",
            Duration::from_secs(30)
        ),
        "the page did not load the server's status: {}",
        b.eval("document.title + ' | ' + document.body.innerText.slice(0, 400)")
    );
    // Wait for the first published metrics (the server publishes once a second).
    assert!(b.wait_until(
        "Number(document.getElementById('plot-tick').dataset.points) >= 1",
        Duration::from_secs(30)
    ));
    let entities = b.eval("Number(document.getElementById('entities').textContent)");
    assert!(
        entities.as_f64().unwrap_or(0.0) >= 2.0,
        "entities shown: {entities}"
    );
    let tick_hz = b.eval("Number(document.getElementById('tick-hz').textContent)");
    assert!(
        tick_hz.as_f64().unwrap_or(0.0) > 0.0,
        "tick rate shown: {tick_hz}"
    );

    // The plots grow as new samples arrive.
    let before = b.eval("Number(document.getElementById('plot-tick').dataset.points)");
    let before = before.as_f64().unwrap_or(0.0);
    assert!(
        b.wait_until(
            &format!("Number(document.getElementById('plot-tick').dataset.points) > {before}"),
            Duration::from_secs(30)
        ),
        "the plot did not update"
    );

    // Without a login the page offers only the login form, and the API refuses a command.
    assert_eq!(
        b.eval("document.getElementById('command-form').classList.contains('hidden')"),
        true
    );
    let status = b.eval(
        "fetch('/api/admin', {method: 'POST', headers: {'Content-Type': 'application/json'}, \
         body: JSON.stringify({command: 'pause'})}).then(r => r.status)",
    );
    assert_eq!(status, 401, "an admin command without a login");

    // A wrong token is refused through the form.
    b.eval(
        "document.getElementById('token').value = 'wrong'; \
         document.getElementById('login').click(); true",
    );
    assert!(b.wait_until(
        "document.getElementById('admin-output').textContent.startsWith('login refused')",
        Duration::from_secs(10)
    ));

    // The right token unlocks the command line; `pause` runs and the page shows the result.
    b.eval(&format!(
        "document.getElementById('token').value = '{TOKEN}'; \
         document.getElementById('login').click(); true"
    ));
    assert!(
        b.wait_until(
            "!document.getElementById('command-form').classList.contains('hidden')",
            Duration::from_secs(10)
        ),
        "the command form did not appear after login: {}",
        b.eval("document.getElementById('admin-output').textContent")
    );
    b.eval(
        "document.getElementById('command').value = 'pause'; \
         document.getElementById('run').click(); true",
    );
    assert!(
        b.wait_until(
            "document.getElementById('admin-output').textContent.includes('paused')",
            Duration::from_secs(10)
        ),
        "no command output: {}",
        b.eval("document.getElementById('admin-output').textContent")
    );
    // The next status the page polls shows the world paused.
    assert!(
        b.wait_until(
            "document.getElementById('paused').textContent === 'PAUSED'",
            Duration::from_secs(15)
        ),
        "the page does not show the pause"
    );

    // `say` from the page: the line is chat, and the page's recent chat shows it.
    b.eval(
        "document.getElementById('command').value = 'say hello from the page'; \
         document.getElementById('run').click(); true",
    );
    assert!(
        b.wait_until(
            "document.getElementById('chat').textContent.includes('* hello from the page')",
            Duration::from_secs(15)
        ),
        "the operator's line is not in the page's chat: {}",
        b.eval("document.getElementById('chat').textContent")
    );

    let png = b.screenshot();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("status_page.png");
    let _ = std::fs::write(&shot, &png);
}
