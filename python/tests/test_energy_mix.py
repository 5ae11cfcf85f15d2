"""The instruction-mix finding (python/cairn/energy_mix.py): docs/energy.md quotes the script's
output exactly, and the shipped STM32L053 profile's class factors agree with its verdict (flat
unless a fit is adoptable). Needs the energy firmware and cairn-sim from `make build`."""

from __future__ import annotations

import tomllib

from cairn.energy_mix import CLASSES, report
from cairn.paths import repo_root

BEGIN = "<!-- energy_mix: begin (python -m cairn.energy_mix) -->\n"
END = "<!-- energy_mix: end -->"


def test_docs_quote_the_script_and_the_profile_follows_its_verdict() -> None:
    found = report()
    doc = (repo_root() / "docs/energy.md").read_text()
    assert BEGIN in doc and END in doc, "docs/energy.md lacks the energy_mix block"
    quoted = doc.split(BEGIN, 1)[1].split(END, 1)[0]
    assert quoted.strip() == found.markdown.strip(), "docs/energy.md is stale: paste `python -m cairn.energy_mix`"
    prof = tomllib.loads((repo_root() / "sim/profiles/stm32l053.toml").read_text())
    flat = all(prof["classes"][c] == 1.0 for c in CLASSES)
    assert flat == (not any(found.adoptable.values())), found.adoptable
    # The flat model reproduces Table 28 on the Dhrystone stand-in and overestimates while(1).
    assert abs(found.flat_error[("Dhrystone", 0)]) < 0.005 and abs(found.flat_error[("Dhrystone", 1)]) < 0.005
    assert found.flat_error[("while(1)", 0)] > 0.1 and found.flat_error[("while(1)", 1)] > 0.1
