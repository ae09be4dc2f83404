//! Terminal input: keys, paste, mouse, resize. Keys go to the top view first, then the popup
//! (slash commands or `@` files), then the app's own keys, then the composer.

use super::{App, QUIT_WINDOW, Request};
use crate::bottom::ViewResult;
use crate::bottom::composer::ComposerResult;
use crate::bottom::popup::Popup;
use crate::bottom::slash_popup::SlashPopup;
use crate::history::RenderOptions;
use crate::paste_burst::BurstKey;
use cairn_protocol::Op;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};

/// Lines per mouse wheel step.
const WHEEL_LINES: usize = 3;

impl App {
    /// Handle one terminal event. Returns false when nothing on screen can have changed.
    pub fn handle_terminal_event(&mut self, event: Event) -> bool {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                let key = match self.paste_burst.on_key(&key, self.now) {
                    // A pasted line break goes into the composer instead of sending.
                    BurstKey::PastedNewline if self.views.is_empty() => {
                        KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT)
                    }
                    _ => key,
                };
                self.handle_key(key);
                true
            }
            Event::Paste(text) => {
                self.handle_paste(&text);
                true
            }
            Event::Mouse(mouse) => match mouse.kind {
                MouseEventKind::ScrollUp => {
                    self.handle_wheel(-1);
                    true
                }
                MouseEventKind::ScrollDown => {
                    self.handle_wheel(1);
                    true
                }
                _ => false,
            },
            Event::Resize(width, height) => {
                self.handle_resize(width, height);
                true
            }
            _ => false,
        }
    }

    /// The terminal changed size.
    pub fn handle_resize(&mut self, width: u16, height: u16) {
        self.size = (width, height);
    }

    /// Mouse wheel: `direction` < 0 scrolls up.
    pub fn handle_wheel(&mut self, direction: i32) {
        if let Some(view) = self.views.last_mut()
            && view.handle_scroll(direction * WHEEL_LINES as i32)
        {
            return;
        }
        if direction < 0 {
            self.transcript.scroll_up(WHEEL_LINES);
        } else {
            self.transcript.scroll_down(WHEEL_LINES);
        }
    }

    /// Pasted text arrives as one edit.
    pub fn handle_paste(&mut self, text: &str) {
        if let Some(view) = self.views.last_mut() {
            if view.handle_paste(text) == ViewResult::Close {
                self.views.pop();
            }
            return;
        }
        self.composer.paste(text);
        self.sync_popup_with(false);
    }

    /// A key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let typed = matches!(
            key.code,
            KeyCode::Char(_) | KeyCode::Enter | KeyCode::Backspace
        );
        if typed && !ctrl && self.typing_grace() {
            // A dialog just opened under the user's fingers: the rest of what they were
            // typing stays in the composer instead of answering it.
            self.typed_at = Some(self.now);
            if let ComposerResult::Submitted(text) = self.composer.handle_key(key) {
                self.submit_text(&text);
            }
            return;
        }
        if let Some(view) = self.views.last_mut() {
            match view.handle_key(key, &self.tx) {
                ViewResult::Consumed => return,
                ViewResult::Close => {
                    self.views.pop();
                    return;
                }
                ViewResult::Ignored => {}
            }
        }
        if ctrl && key.code == KeyCode::Char('c') {
            self.handle_ctrl_c();
            return;
        }
        if self.views.is_empty() && self.handle_tree_key(key) {
            return;
        }
        if self.views.is_empty() && self.handle_popup_key(key) {
            return;
        }
        if self.handle_app_key(key) {
            return;
        }
        if !self.views.is_empty() {
            return;
        }
        match self.composer.handle_key(key) {
            ComposerResult::Submitted(text) => {
                // Sent: the user now waits for the answer rather than typing.
                self.typed_at = None;
                self.popup = None;
                self.submit_text(&text);
            }
            ComposerResult::Handled => {
                self.typed_at = Some(self.now);
                self.sync_popup();
            }
            ComposerResult::Ignored => {}
        }
    }

    fn handle_ctrl_c(&mut self) {
        if let Some(armed) = self.quit_armed_at
            && self.now.saturating_duration_since(armed) < QUIT_WINDOW
        {
            self.requests.push(Request::Quit);
            return;
        }
        // Only an empty composer arms quit: Ctrl+C on a draft just clears it.
        let draft = !self.composer.is_empty();
        if self.task.is_some() {
            self.ops.submit(Op::Interrupt);
        } else if draft {
            self.composer.clear();
            self.popup = None;
        }
        self.quit_armed_at = (!draft).then_some(self.now);
    }

    /// Keys the app owns. Returns true when used.
    fn handle_app_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => {
                if self.task.is_some() {
                    self.ops.submit(Op::Interrupt);
                }
                true
            }
            // Ctrl+D on an empty composer quits, as in a shell; with text it deletes forward.
            KeyCode::Char('d') if ctrl && self.composer.is_empty() && self.views.is_empty() => {
                self.requests.push(Request::Quit);
                true
            }
            KeyCode::Char('t') if ctrl => {
                self.pinned_visible = !self.pinned_visible;
                true
            }
            KeyCode::Char('g') if ctrl => {
                self.toggle_tree_focus();
                true
            }
            KeyCode::Char('o') if ctrl => {
                let expanded = !self.transcript.options().expanded;
                self.transcript.set_options(RenderOptions { expanded });
                true
            }
            KeyCode::PageUp => {
                self.transcript.scroll_up(self.transcript.page());
                true
            }
            KeyCode::PageDown => {
                self.transcript.scroll_down(self.transcript.page());
                true
            }
            KeyCode::Home if ctrl || self.composer.is_empty() => {
                self.transcript.scroll_to_top();
                true
            }
            KeyCode::End if ctrl || self.composer.is_empty() => {
                self.transcript.scroll_to_bottom();
                true
            }
            _ => false,
        }
    }

    /// Keys for the popup (slash commands or `@` files). Returns true when used.
    fn handle_popup_key(&mut self, key: KeyEvent) -> bool {
        if self.handle_file_popup_key(key) {
            return true;
        }
        let Some(Popup::Slash(popup)) = &mut self.popup else {
            return false;
        };
        match key.code {
            KeyCode::Up => popup.move_selection(false),
            KeyCode::Down => popup.move_selection(true),
            KeyCode::Tab => {
                if let Some(cmd) = popup.selected_command() {
                    let text = if cmd.takes_argument() {
                        format!("/{} ", cmd.name())
                    } else {
                        format!("/{}", cmd.name())
                    };
                    self.composer.set_text(&text);
                    self.sync_popup();
                }
            }
            KeyCode::Enter if key.modifiers.is_empty() => {
                let Some(cmd) = popup.selected_command() else {
                    return false;
                };
                let text = format!("/{}", cmd.name());
                self.composer.remember(&text);
                self.composer.clear();
                self.popup = None;
                self.run_command(cmd, "");
            }
            KeyCode::Esc => self.popup = None,
            _ => return false,
        }
        true
    }

    /// Show, update or hide the popup after the composer text changed.
    fn sync_popup(&mut self) {
        // Keys arriving as a paste never open the file popup (see `sync_file_popup`).
        self.sync_popup_with(!self.paste_burst.in_burst());
    }

    /// As [`App::sync_popup`]; `may_open_files` is false for pasted text.
    fn sync_popup_with(&mut self, may_open_files: bool) {
        let text = self.composer.text();
        if let Some(Popup::Slash(popup)) = &mut self.popup
            && popup.update(&text)
        {
            return;
        }
        if let Some(popup) = SlashPopup::for_text(&text) {
            self.popup = Some(Popup::Slash(popup));
            return;
        }
        self.sync_file_popup(may_open_files);
    }
}
