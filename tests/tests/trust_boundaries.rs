//! The approval policy's trust boundaries, through the real binary: a scripted model tries
//! each route an adversarial model found, and nothing happens without the user's say-so.
//! `cairn exec` has no user, so every call that must be asked is refused with a message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_e2e::{cairn, mock_provider_args, output, texts, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Far longer than any passing run; only a hang reaches it.
const HANG_GUARD: Duration = Duration::from_secs(90);

/// `cairn exec` in `work` with `HOME=home_dir`, returning its exit code and stderr.
async fn exec(
    server: &MockServer,
    cairn_home: &Path,
    home_dir: &Path,
    work: &Path,
    extra: &[&str],
) -> (i32, String) {
    let mut cmd = cairn(cairn_home, work);
    cmd.env("HOME", home_dir)
        .arg("exec")
        .args(mock_provider_args(&server.base_url()))
        .args(extra);
    let out = tokio::time::timeout(HANG_GUARD, output(cmd))
        .await
        .expect("cairn exec hung");
    let (_, stderr) = texts(&out);
    (out.status.code().unwrap_or(-1), stderr)
}

fn assert_asked(server: &MockServer, call_id: &str, why: &str) {
    let out = tool_output(server, call_id);
    assert!(
        out.starts_with("This call needs the user's approval"),
        "{call_id} ran without asking: {out}"
    );
    assert!(out.contains(why), "{call_id}: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cairn_settings_are_never_auto_approved_inside_or_outside_the_workspace() {
    let work = tempfile::tempdir().unwrap();
    let outside_home = tempfile::tempdir().unwrap();
    // $CAIRN_HOME inside the workspace, as the adversarial run had it.
    let state = work.path().join(".state");
    std::fs::create_dir_all(&state).unwrap();
    let config = state.join("config.toml");
    std::fs::write(&config, "# mine\n").unwrap();
    std::fs::write(
        work.path().join("new.toml"),
        "approval_policy = \"never\"\n",
    )
    .unwrap();
    std::fs::write(work.path().join("src.txt"), "x\n").unwrap();
    let settings = "It changes cairn's own settings";
    let move_patch = "*** Begin Patch\n*** Update File: src.txt\n*** Move to: .state/config.toml\n@@\n-x\n+approval_policy = \"never\"\n*** End Patch\n";
    let delete_patch = "*** Begin Patch\n*** Delete File: .state/config.toml\n*** End Patch\n";
    let server = MockServer::start(vec![
        call("edit", "edit_file", json!({"path": ".state/config.toml", "old_string": "# mine", "new_string": "approval_policy = \"never\""})),
        call("write", "write_file", json!({"path": ".cairn/config.toml", "content": "approval_policy = \"never\"\n"})),
        call("move", "apply_patch", json!({"input": move_patch})),
        call("delete", "apply_patch", json!({"input": delete_patch})),
        call("shell", "shell", json!({"command": "cp new.toml .state/config.toml"})),
        call("ok", "write_file", json!({"path": "notes.txt", "content": "fine\n"})),
        text("Done."),
    ])
    .await;
    let (code, stderr) = exec(&server, &state, outside_home.path(), work.path(), &["go"]).await;
    assert_eq!(code, 0, "{stderr}");
    for id in ["edit", "write", "move", "delete"] {
        assert_asked(&server, id, settings);
    }
    assert_asked(&server, "shell", "The command names");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
    assert!(!work.path().join(".cairn").exists());
    assert!(work.path().join("src.txt").exists());
    assert_eq!(
        tool_output(&server, "ok"),
        "Created notes.txt (5 bytes, 1 line)."
    );

    // $CAIRN_HOME outside the workspace, named by its absolute path.
    let elsewhere = tempfile::tempdir().unwrap();
    let config = elsewhere.path().join("config.toml");
    std::fs::write(&config, "# mine\n").unwrap();
    let server = MockServer::start(vec![
        call(
            "write",
            "write_file",
            json!({"path": config, "content": "approval_policy = \"never\"\n"}),
        ),
        text("Done."),
    ])
    .await;
    let (code, stderr) = exec(
        &server,
        elsewhere.path(),
        outside_home.path(),
        work.path(),
        &["--approval", "untrusted", "go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert_asked(&server, "write", settings);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_up_files_under_home_ask_even_with_the_workspace_at_home() {
    let home = tempfile::tempdir().unwrap();
    let cairn_home = tempfile::tempdir().unwrap();
    let dotfiles = [
        ".cargo/env",
        ".cargo/bin/git",
        ".ssh/authorized_keys",
        ".ssh/config",
        ".bash_aliases",
        ".bashrc",
        ".profile",
        ".pam_environment",
        ".config/fish/config.fish",
        ".npmrc",
        ".gitconfig",
    ];
    let mut script: Vec<_> = dotfiles
        .iter()
        .enumerate()
        .map(|(i, f)| {
            call(
                &format!("d{i}"),
                "write_file",
                json!({"path": f, "content": "touch /tmp/pwned\n"}),
            )
        })
        .collect();
    script.push(call(
        "plain",
        "write_file",
        json!({"path": "notes.txt", "content": "ok\n"}),
    ));
    script.push(call("sh", "shell", json!({"command": "cat .profile"})));
    script.push(text("Done."));
    let server = MockServer::start(script).await;
    let (code, stderr) = exec(
        &server,
        cairn_home.path(),
        home.path(),
        home.path(),
        &["go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    for (i, file) in dotfiles.iter().enumerate() {
        assert_asked(&server, &format!("d{i}"), "dotfile in your home directory");
        assert!(!home.path().join(file).exists(), "{file} was written");
    }
    assert!(
        home.path().join("notes.txt").exists(),
        "plain files are not dotfiles"
    );
    assert_asked(&server, "sh", "dotfile in your home directory");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_never_read_unasked_by_file_tools_or_the_shell() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cairn_home = home.path().join(".cairn");
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    std::fs::create_dir_all(home.path().join(".aws")).unwrap();
    std::fs::create_dir_all(home.path().join("other")).unwrap();
    std::fs::create_dir_all(&cairn_home).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), "SECRET-KEY-1\n").unwrap();
    std::fs::write(home.path().join(".aws/credentials"), "SECRET-KEY-2\n").unwrap();
    std::fs::write(home.path().join("other/.env"), "SECRET-KEY-3\n").unwrap();
    std::fs::write(cairn_home.join("config.toml"), "# SECRET-KEY-4\n").unwrap();
    // A link inside the workspace does not make a secret the workspace's.
    std::os::unix::fs::symlink(home.path().join(".ssh/id_rsa"), work.path().join("key")).unwrap();
    let script = || {
        vec![
            call("r1", "read_file", json!({"path": "~/.ssh/id_rsa"})),
            call(
                "r2",
                "read_file",
                json!({"path": home.path().join(".aws/credentials")}),
            ),
            call(
                "r3",
                "read_file",
                json!({"path": home.path().join("other/.env")}),
            ),
            call(
                "r4",
                "read_file",
                json!({"path": cairn_home.join("config.toml")}),
            ),
            call("r5", "read_file", json!({"path": "/etc/shadow"})),
            call("r6", "read_file", json!({"path": "key"})),
            call(
                "g1",
                "grep_files",
                json!({"pattern": "SECRET", "path": "~/.ssh"}),
            ),
            call("l1", "list_dir", json!({"path": "~/.aws"})),
            call("s1", "shell", json!({"command": "cat ~/.ssh/id_rsa"})),
            call(
                "s2",
                "shell",
                json!({"command": "grep -r SECRET $HOME/.aws"}),
            ),
            text("Done."),
        ]
    };
    // `never` would read them; `on-request` (the default) and `untrusted` must not.
    for policy in ["on-request", "untrusted"] {
        let server = MockServer::start(script()).await;
        let (code, stderr) = exec(
            &server,
            &cairn_home,
            home.path(),
            work.path(),
            &["--approval", policy, "go"],
        )
        .await;
        assert_eq!(code, 0, "{stderr}");
        for id in ["r1", "r2", "r3", "r4", "r5", "r6", "g1", "l1"] {
            assert_asked(&server, id, "usually holds secrets");
        }
        for id in ["s1", "s2"] {
            assert_asked(&server, id, "names a place that usually holds secrets");
        }
        for request in server.requests() {
            assert!(
                !request.json().to_string().contains("SECRET-KEY"),
                "a secret reached the model under {policy}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_of_the_home_workspace_leaves_secrets_out() {
    let home = tempfile::tempdir().unwrap();
    let cairn_home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), "SECRET-KEY\n").unwrap();
    std::fs::write(home.path().join("notes.txt"), "SECRET-KEY is a phrase\n").unwrap();
    let server = MockServer::start(vec![
        call("g", "grep_files", json!({"pattern": "SECRET-KEY"})),
        text("Done."),
    ])
    .await;
    let (code, stderr) = exec(
        &server,
        cairn_home.path(),
        home.path(),
        home.path(),
        &["go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let out = tool_output(&server, "g");
    assert_eq!(out, "notes.txt:1:SECRET-KEY is a phrase");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_outside_the_workspace_ask_and_readable_roots_allow_them() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let script = || {
        vec![
            call("r", "read_file", json!({"path": "/etc/hosts"})),
            call("s", "shell", json!({"command": "cat /etc/hosts"})),
            call("in", "read_file", json!({"path": "inside.txt"})),
            text("Done."),
        ]
    };
    std::fs::write(work.path().join("inside.txt"), "inside\n").unwrap();
    let server = MockServer::start(script()).await;
    let (code, stderr) = exec(&server, home.path(), home.path(), work.path(), &["go"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_asked(&server, "r", "`[permissions] readable_roots`");
    assert_asked(&server, "s", "--approval never");
    assert!(tool_output(&server, "in").contains("inside"));

    let server = MockServer::start(script()).await;
    let (code, stderr) = exec(
        &server,
        home.path(),
        home.path(),
        work.path(),
        &["-c", "permissions.readable_roots=[\"/etc\"]", "go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let hosts = tool_output(&server, "r");
    assert!(hosts.contains("localhost"), "{hosts}");
    let shell = tool_output(&server, "s");
    assert!(shell.starts_with("Exit code: 0"), "{shell}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifos_sockets_and_devices_get_an_error_from_every_path_tool() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    nix::unistd::mkfifo(
        &w.join("fifo"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(w.join("sock")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", w.join("zero")).unwrap();
    let mut script = Vec::new();
    for special in ["fifo", "sock", "zero"] {
        let patch =
            format!("*** Begin Patch\n*** Update File: {special}\n@@\n-a\n+b\n*** End Patch\n");
        script.extend([
            call(
                &format!("read-{special}"),
                "read_file",
                json!({"path": special}),
            ),
            call(
                &format!("grep-{special}"),
                "grep_files",
                json!({"pattern": "x", "path": special}),
            ),
            call(
                &format!("edit-{special}"),
                "edit_file",
                json!({"path": special, "old_string": "a", "new_string": "b"}),
            ),
            call(
                &format!("patch-{special}"),
                "apply_patch",
                json!({"input": patch}),
            ),
            call(
                &format!("write-{special}"),
                "write_file",
                json!({"path": special, "content": "x"}),
            ),
            call(
                &format!("list-{special}"),
                "list_dir",
                json!({"path": special}),
            ),
            call(
                &format!("glob-{special}"),
                "glob_files",
                json!({"pattern": "*", "path": special}),
            ),
        ]);
    }
    script.push(call("grep-all", "grep_files", json!({"pattern": "x"})));
    script.push(text("Done."));
    let server = MockServer::start(script).await;
    // `never`, so a device outside the workspace is tried rather than asked about.
    let (code, stderr) = exec(
        &server,
        home.path(),
        home.path(),
        w,
        &["--approval", "never", "go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    for special in ["fifo", "sock", "zero"] {
        for tool in ["read", "edit", "patch", "write"] {
            let out = tool_output(&server, &format!("{tool}-{special}"));
            assert!(
                out.contains("not a regular file"),
                "{tool} {special}: {out}"
            );
        }
        for tool in ["grep", "list", "glob"] {
            // An answer at all is the point; its words depend on the tool.
            let _ = tool_output(&server, &format!("{tool}-{special}"));
        }
    }
    assert!(tool_output(&server, "grep-all").starts_with("No matches"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_runs_read_only_commands_and_asks_for_edits_and_the_rest() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let server = MockServer::start(vec![
        call("status", "shell", json!({"command": "git status"})),
        call("ls", "shell", json!({"command": "ls -la"})),
        call("touch", "shell", json!({"command": "touch x"})),
        call(
            "write",
            "write_file",
            json!({"path": "notes.txt", "content": "x\n"}),
        ),
        text("Done."),
    ])
    .await;
    let (code, stderr) = exec(
        &server,
        home.path(),
        home.path(),
        work.path(),
        &["--approval", "untrusted", "go"],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    for id in ["status", "ls"] {
        let out = tool_output(&server, id);
        assert!(
            out.starts_with("Exit code:"),
            "{id} should run unasked: {out}"
        );
    }
    assert_asked(&server, "touch", "--approval never");
    assert_asked(&server, "write", "--approval never");
    assert!(!work.path().join("x").exists());
    assert!(!work.path().join("notes.txt").exists());
}
