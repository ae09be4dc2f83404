#!/usr/bin/env python3
"""Resume benchmark (see docs/performance.md and docs/sessions.md).

    cargo build --release -p cairn-cli
    python3 scripts/bench_resume.py [--mb 100] [--runs 5]

Writes a synthetic session log of about MB megabytes (a realistic mix: assistant messages,
grep calls with 4 KB outputs, their events, a state line every turn) into a temporary
CAIRN_HOME, then runs `cairn resume <id>` in a pseudo-terminal (80x24) and measures the time
from spawn until the resumed transcript's last notice is on screen (the first frame of the
resumed session), and the process's resident memory then, against the size of the history it
holds.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_tui  # noqa: E402  (the pty and terminal-query helpers)

# The renderer moves the cursor over blank cells, so match one word of the notice.
READY = b"Resumed"


def write_session(home, megabytes):
    """Write the session; returns (id, bytes of history items)."""
    sid = "01bench0-0000-7000-8000-000000000000"
    path = os.path.join(home, "sessions", "2026", "11", "23", sid + ".jsonl")
    os.makedirs(os.path.dirname(path))
    history = 0
    with open(path, "w") as f:
        def line(obj):
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")

        line({"type": "meta", "id": sid, "cwd": home, "model": "m", "cairn_version": "0.1.0",
              "started_at": "2026-11-23T10:00:00Z"})
        n = 0
        while f.tell() < megabytes * 1024 * 1024:
            if n % 5 == 0:
                prompt = f"Refactor module {n} to return typed errors"
                line({"type": "event", "msg": {"type": "user_message", "text": prompt}})
                line({"type": "item", "item": {"type": "message", "role": "user", "text": prompt}})
                history += len(prompt)
            call_id = f"call_{n}"
            out = "".join(f"src/module_{n}/file_{i}.rs:{i}: fn handler_{i}() -> Result<(), Error> {{\n"
                          for i in range(64))
            args = json.dumps({"pattern": "fn handler", "path": f"src/module_{n}"})
            line({"type": "item", "item": {"type": "function_call", "call_id": call_id,
                                           "name": "grep_files", "arguments": args}})
            line({"type": "event", "msg": {"type": "tool_call_begin", "call_id": call_id,
                                           "name": "grep_files", "arguments": args,
                                           "description": f"Search src/module_{n} for `fn handler`"}})
            line({"type": "event", "msg": {"type": "tool_call_end", "call_id": call_id,
                                           "name": "grep_files", "output": out, "success": True,
                                           "duration_ms": 3}})
            line({"type": "item", "item": {"type": "function_call_output", "call_id": call_id,
                                           "output": out, "success": True}})
            answer = f"Module {n} has 64 handlers; changing them next."
            line({"type": "item", "item": {"type": "message", "role": "assistant", "text": answer}})
            line({"type": "event", "msg": {"type": "agent_message", "message": answer}})
            history += len(args) + len(out) + len(answer) + len(call_id) * 2
            if n % 5 == 4:
                line({"type": "state", "plan_mode": {"active": False}, "turns": n // 5 + 1})
            n += 1
        size = f.tell()
    return sid, history, size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home = tempfile.mkdtemp()
    sid, history, size = write_session(home, args.mb)
    times, rss = [], []
    for _ in range(args.runs):
        master, slave = bench_tui.pty.openpty()
        bench_tui.fcntl.ioctl(slave, bench_tui.termios.TIOCSWINSZ,
                              bench_tui.struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, CAIRN_HOME=home, TERM="xterm-256color")
        start = time.perf_counter()
        proc = bench_tui.subprocess.Popen(
            [bench_tui.CAIRN, "resume", sid, "--provider", "ollama", "-c",
             'providers.ollama.base_url="http://127.0.0.1:9/v1"'],
            stdin=slave, stdout=slave, stderr=slave, cwd=home, env=env, start_new_session=True)
        os.close(slave)
        bench_tui.READY = READY
        ready = bench_tui.wait_ready(master, timeout=30.0)
        times.append(ready - start)
        rss.append(bench_tui.rss_mib(proc.pid))
        proc.terminate()
        proc.wait()
        os.close(master)
    print(f"session file {size / 1e6:.0f} MB, history held ~{history / 1e6:.0f} MB")
    print(f"resume to first frame: median {statistics.median(times) * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f} ms; target <= 1 s)")
    print(f"RSS at first frame: median {statistics.median(rss):.0f} MiB "
          f"({statistics.median(rss) * 1024 * 1024 / history:.2f}x the history; target <= 2x)")


if __name__ == "__main__":
    main()
