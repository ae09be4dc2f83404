//! Read-only command classifier for the `on-request` policy.
//!
//! A command is known safe only when every simple command in it is on a short list of readers
//! used with options that cannot write or run other programs. Anything the scanner does not
//! fully understand — redirects, substitutions, subshells, variable expansion, env
//! assignments, unbalanced quotes — is unsafe, and unsafe only means "ask the user".

/// True when `command` only reads (and so may run without asking under `on-request`).
pub fn is_known_safe(command: &str) -> bool {
    let Some(segments) = split_segments(command) else {
        return false;
    };
    segments.iter().all(segment_is_safe)
}

/// True when `command` only reads once the kernel's read-only sandbox stops every write:
/// everything [`is_known_safe`] accepts, plus programs kept off that list only because they
/// run code a file write could plant (`cargo metadata`, `cargo tree` run `rustc` as the
/// workspace's `.cargo/config.toml` says). Inside the read-only sandbox such code cannot
/// change anything, and in plan mode nothing can plant it.
pub fn is_read_only_when_sandboxed(command: &str) -> bool {
    let Some(segments) = split_segments(command) else {
        return false;
    };
    segments
        .iter()
        .all(|segment| segment_is_safe(segment) || reads_under_sandbox(segment))
}

fn reads_under_sandbox(segment: &Segment) -> bool {
    let Some(words) = shlex::split(&segment.text) else {
        return false;
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        // `--manifest-path`/`-Z` stay readers too; only output files would write, and the
        // sandbox refuses those.
        ["cargo", "metadata" | "tree", ..] => !segment.has_glob,
        _ => false,
    }
}

/// The simple commands of a chain joined by `&&`, `||`, `;`, `|` or newlines, each split into
/// words; `None` when the command uses anything else (redirects, substitutions, subshells,
/// background jobs, variable expansion, braces, comments) or its quoting does not parse.
pub fn simple_commands(command: &str) -> Option<Vec<Vec<String>>> {
    split_segments(command)?
        .iter()
        .map(|segment| {
            let words = shlex::split(&segment.text)?;
            (!words.is_empty()).then_some(words)
        })
        .collect()
}

/// One simple command as written, and whether it contains unquoted glob characters (whose
/// expansion could turn a file name into an option).
#[derive(Default)]
struct Segment {
    text: String,
    has_glob: bool,
}

/// Split at unquoted chain operators, refusing every other shell construct.
fn split_segments(command: &str) -> Option<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut current = Segment::default();
    // After `&&`, `||` or `|` another command must follow.
    let mut needs_more = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                current.text.push(c);
                loop {
                    let q = chars.next()?;
                    current.text.push(q);
                    if q == '\'' {
                        break;
                    }
                }
            }
            '"' => {
                current.text.push(c);
                loop {
                    let q = chars.next()?;
                    match q {
                        // Expansion and substitution still happen inside double quotes.
                        '$' | '`' => return None,
                        '\\' => {
                            current.text.push(q);
                            current.text.push(chars.next()?);
                        }
                        '"' => {
                            current.text.push(q);
                            break;
                        }
                        _ => current.text.push(q),
                    }
                }
            }
            '\\' => {
                let escaped = chars.next()?;
                // A backslash-newline continues the line; refuse rather than model it.
                if escaped == '\n' {
                    return None;
                }
                current.text.push(c);
                current.text.push(escaped);
            }
            '&' => {
                // A single `&` starts a background job.
                chars.next_if_eq(&'&')?;
                end_segment(&mut current, &mut segments)?;
                needs_more = true;
            }
            '|' => {
                chars.next_if_eq(&'|');
                if chars.peek() == Some(&'&') {
                    return None;
                }
                end_segment(&mut current, &mut segments)?;
                needs_more = true;
            }
            ';' => {
                if chars.peek() == Some(&';') {
                    return None;
                }
                end_segment(&mut current, &mut segments)?;
                needs_more = false;
            }
            // A newline separates commands like `;`, and may also follow an operator.
            '\n' => {
                if !current.text.trim().is_empty() {
                    end_segment(&mut current, &mut segments)?;
                    needs_more = false;
                }
            }
            '>' | '<' | '(' | ')' | '`' | '$' | '{' | '}' | '#' => return None,
            '*' | '?' | '[' | ']' => {
                current.has_glob = true;
                current.text.push(c);
            }
            _ => current.text.push(c),
        }
    }
    if !current.text.trim().is_empty() {
        segments.push(current);
    } else if needs_more {
        return None;
    }
    (!segments.is_empty()).then_some(segments)
}

