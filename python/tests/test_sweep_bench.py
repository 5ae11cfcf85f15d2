"""The sweep benchmark's line in the STATUS bench block (python -m cairn.bench.status)."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.bench import status


def test_status_block_renders_the_sweep_figures(tmp_path: Path) -> None:
    figures = {
        "runs": 20, "firmware": "bench_cpu.elf", "mean_run_s_one_worker": 2.5, "one_worker_s": 50.5,
        "two_workers_s": 26.25, "speedup": 1.924, "target_speedup": 1.7, "met": True,
        "cores_used_one_worker": 0.91, "cores_used_two_workers": 1.83,
        "load_average_1min": {"before": 0.5, "after_one_worker": 1.5, "after_two_workers": 2.25},
    }  # fmt: skip
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "sweep.json").write_text(json.dumps(figures))
    doc = tmp_path / "STATUS.md"
    doc.write_text("\n".join(["# Status", status.BEGIN, "- Sweeps (stale)", status.END, ""]))
    assert status.main(["--bench-dir", str(bench), "--status", str(doc)]) == 0
    lines = doc.read_text().splitlines()
    (line,) = [x for x in lines if x.startswith("- Sweeps (")]
    for value in ("20 runs", "50.5 s", "26.25 s", "**1.924×**", "target ≥ 1.7: met", "0.91 and 1.83", "2.25 after"):
        assert value in line, line
    figures["met"] = False
    (bench / "sweep.json").write_text(json.dumps(figures))
    status.main(["--bench-dir", str(bench), "--status", str(doc)])
    assert "not met" in doc.read_text()
