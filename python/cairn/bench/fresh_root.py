"""How long `make run` takes on a machine that has nothing: a fresh Debian root, from scratch.

    python -m cairn.bench.fresh_root             (root; `make bench-fresh-scratch`)
    python -m cairn.bench.fresh_root --keep      keep the root (its path is printed, unmounted)

`python -m cairn.bench.fresh_run` times `make run` from a fresh clone on this machine, where
the apt packages and the Rust toolchain are already installed. This builds a minimal Debian
root of this machine's release with mmdebstrap (`--variant=minbase` plus `make`, the one
thing needed to type the command), clones HEAD into it and runs `make run` inside with
chroot, under `nice -n 19`: scripts/bootstrap installs python3, the apt packages and Rust
(rustup), then the build and the flagship. Every download goes through a counting proxy
(cairn.bench.counting_proxy), so the bytes each host sent are the chroot's alone. The root's
own creation is timed apart: a real machine has its operating system already.

Writes build/bench/fresh-run-scratch.json: each step's seconds, bootstrap's own steps (from
its timestamped output lines), the bytes downloaded, the load and the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from cairn.bench.counting_proxy import CountingProxy
from cairn.bench.fresh_run import STEPS, TARGET_SECONDS
from cairn.paths import build_dir, repo_root

MIRROR = "http://deb.debian.org/debian"
SECURITY_MIRROR = "http://deb.debian.org/debian-security"

#: The file systems a chroot's apt, compilers and Chromium expect, in mounting order.
MOUNTS = (("proc", ["-t", "proc", "proc"]), ("sys", ["-t", "sysfs", "sys"]),
          ("dev", ["--bind", "/dev"]), ("dev/pts", ["--bind", "/dev/pts"]))

#: The environment of a login on the fresh machine: nothing of this one's leaks in.
CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#: Certificate authorities this machine was given locally; update-ca-certificates reads them.
LOCAL_CAS = Path("/usr/local/share/ca-certificates")


def copy_local_cas(root: Path) -> list[str]:
    """The host's own CAs into the root, where installing ca-certificates will trust them.

    A network that inspects TLS (as the one this is measured on does) hands its machines a CA
    of its own; a fresh machine on the same network would be given it too. Without it, curl,
    cargo and pip in the root see a self-signed certificate on every HTTPS host.
    """
    names = sorted(p.name for p in LOCAL_CAS.glob("*.crt")) if LOCAL_CAS.is_dir() else []
    target = root / LOCAL_CAS.relative_to("/")
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(LOCAL_CAS / name, target / name)
    return names


def host_release() -> str:
    """This machine's Debian codename (VERSION_CODENAME of /etc/os-release)."""
    for line in Path("/etc/os-release").read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "VERSION_CODENAME":
            return value.strip('"')
    raise SystemExit("fresh_root: /etc/os-release has no VERSION_CODENAME (not Debian?)")


def make_root(root: Path, release: str, mirror: str) -> float:
    """A minbase Debian `release` with make at `root`; the seconds it took."""
    sources = [f"deb {mirror} {release} main", f"deb {mirror} {release}-updates main",
               f"deb {SECURITY_MIRROR} {release}-security main"]
    start = time.monotonic()
    proc = subprocess.run(["nice", "-n", "19", "mmdebstrap", "--quiet", "--variant=minbase",
                           "--include=make", release, str(root), *sources],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"fresh_root: mmdebstrap failed: {proc.stderr.strip().splitlines()[-1:]}")
    return round(time.monotonic() - start, 1)


def mount_points(root: Path) -> list[str]:
    """Every mount at or below `root`, deepest last (as /proc/self/mounts lists them)."""
    prefix = str(root.resolve())
    points = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    return [p for p in points if p == prefix or p.startswith(prefix + "/")]


def unmount_all(root: Path) -> None:
    for point in reversed(mount_points(root)):
        if subprocess.run(["umount", point], capture_output=True).returncode != 0:
            subprocess.run(["umount", "--lazy", point], capture_output=True)


def remove_root(root: Path) -> None:
    """Delete the root, but never while anything of the host is still mounted inside it."""
    unmount_all(root)
    left = mount_points(root)
    if left:
        raise SystemExit(f"fresh_root: still mounted, {root} not removed: {', '.join(left)}")
    shutil.rmtree(root, ignore_errors=True)


def step_durations(lines: list[tuple[float, str]], start: float) -> dict[str, float]:
    """Seconds per bootstrap step, from its `bootstrap: <step> ...` lines and their times.

    The time between one line and the next goes to the later line's step: a step prints
    when it starts installing and when it is done, so its work ends at its own line.
    """
    out: dict[str, float] = {}
    previous = start
    for when, line in lines:
        words = line.split()
        if len(words) < 2 or words[0] != "bootstrap:":
            continue
        out[words[1]] = round(out.get(words[1], 0.0) + when - previous, 1)
        previous = when
    return out


