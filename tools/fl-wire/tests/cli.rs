//! The `fl-wire` binary: hex in, JSON out, JSON in, hex out; errors on stderr with a non-zero
//! exit status.

use std::io::Write;
use std::process::{Command, Stdio};

fn fl_wire(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fl-wire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fl-wire starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("writes");
    let out = child.wait_with_output().expect("fl-wire exits");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn decode_then_encode_gives_back_the_hex() {
    // MsgConnectRefusal: code 1 (Banned), reason "You are banned from this server."
    let mut hex = String::from("0901");
    let reason = b"You are banned from this server.";
    for i in 0..62 {
        hex.push_str(&format!("{:02x}", reason.get(i).copied().unwrap_or(0)));
    }
    let (code, json, err) = fl_wire(&["decode", "--hex", &hex], "");
    assert_eq!(code, 0, "{err}");
    assert!(json.contains("\"msg\": \"ConnectRefusal\""), "{json}");
    assert!(json.contains("You are banned"), "{json}");
    let (code, out, err) = fl_wire(&["encode"], &json);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), hex);
}

#[test]
fn errors_go_to_stderr_with_a_failing_status() {
    let (code, out, err) = fl_wire(&["decode", "--hex", "ff00"], "");
    assert_ne!(code, 0);
    assert!(out.is_empty());
    assert!(err.contains("unknown message id 0xff"), "{err}");

    let (code, _, err) = fl_wire(&["decode", "--hex", "0b00"], "");
    assert_ne!(code, 0);
    assert!(err.contains("MsgHeartbeat"), "{err}");

    let (code, _, err) = fl_wire(&["encode"], "{not json");
    assert_ne!(code, 0);
    assert!(err.contains("not valid JSON"), "{err}");
}
