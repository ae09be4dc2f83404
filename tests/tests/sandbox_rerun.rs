//! A command the workspace-write sandbox blocks runs again without the sandbox only after the
//! user approves that exact command, told that the sandbox blocked it and what it tried to
//! touch; the approval is never offered for the session. A core session in this process runs
//! its commands under the real `cairn` binary's launcher, as the binary does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cairn_core::config::{ProviderToml, WireApi, providers::resolve};
use cairn_core::{Config, SessionOptions};
use cairn_e2e::{cairn_bin, tool_output};
use cairn_mock_model::MockServer;
use cairn_mock_model::chat::{call_response as call, text_response as text};
use cairn_protocol::{ApprovalPolicy, EventMsg, Op, ReviewDecision};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn a_blocked_command_reruns_unsandboxed_only_after_the_user_approves_it() {
    cairn_core::tools::handlers::shell::launcher::use_executable(cairn_bin());
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("made-by-the-command");
    let command = format!("touch {}", target.display());
    let server = MockServer::start(vec![
        call("c1", "shell", json!({"command": command})),
        call(
            "c2",
            "shell",
            json!({"command": command, "unsandboxed": true}),
        ),
        text("Done."),
    ])
    .await;
    let mut config = Config::for_test(home.path(), &work.path().canonicalize().unwrap());
    let mut table = BTreeMap::new();
    table.insert(
        "mock".to_string(),
        ProviderToml {
            wire_api: Some(WireApi::Chat),
            base_url: Some(server.base_url()),
            ..ProviderToml::default()
        },
    );
    config.provider = Some(resolve("mock", &table, &|_| None).unwrap());
    config.approval_policy = ApprovalPolicy::OnRequest;
    let mut session = cairn_core::spawn(config, SessionOptions { interactive: true });
    session.submit(Op::UserInput {
        text: "make the file".into(),
    });
    let mut requests = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(60), session.events.recv())
            .await
            .expect("the session hung")
            .expect("the session ended");
        match event.msg {
            EventMsg::ExecApprovalRequest {
                call_id,
                reason,
                for_session,
                session_prefix,
                description,
                ..
            } => {
                // After the sandboxed run was blocked, nothing may have been written yet.
                assert!(!target.exists());
                requests.push((
                    call_id.clone(),
                    reason,
                    for_session,
                    session_prefix,
                    description,
                ));
                session.submit(Op::ExecApproval {
                    call_id,
                    decision: ReviewDecision::Approved,
                });
            }
            EventMsg::TaskComplete { .. } => break,
            EventMsg::Error { message } => panic!("{message}"),
            _ => {}
        }
    }
    // `touch` outside the workspace is not known safe: asked, approved, run in the sandbox,
    // blocked.
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].0, "c1");
    assert_eq!(requests[0].1, None);
    let first = tool_output(&server, "c1");
    assert!(
        first.contains("Sandbox:") && first.contains("\"unsandboxed\": true"),
        "{first}"
    );
    // The re-run says why it is asked and what the command tried; no session approval.
    let (call_id, reason, for_session, prefix, description) = &requests[1];
    assert_eq!(call_id, "c2");
    let reason = reason.as_deref().unwrap_or("");
    assert!(
        reason.contains("The sandbox blocked this command")
            && reason.contains(&target.display().to_string()),
        "{reason}"
    );
    assert!(description.contains("WITHOUT the sandbox"), "{description}");
    assert_eq!((for_session, prefix), (&None, &None));
    assert!(tool_output(&server, "c2").starts_with("Exit code: 0"));
    assert!(target.exists(), "the approved re-run did not run");
}
