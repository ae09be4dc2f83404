#!/usr/bin/env python3
"""TUI benchmarks (see docs/performance.md).

    cargo build --release -p cairn-cli
    python3 scripts/bench_tui.py [--runs 20] [--mcp-servers 3]

Runs `cairn` in a pseudo-terminal (80x24) and measures:
- launch to ready composer: from spawn until the composer placeholder is on screen;
- idle RSS: resident memory once the screen is ready and idle for a second;
- idle CPU: CPU time the process uses over 5 idle seconds.
It answers the terminal queries a real terminal would (cursor position, device attributes),
so start-up is not slowed by waiting for replies that never come.
"""
import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import tempfile
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
CAIRN = os.path.join(TARGET, "release", "cairn")
READY = b"Ask cairn anything"


FS_SERVER = os.path.join(ROOT, "tests", "mcp-servers", "node_modules", "@modelcontextprotocol",
                         "server-filesystem", "dist", "index.js")


def write_mcp_config(home, count):
    """`count` stdio MCP servers (the reference filesystem server under node), which start in
    the background while the TUI draws its first frame."""
    if count == 0:
        return
    if not os.path.exists(FS_SERVER):
        raise SystemExit(f"{FS_SERVER} missing: npm ci --prefix tests/mcp-servers")
    with open(os.path.join(home, "config.toml"), "w") as f:
        for i in range(count):
            f.write(f'[mcp_servers.fs{i}]\ncommand = "node"\nargs = ["{FS_SERVER}", "{home}"]\n\n')


def spawn(home):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, CAIRN_HOME=home, TERM="xterm-256color")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    start = time.perf_counter()
    proc = subprocess.Popen([CAIRN, "--provider", "ollama", "-c",
                             'providers.ollama.base_url="http://127.0.0.1:9/v1"'],
                            stdin=slave, stdout=slave, stderr=slave, cwd=home, env=env,
                            start_new_session=True)
    os.close(slave)
    return proc, master, start


def wait_ready(master, timeout=5.0):
    seen = b""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            continue
        data = os.read(master, 65536)
        seen += data
        # Answer queries: cursor position report and primary device attributes.
        if b"\x1b[6n" in data:
            os.write(master, b"\x1b[1;1R")
        if b"\x1b[c" in data or b"\x1b[0c" in data:
            os.write(master, b"\x1b[?62;22c")
        if READY in seen:
            return time.perf_counter()
    raise SystemExit("TUI did not become ready")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def drain(master, seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                os.read(master, 65536)
            except OSError:
                return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--mcp-servers", type=int, default=0,
                        help="configure this many stdio MCP servers (docs/mcp.md)")
    args = parser.parse_args()
    if not os.path.exists(CAIRN):
        raise SystemExit(f"{CAIRN} missing: cargo build --release -p cairn-cli")
    launches = []
    for i in range(args.runs + 1):
        with tempfile.TemporaryDirectory() as home:
            write_mcp_config(home, args.mcp_servers)
            proc, master, start = spawn(home)
            ready = wait_ready(master)
            if i > 0:  # the first run warms the page cache
                launches.append(ready - start)
            if i == args.runs:
                drain(master, 1.0)
                rss = rss_mib(proc.pid)
                before = cpu_seconds(proc.pid)
                drain(master, 5.0)
                idle_cpu = cpu_seconds(proc.pid) - before
            proc.terminate()
            proc.wait()
            os.close(master)
    if args.mcp_servers:
        print(f"(with {args.mcp_servers} MCP servers configured)")
    print(f"{'TUI: launch to ready composer':<32} median {statistics.median(launches) * 1000:7.1f} ms   "
          f"min {min(launches) * 1000:7.1f} ms")
    print(f"{'TUI: idle RSS':<32} {rss:.1f} MiB")
    print(f"{'TUI: idle CPU over 5 s':<32} {idle_cpu * 1000:.0f} ms ({idle_cpu / 5 * 100:.2f} %)")


if __name__ == "__main__":
    main()
