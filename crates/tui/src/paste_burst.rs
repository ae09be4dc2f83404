//! Telling a paste from typing when the terminal does not bracket pastes.
//!
//! Without bracketed paste a paste arrives as ordinary key events, Enter included, and each
//! line would be sent as its own message. A paste comes faster than anyone types: keys less
//! than [`BURST_GAP`] apart are one burst, and an Enter inside a burst is a new line, not
//! Enter. Typed keys are always further apart, so typing never changes.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::{Duration, Instant};

/// Keys closer together than this come from a paste, not from fingers.
pub const BURST_GAP: Duration = Duration::from_millis(8);
/// Fast characters needed before an Enter counts as part of a paste.
const MIN_BURST_CHARS: usize = 2;

/// What [`PasteBurst::on_key`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BurstKey {
    /// An ordinary key.
    Typed,
    /// An Enter inside a paste: insert a new line.
    PastedNewline,
}

/// The state of the burst the latest keys belong to.
#[derive(Debug, Default)]
pub struct PasteBurst {
    last_at: Option<Instant>,
    /// Characters (and pasted newlines) in the current burst.
    run: usize,
}

impl PasteBurst {
    /// True while the latest keys came as a burst (a paste), not from fingers.
    pub fn in_burst(&self) -> bool {
        self.run >= MIN_BURST_CHARS
    }

    /// Classify `key`, which arrived at `now`.
    pub fn on_key(&mut self, key: &KeyEvent, now: Instant) -> BurstKey {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let fast = self
            .last_at
            .is_some_and(|at| now.saturating_duration_since(at) < BURST_GAP);
        match key.code {
            KeyCode::Char(_) if plain => {
                self.run = if fast { self.run + 1 } else { 1 };
                self.last_at = Some(now);
                BurstKey::Typed
            }
            KeyCode::Enter if plain && fast && self.run >= MIN_BURST_CHARS => {
                self.run += 1;
                self.last_at = Some(now);
                BurstKey::PastedNewline
            }
            _ => {
                self.run = 0;
                self.last_at = None;
                BurstKey::Typed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn feed(burst: &mut PasteBurst, text: &str, t0: Instant, step: Duration) -> Vec<BurstKey> {
        text.chars()
            .enumerate()
            .map(|(i, c)| {
                let code = if c == '\n' {
                    KeyCode::Enter
                } else {
                    KeyCode::Char(c)
                };
                burst.on_key(&key(code), t0 + step * i as u32)
            })
            .collect()
    }

    #[test]
    fn enter_inside_a_fast_burst_is_a_newline() {
        let mut burst = PasteBurst::default();
        let keys = feed(
            &mut burst,
            "one\n\ntwo\n",
            Instant::now(),
            Duration::from_micros(200),
        );
        let newlines: Vec<usize> = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| **k == BurstKey::PastedNewline)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(newlines, vec![3, 4, 8]);
    }

    #[test]
    fn typing_speed_enter_is_enter() {
        let mut burst = PasteBurst::default();
        let keys = feed(
            &mut burst,
            "hello\n",
            Instant::now(),
            Duration::from_millis(40),
        );
        assert!(keys.iter().all(|k| *k == BurstKey::Typed));
        // One fast character is not a paste either.
        let t0 = Instant::now();
        let mut burst = PasteBurst::default();
        burst.on_key(&key(KeyCode::Char('a')), t0);
        assert_eq!(
            burst.on_key(&key(KeyCode::Enter), t0 + Duration::from_millis(1)),
            BurstKey::Typed
        );
    }
}
