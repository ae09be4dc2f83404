//! The nudge towards `create_plan`: with structured planning, once a task has made
//! [`CALLS_BEFORE_REMINDER`] tool calls and the session has no plan, the next request carries a
//! one-time reminder.

use crate::config::PlanningStyle;
use crate::history::{ResponseItem, Role};
use crate::session::shared::{SessionShared, lock};

/// Tool calls a task may make before the reminder.
pub const CALLS_BEFORE_REMINDER: usize = 5;

/// The reminder, added to history as a user message.
pub const REMINDER: &str = "<system-reminder>\nThis task has taken several tool calls and no plan exists yet. If the work has more steps ahead (several files, an order to follow, something to verify), call create_plan now with the steps, then track them with update_plan and finish with complete_plan. If the task is nearly done or simple, ignore this reminder and carry on.\n</system-reminder>";

/// Push [`REMINDER`] onto the session's history when it is due: structured planning, plan
/// mode off, no current plan, at least [`CALLS_BEFORE_REMINDER`] calls since the user's
/// message, and no reminder yet in this task. Called before each request of a task.
pub fn push_if_due(shared: &SessionShared) {
    if shared.config.planning != PlanningStyle::Structured
        || lock(&shared.current_plan).is_some()
        || lock(&shared.plan_mode).active
    {
        return;
    }
    let mut history = lock(&shared.history);
    if is_due(&history) {
        history.push(ResponseItem::user(REMINDER));
    }
}

/// True when the current task (everything after the last message the user typed) has made
/// enough calls and holds no reminder yet.
pub fn is_due(history: &[ResponseItem]) -> bool {
    let mut calls = 0;
    for item in history.iter().rev() {
        match item {
            ResponseItem::Message {
                role: Role::User,
                text,
            } => {
                if text == REMINDER {
                    return false;
                }
                // Other reminders are the session's words, not the start of the task.
                if !text.starts_with("<system-reminder>") {
                    break;
                }
            }
            ResponseItem::FunctionCall { .. } => calls += 1,
            _ => {}
        }
    }
    calls >= CALLS_BEFORE_REMINDER
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use std::sync::Arc;

    fn call(n: usize) -> ResponseItem {
        ResponseItem::FunctionCall {
            call_id: format!("c{n}"),
            name: "read_file".into(),
            arguments: "{}".into(),
        }
    }

    fn shared(planning: PlanningStyle) -> (tempfile::TempDir, Arc<SessionShared>) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::for_test(dir.path(), dir.path());
        config.planning = planning;
        (dir, Arc::new(SessionShared::new(config, None, false)))
    }

    fn history_with_calls(n: usize) -> Vec<ResponseItem> {
        let mut history = vec![ResponseItem::user("old task"), call(100)];
        history.push(ResponseItem::user("fix the bug"));
        history.extend((0..n).map(call));
        history
    }

    #[test]
    fn due_after_five_calls_of_this_task_once() {
        let (_dir, shared) = shared(PlanningStyle::Structured);
        *lock(&shared.history) = history_with_calls(4).into();
        push_if_due(&shared);
        assert!(
            !lock(&shared.history)
                .iter()
                .any(|i| i == &ResponseItem::user(REMINDER))
        );
        lock(&shared.history).push(call(4));
        push_if_due(&shared);
        lock(&shared.history).push(call(5));
        push_if_due(&shared);
        let count = lock(&shared.history)
            .iter()
            .filter(|i| *i == &ResponseItem::user(REMINDER))
            .count();
        assert_eq!(count, 1, "one reminder per task");
        // A new task counts again from zero.
        lock(&shared.history).push(ResponseItem::user("next task"));
        assert!(!is_due(&lock(&shared.history)));
    }

    #[test]
    fn not_due_with_a_plan_or_checklist_planning() {
        let (_dir, shared) = shared(PlanningStyle::Structured);
        *lock(&shared.history) = history_with_calls(8).into();
        *lock(&shared.current_plan) = Some("plan-1".into());
        push_if_due(&shared);
        assert_eq!(lock(&shared.history).len(), 11);

        let (_dir, checklist) = shared_checklist();
        *lock(&checklist.history) = history_with_calls(8).into();
        push_if_due(&checklist);
        assert_eq!(lock(&checklist.history).len(), 11);
    }

    fn shared_checklist() -> (tempfile::TempDir, Arc<SessionShared>) {
        shared(PlanningStyle::Checklist)
    }

    #[test]
    fn other_reminders_do_not_start_a_new_task() {
        let mut history = history_with_calls(3);
        history.push(ResponseItem::user(
            "<system-reminder>\nplan mode\n</system-reminder>",
        ));
        history.extend((10..12).map(call));
        assert!(is_due(&history));
    }
}
