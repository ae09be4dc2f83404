//! Support for black-box tests of the `cairn` binary: find it, point it at a mock server,
//! run it in a clean environment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `cairn` binary built by `cargo test --workspace`, next to the test executables.
pub fn cairn_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> -> target/<profile>/cairn
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile> directory");
    let bin = profile_dir.join(format!("cairn{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not found: run the tests with `cargo test --workspace` (or `cargo build -p cairn-cli` first)",
        bin.display()
    );
    bin
}

/// `-c` arguments pointing cairn at a Chat Completions server at `base_url`.
pub fn mock_provider_args(base_url: &str) -> Vec<String> {
    vec![
        "-c".into(),
        "provider=\"mock\"".into(),
        "-c".into(),
        format!("providers.mock.base_url=\"{base_url}\""),
        "-c".into(),
        "providers.mock.wire_api=\"chat\"".into(),
    ]
}

/// A `cairn` command with `CAIRN_HOME=home`, working directory `cwd`, and no API keys or
/// other outside configuration in its environment.
pub fn cairn(home: &Path, cwd: &Path) -> Command {
    let mut cmd = Command::new(cairn_bin());
    cmd.current_dir(cwd)
        .env("CAIRN_HOME", home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENROUTER_API_KEY")
        .env_remove("CAIRN_LOG")
        .stdin(Stdio::null());
    cmd
}

/// Run `cmd` off the async runtime so the mock server keeps serving.
pub async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run cairn"))
        .await
        .expect("join")
}

/// stdout and stderr as text.
pub fn texts(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The plan file path, as the plan-mode reminder of a request to the mock names it. The file
/// name is only known at run time, so scripts push their later responses after reading it.
pub fn plan_path_from(request: &cairn_mock_model::RecordedRequest) -> String {
    let body = request.json().to_string();
    let marker = "plan file only:\\n  ";
    let start = body.find(marker).expect("plan-mode reminder") + marker.len();
    body[start..].chars().take_while(|c| *c != '\\').collect()
}

/// The tool output the model got for `call_id` (Chat Completions), searching every request.
pub fn tool_output(server: &cairn_mock_model::MockServer, call_id: &str) -> String {
    for request in server.requests() {
        let body = request.json();
        if let Some(m) = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        {
            return m["content"].as_str().unwrap().to_string();
        }
    }
    panic!("no output for {call_id}");
}

/// The entry script of MCP reference server `package` (tests/mcp-servers); fails with what
/// to run when the servers or node are missing (CI installs them; the MCP tests must not pass
/// without them).
pub fn mcp_server_script(package: &str) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: install the MCP test servers with `npm ci --prefix tests/mcp-servers` (needs node and npm)",
        script.display()
    );
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "`node` is not on PATH: install Node.js (e.g. `apt-get install -y nodejs npm`) to run the MCP tests"
    );
    script
}

/// `text` as a TOML basic string (quoted and escaped), for config written by a test.
pub fn toml_str(text: &str) -> String {
    format!("{text:?}")
}
