//! The TUI.
