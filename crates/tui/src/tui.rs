//! The terminal: raw mode, alternate screen, bracketed paste, mouse wheel and keyboard
//! enhancement, always restored: in `Drop`, from a panic hook, and by the loop on SIGTERM /
//! SIGHUP.

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout, Write};
use std::sync::Once;

/// Mouse reporting for buttons and the wheel only (1000) in SGR encoding (1006). crossterm's
/// `EnableMouseCapture` also turns on motion tracking, which would wake the app on every
/// mouse move.
struct EnableWheel;

impl crossterm::Command for EnableWheel {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1000h\x1b[?1006h")
    }
}

struct DisableWheel;

impl crossterm::Command for DisableWheel {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str("\x1b[?1006l\x1b[?1000l")
    }
}

/// Put the terminal into the TUI's modes.
fn enable() -> io::Result<()> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        EnableWheel,
        cursor::Hide
    )?;
    // Terminals without the kitty keyboard protocol ignore this sequence; with it,
    // Shift+Enter is distinguishable from Enter. No query: it could stall start-up.
    let _ = execute!(
        out,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    Ok(())
}

/// Give the terminal back as it was. Safe to call more than once.
pub fn restore() -> io::Result<()> {
    let mut out = io::stdout();
    let _ = execute!(out, PopKeyboardEnhancementFlags);
    let result = execute!(
        out,
        DisableWheel,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let raw = disable_raw_mode();
    let _ = out.flush();
    result.and(raw)
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = restore();
            previous(info);
        }));
    });
}

/// Owns the terminal while the TUI runs; restores it when dropped.
pub struct TerminalGuard {
    /// The ratatui terminal.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    active: bool,
}

impl TerminalGuard {
    /// Enter the TUI's modes.
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        if let Err(err) = enable() {
            let _ = restore();
            return Err(err);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(t) => t,
            Err(err) => {
                let _ = restore();
                return Err(err);
            }
        };
        Ok(Self {
            terminal,
            active: true,
        })
    }

    /// Hand the terminal to another program (the editor).
    pub fn suspend(&mut self) -> io::Result<()> {
        self.active = false;
        restore()
    }

    /// Take the terminal back and repaint everything.
    pub fn resume(&mut self) -> io::Result<()> {
        enable()?;
        self.active = true;
        // Not `Terminal::clear`: it asks the terminal for the cursor position and waits for
        // the answer. A resize to the current size clears and forces a full repaint without.
        let size = self.terminal.size()?;
        self.terminal
            .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
    }

    /// Restore now (also done on drop).
    pub fn exit(mut self) -> io::Result<()> {
        self.active = false;
        restore()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if self.active {
            let _ = restore();
        }
    }
}
