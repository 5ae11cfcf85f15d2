"""The study reproductions this checkout can run, by folder name under experiments/."""

from __future__ import annotations

from collections.abc import Callable

from . import e1_mantis_tinyos, e2_simbed_rtos, e3_emeralds, e4_comos, e5_mpsoc_migration
from .paper import Paper
from .result import StudyResult

Runner = Callable[[Paper, str], StudyResult]

STUDIES: dict[str, Runner] = {
    e1_mantis_tinyos.NAME: e1_mantis_tinyos.run,
    e2_simbed_rtos.NAME: e2_simbed_rtos.run,
    e3_emeralds.NAME: e3_emeralds.run,
    e4_comos.NAME: e4_comos.run,
    e5_mpsoc_migration.NAME: e5_mpsoc_migration.run,
}
