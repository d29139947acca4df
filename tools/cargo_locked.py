"""The crates of Cargo.lock, found where the build put them; shared by tools/gen_*.py.

Everything goes through `cargo metadata --locked --filter-platform <triple>`, so the
crates are found wherever this cargo keeps them (its CARGO_HOME, a vendored source,
a source replacement) at exactly the versions in Cargo.lock:

- `--filter-platform` keeps the platforms other than <triple> out of the answer.
  Without it cargo needs the manifest of every platform's dependencies (Windows,
  Android, WASM crates), which a Linux build never downloads.
- No `--offline`: once `cargo build` or `cargo test` has fetched the crates, which
  is the case whenever these scripts run under `cargo test`, cargo answers from its
  cache without using the network; on a machine where they are missing, it downloads
  them (that platform's crates only) the way a build would.

A test process gets the path of the cargo that runs it in `CARGO`, which is used
when set; otherwise `cargo` on PATH.
"""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cargo(*args):
    """stdout of `cargo args...` run at the repository root; exits with cargo's
    error when it fails."""
    cmd = [os.environ.get("CARGO", "cargo"), *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed (exit {out.returncode}):\n{out.stderr}")
    return out.stdout


def host():
    """The target triple of the machine cargo runs on (`host:` of `cargo -vV`)."""
    for line in cargo("-vV").splitlines():
        if line.startswith("host: "):
            return line[len("host: "):].strip()
    raise SystemExit("`cargo -vV` printed no `host:` line")


def packages(platform):
    """(name, version) -> package entry of `cargo metadata` (with `manifest_path`,
    `license`, `repository`...) for every crate Cargo.lock builds on `platform`."""
    meta = json.loads(cargo("metadata", "--format-version", "1", "--locked", "--filter-platform", platform))
    return {(p["name"], p["version"]): p for p in meta["packages"]}
