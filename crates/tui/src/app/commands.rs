//! What the user asked for: messages, slash commands and the decisions views report.

use super::{App, Request, RunningTask};
use crate::app_event::AppEvent;
use crate::bottom::model_picker::ModelPickerView;
use crate::bottom::plan_review::PlanReviewView;
use crate::bottom::plans_list::PlansListView;
use crate::history::HistoryCell;
use crate::markdown::stream::StreamingMarkdown;
use crate::slash::{self, SlashCommand};
use crate::strings;
use cairn_core::plans::{PlanKind, PlanStore};
use cairn_protocol::{ApprovalPolicy, Op};
use strum::IntoEnumIterator;

impl App {
    /// Handle an event a view queued.
    pub fn handle_app_event(&mut self, event: AppEvent) {
        match event {
            AppEvent::Op(op) => {
                self.ops.submit(op);
            }
            AppEvent::PlanDecision { approved, feedback } => {
                // Shown after "Plan rejected…", when the core confirms the rejection.
                self.rejection_feedback = feedback.clone().filter(|_| !approved);
                self.ops.submit(Op::PlanModeApproval { approved, feedback });
            }
            AppEvent::QuestionsAnswered {
                call_id,
                questions,
                answers,
            } => {
                let pairs = questions.into_iter().zip(answers.iter().cloned()).collect();
                self.transcript.push(HistoryCell::Answers(pairs));
                self.ops.submit(Op::UserQuestionAnswer { call_id, answers });
            }
            AppEvent::EditPlan(path) => self.requests.push(Request::EditPlan(path)),
            AppEvent::RunCommand(cmd, arg) => self.run_command(cmd, &arg),
            AppEvent::ShowPlan(id) => self.show_plan(&id),
            AppEvent::SessionsListed(sessions) => self.handle_sessions_listed(sessions),
            AppEvent::ResumeSession(summary) => self.handle_session_chosen(summary),
            AppEvent::PickerDismissed => self.handle_picker_dismissed(),
            AppEvent::AgentsListed(listing) => self.notice(crate::agents::text(&listing)),
            AppEvent::FilesListed { root, index } => self.handle_files_listed(root, index),
        }
    }

    /// The editor closed: show the plan file's new text in the review widget.
    pub fn handle_plan_edited(&mut self, result: Result<String, String>) {
        match result {
            Ok(content) => {
                for view in self.views.iter_mut().rev() {
                    if let Some(review) = view.as_any_mut().downcast_mut::<PlanReviewView>() {
                        review.set_content(content);
                        break;
                    }
                }
            }
            Err(message) => {
                self.transcript.push(HistoryCell::Error(message));
            }
        }
    }

    /// Enter with text in the composer.
    pub(super) fn submit_text(&mut self, text: &str) {
        if let Some((name, arg)) = slash::parse(text.trim_start()) {
            match name.parse::<SlashCommand>() {
                Ok(cmd) => self.run_command(cmd, arg),
                Err(_) => {
                    self.transcript
                        .push(HistoryCell::Error(strings::unknown_command(name)));
                }
            }
            return;
        }
        if self.awaiting_session {
            // The chosen session is still opening: keep the text for when it runs.
            self.composer.set_text(text);
            return;
        }
        if self.task.is_some() {
            self.queued.push(text.to_string());
        } else {
            self.send_message(text.to_string());
        }
    }

    /// Send what the user typed: a `!` command to the shell, anything else to the model.
    pub(super) fn send_message(&mut self, text: String) {
        match text.trim_start().strip_prefix('!') {
            Some(command) => {
                let command = command.trim().to_string();
                self.run_user_shell(text, command);
            }
            None => self.send_user_message(text),
        }
    }

    /// `!cmd`: the core runs it as a shell call, through plan mode and the approval policy.
    fn run_user_shell(&mut self, text: String, command: String) {
        if command.is_empty() {
            self.notice(strings::USER_SHELL_USAGE.to_string());
            return;
        }
        self.transcript.push(HistoryCell::User(text));
        self.transcript.scroll_to_bottom();
        let id = self.ops.submit(Op::UserShellCommand { command });
        self.task = Some(RunningTask {
            id: Some(id),
            started: self.now,
        });
    }

