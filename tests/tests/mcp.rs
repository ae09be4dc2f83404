//! MCP servers through the real `cairn` binary: the reference servers from
//! tests/mcp-servers (installed by `npm ci --prefix tests/mcp-servers`, as .ci/run does),
//! driven by a scripted model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{
    cairn, mcp_server_script, mock_provider_args, output, texts, toml_str, tool_output,
};
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_mock_model::{MockResponse, MockServer, anthropic, chat, responses};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `[mcp_servers.fs]`: the filesystem server allowed into `root`, with `extra` lines.
fn fs_server(root: &Path, extra: &str) -> String {
    format!(
        "[mcp_servers.fs]\ncommand = \"node\"\nargs = [{}, {}]\n{extra}\n",
        toml_str(&mcp_server_script("server-filesystem").display().to_string()),
        toml_str(&root.display().to_string())
    )
}

fn everything_server(extra: &str) -> String {
    format!(
        "[mcp_servers.everything]\ncommand = \"node\"\nargs = [{}]\n{extra}\n",
        toml_str(&mcp_server_script("server-everything").display().to_string())
    )
}

struct Dirs {
    home: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Dirs {
    fn new(config: impl Fn(&Path) -> String) -> Self {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let root = work.path().canonicalize().unwrap();
        std::fs::write(home.path().join("config.toml"), config(&root)).unwrap();
        Self { home, work }
    }

    fn root(&self) -> PathBuf {
        self.work.path().canonicalize().unwrap()
    }

    async fn exec(&self, server: &MockServer, args: &[&str]) -> (i32, String, String) {
        let mut cmd = cairn(self.home.path(), self.work.path());
        cmd.arg("exec")
            .args(mock_provider_args(&server.base_url()))
            .args(args);
        let out = output(cmd).await;
        let (stdout, stderr) = texts(&out);
        (out.status.code().unwrap_or(-1), stdout, stderr)
    }
}

/// Names of the tools offered in the first request (Chat format).
fn offered(server: &MockServer) -> Vec<String> {
    server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

const FS_READ_ONLY: &str = "read_only_tools = [\"read_text_file\", \"list_directory\"]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_mcp_tool_runs_and_its_result_reaches_the_model() {
    let dirs = Dirs::new(|root| fs_server(root, FS_READ_ONLY));
    let notes = dirs.root().join("notes.txt");
    std::fs::write(&notes, "the answer is 42\n").unwrap();
    let server = MockServer::start(vec![
        call(
            "r",
            "mcp__fs__read_text_file",
            json!({"path": notes.display().to_string()}),
        ),
        text("It says 42."),
    ])
    .await;
    let (code, stdout, stderr) = dirs.exec(&server, &["what do the notes say?"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "It says 42.");
    assert_eq!(tool_output(&server, "r").trim(), "the answer is 42");
    assert!(
        stderr.contains("`read_text_file` on MCP server `fs`"),
        "{stderr}"
    );
    let tools = offered(&server);
    for name in [
        "mcp__fs__read_text_file",
        "mcp__fs__write_file",
        "mcp__fs__list_directory",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name} in {tools:?}");
    }
    let spec = server.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__fs__read_text_file")
        .unwrap()["function"]
        .clone();
    assert_eq!(spec["parameters"]["type"], "object");
    assert!(
        spec["parameters"]["properties"]["path"].is_object(),
        "{spec}"
    );
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_offers_and_allows_only_mcp_tools_configured_read_only() {
    let dirs = Dirs::new(|root| fs_server(root, FS_READ_ONLY));
    let root = dirs.root();
    std::fs::write(root.join("lib.rs"), "fn a() {}\n").unwrap();
    let target = root.join("new.txt");
    let server = MockServer::start(vec![
        call(
            "list",
            "mcp__fs__list_directory",
            json!({"path": root.display().to_string()}),
        ),
        call(
            "write",
            "mcp__fs__write_file",
            json!({"path": target.display().to_string(), "content": "x"}),
        ),
        // The server calls its tool read-only (readOnlyHint), which does not count.
        call("info", "mcp__fs__get_file_info", json!({"path": "lib.rs"})),
        text("Planned."),
    ])
    .await;
    let (_, _, stderr) = dirs
        .exec(&server, &["--plan", "--approval", "never", "look around"])
        .await;
    let tools = offered(&server);
    assert!(
        tools.contains(&"mcp__fs__list_directory".to_string()),
        "{tools:?}"
    );
    assert!(
        tools.contains(&"mcp__fs__read_text_file".to_string()),
        "{tools:?}"
    );
    for refused in ["mcp__fs__write_file", "mcp__fs__get_file_info"] {
        assert!(
            !tools.contains(&refused.to_string()),
            "{refused}: {tools:?}"
        );
    }
    assert!(
        tool_output(&server, "list").contains("[FILE] lib.rs"),
        "{stderr}"
    );
    for id in ["write", "info"] {
        let refusal = tool_output(&server, id);
        assert!(
            refusal.contains("is not allowed in plan mode") && refusal.contains("read_only_tools"),
            "{id}: {refusal}"
        );
    }
    assert!(!target.exists(), "plan mode wrote through MCP");
    server.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mutating_mcp_tool_needs_approval_and_runs_when_allowed() {
    let dirs = Dirs::new(|root| fs_server(root, FS_READ_ONLY));
    let target = dirs.root().join("out.txt");
    let write = json!({"path": target.display().to_string(), "content": "written\n"});
    // Headless under on-request: nobody can approve, so it is not run and the model is told
    // which setting would allow it.
    let server = MockServer::start(vec![
        call("w", "mcp__fs__write_file", write.clone()),
        text("Could not write."),
    ])
    .await;
    let (code, _, stderr) = dirs.exec(&server, &["write it"]).await;
    assert_eq!(code, 0, "{stderr}");
    let denial = tool_output(&server, "w");
    assert!(
        denial.contains("needs the user's approval") && denial.contains("[mcp_servers.fs]"),
        "{denial}"
    );
    assert!(!target.exists());
    // With --approval never the call runs.
    let server = MockServer::start(vec![
        call("w", "mcp__fs__write_file", write),
        text("Written."),
    ])
    .await;
    let (code, stdout, stderr) = dirs
        .exec(&server, &["--approval", "never", "write it"])
        .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Written.");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_fail_to_start_are_reported_once_and_the_turn_goes_on() {
    // Needs neither node nor npm: one server exits at start, one never answers `initialize`.
    let dirs = Dirs::new(|_| {
        "[mcp_servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo missing API key >&2; exit 3\"]\n\n\
         [mcp_servers.silent]\ncommand = \"sleep\"\nargs = [\"30\"]\nstartup_timeout_ms = 500\n\n\
         [mcp_servers.absent]\ncommand = \"cairn-test-no-such-program\"\n"
            .to_string()
    });
    let server = MockServer::start(vec![text("Hello anyway.")]).await;
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = dirs.exec(&server, &["hi"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Hello anyway.");
    for (name, why) in [
        ("broken", "missing API key"),
        ("silent", "within 500 ms"),
        ("absent", "could not start `cairn-test-no-such-program`"),
    ] {
        let line = format!("MCP server '{name}' failed to start");
        assert_eq!(stderr.matches(&line).count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(why), "{name}: {stderr}");
    }
    // The turn waited for the slow server's start-up timeout, not longer.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let tools = offered(&server);
    assert!(!tools.iter().any(|t| t.starts_with("mcp__")), "{tools:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_tools_time_out_and_error_results_reach_the_model() {
    let dirs = Dirs::new(|_| everything_server("tool_timeout_ms = 500"));
    let server = MockServer::start(vec![
        call(
            "slow",
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 5, "steps": 5}),
        ),
        call(
            "bad",
            "mcp__everything__get-sum",
            json!({"a": "one", "b": 2}),
        ),
        call("sum", "mcp__everything__get-sum", json!({"a": 1, "b": 2})),
        text("Done."),
    ])
    .await;
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = dirs
        .exec(&server, &["--approval", "never", "try the tools"])
        .await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim(), "Done.");
    let slow = tool_output(&server, "slow");
    assert!(slow.contains("did not answer within 500 ms"), "{slow}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "the call was not cut at its timeout: {:?}",
        started.elapsed()
    );
    let bad = tool_output(&server, "bad");
    assert!(
        bad.to_lowercase().contains("invalid") || bad.contains("error"),
        "{bad}"
    );
    assert!(
        stderr.contains("✗"),
        "the error result is a failed call: {stderr}"
    );
    assert!(tool_output(&server, "sum").contains('3'));
    server.assert_no_violations();
}

/// The tools of a request in `wire` format as (name, schema).
fn tools_of(wire: &str, body: &Value) -> Vec<(String, Value)> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| match wire {
            "chat" => (
                t["function"]["name"].as_str().unwrap().to_string(),
                t["function"]["parameters"].clone(),
            ),
            "responses" => (
                t["name"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
            ),
            _ => (
                t["name"].as_str().unwrap().to_string(),
                t["input_schema"].clone(),
            ),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_everything_tool_schema_fits_all_three_wire_formats() {
    let dirs = Dirs::new(|_| everything_server(""));
    for wire in ["chat", "responses", "anthropic"] {
        let answer = MockResponse::sse(match wire {
            "chat" => chat::text("ok"),
            "responses" => responses::text("ok"),
            _ => anthropic::text("ok"),
        });
        let server = MockServer::start(vec![answer]).await;
        let (code, _, stderr) = dirs
            .exec(
                &server,
                &["-c", &format!("providers.mock.wire_api=\"{wire}\""), "hi"],
            )
            .await;
        assert_eq!(code, 0, "{wire}: {stderr}");
        let tools = tools_of(wire, &server.requests()[0].json());
        let mcp: Vec<_> = tools
            .iter()
            .filter(|(name, _)| name.starts_with("mcp__everything__"))
            .collect();
        assert!(mcp.len() >= 10, "{wire}: {tools:?}");
        for (name, schema) in mcp {
            assert!(
                name.len() <= 64
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{wire}: {name}"
            );
            assert_eq!(schema["type"], "object", "{wire} {name}: {schema}");
            assert!(schema["properties"].is_object(), "{wire} {name}: {schema}");
            for refused in ["anyOf", "oneOf", "allOf", "not", "enum", "$schema"] {
                assert!(schema.get(refused).is_none(), "{wire} {name}: {schema}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_add_list_remove_keep_the_users_comments() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    let original = "# cairn settings\nmodel = \"m\" # my model\n\n# docs server, keep\n[mcp_servers.docs]\nurl = \"http://127.0.0.1:9/mcp\"\n";
    std::fs::write(&config, original).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = cairn(home.path(), work.path());
        cmd.arg("mcp").args(args);
        let out = cmd.output().unwrap();
        let (stdout, stderr) = texts(&out);
        (out.status.code().unwrap_or(-1), stdout, stderr)
    };
    let (code, stdout, stderr) = run(&[
        "add",
        "fs",
        "--read-only-tools",
        "read_text_file,list_directory",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/tmp/a b",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Added MCP server 'fs'"), "{stdout}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(original), "{text}");
    assert!(
        text.contains("[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/tmp/a b\"]\nread_only_tools = [\"read_text_file\", \"list_directory\"]\n"),
        "{text}"
    );
    let (code, stdout, _) = run(&["list"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("docs\n  http://127.0.0.1:9/mcp"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fs\n  npx -y @modelcontextprotocol/server-filesystem '/tmp/a b'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("read-only: list_directory, read_text_file"),
        "{stdout}"
    );
    let (code, _, stderr) = run(&["add", "fs", "--", "other"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("already configured"), "{stderr}");
    let (code, _, stderr) = run(&["remove", "fs"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    let (code, _, stderr) = run(&["remove", "fs"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no MCP server named 'fs'"), "{stderr}");
}
