//! The bottom pane: the composer, the popup (slash commands or `@` files) and a stack of
//! modal views (approval overlay, question, plan review, /plans list, session picker, model
//! picker, a delegated run's transcript), after helix's compositor:
//! keys go to the top view first; a view that is done returns [`ViewResult::Close`] instead
//! of reaching into the app.

pub mod approval;
pub mod composer;
pub mod file_popup;
pub mod model_picker;
pub mod picker;
pub mod plan_review;
pub mod plans_list;
pub mod popup;
pub mod question;
pub mod run_view;
pub mod session_picker;
pub mod slash_popup;

use crate::app_event::AppEventSender;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::any::Any;

/// What a view did with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewResult {
    /// Handled; the view stays.
    Consumed,
    /// Not handled; the next layer gets it.
    Ignored,
    /// Handled, and the view is finished: remove it.
    Close,
}

/// A modal layer of the bottom pane.
pub trait View: Any {
    /// Handle a key.
    fn handle_key(&mut self, key: KeyEvent, tx: &AppEventSender) -> ViewResult;

    /// Handle pasted text.
    fn handle_paste(&mut self, _text: &str) -> ViewResult {
        ViewResult::Consumed
    }

    /// Mouse wheel: positive scrolls down.
    fn handle_scroll(&mut self, _lines: i32) -> bool {
        false
    }

    /// Lay out for `area` before a frame (state changes belong here, not in render).
    fn prepare(&mut self, _area: Rect) {}

    /// Rows wanted at `width`, at most `max`.
    fn desired_height(&self, width: u16, max: u16) -> u16;

    /// Draw.
    fn render(&self, area: Rect, buf: &mut Buffer);

    /// True for views that take the whole screen above the status line (plan review).
    fn fullscreen(&self) -> bool {
        false
    }

    /// True for views that belong to the running task (approvals, questions): closed when it
    /// ends.
    fn belongs_to_task(&self) -> bool {
        false
    }

    /// For downcasting (queueing approvals into an open overlay).
    fn as_any_mut(&mut self) -> &mut dyn Any;
}
