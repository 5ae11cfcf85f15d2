"""How long `make run` takes from a fresh clone (the README's first command).

    python -m cairn.bench.fresh_run            clone HEAD into a temporary folder, time `make run`
    python -m cairn.bench.fresh_run --keep     keep the clone (its path is printed)
    python -m cairn.bench.fresh_run --from-scratch   on a fresh Debian root (cairn.bench.fresh_root)

The clone gets its own Cargo home and pip runs without its cache, so the crates and the Python
packages are downloaded and built as on a new machine. What a machine that has never run
Cairn would also pay and this does not: the apt packages (scripts/bootstrap checks them and
finds them here) and the Rust toolchain. The figure goes to build/bench/fresh-run.json with
the machine's load, since other work on a two-core host stretches it. `python -m
cairn.bench.fresh_root` measures the whole of it on a fresh Debian root.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cairn.paths import build_dir, repo_root

#: The README promises the flagship within this on a fresh machine.
TARGET_SECONDS = 300.0


#: `make run` is these three, in this order, each timed on its own: its step name, the make
#: target (`make run` itself last: its prerequisites are done by then, so it is the flagship).
STEPS = {"bootstrap": "bootstrap-run", "build": "build", "run": "run"}


def time_make_run(clone: Path) -> tuple[dict[str, float], int, str]:
    """Wall seconds of each step of `make run` in `clone`, the exit status, the last lines."""
    env = dict(os.environ)
    env["CARGO_HOME"] = str(clone / ".fresh-cargo-home")
    env["PIP_NO_CACHE_DIR"] = "1"
    # The toolchain stays the machine's: rustup's proxies find it through RUSTUP_HOME.
    env.setdefault("RUSTUP_HOME", str(Path.home() / ".rustup"))
    cargo_bin = Path.home() / ".cargo" / "bin"
    env["PATH"] = f"{cargo_bin}{os.pathsep}{env.get('PATH', '')}"
    seconds: dict[str, float] = {}
    for step, target in STEPS.items():
        start = time.monotonic()
        proc = subprocess.run(["make", target], cwd=clone, env=env, capture_output=True, text=True)
        seconds[step] = round(time.monotonic() - start, 1)
        if proc.returncode != 0:
            break
    tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
    return seconds, proc.returncode, tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--keep", action="store_true", help="keep the temporary clone")
    ap.add_argument("--out", type=Path, default=None, help="JSON (default build/bench/fresh-run.json)")
    ap.add_argument("--from-scratch", action="store_true",
                    help="on a fresh Debian root instead, as root: python -m cairn.bench.fresh_root")
    args = ap.parse_args(argv)
    if args.from_scratch:
        from cairn.bench import fresh_root  # it builds on this module's STEPS

        return fresh_root.main([*(["--keep"] if args.keep else []),
                                *(["--out", str(args.out)] if args.out else [])])
    root = repo_root()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True, check=True).stdout.strip()
    clone = Path(tempfile.mkdtemp(prefix="cairn-fresh-"))
    try:
        subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", head], cwd=clone, check=True)
        load_before = os.getloadavg()[0]
        steps, status, tail = time_make_run(clone)
    finally:
        if args.keep:
            print(f"clone kept: {clone}")
        else:
            shutil.rmtree(clone, ignore_errors=True)
    out = args.out or build_dir() / "bench" / "fresh-run.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    seconds = sum(steps.values())
    out.write_text(json.dumps({
        "commit": head,
        "seconds": round(seconds, 1),
        "steps": steps,
        "exit_status": status,
        "target_seconds": TARGET_SECONDS,
        "met": status == 0 and seconds <= TARGET_SECONDS,
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "cores": len(os.sched_getaffinity(0)),
    }, indent=2) + "\n")
    print(f"make run from a fresh clone: {seconds:.1f} s, exit {status} (written to {out})")
    if status != 0:
        print(tail, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
