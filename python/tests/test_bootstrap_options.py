"""scripts/bootstrap's options: what --help promises, and one line with status 2 for a bad one.
(What it installs is measured from nothing by python -m cairn.bench.fresh_root.)"""

from __future__ import annotations

import subprocess

from cairn.paths import repo_root

BOOTSTRAP = repo_root() / "scripts" / "bootstrap"


def test_help_names_the_run_and_fuzz_subsets() -> None:
    out = subprocess.run([str(BOOTSTRAP), "--help"], capture_output=True, text=True, check=True).stdout
    assert "--run" in out and "--fuzz" in out
    assert "rustup" in out


def test_an_unknown_option_is_one_line_and_status_2() -> None:
    proc = subprocess.run([str(BOOTSTRAP), "--bogus"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["bootstrap: unknown option '--bogus' (try --help)"]
    assert proc.stdout == ""
