//! Where a missing `old_string` was probably meant to match, so the refusal can show the
//! model the real text.

use super::MAX_ECHO_LINES;

/// The window of the file most like `needle`'s lines.
#[derive(Debug, PartialEq)]
pub(super) struct Window {
    pub start: usize,
    pub len: usize,
    /// The lines equal the needle's once trimmed.
    pub whitespace_only: bool,
}

/// Find where `needle` was probably meant to match: score candidate windows by the average
/// bigram similarity of their trimmed lines. Candidates come from the lines most like a few
/// anchor lines of the needle, which keeps this linear in the file size.
pub(super) fn closest_lines(content: &str, needle: &str) -> Option<Window> {
    let file: Vec<&str> = content.lines().map(str::trim).collect();
    let wanted: Vec<&str> = needle
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .collect();
    let wanted_len = wanted.iter().rposition(|l| !l.is_empty())? + 1;
    let wanted = &wanted[..wanted_len];
    let mut anchors: Vec<usize> = (0..wanted.len()).filter(|&j| wanted[j].len() > 2).collect();
    anchors.sort_by_key(|&j| std::cmp::Reverse(wanted[j].len()));
    anchors.truncate(4);
    if anchors.is_empty() {
        anchors.push(0);
    }
    let mut candidates = Vec::new();
    for &j in &anchors {
        let anchor = Bigrams::new(wanted[j]);
        let mut scored: Vec<(f64, usize)> = file
            .iter()
            .enumerate()
            .map(|(i, line)| (anchor.similarity(line), i))
            .filter(|(s, _)| *s >= 0.5)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        candidates.extend(
            scored
                .iter()
                .take(10)
                .filter_map(|&(_, i)| i.checked_sub(j)),
        );
    }
    candidates.sort_unstable();
    candidates.dedup();
    let wanted_bigrams: Vec<Bigrams> = wanted.iter().map(|l| Bigrams::new(l)).collect();
    let (score, start) = candidates
        .into_iter()
        .map(|start| {
            let total: f64 = wanted_bigrams
                .iter()
                .enumerate()
                .map(|(j, b)| file.get(start + j).map_or(0.0, |l| b.similarity(l)))
                .sum();
            (total / wanted.len() as f64, start)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))?;
    if score < 0.5 {
        return None;
    }
    let len = wanted.len().min(MAX_ECHO_LINES);
    let whitespace_only = (0..wanted.len()).all(|j| file.get(start + j) == Some(&wanted[j]));
    Some(Window {
        start,
        len,
        whitespace_only,
    })
}

/// Sorted character bigrams of a string, for the Dice coefficient.
struct Bigrams(Vec<(char, char)>, String);

impl Bigrams {
    fn new(text: &str) -> Self {
        Self(bigrams(text), text.to_string())
    }

    fn similarity(&self, other: &str) -> f64 {
        if self.1 == other {
            return 1.0;
        }
        let (a, b) = (self.1.len(), other.len());
        if a.max(b) > 3 * a.min(b).max(1) {
            return 0.0;
        }
        let theirs = bigrams(other);
        if self.0.is_empty() || theirs.is_empty() {
            return 0.0;
        }
        let (mut i, mut j, mut common) = (0, 0, 0);
        while i < self.0.len() && j < theirs.len() {
            match self.0[i].cmp(&theirs[j]) {
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
            }
        }
        2.0 * common as f64 / (self.0.len() + theirs.len()) as f64
    }
}

fn bigrams(text: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = text.chars().collect();
    let mut pairs: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_window_most_like_the_needle() {
        let file = "fn main() {\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n\nfn compute(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
        let window =
            closest_lines(file, "fn compute(a: u32, b: u32) -> u32 {\n    a + b\n").unwrap();
        assert_eq!(
            window,
            Window {
                start: 5,
                len: 2,
                whitespace_only: false
            }
        );
        let window = closest_lines(file, "a + b\n}").unwrap();
        assert_eq!(
            window,
            Window {
                start: 6,
                len: 2,
                whitespace_only: true
            }
        );
        assert_eq!(closest_lines(file, "completely unrelated words here"), None);
        assert_eq!(closest_lines(file, "\n\n"), None);
    }
}
