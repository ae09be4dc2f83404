//! Workspace files for a front end's `@file` completion: a capped walk that honours ignore
//! files and leaves secrets out, and a fuzzy scorer that ranks the paths for a query.
//!
//! The walk reads the disk, so front ends run it off their event loop and keep the
//! [`FileIndex`] it gives; scoring an index is cheap enough to do per keystroke
//! (docs/performance.md has the figures).

use crate::approval::access::Access;
use crate::config::Config;
use crate::tools::handlers::paths::real_path;
use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

/// Most paths a walk returns. A workspace with more lists the first 50,000 it meets
/// (directories before what they hold) and says so with [`FileList::truncated`]; that bounds
/// the walk's time and the index's memory (a few MB) in a huge tree such as a home directory.
pub const MAX_FILES: usize = 50_000;

/// The paths of one walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileList {
    /// Paths relative to the root, `/`-separated; directories end with `/`.
    pub paths: Vec<String>,
    /// The walk stopped at its cap: more paths exist.
    pub truncated: bool,
}

/// Whether a path must be left out of a listing.
pub type SkipPath = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// The files and directories below `root`, at most `limit` of them, as [`list_workspace_files`]
/// walks them, leaving out every path `skip` says (a skipped directory is not entered).
///
/// `.gitignore` (even outside a git repository), `.ignore` and git's exclude files are
/// honoured; hidden files are listed, `.git` is not. Symlinks are listed, not followed; a
/// symlink is also skipped when `skip` says so of its target. Paths that are not UTF-8 or hold
/// a control character are left out: they could not be typed into a message anyway.
pub fn list_files(root: &Path, limit: usize, skip: SkipPath) -> FileList {
    let filter = skip.clone();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(move |e| {
            if e.file_name() == ".git" || filter(e.path()) {
                return false;
            }
            // A link inside the workspace must not lead the listing into a secret.
            !(e.path_is_symlink() && real_path(e.path()).is_some_and(|real| filter(&real)))
        })
        .build();
    let mut list = FileList::default();
    for entry in walker.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(relative) = relative.to_str() else {
            continue;
        };
        if relative.chars().any(char::is_control) {
            continue;
        }
        if list.paths.len() >= limit {
            list.truncated = true;
            break;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        list.paths.push(if is_dir {
            format!("{relative}/")
        } else {
            relative.to_string()
        });
    }
    list
}

/// The workspace `root`'s files for `@` completion: [`list_files`] capped at [`MAX_FILES`],
/// leaving out what cairn's access rules treat as secrets ([`Access::is_secret`]), so the
/// completion never offers a path the model would need approval to read as a secret.
pub fn list_workspace_files(config: &Config, root: &Path) -> FileList {
    list_with_access(Access::new(config, root), root)
}

fn list_with_access(access: Access, root: &Path) -> FileList {
    // A workspace that is itself a secret location was chosen as such: list it.
    let root_is_secret = access.is_secret(root);
    let skip: SkipPath = Arc::new(move |path| !root_is_secret && access.is_secret(path));
    list_files(root, MAX_FILES, skip)
}

/// How well a path matches a query, best first: basename prefix, basename substring, path
/// substring, then the query's letters scattered along the path in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// The file name starts with the query.
    BasenamePrefix,
    /// The file name contains the query.
    BasenameSubstring,
    /// The path contains the query (across a `/`, say).
    PathSubstring,
    /// The query's letters appear in the path in order.
    Scattered,
}

/// One path of a search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMatch {
    /// The path, relative to the workspace root; directories end with `/`.
    pub path: String,
    /// How it matched.
    pub kind: MatchKind,
    /// Byte offsets in `path` of the characters the query matched, ascending (for
    /// highlighting).
    pub positions: Vec<usize>,
}

/// One indexed path: byte ranges into [`FileIndex`]'s two texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    start: u32,
    end: u32,
    /// Where the file name starts (a directory's own name, for a directory).
    base: u32,
}

