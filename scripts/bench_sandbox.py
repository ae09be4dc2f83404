#!/usr/bin/env python3
"""Sandbox set-up cost per shell command: the median of 100 runs of `true` through cairn's
shell launcher, unsandboxed and under each policy (docs/performance.md).

    cargo build --release -p cairn-cli
    python3 scripts/bench_sandbox.py [path/to/cairn]

Each sandboxed run also creates and removes the private temporary directory, as cairn does.
The workspace is a fresh git repository, so workspace-write also sets up the read-only bind
mounts over .git/hooks and .git/config.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 100


def run(cairn, spec, cwd):
    tmp = tempfile.mkdtemp(prefix="cairn-sandbox-") if spec is not None else None
    arg = "-"
    if spec is not None:
        spec = dict(spec, tmp=tmp)
        arg = json.dumps(spec)
    env = dict(os.environ, TMPDIR=tmp) if tmp else None
    started = time.perf_counter()
    subprocess.run(
        [cairn, "__cairn-shell-launcher", str(os.getpid()), "plain", arg, "true"],
        cwd=cwd, env=env, check=True,
    )
    elapsed = time.perf_counter() - started
    if tmp:
        shutil.rmtree(tmp)
    return elapsed


def median_ms(cairn, spec, cwd):
    samples = [run(cairn, spec, cwd) for _ in range(RUNS)]
    return statistics.median(samples) * 1000


def main():
    cairn = sys.argv[1] if len(sys.argv) > 1 else "target/release/cairn"
    cairn = os.path.abspath(cairn)
    work = os.path.realpath(tempfile.mkdtemp())
    home = os.path.realpath(tempfile.mkdtemp())
    subprocess.run(["git", "init", "-q", work], check=True)
    base = {"writable": [], "protected": [], "network": False}
    specs = {
        "unsandboxed": None,
        "read-only": dict(base, policy="read-only"),
        "workspace-write": dict(
            base,
            policy="workspace-write",
            writable=[work],
            protected=[os.path.join(work, ".git/hooks"), os.path.join(work, ".git/config")],
        ),
    }
    # Warm the page cache so the first policy measured is not charged for it.
    for _ in range(10):
        run(cairn, None, work)
    results = {name: median_ms(cairn, spec, work) for name, spec in specs.items()}
    plain = results["unsandboxed"]
    print(f"median of {RUNS} runs of `true` through {cairn}")
    for name, ms in results.items():
        extra = "" if name == "unsandboxed" else f"  (+{ms - plain:.2f} ms)"
        print(f"  {name:16} {ms:6.2f} ms{extra}")
    shutil.rmtree(work)
    shutil.rmtree(home)


if __name__ == "__main__":
    main()
