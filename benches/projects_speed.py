#!/usr/bin/env python3
"""`ast-edit scan --json=compact` beside `ast-grep scan --json=compact` 0.51.1 in time,
on the public ast-grep rule projects of benches/dropin_compare.py (their own code, their
own invocation), with the scan cache cold, warm, and warm with one file changed.

Usage:  benches/projects_speed.py [--src DIR] [--only OWNER/NAME ...] [--runs N] [--table FILE]

  --src DIR   the checkouts, one folder per project named OWNER+NAME (as
              dropin_compare.py makes them; default $CORPORA/dropin, else
              ~/ast-edit-corpora/dropin)
  --runs N    timed runs per tool and case (default 5), interleaved: the order
              alternates per run, after one untimed run of each (page cache warm)
  --table     write the markdown table there (default: stdout only)
Env: AST_EDIT (default target/release/ast-edit), AST_GREP (default ast-grep on PATH).

Cases, per project, from its checkout's root:
  cold   ast-edit with a fresh AST_EDIT_STATE_DIR per run (its cache empty; entries written)
  warm   one state dir, filled by the untimed run: nothing changed
  one    the same, one scanned file given a new last line before each pair (reverted after)
ast-grep runs the same command each time (it has no cache). Before timing, the outputs are
checked: ast-edit's records with the cache cold, warm and `--no-cache` must be the same
bytes, and the same multiset as ast-grep's (dropin_compare.py checks every output in
full). Ratio = ast-grep's median wall time / ast-edit's; peak RSS is the largest of the
runs. Exit 1 when a check fails.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dropin_compare import PROJECTS, ROOT, checkout, records  # noqa: E402


def timed(cmd, cwd, env):
    """Wall seconds, peak RSS (MiB, GNU time's) and exit code of one run, output thrown away."""
    with tempfile.NamedTemporaryFile("r") as rss:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd], cwd=cwd, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        return wall, int(rss.read().split()[-1]) / 1024, p.returncode


COMMENT = {".py": b"#", ".lua": b"--", ".rs": b"//", ".c": b"//", ".h": b"//", ".go": b"//", ".java": b"//",
           ".js": b"//", ".ts": b"//", ".tsx": b"//", ".jsx": b"//"}


