//! The `cairn-mock-model` binary: READY line, scripted answers, usage errors.

// Helpers outside #[test] functions are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cairn-mock-model");

/// Kills the child when the test ends, pass or fail.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn client() -> reqwest::Client {
    // reqwest is built without a crypto provider (cairn-core brings its own TLS set-up).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

fn script_file(json: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), json).unwrap();
    file
}

#[tokio::test]
async fn binary_prints_ready_and_serves_the_script() {
    let script = script_file(
        r#"{"wire":"chat","responses":[
            {"repeat":2,"items":[{"tool_calls":[{"id":"c","name":"update_plan","arguments":{"plan":[]}}]}]},
            {"text":"All done."}]}"#,
    );
    let mut child = Running(
        Command::new(BIN)
            .arg("--script")
            .arg(script.path())
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base_url = line
        .trim_end()
        .strip_prefix("READY ")
        .unwrap_or_else(|| panic!("first line is not READY: {line:?}"));
    assert!(base_url.starts_with("http://127.0.0.1:"), "{base_url}");
    assert!(base_url.ends_with("/v1"), "{base_url}");

    let http = client();
    let url = format!("{base_url}/chat/completions");
    let mut bodies = Vec::new();
    for _ in 0..4 {
        let response = http.post(&url).body("{}").send().await.unwrap();
        bodies.push((response.status().as_u16(), response.text().await.unwrap()));
    }
    assert!(bodies[0].1.contains("\"id\":\"c_1\""));
    assert!(bodies[1].1.contains("\"id\":\"c_2\""));
    assert_eq!(bodies[2].0, 200);
    assert!(bodies[2].1.ends_with("data: [DONE]\n\n"));
    assert_eq!(bodies[3].0, 500);
    assert!(
        bodies[3]
            .1
            .contains("mock: no scripted response left for request 4")
    );
}

#[test]
fn binary_reports_a_bad_script_and_exits_2() {
    let script = script_file(r#"{"wire":"chat","responses":[{"txt":"typo"}]}"#);
    let mut child = Command::new(BIN)
        .arg("--script")
        .arg(script.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2));
    assert!(
        stderr.starts_with("cairn-mock-model: script responses[0]: expected one of"),
        "{stderr}"
    );
}

#[test]
fn binary_without_script_prints_usage() {
    let output = Command::new(BIN).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--script FILE is required"), "{stderr}");
    assert!(stderr.contains("usage: cairn-mock-model --script FILE [--port N]"));
}

#[tokio::test]
async fn binary_reports_request_check_violations_on_stderr() {
    let script = script_file(r#"{"wire":"chat","responses":[{"text":"ok"}]}"#);
    let mut child = Running(
        Command::new(BIN)
            .arg("--script")
            .arg(script.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = format!(
        "{}/chat/completions",
        line.trim_end().trim_start_matches("READY ")
    );
    let orphan = r#"{"messages":[{"role":"tool","tool_call_id":"call_9","content":"x"}]}"#;
    let response = client().post(&url).body(orphan).send().await.unwrap();
    response.text().await.unwrap();

    let mut report = String::new();
    BufReader::new(child.0.stderr.take().unwrap())
        .read_line(&mut report)
        .unwrap();
    assert_eq!(
        report.trim_end(),
        "VIOLATION request 1 (/v1/chat/completions): tool message answers \"call_9\", which no \
         earlier call in the request made"
    );
}