/// Paths ready to be searched many times (one walk, one search per keystroke).
///
/// The paths sit end to end in one string, and again in ASCII lower case in another, so a
/// search reads memory in order instead of chasing 50,000 allocations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileIndex {
    text: String,
    lower: String,
    entries: Vec<Entry>,
    truncated: bool,
}

impl FileIndex {
    /// Index the paths of `list`.
    pub fn new(list: FileList) -> Self {
        let mut index = Self {
            truncated: list.truncated,
            ..Self::default()
        };
        for path in list.paths {
            // Offsets are u32 to keep entries small; a list past 4 GiB is cut off there.
            let (Ok(start), Ok(end)) = (
                u32::try_from(index.text.len()),
                u32::try_from(index.text.len() + path.len()),
            ) else {
                index.truncated = true;
                break;
            };
            let trimmed = path.trim_end_matches('/');
            let base = trimmed.rfind('/').map_or(0, |i| i + 1) as u32;
            index.text.push_str(&path);
            index.lower.push_str(&path.to_ascii_lowercase());
            index.entries.push(Entry {
                start,
                end,
                base: start + base,
            });
        }
        index
    }

    /// Paths indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no path is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The walk stopped at its cap: some paths are missing.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn path(&self, entry: Entry) -> &str {
        &self.text[entry.start as usize..entry.end as usize]
    }

    fn lower(&self, entry: Entry) -> &str {
        &self.lower[entry.start as usize..entry.end as usize]
    }

    /// The best `limit` paths for `query`, best first: by [`MatchKind`], then shorter paths,
    /// then by path. Matching ignores ASCII case; an empty query lists the shortest paths.
    pub fn search(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        let query = query.to_ascii_lowercase();
        // Built once per search rather than once per path.
        let finder = memchr::memmem::FinderRev::new(query.as_bytes());
        let mut found: Vec<(MatchKind, Entry)> = self
            .entries
            .iter()
            .filter_map(|&entry| {
                let base = (entry.base - entry.start) as usize;
                Some((classify(self.lower(entry), base, &query, &finder)?, entry))
            })
            .collect();
        let order = |a: &(MatchKind, Entry), b: &(MatchKind, Entry)| -> Ordering {
            a.0.cmp(&b.0)
                .then((a.1.end - a.1.start).cmp(&(b.1.end - b.1.start)))
                .then_with(|| self.path(a.1).cmp(self.path(b.1)))
        };
        // Only the best few are shown: select them, then sort just those.
        if found.len() > limit && limit > 0 {
            found.select_nth_unstable_by(limit - 1, order);
        }
        found.truncate(limit);
        found.sort_unstable_by(order);
        found
            .into_iter()
            .map(|(kind, entry)| {
                let base = (entry.base - entry.start) as usize;
                FileMatch {
                    path: self.path(entry).to_string(),
                    kind,
                    positions: positions(self.lower(entry), base, &query, kind),
                }
            })
            .collect()
    }
}

/// How the lower-case path `lower`, whose file name starts at byte `base`, matches the
/// lower-case `query` (which `finder` searches for), if it does.
fn classify(
    lower: &str,
    base: usize,
    query: &str,
    finder: &memchr::memmem::FinderRev<'_>,
) -> Option<MatchKind> {
    // Most paths do not match at all: a byte-wise subsequence test (a memchr per query byte)
    // throws them out before any substring search.
    if !bytes_in_order(lower.as_bytes(), query.as_bytes()) {
        return None;
    }
    let name = &lower[base..];
    if name.starts_with(query) {
        return Some(MatchKind::BasenamePrefix);
    }
    // The rightmost occurrence tells both: in the file name, or only before it.
    match finder.rfind(lower.as_bytes()) {
        Some(i) if i >= base => return Some(MatchKind::BasenameSubstring),
        Some(_) => return Some(MatchKind::PathSubstring),
        None => {}
    }
    // Bytes in order are letters in order unless the query has a multi-byte character.
    (query.is_ascii() || scattered(lower, query).is_some()).then_some(MatchKind::Scattered)
}