def scanned_file(d, args, ae, env):
    """A file the scan reports a match in (the first in path order), else the first
    tracked file of the most common source extension the scan may read."""
    out = subprocess.run([ae, "scan", *args, "--json=compact", "--no-cache"], cwd=d, env=env, capture_output=True, text=True).stdout
    try:
        files = sorted({r["file"] for r in json.loads(out)})
    except (json.JSONDecodeError, KeyError):
        files = []
    if files:
        return os.path.join(d, files[0])
    tracked = subprocess.run(["git", "ls-files"], cwd=d, capture_output=True, text=True).stdout.split()
    by_ext = {}
    for f in tracked:
        by_ext.setdefault(os.path.splitext(f)[1], []).append(f)
    exts = sorted((e for e in by_ext if e in COMMENT), key=lambda e: -len(by_ext[e]))
    return os.path.join(d, by_ext[exts[0]][0]) if exts else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.join(os.environ.get("CORPORA", os.path.expanduser("~/ast-edit-corpora")), "dropin"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--table")
    a = ap.parse_args()
    ae = os.path.abspath(os.environ.get("AST_EDIT", os.path.join(ROOT, "target/release/ast-edit")))
    ag = os.environ.get("AST_GREP") or shutil.which("ast-grep")
    rows, failed = [], False
    for repo, commit, args in PROJECTS:
        if a.only and repo not in a.only:
            continue
        d, head = checkout(a.src, repo, commit)
        state = tempfile.mkdtemp(prefix="ae-speed-")
        env = dict(os.environ, AST_EDIT_STATE_DIR=state)
        ag_cmd = [ag, "scan", *args, "--json=compact"]
        ae_cmd = [ae, "scan", *args, "--json=compact"]
        # The checks: cache cold, warm and off give the same bytes; the same records as ast-grep's.
        cold = subprocess.run(ae_cmd, cwd=d, env=env, capture_output=True, text=True).stdout
        warm = subprocess.run(ae_cmd, cwd=d, env=env, capture_output=True, text=True).stdout
        off = subprocess.run(ae_cmd + ["--no-cache"], cwd=d, env=env, capture_output=True, text=True).stdout
        peer = subprocess.run(ag_cmd, cwd=d, capture_output=True, text=True).stdout
        same = cold == warm == off
        equal = records(cold) == records(peer)
        if not (same and equal):
            failed = True
        times = {k: [] for k in ("ag", "cold", "warm", "one", "ag_rss", "ae_rss")}
        target = scanned_file(d, args, ae, env)
        target = target if target and os.path.splitext(target)[1] in COMMENT else None
        original = open(target, "rb").read() if target else None
        try:
            for i in range(a.runs):
                order = ["ae", "ag"] if i % 2 == 0 else ["ag", "ae"]
                for who in order:
                    if who == "ag":
                        w, rss, _ = timed(ag_cmd, d, env)
                        times["ag"].append(w)
                        times["ag_rss"].append(rss)
                        continue
                    fresh = dict(env, AST_EDIT_STATE_DIR=tempfile.mkdtemp(prefix="ae-cold-"))
                    w, rss, _ = timed(ae_cmd, d, fresh)
                    shutil.rmtree(fresh["AST_EDIT_STATE_DIR"], ignore_errors=True)
                    times["cold"].append(w)
                    times["ae_rss"].append(rss)
                    times["warm"].append(timed(ae_cmd, d, env)[0])
                    if target:
                        with open(target, "ab") as f:
                            f.write(b"\n%s run %d\n" % (COMMENT[os.path.splitext(target)[1]], i))
                        times["one"].append(timed(ae_cmd, d, env)[0])
                        with open(target, "wb") as f:
                            f.write(original)
        finally:
            if target:
                with open(target, "wb") as f:
                    f.write(original)
            shutil.rmtree(state, ignore_errors=True)
        med = {k: statistics.median(v) if v else float("nan") for k, v in times.items()}
        row = {
            "repo": repo, "commit": head[:8], "files": len({json.loads(r)["file"] for r in records(cold)}),
            "ag": med["ag"], "cold": med["cold"], "warm": med["warm"], "one": med["one"],
            "ag_rss": max(times["ag_rss"]), "ae_rss": max(times["ae_rss"]), "same": same, "equal": equal,
        }
        rows.append(row)
        print(f"{repo}: ag {row['ag']:.3f}s  cold {row['cold']:.3f}s ({row['ag'] / row['cold']:.2f}x)  warm {row['warm']:.3f}s"
              f" ({row['ag'] / row['warm']:.2f}x)  one {row['one']:.3f}s  rss ag {row['ag_rss']:.0f} ae {row['ae_rss']:.0f} MiB"
              f"  cache==no-cache {same}  records==ast-grep's {equal}", flush=True)
    cold_ratios = [r["ag"] / r["cold"] for r in rows]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [
        f"# scan --json=compact beside ast-grep on {len(rows)} public rule projects: cache cold, warm, one file changed",
        "",
        f"ast-edit {commit} (release), {subprocess.run([ag, '--version'], capture_output=True, text=True).stdout.strip()}; "
        f"{a.runs} interleaved runs per tool and case, medians; ratio = ast-grep / ast-edit. Made by benches/projects_speed.py.",
        "",
        "| repo | commit | files with findings | ast-grep s | ast-edit cold s (ratio) | warm s (ratio) | one changed s (ratio) | peak RSS MiB ag / ae | cache = no-cache | records = ast-grep's |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['repo']} | {r['commit']} | {r['files']} | {r['ag']:.3f} | {r['cold']:.3f} ({r['ag'] / r['cold']:.2f}x) | {r['warm']:.3f} ({r['ag'] / r['warm']:.2f}x) "
            f"| {r['one']:.3f} ({r['ag'] / r['one']:.2f}x) | {r['ag_rss']:.0f} / {r['ae_rss']:.0f} | {'yes' if r['same'] else 'NO'} | {'yes' if r['equal'] else 'NO'} |"
        )
    if cold_ratios:
        lines.append("")
        lines.append(f"Cold: median ratio {statistics.median(cold_ratios):.2f}x, lowest {min(cold_ratios):.2f}x, over {len(rows)} projects ({a.runs} runs each).")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.table:
        with open(a.table, "w") as f:
            f.write(text)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