/// Close the current segment; `None` when it is empty (`&& ls`, `ls ; ; pwd`).
fn end_segment(current: &mut Segment, segments: &mut Vec<Segment>) -> Option<()> {
    let taken = std::mem::take(current);
    if taken.text.trim().is_empty() {
        return None;
    }
    segments.push(taken);
    Some(())
}

fn segment_is_safe(segment: &Segment) -> bool {
    let Some(words) = shlex::split(&segment.text) else {
        return false;
    };
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match program.as_str() {
        "ls" | "cat" | "head" | "tail" | "wc" | "grep" | "echo" => true,
        // For the rest a glob could expand to a file named like a dangerous option.
        _ if segment.has_glob => false,
        "pwd" | "which" | "true" | "du" | "stat" | "diff" => true,
        "sort" => sort_is_safe(&args),
        "uniq" => uniq_is_safe(&args),
        "file" => file_is_safe(&args),
        "tree" => tree_is_safe(&args),
        "rg" => rg_is_safe(&args),
        "find" => find_is_safe(&args),
        "git" => git_is_safe(&args),
        "sed" => sed_is_safe(&args),
        _ => false,
    }
}

/// `--pre` runs a program on every file searched, `--hostname-bin` runs one for hyperlinks,
/// and `-z`/`--search-zip` runs decompressors found on PATH.
fn rg_is_safe(args: &[&str]) -> bool {
    !args.iter().any(|a| {
        a.starts_with("--pre")
            || a.starts_with("--hostname-bin")
            || *a == "--search-zip"
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('z'))
    })
}

/// True when a short-option cluster (`-nro`) or the exact long option is present.
fn has_option(args: &[&str], short: char, long: &str) -> bool {
    args.iter().any(|a| {
        a.strip_prefix("--").map_or_else(
            || a.starts_with('-') && a.len() > 1 && a[1..].contains(short),
            |l| l == long || l.starts_with(&format!("{long}=")),
        )
    })
}

/// `sort` writes with `-o`/`--output` and runs a program with `--compress-program`.
fn sort_is_safe(args: &[&str]) -> bool {
    !has_option(args, 'o', "output") && !args.iter().any(|a| a.starts_with("--compress-program"))
}

/// `uniq INPUT OUTPUT` writes OUTPUT.
fn uniq_is_safe(args: &[&str]) -> bool {
    // Options that take a value: -f N, -s N, -w N.
    let mut positional = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(*arg, "-f" | "-s" | "-w") {
            iter.next();
        } else if !arg.starts_with('-') || *arg == "-" {
            positional += 1;
        }
    }
    positional <= 1
}

/// `file -C` compiles a magic file (writes `*.mgc`).
fn file_is_safe(args: &[&str]) -> bool {
    !has_option(args, 'C', "compile")
}

/// `tree -o FILE` writes FILE; `-R` (with `-H`) writes an index into every directory.
fn tree_is_safe(args: &[&str]) -> bool {
    !args
        .iter()
        .any(|a| *a == "-o" || *a == "-R" || a.starts_with("--output"))
}

fn find_is_safe(args: &[&str]) -> bool {
    const WRITES_OR_RUNS: &[&str] = &["-exec", "-execdir", "-delete", "-ok", "-okdir", "-fls"];
    !args
        .iter()
        .any(|a| WRITES_OR_RUNS.contains(a) || a.starts_with("-fprint"))
}