/// True when `needle`'s bytes occur in `haystack` in order.
fn bytes_in_order(haystack: &[u8], needle: &[u8]) -> bool {
    let mut rest = haystack;
    for &b in needle {
        match memchr::memchr(b, rest) {
            Some(i) => rest = &rest[i + 1..],
            None => return false,
        }
    }
    true
}

/// Byte offsets of the characters of `haystack` that spell `query` in order (leftmost
/// match), or `None` when it does not.
fn scattered(haystack: &str, query: &str) -> Option<Vec<usize>> {
    let mut wanted = query.chars().peekable();
    let mut out = Vec::with_capacity(query.len());
    for (i, c) in haystack.char_indices() {
        match wanted.peek() {
            Some(&w) if w == c => {
                out.push(i);
                wanted.next();
            }
            Some(_) => {}
            None => break,
        }
    }
    wanted.peek().is_none().then_some(out)
}

/// Where the query matched in `lower` (file name at `base`), for highlighting.
fn positions(lower: &str, base: usize, query: &str, kind: MatchKind) -> Vec<usize> {
    let start = match kind {
        MatchKind::BasenamePrefix => Some(base),
        MatchKind::BasenameSubstring => lower[base..].find(query).map(|i| base + i),
        MatchKind::PathSubstring => lower.find(query),
        MatchKind::Scattered => None,
    };
    match start {
        Some(start) => lower[start..start + query.len()]
            .char_indices()
            .map(|(i, _)| start + i)
            .collect(),
        None => scattered(lower, query).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn index(paths: &[&str]) -> FileIndex {
        FileIndex::new(FileList {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            truncated: false,
        })
    }

    fn found(index: &FileIndex, query: &str) -> Vec<String> {
        index
            .search(query, 100)
            .into_iter()
            .map(|m| m.path)
            .collect()
    }

    fn touch(root: &Path, path: &str) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }

    fn no_skip() -> SkipPath {
        Arc::new(|_| false)
    }

    #[test]
    fn walk_honours_gitignore_and_skips_dot_git_but_lists_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "src/main.rs",
            "target/debug/cairn",
            "notes.log",
            ".github/workflows/ci.yml",
            ".git/config",
            ".git/HEAD",
            "vendor/lib.c",
        ] {
            touch(root, path);
        }
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        fs::write(root.join(".ignore"), "vendor/\n").unwrap();
        let mut paths = list_files(root, MAX_FILES, no_skip()).paths;
        paths.sort();
        assert_eq!(
            paths,
            [
                ".github/",
                ".github/workflows/",
                ".github/workflows/ci.yml",
                ".gitignore",
                ".ignore",
                "src/",
                "src/main.rs",
            ]
        );
    }

    #[test]
    fn walk_stops_at_its_cap_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..30 {
            touch(dir.path(), &format!("f{i:02}.txt"));
        }
        let list = list_files(dir.path(), 10, no_skip());
        assert_eq!(list.paths.len(), 10);
        assert!(list.truncated);
        let all = list_files(dir.path(), 30, no_skip());
        assert_eq!(all.paths.len(), 30);
        assert!(!all.truncated, "exactly at the cap is not truncated");
    }

    #[test]
    fn walk_leaves_out_what_skip_names_and_links_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        touch(root, "keys/id_rsa");
        touch(root, "src/lib.rs");
        std::os::unix::fs::symlink(root.join("keys/id_rsa"), root.join("src/key")).unwrap();
        let secret = root.join("keys");
        let skip: SkipPath = Arc::new(move |p| p.starts_with(&secret));
        let mut paths = list_files(root, MAX_FILES, skip).paths;
        paths.sort();
        assert_eq!(paths, ["src/", "src/lib.rs"]);
    }

    #[test]
    fn workspace_listing_leaves_out_secrets_under_home() {
        // A workspace that is the home directory: ~/.ssh is a secret, the rest is listed.
        let home = tempfile::tempdir().unwrap();
        let root = home.path();
        touch(root, ".ssh/id_ed25519");
        touch(root, "project/main.rs");
        let config = Config::for_test(&root.join(".cairn"), root);
        let access = Access::with_places(&config, root, Some(root.to_path_buf()), &[]);
        let paths = list_with_access(access, root).paths;
        assert!(paths.contains(&"project/main.rs".to_string()), "{paths:?}");
        assert!(!paths.iter().any(|p| p.starts_with(".ssh")), "{paths:?}");
    }

    #[test]
    fn basename_prefix_beats_basename_substring_beats_path_beats_scattered() {
        let index = index(&[
            "a/b/xmainx.rs",
            "main/zzz.txt",
            "m/a/i/n.txt",
            "src/main.rs",
            "very/long/path/to/main_window.rs",
        ]);
        assert_eq!(
            found(&index, "main"),
            [
                "src/main.rs",
                "very/long/path/to/main_window.rs",
                "a/b/xmainx.rs",
                "main/zzz.txt",
                "m/a/i/n.txt",
            ]
        );
        let kinds: Vec<MatchKind> = index.search("main", 10).iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                MatchKind::BasenamePrefix,
                MatchKind::BasenamePrefix,
                MatchKind::BasenameSubstring,
                MatchKind::PathSubstring,
                MatchKind::Scattered,
            ]
        );
    }

    #[test]
    fn shorter_paths_break_ties_and_case_is_ignored() {
        let index = index(&["docs/Manual.md", "Makefile", "src/main.rs", "README.md"]);
        assert_eq!(
            found(&index, "MA"),
            ["Makefile", "src/main.rs", "docs/Manual.md"]
        );
        assert_eq!(found(&index, "zz"), Vec::<String>::new());
    }

    #[test]
    fn empty_query_lists_the_shortest_paths_first() {
        let index = index(&["src/lib/deep.rs", "a.rs", "src/", "Cargo.toml"]);
        let paths: Vec<String> = index.search("", 3).into_iter().map(|m| m.path).collect();
        assert_eq!(paths, ["a.rs", "src/", "Cargo.toml"]);
    }

    #[test]
    fn directories_match_by_their_own_name() {
        let index = index(&["src/", "src/bottom/", "src/bottom/popup.rs"]);
        let best = &index.search("bot", 1)[0];
        assert_eq!(best.path, "src/bottom/");
        assert_eq!(best.kind, MatchKind::BasenamePrefix);
        assert_eq!(best.positions, [4, 5, 6]);
    }

    #[test]
    fn limit_keeps_the_best() {
        let paths: Vec<String> = (0..200).map(|i| format!("dir{i}/file{i}.rs")).collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let index = index(&refs);
        let best: Vec<String> = index
            .search("file1", 3)
            .into_iter()
            .map(|m| m.path)
            .collect();
        assert_eq!(
            best,
            ["dir1/file1.rs", "dir10/file10.rs", "dir11/file11.rs"]
        );
    }

    #[test]
    fn positions_mark_the_matched_letters() {
        let index = index(&["src/app/Input.rs"]);
        assert_eq!(index.search("inp", 1)[0].positions, [8, 9, 10]);
        assert_eq!(index.search("sai", 1)[0].positions, [0, 4, 8]);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Every result spells the query at its positions, and a path is found exactly
            /// when the query's letters occur in it in order.
            #[test]
            fn results_spell_the_query(
                paths in proptest::collection::vec("[a-cA-C/é._]{1,12}", 1..30),
                query in "[a-cA-C/é]{0,4}",
            ) {
                let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
                let results = index(&refs).search(&query, usize::MAX);
                let lower_query = query.to_ascii_lowercase();
                for m in &results {
                    let spelled: String = m
                        .positions
                        .iter()
                        .map(|&i| m.path[i..].chars().next().unwrap().to_ascii_lowercase())
                        .collect();
                    prop_assert_eq!(&spelled, &lower_query, "{}", m.path);
                    prop_assert!(m.positions.windows(2).all(|w| w[0] < w[1]));
                }
                let expected = paths
                    .iter()
                    .filter(|p| scattered(&p.to_ascii_lowercase(), &lower_query).is_some())
                    .count();
                prop_assert_eq!(results.len(), expected);
                prop_assert!(results.windows(2).all(|w| w[0].kind <= w[1].kind));
            }
        }
    }
}
