//! Bounded capture of a command's output: the first and last bytes are kept, the middle is
//! counted and dropped, so a command that prints gigabytes costs a fixed amount of memory.

use std::collections::VecDeque;

/// Head and tail of one output stream.
#[derive(Debug)]
pub(super) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_limit: usize,
    tail_limit: usize,
    total_bytes: u64,
    total_lines: u64,
}

impl Capture {
    /// Keep up to `head_limit` leading and `tail_limit` trailing bytes.
    pub fn new(head_limit: usize, tail_limit: usize) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_limit,
            tail_limit,
            total_bytes: 0,
            total_lines: 0,
        }
    }

    /// Record the next chunk of output.
    pub fn push(&mut self, mut chunk: &[u8]) {
        self.total_bytes += chunk.len() as u64;
        self.total_lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        if self.head.len() < self.head_limit {
            let take = chunk.len().min(self.head_limit - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.len() >= self.tail_limit {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_limit..]);
        } else {
            self.tail.extend(chunk);
            let excess = self.tail.len().saturating_sub(self.tail_limit);
            self.tail.drain(..excess);
        }
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.total_bytes == 0
    }

    /// The captured text, decoded lossily, with a note in the middle saying how much was cut.
    pub fn render(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let kept = self.head.len() as u64 + self.tail.len() as u64;
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.total_bytes > kept {
            let cut_bytes = self.total_bytes - kept;
            let kept_lines = count_newlines(&self.head) + count_newlines(&tail);
            let cut_lines = self.total_lines.saturating_sub(kept_lines);
            // Start the tail at a character boundary rather than on a replacement character.
            let skip = tail
                .iter()
                .take(3)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[... {cut_bytes} bytes ({cut_lines} lines) cut from the middle of this output ...]\n"
            ));
            text.push_str(&String::from_utf8_lossy(&tail[skip..]));
        } else {
            text.push_str(&String::from_utf8_lossy(&tail));
        }
        text
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let mut capture = Capture::new(8, 8);
        capture.push(b"hello ");
        capture.push(b"world\n");
        assert_eq!(capture.render(), "hello world\n");
        assert!(!capture.is_empty());
    }

    #[test]
    fn large_output_keeps_head_and_tail_and_says_what_was_cut() {
        let mut capture = Capture::new(10, 10);
        for i in 0..100 {
            capture.push(format!("line {i:03}\n").as_bytes());
        }
        // 900 bytes: the head ends mid-line, the tail starts on a line break.
        assert_eq!(
            capture.render(),
            "line 000\nl\n[... 880 bytes (97 lines) cut from the middle of this output ...]\n\nline 099\n"
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut capture = Capture::new(64, 64);
        capture.push(b"caf\xe9 \xff\n");
        assert_eq!(capture.render(), "caf\u{fffd} \u{fffd}\n");
    }
}