fn git_is_safe(args: &[&str]) -> bool {
    // The subcommand must come first: global options such as `-c` can run arbitrary programs.
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    if !matches!(
        *sub,
        "status" | "log" | "diff" | "show" | "blame" | "rev-parse" | "ls-files"
    ) {
        return false;
    }
    !rest
        .iter()
        .any(|a| *a == "-c" || a.starts_with("--output") || a.starts_with("--ext-diff"))
}

/// `sed -n` with scripts made only of printing commands (and `s` without the `w`/`e` flags).
fn sed_is_safe(args: &[&str]) -> bool {
    let mut quiet = false;
    let mut scripts: Vec<&str> = Vec::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut iter = args.iter().copied();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        if options_done || !arg.starts_with('-') || arg == "-" {
            positional.push(arg);
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match long {
                "quiet" | "silent" => quiet = true,
                "regexp-extended" | "separate" | "null-data" | "unbuffered" | "posix" | "debug" => {
                }
                "expression" => scripts.push(match iter.next() {
                    Some(s) => s,
                    None => return false,
                }),
                _ => match long.strip_prefix("expression=") {
                    Some(script) => scripts.push(script),
                    None => return false, // --in-place, --file and anything unknown
                },
            }
            continue;
        }
        // A cluster of short options such as `-nE` or `-ne SCRIPT`.
        let flags = &arg[1..];
        for (i, flag) in flags.char_indices() {
            match flag {
                'n' => quiet = true,
                'E' | 'r' | 's' | 'z' | 'u' => {}
                'e' => {
                    let attached = &flags[i + 1..];
                    if attached.is_empty() {
                        match iter.next() {
                            Some(s) => scripts.push(s),
                            None => return false,
                        }
                    } else {
                        scripts.push(attached);
                    }
                    break;
                }
                _ => return false, // -i edits in place, -f reads a script we cannot see
            }
        }
    }
    if scripts.is_empty() {
        if positional.is_empty() {
            return false;
        }
        scripts.push(positional.remove(0));
    }
    quiet && scripts.iter().all(|s| sed_script_is_safe(s))
}

