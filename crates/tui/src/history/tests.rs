//! Snapshots of every cell type at two widths, drawn through the transcript on a TestBackend.

use super::{HistoryCell, RenderOptions, SessionHeader, ToolCallCell, ToolState};
use crate::markdown::stream::StreamingMarkdown;
use crate::transcript::Transcript;
use cairn_protocol::{
    CompletionStatus, Plan, PlanCompletion, PlanStatus, PlanStep, PlanStepStatus,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;

const WIDTHS: [u16; 2] = [40, 80];

fn draw(make: &dyn Fn() -> HistoryCell, width: u16, expanded: bool) -> String {
    let mut transcript = Transcript::new();
    transcript.push(make());
    transcript.set_options(RenderOptions { expanded });
    transcript.prepare(width, 200);
    let height = transcript.total_lines().max(1) as u16;
    transcript.prepare(width, height);
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| transcript.render(f.area(), f.buffer_mut()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..buffer.area.width {
            // Cells hidden behind a wide character are not drawn by a terminal either.
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buffer[(x, y)].symbol();
            skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
            line.push_str(symbol);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn snapshot_both(name: &str, make: &dyn Fn() -> HistoryCell) {
    for width in WIDTHS {
        insta::assert_snapshot!(format!("{name}_{width}"), draw(make, width, false));
    }
}

fn structured_plan() -> Plan {
    let mut steps = vec![
        PlanStep::new("Read the parser module", PlanStepStatus::Completed),
        PlanStep::new(
            "Add an incremental cache keyed by file hash",
            PlanStepStatus::InProgress,
        ),
        PlanStep::new("Port the old fixtures", PlanStepStatus::Failed),
        PlanStep::new("Benchmark on the large corpus", PlanStepStatus::Skipped),
        PlanStep::new("Run the whole test suite", PlanStepStatus::Pending),
    ];
    for (i, step) in steps.iter_mut().enumerate() {
        step.number = Some(i as u32 + 1);
    }
    steps[0].result = Some("Parser is a recursive descent over tokens".into());
    steps[1].depends_on = vec![1];
    steps[2].reason = Some("Fixtures use a removed format".into());
    steps[3].reason = Some("Corpus not available offline".into());
    steps[4].is_verification = true;
    steps[4].depends_on = vec![2, 3];
    Plan {
        id: Some("plan-1".into()),
        title: Some("Cache the parser".into()),
        status: Some(PlanStatus::InProgress),
        explanation: Some("Parsing dominates start-up; cache it.".into()),
        plan: steps,
        notes: vec!["Hash with blake3".into()],
        ..Plan::default()
    }
}

#[test]
fn header_cell() {
    snapshot_both("header", &|| {
        HistoryCell::Header(SessionHeader {
            model: "gpt-5.1".into(),
            provider: Some("openai".into()),
            cwd: PathBuf::from("/home/user/projects/cairn"),
        })
    });
}

#[test]
fn user_cell() {
    snapshot_both("user", &|| {
        HistoryCell::User(
            "Please refactor the parser so that it caches results between runs.\nThanks!".into(),
        )
    });
}

#[test]
fn assistant_markdown_cell() {
    snapshot_both("assistant", &|| {
        HistoryCell::Assistant(StreamingMarkdown::complete(
            "## Summary\n\nThe parser is **slow** because it re-reads `input` each time. See [the docs](https://example.com/docs).\n\n- first point that is long enough to wrap around\n- second\n  1. nested\n\n> quoted advice\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n",
        ))
    });
}

#[test]
fn assistant_table_lines_up_with_cjk_and_emoji_and_wraps_at_40_columns() {
    snapshot_both("assistant_table", &|| {
        HistoryCell::Assistant(StreamingMarkdown::complete(
            "Results:\n\n| crate | 状态 | tests | note |\n|:---|:---:|---:|---|\n| core | ✅ 通过 | 412 | the session loop and every tool handler |\n| 東京タワー | ❌ | 7 | 日本語のメモ |\n| tui | ok | 1203 | |\n\nDone.\n",
        ))
    });
}

#[test]
fn reasoning_cell_collapsed_and_expanded() {
    let make = || {
        HistoryCell::Reasoning(
            "First I look at the parser. Then at the cache. Then at the tests. Then the benchmarks. Finally the docs need an update too."
                .into(),
        )
    };
    snapshot_both("reasoning", &make);
    insta::assert_snapshot!("reasoning_expanded_40", draw(&make, 40, true));
}

fn tool(state: ToolState, name: &str) -> HistoryCell {
    HistoryCell::ToolCall(ToolCallCell {
        call_id: "c".into(),
        name: name.into(),
        description: "Would run `cargo test -p cairn-core` in crates/core".into(),
        state,
    })
}

#[test]
fn tool_call_cells() {
    snapshot_both("tool_running", &|| tool(ToolState::Running, "shell"));
    snapshot_both("tool_failed", &|| {
        tool(
            ToolState::Done {
                success: false,
                duration_ms: 1500,
                output: "error: could not compile\nsecond line\nthird\nfourth is hidden".into(),
            },
            "read_file",
        )
    });
}

#[test]
fn tool_cells_say_what_runs_then_what_ran_never_what_would() {
    let write = |state| {
        HistoryCell::ToolCall(ToolCallCell {
            call_id: "w".into(),
            name: "write_file".into(),
            description: "Would write src/a.rs (4 lines)".into(),
            state,
        })
    };
    let shell = |state| {
        HistoryCell::ToolCall(ToolCallCell {
            call_id: "s".into(),
            name: "shell".into(),
            description: "Would run `cargo test`".into(),
            state,
        })
    };
    let wrote = || {
        write(ToolState::Done {
            success: true,
            duration_ms: 3,
            output: "Wrote 4 lines to src/a.rs".into(),
        })
    };
    let ran = || {
        shell(ToolState::Done {
            success: true,
            duration_ms: 1200,
            output: "Exit code: 1\nDuration: 1.2 s\nOutput:\ntest result: FAILED".into(),
        })
    };
    snapshot_both("tool_write_running", &|| write(ToolState::Running));
    snapshot_both("tool_write_done", &wrote);
    snapshot_both("tool_shell_running", &|| shell(ToolState::Running));
    snapshot_both("tool_shell_exit_1", &ran);
    assert!(
        draw(&|| write(ToolState::Running), 80, false)
            .starts_with("• write_file · Writing src/a.rs\n")
    );
    assert!(draw(&wrote, 80, false).starts_with("• write_file · Wrote src/a.rs (4 lines, 3ms)\n"));
    assert!(
        draw(&|| shell(ToolState::Running), 80, false)
            .starts_with("• shell · Running `cargo test`\n")
    );
    assert!(draw(&ran, 80, false).starts_with("• shell · Ran `cargo test` · exit 1 (1.2s)\n"));
    for screen in [draw(&wrote, 40, false), draw(&ran, 40, false)] {
        assert!(!screen.contains("Would"), "{screen}");
    }
}

#[test]
fn command_output_cell_collapsed_and_expanded() {
    let make = || {
        tool(
            ToolState::Done {
                success: true,
                duration_ms: 820,
                output: (1..=9).map(|i| format!("test case_{i} ... ok\n")).collect(),
            },
            "shell",
        )
    };
    snapshot_both("command_output", &make);
    insta::assert_snapshot!("command_output_expanded_80", draw(&make, 80, true));
}

#[test]
fn command_with_nonzero_exit_code() {
    snapshot_both("command_exit_101", &|| {
        tool(
            ToolState::Done {
                success: true,
                duration_ms: 2040,
                output: "Exit code: 101\nDuration: 2.0 s\nOutput:\nrunning 3 tests\nStderr:\nerror: test failed".into(),
            },
            "shell",
        )
    });
}

#[test]
fn command_output_shows_what_a_terminal_would_not_escape_junk() {
    let screen = draw(
        &|| {
            tool(
                ToolState::Done {
                    success: true,
                    duration_ms: 120,
                    output: "Exit code: 0\nOutput:\n\u{1b}[1m\u{1b}[31merror\u{1b}[0m: bad\n\u{1b}]8;;https://x.io\u{7}link\u{1b}]8;;\u{7}\ndownloading 10%\rdownloading 100%\nbell\u{7} done\r\n".into(),
                },
                "shell",
            )
        },
        80,
        false,
    );
    let body: Vec<&str> = screen.lines().skip(1).take(4).map(str::trim).collect();
    assert_eq!(
        body,
        vec!["└ error: bad", "link", "downloading 100%", "bell done"],
        "{screen}"
    );
}

#[test]
fn diff_cell() {
    snapshot_both("diff", &|| {
        HistoryCell::Diff {
        title: "Would edit src/parser.rs (+2 -1)".into(),
        diff: "--- a/src/parser.rs\n+++ b/src/parser.rs\n@@ -10,3 +10,4 @@ impl Parser {\n     fn parse(&mut self) {\n-        self.read_all();\n+        if let Some(hit) = self.cache.get(&self.hash) { return hit; }\n+        self.read_all();\n     }\n".into(),
    }
    });
}

#[test]
fn checklist_plan_cell() {
    snapshot_both("plan_checklist", &|| {
        HistoryCell::Plan(Plan {
            explanation: Some("Start with the parser, then measure.".into()),
            plan: vec![
                PlanStep::new("Read the parser", PlanStepStatus::Completed),
                PlanStep::new(
                    "Add a cache for parsed files keyed by content hash",
                    PlanStepStatus::InProgress,
                ),
                PlanStep::new("Measure", PlanStepStatus::Pending),
            ],
            ..Plan::default()
        })
    });
}

#[test]
fn structured_plan_cell_with_completion_card() {
    snapshot_both("plan_structured", &|| HistoryCell::Plan(structured_plan()));
    snapshot_both("plan_completed", &|| {
        let mut plan = structured_plan();
        plan.status = Some(PlanStatus::Completed);
        plan.completion = Some(PlanCompletion {
            status: CompletionStatus::PartialSuccess,
            summary: "Cache added; fixtures need a rewrite.".into(),
            steps_completed: None,
            steps_failed: None,
            steps_skipped: None,
            issues_encountered: vec!["Old fixture format".into()],
            recommendations: Some("Regenerate fixtures".into()),
        });
        HistoryCell::Plan(plan)
    });
}

#[test]
fn notice_and_error_cells() {
    snapshot_both("notice", &|| {
        HistoryCell::Notice(
            "Entered plan mode.\nPlan file: /home/u/.cairn/plans/abc_20261122_030405.md".into(),
        )
    });
    snapshot_both("error", &|| {
        HistoryCell::Error("The server rejected the API key (401). Check OPENAI_API_KEY.".into())
    });
}
