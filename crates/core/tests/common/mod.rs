//! Scenario-test harness: a session of the real core against the loopback mock model.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use cairn_core::config::providers::{ProviderToml, resolve};
use cairn_core::config::{PlanningStyle, WireApi};
use cairn_core::{Config, SessionHandle, SessionOptions};
use cairn_mock_model::{MockResponse, MockServer};
use cairn_protocol::{ApprovalPolicy, Event, EventMsg, Op};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tempfile::TempDir;

pub struct Harness {
    pub session: SessionHandle,
    pub server: MockServer,
    pub home: TempDir,
    pub work: TempDir,
    /// Every event received so far.
    pub events: Vec<Event>,
}

pub struct Setup {
    pub wire: WireApi,
    pub policy: ApprovalPolicy,
    pub planning: PlanningStyle,
    pub interactive: bool,
    pub idle_timeout: Option<Duration>,
    /// `model_context_window`.
    pub context_window: Option<u64>,
    /// Log the session under `$CAIRN_HOME/sessions`.
    pub persist: bool,
    /// Any other change to the config.
    pub configure: Option<fn(&mut Config)>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            wire: WireApi::Chat,
            policy: ApprovalPolicy::OnRequest,
            planning: PlanningStyle::Checklist,
            interactive: true,
            idle_timeout: None,
            context_window: None,
            persist: false,
            configure: None,
        }
    }
}

/// The config `start_with` uses for `setup`, against `server`.
pub fn config_for(
    server: &MockServer,
    home: &std::path::Path,
    cwd: &std::path::Path,
    setup: &Setup,
) -> Config {
    let mut config = Config::for_test(home, cwd);
    let mut providers = BTreeMap::new();
    providers.insert(
        "mock".to_string(),
        ProviderToml {
            wire_api: Some(setup.wire),
            base_url: Some(server.base_url()),
            ..ProviderToml::default()
        },
    );
    let mut provider = resolve("mock", &providers, &|_| None).unwrap();
    if let Some(idle) = setup.idle_timeout {
        provider.idle_timeout = idle;
    }
    config.provider = Some(provider);
    config.approval_policy = setup.policy;
    config.planning = setup.planning;
    config.model_context_window = setup.context_window;
    if setup.persist {
        config.history_persistence = cairn_core::config::HistoryPersistence::SaveAll;
    }
    if let Some(configure) = setup.configure {
        configure(&mut config);
    }
    config
}

pub async fn start(responses: Vec<MockResponse>) -> Harness {
    start_with(responses, Setup::default()).await
}

pub async fn start_with(responses: Vec<MockResponse>, setup: Setup) -> Harness {
    let server = MockServer::start(responses).await;
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path().canonicalize().unwrap();
    let config = config_for(&server, home.path(), &cwd, &setup);
    let session = cairn_core::spawn(
        config,
        SessionOptions {
            interactive: setup.interactive,
        },
    );
    Harness {
        session,
        server,
        home,
        work,
        events: Vec::new(),
    }
}

impl Harness {
    pub fn cwd(&self) -> PathBuf {
        self.work.path().canonicalize().unwrap()
    }

    /// The next event (fails the test after 10 s of silence).
    pub async fn next(&mut self) -> EventMsg {
        let event = tokio::time::timeout(Duration::from_secs(10), self.session.events.recv())
            .await
            .expect("no event within 10 s")
            .expect("session ended");
        self.events.push(event.clone());
        event.msg
    }

    /// Events until one matches `stop` (inclusive).
    pub async fn until(&mut self, stop: impl Fn(&EventMsg) -> bool) -> Vec<EventMsg> {
        let mut seen = Vec::new();
        loop {
            let msg = self.next().await;
            let done = stop(&msg);
            seen.push(msg);
            if done {
                return seen;
            }
        }
    }

    /// Turn plan mode on; returns the plan file.
    pub async fn enter_plan_mode(&mut self) -> PathBuf {
        self.session.submit(Op::SetPlanMode { active: true });
        let events = self
            .until(|e| matches!(e, EventMsg::PlanModeEntered { .. } | EventMsg::Error { .. }))
            .await;
        match events.last() {
            Some(EventMsg::PlanModeEntered { plan_file_path }) => plan_file_path.clone(),
            other => panic!("expected plan_mode_entered, got {other:?}"),
        }
    }

    /// Submit a user message and collect events until the task ends.
    pub async fn run(&mut self, text: &str) -> Vec<EventMsg> {
        self.session.submit(Op::UserInput { text: text.into() });
        self.until_task_end().await
    }

    pub async fn until_task_end(&mut self) -> Vec<EventMsg> {
        self.until(|m| {
            matches!(
                m,
                EventMsg::TaskComplete { .. }
                    | EventMsg::TurnAborted { .. }
                    | EventMsg::Error { .. }
            )
        })
        .await
    }

    /// The tool output the model received for `call_id` in request `index` (Chat format).
    pub fn tool_output(&self, index: usize, call_id: &str) -> String {
        let requests = self.server.requests();
        let body = requests[index].json();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
            .unwrap_or_else(|| panic!("no tool output for {call_id} in request {index}: {body}"))
            ["content"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Names of the tools offered in request `index` (Chat format).
    pub fn offered_tools(&self, index: usize) -> Vec<String> {
        let body = self.server.requests()[index].json();
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub fn count<F: Fn(&EventMsg) -> bool>(events: &[EventMsg], f: F) -> usize {
    events.iter().filter(|e| f(e)).count()
}
