"""A progress bar for one study: the study reports no steps of its own, so the bar follows
the time it has taken against the time it is expected to take (cairn.study.timing), held
just short of the end until the study returns."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from tqdm import tqdm

#: How often the bar moves, in seconds.
TICK = 0.5
#: Where the bar waits while a study runs longer than expected.
HOLD = 0.99


@contextmanager
def study_bar(name: str, expected_seconds: float, disable: bool | None = None,
              file: IO[str] | None = None) -> Iterator[tqdm]:  # type: ignore[type-arg]
    """A bar named after the study, full when the block ends (on a tty unless `disable` says)."""
    total = max(expected_seconds, TICK)
    bar = tqdm(total=total, desc=name, unit="s", disable=disable, file=file,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} of about {total:.0f} s")  # fmt: skip
    done = threading.Event()
    start = time.monotonic()

    def follow() -> None:
        while not done.wait(TICK):
            bar.n = min(time.monotonic() - start, total * HOLD)
            bar.refresh()

    ticker = threading.Thread(target=follow, daemon=True)
    ticker.start()
    try:
        yield bar
    finally:
        done.set()
        ticker.join()
        bar.n = total
        bar.refresh()
        bar.close()
