//! Strings of the session picker (/resume) and the model picker (/model).

/// Title of the session picker.
pub const PICKER_TITLE: &str = "Resume a session";
/// Before the session picker's filter.
pub const PICKER_FILTER_LABEL: &str = "Filter: ";
/// The session picker's filter before anything is typed.
pub const PICKER_PLACEHOLDER: &str = "directory, prompt, model or id";
/// Keys of the session picker.
pub const PICKER_FOOTER: &str = "[↑↓] Select  [Enter] Resume  [Esc] Close";
/// The session picker while the sessions are being listed.
pub const PICKER_LOADING: &str = "Listing saved sessions…";
/// The session picker without sessions.
pub const PICKER_EMPTY: &str =
    "No other saved sessions. Sessions are saved in $CAIRN_HOME/sessions as you work.";
/// The picked session is the one open here.
pub const ALREADY_THIS_SESSION: &str = "That is this session: it is already open here.";
/// A session without a message yet.
pub const PICKER_NO_PROMPT: &str = "(no prompt yet)";

/// "3 of 12" sessions match the filter.
pub fn picker_count(shown: usize, total: usize) -> String {
    format!("{shown} of {total}")
}

/// No session matches the filter.
pub fn picker_no_match(query: &str) -> String {
    format!("No session matches \"{query}\". Backspace or Ctrl+U edits the filter.")
}

/// "12s ago", "5m ago", "3h ago", "2d ago".
pub fn age(seconds: u64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s ago"),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// "1 turn", "4 turns".
pub fn turns(count: u64) -> String {
    if count == 1 {
        "1 turn".to_string()
    } else {
        format!("{count} turns")
    }
}

/// Shown while a picked session is being opened.
pub fn opening_session(id: &str) -> String {
    format!("Opening session {id}…")
}

/// A picked session could not be opened; the current one goes on.
pub fn resume_failed(message: &str, current_goes_on: bool) -> String {
    if current_goes_on {
        format!("Could not resume: {message}. This session goes on.")
    } else {
        format!("Could not resume: {message}.")
    }
}

/// Title of the model picker (/model).
pub const MODEL_PICKER_TITLE: &str = "Switch model";
/// The model picker's filter before anything is typed.
pub const MODEL_PICKER_PLACEHOLDER: &str = "type to filter, or any model name";
/// Keys of the model picker.
pub const MODEL_PICKER_FOOTER: &str = "[↑↓] Select  [Enter] Use  [Esc] Close";
/// The model picker while the core asks the server.
pub const MODEL_PICKER_LOADING: &str = "Loading models…";
/// The model picker with nothing to offer (no model known at all).
pub const MODEL_PICKER_EMPTY: &str = "No models known. Type a model name.";
/// The mark of the model in use.
pub const MODEL_PICKER_CURRENT: &str = "● current";
/// Under the typed text when no listed model matches it.
pub const MODEL_PICKER_NOT_LISTED: &str = "No listed model matches.";

/// Enter will switch to the typed model name.
pub fn model_picker_use_typed(typed: &str) -> String {
    format!("Enter: use '{typed}'")
}

/// The model picker's line when the server could not list its models.
pub fn model_picker_error(error: &str) -> String {
    format!("⚠ {error}")
}

/// The transcript's note of the same, where the whole sentence can be read.
pub fn models_not_listed(error: &str) -> String {
    format!("Could not list the server's models (the picker shows the ones cairn knows): {error}")
}

/// A context window: "8k", "272k", "1M".
pub fn context_size(tokens: u64) -> String {
    if tokens >= 1_000_000 {
        let m = format!("{:.1}", tokens as f64 / 1_000_000.0);
        format!("{}M", m.trim_end_matches(".0"))
    } else {
        format!("{}k", (tokens + 500) / 1000)
    }
}

/// /model with an argument.
pub fn model_switched(model: &str) -> String {
    format!("Model set to {model} for the following turns.")
}