    /// Show the message and send it to the core; a task starts.
    pub(super) fn send_user_message(&mut self, text: String) {
        self.transcript.push(HistoryCell::User(text.clone()));
        self.transcript.scroll_to_bottom();
        let id = self.ops.submit(Op::UserInput { text });
        self.task = Some(RunningTask {
            id: Some(id),
            started: self.now,
        });
    }

    /// Run a slash command with its argument.
    pub(super) fn run_command(&mut self, cmd: SlashCommand, arg: &str) {
        if self.task.is_some() && !cmd.available_during_task() {
            self.transcript
                .push(HistoryCell::Error(strings::disabled_during_task(
                    cmd.name(),
                )));
            return;
        }
        match cmd {
            SlashCommand::Plan => {
                if arg == "review" {
                    // The core checks again; this spares a round trip for the plain case.
                    if self.plan_mode.is_some() {
                        self.ops.submit(Op::ReviewPlan);
                    } else {
                        self.notice(strings::NO_PLAN_TO_REVIEW.to_string());
                    }
                    return;
                }
                if self.plan_mode.is_some() {
                    if arg == "off" {
                        // Leave without approving: nothing was approved, nothing changes.
                        self.leaving_plan_mode = true;
                        self.ops.submit(Op::SetPlanMode { active: false });
                    } else {
                        self.notice(strings::ALREADY_IN_PLAN_MODE.to_string());
                    }
                    return;
                }
                if arg == "off" {
                    self.notice(strings::NOT_IN_PLAN_MODE.to_string());
                    return;
                }
                self.pending_plan_request = Some(arg.to_string()).filter(|a| !a.is_empty());
                self.ops.submit(Op::SetPlanMode { active: true });
            }
            SlashCommand::Plans => self.list_plans(),
            SlashCommand::New => self.requests.push(Request::NewSession),
            SlashCommand::Resume => self.open_session_picker(),
            SlashCommand::Compact => {
                let focus = Some(arg.to_string()).filter(|a| !a.is_empty());
                self.notice(strings::compacting(focus.as_deref()));
                let id = self.ops.submit(Op::Compact { focus });
                self.task = Some(RunningTask {
                    id: Some(id),
                    started: self.now,
                });
            }
            SlashCommand::Model => {
                if arg.is_empty() {
                    // The picker fills in when the core's `models_listed` arrives.
                    self.popup = None;
                    self.views
                        .push(Box::new(ModelPickerView::loading(&self.model)));
                    self.ops.submit(Op::ListModels);
                } else {
                    self.ops.submit(Op::OverrideTurnContext {
                        model: Some(arg.to_string()),
                        approval_policy: None,
                    });
                    self.model = arg.to_string();
                    self.choices.model = Some(arg.to_string());
                    self.notice(strings::model_switched(arg));
                }
            }
            SlashCommand::Approvals => match parse_policy(arg) {
                Some(policy) => {
                    self.ops.submit(Op::OverrideTurnContext {
                        model: None,
                        approval_policy: Some(policy),
                    });
                    self.approval_policy = policy;
                    self.choices.approval_policy = Some(policy);
                    self.notice(strings::approvals_switched(policy.as_str()));
                }
                None if arg.trim().is_empty() => {
                    self.notice(strings::approvals_usage(self.approval_policy.as_str()))
                }
                None => {
                    self.transcript
                        .push(HistoryCell::Error(strings::approvals_invalid(arg.trim())));
                    self.notice(strings::approvals_usage(self.approval_policy.as_str()));
                }
            },
            SlashCommand::Status => self.notice(self.status_text()),
            SlashCommand::Agents => {
                let cwd = self.session.as_ref().map(|s| s.cwd.clone());
                self.requests.push(Request::ListAgents { cwd });
            }
            SlashCommand::Mcp => {
                self.ops.submit(Op::ListMcpServers);
            }
            SlashCommand::Help => {
                let commands: Vec<(String, &'static str)> = SlashCommand::iter()
                    .map(|c| (format!("/{}", c.name()), c.description()))
                    .collect();
                self.notice(strings::help(&commands));
            }
            SlashCommand::Quit => self.requests.push(Request::Quit),
        }
    }

    pub(super) fn notice(&mut self, text: String) {
        self.transcript.push(HistoryCell::Notice(text));
        self.transcript.scroll_to_bottom();
    }

    fn plan_store(&self) -> Option<PlanStore> {
        self.cairn_home.as_deref().map(PlanStore::in_home)
    }

    fn list_plans(&mut self) {
        let Some(store) = self.plan_store() else {
            return;
        };
        let listing = match store.list() {
            Ok(listing) => listing,
            Err(err) => {
                self.transcript.push(HistoryCell::Error(err.to_string()));
                self.transcript.scroll_to_bottom();
                return;
            }
        };
        if listing.plans.is_empty() {
            self.notice(cairn_core::plans::listing::empty_message(store.dir()));
            return;
        }
        self.popup = None;
        self.views.push(Box::new(PlansListView::new(
            listing.plans,
            listing.skipped.len(),
            chrono::Utc::now(),
        )));
    }

    /// Show a stored plan: a structured plan as a checklist, a plan-mode plan as Markdown.
    fn show_plan(&mut self, id: &str) {
        let Some(store) = self.plan_store() else {
            return;
        };
        let shown = store.read_text(id).and_then(|(summary, text)| {
            let heading =
                strings::stored_plan_heading(&summary.id, &summary.title, summary.status.as_str());
            let cell = match summary.kind {
                PlanKind::Structured => HistoryCell::Plan(store.load(&summary.id)?.plan),
                PlanKind::PlanMode => {
                    HistoryCell::Assistant(StreamingMarkdown::complete(strip_front_matter(&text)))
                }
            };
            Ok((heading, cell))
        });
        match shown {
            Ok((heading, cell)) => {
                let first = self.transcript.push(HistoryCell::Notice(heading));
                self.transcript.push(cell);
                self.transcript.reveal(first);
            }
            Err(err) => {
                self.transcript.push(HistoryCell::Error(err.to_string()));
                self.transcript.scroll_to_bottom();
            }
        }
    }

    fn status_text(&self) -> String {
        let mut text = format!("{}\n", strings::STATUS_TITLE);
        let provider = self
            .session
            .as_ref()
            .and_then(|s| s.provider.clone())
            .unwrap_or_else(|| strings::NO_PROVIDER.to_string());
        let cwd = self
            .session
            .as_ref()
            .map(|s| s.cwd.display().to_string())
            .unwrap_or_default();
        let plan_mode = match &self.plan_mode {
            Some(path) => strings::plan_mode_on(path),
            None => strings::PLAN_MODE_OFF.to_string(),
        };
        let tokens = match self.tokens {
            Some(t) => strings::status_tokens(t.total_tokens, t.input_tokens, t.output_tokens),
            None => strings::NO_TOKENS_YET.to_string(),
        };
        let conversation = self
            .session
            .as_ref()
            .map(|s| s.conversation_id.clone())
            .unwrap_or_default();
        for (key, value) in [
            (strings::STATUS_KEYS[0], provider),
            (strings::STATUS_KEYS[1], self.model.clone()),
            (strings::STATUS_KEYS[2], cwd),
            (
                strings::STATUS_KEYS[3],
                self.approval_policy.as_str().to_string(),
            ),
            (strings::STATUS_KEYS[4], plan_mode),
            (strings::STATUS_KEYS[5], tokens),
            (strings::STATUS_KEYS[6], conversation),
        ] {
            text.push_str(&format!("  {key:<13}{value}\n"));
        }
        text.trim_end().to_string()
    }
}

/// The body of a document after its `---` front matter.
fn strip_front_matter(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("---\n") else {
        return text;
    };
    match rest.find("\n---\n") {
        Some(end) => rest[end + 5..].trim_start_matches('\n'),
        None => text,
    }
}

fn parse_policy(arg: &str) -> Option<ApprovalPolicy> {
    match arg.trim() {
        "untrusted" => Some(ApprovalPolicy::Untrusted),
        "on-request" | "on_request" => Some(ApprovalPolicy::OnRequest),
        "never" => Some(ApprovalPolicy::Never),
        _ => None,
    }
}