def children_cpu_seconds() -> float:
    """User + system CPU seconds of every finished child process (the chroot's are ours)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class StepRun(NamedTuple):
    seconds: float
    cpu_seconds: float
    status: int
    lines: list[tuple[float, str]]


def run_step(root: Path, step: str, proxy: str, local_cas: bool) -> StepRun:
    """`make <step>` in the root's clone: its wall and CPU seconds, exit status, timestamped output.

    The CPU seconds do not stretch when other work shares the cores, the wall seconds do."""
    env = ["HOME=/root", f"PATH={CHROOT_PATH}", "LANG=C.UTF-8", "TERM=dumb",
           *(f"{name}={proxy}" for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"))]
    if local_cas:
        # Debian's ensurepip brings a pip that trusts only its own bundle, not the system's.
        env.append("PIP_CERT=/etc/ssl/certs/ca-certificates.crt")
    cmd = ["chroot", str(root), "/usr/bin/env", "-i", *env,
           "nice", "-n", "19", "make", "-C", "/root/cairn", "--no-print-directory", step]
    start, cpu_start = time.monotonic(), children_cpu_seconds()
    lines: list[tuple[float, str]] = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append((time.monotonic() - start, line.rstrip("\n")))
            print(f"  [{step} {lines[-1][0]:6.1f} s] {line}", end="", flush=True)
    return StepRun(round(time.monotonic() - start, 1), round(children_cpu_seconds() - cpu_start, 1),
                   proc.returncode, lines)


def measure(root: Path, release: str, mirror: str, head: str) -> dict[str, Any]:
    root_seconds = make_root(root, release, mirror)
    print(f"fresh root: {release} minbase + make at {root} in {root_seconds} s")
    subprocess.run(["git", "clone", "-q", str(repo_root()), str(root / "root" / "cairn")], check=True)
    subprocess.run(["git", "checkout", "-q", head], cwd=root / "root" / "cairn", check=True)
    local_cas = copy_local_cas(root)
    for name, how in MOUNTS:
        subprocess.run(["mount", *how, str(root / name)], check=True)
    load_before = os.getloadavg()[0]
    steps: dict[str, float] = {}
    cpu: dict[str, float] = {}
    bootstrap_steps: dict[str, float] = {}
    status, tail = 0, []
    with CountingProxy() as proxy:
        for step, target in STEPS.items():
            done = run_step(root, target, proxy.url, bool(local_cas))
            steps[step], cpu[step], status = done.seconds, done.cpu_seconds, done.status
            if step == "bootstrap":
                bootstrap_steps = step_durations(done.lines, 0.0)
            tail = [line for _, line in done.lines[-15:]]
            if status != 0:
                break
        downloaded = dict(proxy.downloaded.most_common())
        uploaded = sum(proxy.uploaded.values())
    seconds = round(sum(steps.values()), 1)
    return {
        "commit": head,
        "release": release,
        "mirror": mirror,
        "root": "mmdebstrap --variant=minbase --include=make",
        "root_seconds": root_seconds,
        "seconds": seconds,
        "steps": steps,
        "bootstrap_steps": bootstrap_steps,
        "cpu_seconds": round(sum(cpu.values()), 1),
        "cpu_seconds_by_step": cpu,
        "exit_status": status,
        "tail": [] if status == 0 else tail,
        "target_seconds": TARGET_SECONDS,
        "met": status == 0 and seconds <= TARGET_SECONDS,
        "bytes_downloaded": sum(downloaded.values()),
        "bytes_downloaded_by_host": downloaded,
        "bytes_uploaded": uploaded,
        "local_cas": local_cas,
        "nice": 19,
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "cores": len(os.sched_getaffinity(0)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--keep", action="store_true", help="keep the root (unmounted) instead of removing it")
    ap.add_argument("--mirror", default=MIRROR, help=f"Debian mirror (default {MIRROR})")
    ap.add_argument("--parent", type=Path, default=Path(tempfile.gettempdir()),
                    help="folder the root is made in (default the temporary folder)")
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON (default build/bench/fresh-run-scratch.json)")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("fresh_root: must run as root (mmdebstrap, mount, chroot)", file=sys.stderr)
        return 2
    if shutil.which("mmdebstrap") is None:
        print("fresh_root: needs mmdebstrap (apt-get install mmdebstrap)", file=sys.stderr)
        return 2
    release = host_release()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_root(), capture_output=True,
                          text=True, check=True).stdout.strip()
    args.parent.mkdir(parents=True, exist_ok=True)
    # mmdebstrap wants to make the root itself: a fresh name in a folder of our own.
    holder = Path(tempfile.mkdtemp(prefix="cairn-fresh-root-", dir=args.parent))
    root = holder / "root"
    try:
        result = measure(root, release, args.mirror, head)
    finally:
        unmount_all(root)
        if args.keep:
            print(f"root kept (unmounted): {root}")
        else:
            remove_root(holder)
    out = args.out or build_dir() / "bench" / "fresh-run-scratch.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"make run on a fresh {release} root: {result['seconds']} s, exit {result['exit_status']}, "
          f"{result['bytes_downloaded'] / 1e6:.0f} MB downloaded (written to {out})")
    return 0 if result["exit_status"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
