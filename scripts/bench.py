#!/usr/bin/env python3
"""cairn benchmarks against the loopback mock model (see docs/performance.md).

    cargo build --release -p cairn-cli -p cairn-mock-model
    python3 scripts/bench.py [--runs 20]

Measures `cairn exec` for one short answer and for 50 sequential update_plan round trips:
median wall time and peak RSS (from /usr/bin/time), each run against a fresh mock server
script so every run does the same work.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
CAIRN = os.path.join(TARGET, "release", "cairn")
MOCK = os.path.join(TARGET, "release", "cairn-mock-model")

PLAN_ARGS = {"plan": [{"step": "Read the code", "status": "completed"},
                      {"step": "Make the change", "status": "in_progress"}]}


def one_answer():
    return [{"text": "The answer is 42."}]


def round_trips(n):
    calls = [{"tool_calls": [{"id": "call_1", "name": "update_plan", "arguments": PLAN_ARGS}]}]
    return [{"repeat": n, "items": calls}, {"text": "Done."}]


def start_mock(items, workdir):
    script = os.path.join(workdir, "script.json")
    with open(script, "w") as f:
        json.dump({"wire": "chat", "responses": items}, f)
    proc = subprocess.Popen([MOCK, "--script", script], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"mock did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def run_once(items):
    with tempfile.TemporaryDirectory() as home:
        mock, url = start_mock(items, home)
        try:
            timing = os.path.join(home, "time.txt")
            cmd = ["/usr/bin/time", "-f", "%e %M", "-o", timing, CAIRN, "exec",
                   "-c", "provider=mock", "-c", f'providers.mock.base_url="{url}"',
                   "--approval", "never", "hello"]
            env = dict(os.environ, CAIRN_HOME=home)
            for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
                env.pop(key, None)
            start = time.perf_counter()
            result = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, cwd=home)
            wall = time.perf_counter() - start
            if result.returncode != 0:
                raise SystemExit(f"cairn exec failed with {result.returncode}")
            with open(timing) as f:
                _elapsed, rss_kib = f.read().split()[-2:]
            return wall, int(rss_kib) / 1024
        finally:
            mock.kill()
            mock.wait()


def bench(name, items, runs):
    walls, rss = [], []
    run_once(items)  # warm the page cache
    for _ in range(runs):
        w, r = run_once(items)
        walls.append(w)
        rss.append(r)
    print(f"{name:<32} median {statistics.median(walls) * 1000:7.1f} ms   "
          f"min {min(walls) * 1000:7.1f} ms   peak RSS {max(rss):5.1f} MiB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    for path in (CAIRN, MOCK):
        if not os.path.exists(path):
            raise SystemExit(f"{path} missing: cargo build --release -p cairn-cli -p cairn-mock-model")
    bench("exec: one short answer", one_answer(), args.runs)
    bench("exec: 50 update_plan round trips", round_trips(50), args.runs)
    size = os.path.getsize(CAIRN)
    print(f"{'release binary':<32} {size / (1024 * 1024):.1f} MiB ({size:,} bytes)")


if __name__ == "__main__":
    main()