/// Accepts `;`/newline-separated commands of the form `[addr[,addr]][!]cmd` where `cmd` is one
/// of `p P l = q Q d n N` or an `s` command whose flags are among `g p i I m M` and digits.
fn sed_script_is_safe(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let skip_blank = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_blank(&mut i);
        if i >= chars.len() {
            return true;
        }
        if !sed_address(&chars, &mut i) {
            return false;
        }
        skip_blank(&mut i);
        if chars.get(i) == Some(&',') {
            i += 1;
            if !sed_address(&chars, &mut i) {
                return false;
            }
            skip_blank(&mut i);
        }
        if chars.get(i) == Some(&'!') {
            i += 1;
            skip_blank(&mut i);
        }
        match chars.get(i) {
            Some('p' | 'P' | 'l' | '=' | 'q' | 'Q' | 'd' | 'n' | 'N') => {
                i += 1;
                // `q` and `Q` may carry an exit code.
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
            }
            Some('s') => {
                i += 1;
                let Some(&delim) = chars.get(i) else {
                    return false;
                };
                if delim == '\\' || delim == '\n' || delim.is_whitespace() {
                    return false;
                }
                i += 1;
                for _ in 0..2 {
                    if !skip_delimited(&chars, &mut i, delim) {
                        return false;
                    }
                }
                while let Some(&flag) = chars.get(i) {
                    if matches!(flag, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') || flag.is_ascii_digit() {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            _ => return false,
        }
        skip_blank(&mut i);
        match chars.get(i) {
            None => return true,
            Some(';' | '\n') => i += 1,
            Some(_) => return false,
        }
    }
}

/// An optional address: a line number, `$`, or `/regex/`. Moves `i` past it.
fn sed_address(chars: &[char], i: &mut usize) -> bool {
    match chars.get(*i) {
        Some('$') => *i += 1,
        Some('/') => {
            *i += 1;
            return skip_delimited(chars, i, '/');
        }
        Some(c) if c.is_ascii_digit() => {
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            // GNU `first~step`.
            if chars.get(*i) == Some(&'~') {
                *i += 1;
                while chars.get(*i).is_some_and(char::is_ascii_digit) {
                    *i += 1;
                }
            }
        }
        _ => {}
    }
    true
}

/// Skip to just past the next unescaped `delim`; false when there is none.
fn skip_delimited(chars: &[char], i: &mut usize, delim: char) -> bool {
    while let Some(&c) = chars.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == delim {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAFE: &[&str] = &[
        "ls",
        "ls -la src",
        "ls *.rs",
        "cat Cargo.toml",
        "cat 'a file with spaces.txt'",
        "head -n 20 src/lib.rs",
        "tail -n 50 log.txt",
        "wc -l src/*.rs",
        "grep -rn 'fn main' src",
        "grep -n \"TODO\" *.rs",
        "rg -n foo",
        "rg --files",
        "rg -g '*.rs' 'struct [A-Z]'",
        "find . -name '*.rs'",
        "find src -type f -newer Cargo.toml",
        "find . -maxdepth 2 -print",
        "git status",
        "git status --short",
        "git log --oneline -n 10",
        "git diff HEAD~1 -- src",
        "git show HEAD:Cargo.toml",
        "sed -n '1,20p' src/lib.rs",
        "sed -n 10p file",
        "sed -n '/fn main/,/^}/p' src/main.rs",
        "sed -n -e '5p' -e '$p' f",
        "sed -ne '1p' f",
        "sed --quiet '3,4p' f",
        "sed -nE 's/(a+)/[\\1]/gp' f",
        "sed -n '0~4p;$=' f",
        "pwd",
        "sort names.txt",
        "sort -u -k2 names.txt",
        "uniq -c sorted.txt",
        "uniq -f 1 sorted.txt",
        "du -sh src",
        "git blame src/lib.rs",
        "git blame -L 10,20 src/lib.rs",
        "diff a.txt b.txt",
        "diff -u a b",
        "file Cargo.toml",
        "stat src",
        "tree src",
        "tree -L 2",
        "git rev-parse HEAD",
        "git rev-parse --show-toplevel",
        "git ls-files",
        "git ls-files -m",
        "echo hello world",
        "echo 'a > b'",
        "which cargo",
        "true",
        "ls && pwd",
        "cat a.txt | grep foo | wc -l",
        "git status; git diff",
        "ls missing || echo none",
        "ls\npwd",
        "ls &&\n  pwd",
        "ls;",
        "grep -c 'a|b' f",
        "echo \"a && b\"",
        "echo a\\>b",
    ];

    const UNSAFE: &[&str] = &[
        // Not on the list at all.
        "rm -rf target",
        "cargo test",
        "python -c 'print(1)'",
        "/bin/ls",
        "env ls",
        "",
        "   ",
        // rg running programs.
        "rg --pre cat foo",
        "rg --hostname-bin=./gradlew --hyperlink-format=default x",
        "rg -z secret",
        "rg --search-zip secret",
        "rg --pre=./script foo",
        "rg --pre-glob '*.pdf' --pre pdftotext foo",
        "rg -n foo *",
        // find writing or running.
        "find . -exec rm {} ;",
        "find . -name x -exec rm '{}' ';'",
        "find . -execdir ls ';'",
        "find . -delete",
        "find . -name '*.o' -delete",
        "find . -fprint out.txt",
        "find . -fprint0 out.txt",
        "find . -fprintf out.txt '%p'",
        "find . -fls out.txt",
        "find . -ok rm ';'",
        "find * -name x",
        // git beyond the four readers, or with dangerous options.
        "git",
        "git commit -m x",
        "git push",
        "git checkout main",
        "git -c core.pager=sh log",
        "git -C other status",
        "git log -c core.pager=x",
        "git diff --output=out.patch",
        "git log --output out",
        "git diff --ext-diff",
        "git show --ext-diff HEAD",
        "git log *",
        // sed that writes, executes or is not -n.
        "sed 's/a/b/' f",
        "sed -n 's/a/b/w out' f",
        "sed -n '1w out' f",
        "sed -n 's/a/b/e' f",
        "sed -n 'e ls' f",
        "sed -i -n '1p' f",
        "sed -ni '1p' f",
        "sed -n --in-place '1p' f",
        "sed -n -f script.sed f",
        "sed -n '1r /etc/passwd' f",
        "sed -n",
        "sed -n '1p' *",
        "sed -n 's/a/b' f",
        // The writing forms of the read-only commands.
        "sort -o out.txt names.txt",
        "sort names.txt --output=out.txt",
        "sort -uo out.txt names.txt",
        "sort --compress-program=sh names.txt",
        "uniq sorted.txt out.txt",
        "uniq -c sorted.txt out.txt",
        "du -sh src > sizes.txt",
        "git blame src/lib.rs > blame.txt",
        "diff a b > d.patch",
        "file -C -m magic",
        "file --compile -m magic",
        "stat src > s.txt",
        "tree -o out.txt",
        "tree -R -H . src",
        "tree --output=x src",
        // `env` alone prints every variable, API keys and tokens among them: it asks.
        "env",
        "env ls",
        "env FOO=1 sh -c x",
        "git rev-parse HEAD > head.txt",
        "git ls-files | xargs rm",
        "which cargo > w",
        // Cargo runs rustc as the workspace's .cargo/config.toml says, so even `cargo
        // metadata` and `cargo tree` can run code a file write planted: they ask.
        "cargo metadata",
        "cargo tree",
        // Redirects.
        "echo hi > file",
        "echo hi >> file",
        "cat < input",
        "ls 2>/dev/null",
        "ls &>out",
        "cat <<EOF\nhi\nEOF",
        "cat <<< hi",
        // Substitutions.
        "echo $(rm -rf /)",
        "echo `rm -rf /`",
        "cat <(ls)",
        "echo \"$(id)\"",
        "echo \"`id`\"",
        "echo $HOME",
        "ls ${DIR}",
        // Subshells, groups, background jobs.
        "(ls)",
        "{ ls; }",
        "ls & rm -rf x",
        "ls &",
        // Environment assignments.
        "FOO=1 ls",
        "PAGER=sh git log",
        // Chains with one unsafe part.
        "ls && rm -rf x",
        "cat f | sh",
        "git status; git push",
        "ls || cargo build",
        "ls |& cat",
        "ls && && pwd",
        "&& ls",
        "ls | ",
        "ls ;; pwd",
        "ls &&",
        "ls ; ; pwd",
        ";",
        // Quoting that does not parse, comments, continuations.
        "echo 'unterminated",
        "echo \"unterminated",
        "ls # && rm -rf x",
        "ls \\\n-la",
    ];

    #[test]
    fn safe_commands_are_known_safe() {
        for command in SAFE {
            assert!(is_known_safe(command), "should be safe: {command:?}");
        }
    }

    #[test]
    fn unsafe_commands_are_not_known_safe() {
        for command in UNSAFE {
            assert!(!is_known_safe(command), "should be unsafe: {command:?}");
        }
    }

    #[test]
    fn simple_commands_split_chains_into_words() {
        assert_eq!(
            simple_commands("cargo test -p core && git diff | head").unwrap(),
            vec![
                vec!["cargo", "test", "-p", "core"],
                vec!["git", "diff"],
                vec!["head"]
            ]
        );
        assert!(simple_commands("echo hi > f").is_none());
        assert!(simple_commands("echo 'open").is_none());
    }
}
