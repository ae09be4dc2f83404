//! Delegated runs: their events update the tree (and an open run overlay), a finished group
//! becomes a history cell, and the tree key (Ctrl+G) gives the panel Up/Down/Enter/Esc.

use super::App;
use crate::bottom::run_view::RunView;
use crate::delegate::log::RunUpdate;
use crate::history::HistoryCell;
use crate::strings;
use cairn_protocol::EventMsg;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

impl App {
    /// A `delegate_*` event.
    pub(super) fn handle_delegate_event(&mut self, msg: EventMsg) {
        match msg {
            EventMsg::DelegateStarted {
                run_id,
                parent_run_id,
                agent_id,
                prompt,
            } => {
                self.delegates
                    .start(run_id, parent_run_id.as_deref(), agent_id, prompt, self.now);
            }
            EventMsg::DelegateDelta { run_id, text } => {
                self.update_run(&run_id, RunUpdate::Delta(&text));
            }
            EventMsg::DelegateEvent { run_id, event } => {
                self.update_run(&run_id, RunUpdate::Event(&event));
            }
            EventMsg::DelegateCompleted {
                run_id,
                summary,
                duration_ms,
            } => {
                self.update_run(
                    &run_id,
                    RunUpdate::Completed {
                        summary: &summary,
                        duration_ms,
                    },
                );
                self.settle_delegates();
            }
            EventMsg::DelegateFailed { run_id, error } => {
                // A resumed log does not know how long a failed run took.
                let duration_ms = (!self.replaying).then(|| {
                    self.delegates
                        .index_of(&run_id)
                        .and_then(|i| self.delegates.run(i))
                        .map_or(0, |r| {
                            self.now.saturating_duration_since(r.started).as_millis() as u64
                        })
                });
                self.update_run(
                    &run_id,
                    RunUpdate::Failed {
                        error: &error,
                        duration_ms,
                    },
                );
                self.settle_delegates();
            }
            _ => {}
        }
    }

    fn update_run(&mut self, run_id: &str, update: RunUpdate<'_>) {
        let Some(index) = self.delegates.index_of(run_id) else {
            return;
        };
        if !self.delegates.update(index, update) {
            return;
        }
        for view in &mut self.views {
            if let Some(run_view) = view.as_any_mut().downcast_mut::<RunView>()
                && run_view.index() == index
            {
                run_view.apply(update);
            }
        }
    }

    /// A group whose runs all ended collapses into its history cell.
    fn settle_delegates(&mut self) {
        if let Some(cell) = self.delegates.settle() {
            self.transcript.push(HistoryCell::Delegation(cell));
        }
    }

    /// The task ended (or a replay did) with runs it never reported as ended: they end here.
    pub(super) fn abandon_delegates(&mut self) {
        let (error, now) = if self.replaying {
            (strings::RUN_UNFINISHED_IN_LOG, None)
        } else {
            (strings::RUN_UNFINISHED, Some(self.now))
        };
        if let Some(cell) = self.delegates.abandon(error, now) {
            self.transcript.push(HistoryCell::Delegation(cell));
        }
    }

    /// An approval request of a delegated run (`<run_id>:<call_id>`): its row says it waits.
    pub(super) fn note_run_approval(&mut self, call_id: &str, description: &str) {
        if let Some((run_id, _)) = call_id.split_once(':')
            && let Some(index) = self.delegates.index_of(run_id)
        {
            self.delegates.waiting(index, description);
        }
    }

    /// Ctrl+G: give the tree the keys, or take them back.
    pub(super) fn toggle_tree_focus(&mut self) {
        if self.delegates.is_focused() {
            self.delegates.unfocus();
        } else if !self.delegates.focus() {
            self.notice(strings::NO_DELEGATED_RUNS.to_string());
        }
    }

    /// Keys while the tree has them. Returns true when used; any other key gives them back
    /// and goes on (typing goes to the composer as usual).
    pub(super) fn handle_tree_key(&mut self, key: KeyEvent) -> bool {
        if !self.delegates.is_focused() {
            return false;
        }
        let plain = key.modifiers == KeyModifiers::NONE;
        match key.code {
            KeyCode::Up if plain => self.delegates.move_selection(-1),
            KeyCode::Down if plain => self.delegates.move_selection(1),
            KeyCode::Enter if plain => self.open_selected_run(),
            KeyCode::Esc => self.delegates.unfocus(),
            KeyCode::Char('g') if key.modifiers == KeyModifiers::CONTROL => {
                self.delegates.unfocus()
            }
            _ => {
                self.delegates.unfocus();
                return false;
            }
        }
        true
    }

    fn open_selected_run(&mut self) {
        let Some(index) = self.delegates.selected_index() else {
            return;
        };
        if let Some(run) = self.delegates.run(index) {
            self.popup = None;
            self.views
                .push(Box::new(RunView::new(index, run.log.clone())));
        }
    }
}
