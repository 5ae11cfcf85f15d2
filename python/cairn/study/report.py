"""The HTML report: per study, what the paper did, our set-up, the paper's figures, ours beside
them, its claims judged on our numbers, and where and why the two differ.

One self-contained file (`index.html`; figures are embedded as data URIs) so the folder can be
mailed or served as it is; a PNG copy of each figure is written beside it for reuse.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cairn.paths import repo_root

from .paper import Paper
from .result import StudyResult

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 62rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6rem 0 1.2rem; font-size: 0.92rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.holds { color: #176317; font-weight: 600; } .fails { color: #a11; font-weight: 600; }
.open { color: #8a6d00; font-weight: 600; }
figure { margin: 1rem 0; } figcaption { font-size: 0.88rem; color: #555; }
.meta { color: #666; font-size: 0.9rem; }
"""


def write_report(results: Sequence[StudyResult], papers: dict[str, Paper], out: Path,
                 title: str = "Cairn: the seed studies reproduced",
                 lead: Sequence[StudyResult] = (), generator: str = "python -m cairn.study") -> Path:
    """Write `out/index.html` (and `out/img/*.png`); returns the HTML's path. `lead` results
    are runs of Cairn's own (no paper): shown first, with their set-up, tables and figures."""
    out.mkdir(parents=True, exist_ok=True)
    img = out / "img"
    img.mkdir(exist_ok=True)
    parts = [f"<h1>{_e(title)}</h1>",
             f'<p class="meta">Generated {_e(_now())} by <code>{_e(generator)}</code>. '
             "Every number of ours below comes from a cairn-sim run made for this report.</p>",
             ]
    for r in lead:
        parts.append(_own(r, img))
    if results:
        parts.append(_contents(results, papers))
    for r in results:
        parts.append(_study(r, papers[r.study], img, _doc_link(r.study, out)))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")
    index = out / "index.html"
    index.write_text(page)
    return index


def _contents(results: Sequence[StudyResult], papers: dict[str, Paper]) -> str:
    rows = []
    for r in results:
        held = sum(1 for v in r.verdicts if v.holds is True)
        failed = sum(1 for v in r.verdicts if v.holds is False)
        open_ = sum(1 for v in r.verdicts if v.holds is None)
        rows.append((f'<a href="#{_e(r.study)}">{_e(papers[r.study].title)}</a>', r.size,
                     f"{held} hold, {failed} do not, {open_} not reproduced"))
    return _table(("study", "size", "the paper's claims on Cairn"), rows, escape=False)


def _own(r: StudyResult, img: Path) -> str:
    parts = [f'<h2 id="{_e(r.study)}">{_e(r.study)}</h2>', f"<p>{_e(r.setup)}</p>"]
    parts += _tables_and_figures(r, img)
    if r.differences:
        parts.append(f"<p>{_e(r.differences)}</p>")
    return "\n".join(parts)


def _tables_and_figures(r: StudyResult, img: Path) -> list[str]:
    parts = []
    for ours in r.tables:
        parts.append(f"<p><b>{_e(ours.title)}</b></p>")
        parts.append(_table(ours.columns, ours.rows))
    for f in r.figures:
        (img / f"{r.study}-{f.name}.png").write_bytes(f.png)
        data = base64.b64encode(f.png).decode()
        parts.append(f'<figure><img alt="{_e(f.caption)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{_e(f.caption)}</figcaption></figure>")
    return parts


def _doc_link(study: str, out: Path) -> str:
    """The study's page in the checkout's docs/studies/, relative to the report, as a
    paragraph; empty when the page does not exist."""
    page = repo_root() / "docs" / "studies" / f"{study}.md"
    if not page.exists():
        return ""
    href = Path(os.path.relpath(page, out.resolve())).as_posix()
    return (f'<p class="meta">The study\'s page: <a href="{_e(href)}">docs/studies/{_e(study)}.md</a> '
            "(what the paper did, our set-up, where and why the figures differ).</p>")


def _study(r: StudyResult, paper: Paper, img: Path, doc_link: str = "") -> str:
    parts = [f'<h2 id="{_e(r.study)}">{_e(paper.title)}</h2>',
             f'<p class="meta">{_e(paper.citation)}. Platform: {_e(paper.platform)}. '
             f"Run size: {_e(r.size)}.</p>", doc_link,
             "<h3>Our set-up</h3>", f"<p>{_e(r.setup)}</p>"]
    if paper.tables or paper.values:
        parts.append("<h3>The paper's figures</h3>")
        for t in paper.tables:
            parts.append(f"<p><b>{_e(t.ref)}</b>: {_e(t.caption)}</p>")
            parts.append(_table(t.columns, t.rows))
        if paper.values:
            parts.append(_table(("reference", "quantity", "value"),
                                [(v.ref, v.quantity, _value(v.value, v.unit)) for v in paper.values]))
    else:
        parts.append("<p>The paper's figures were not available as numbers; only its claims are "
                     "compared.</p>")
    if r.comparisons:
        parts.append("<h3>The paper's figures and ours</h3>")
        parts.append(_table(("reference", "quantity", "paper", "Cairn"),
                            [(c.ref, c.quantity, c.paper, c.ours) for c in r.comparisons]))
    parts += _tables_and_figures(r, img)
    parts.append("<h3>The paper's conclusions on Cairn</h3>")
    rows = []
    for claim in paper.claims:
        try:
            v = r.verdict(claim.id)
            mark = {True: '<span class="holds">holds</span>', False: '<span class="fails">does not hold</span>',
                    None: '<span class="open">not reproduced</span>'}[v.holds]
            evidence = _e(v.evidence)
        except KeyError:
            mark, evidence = '<span class="open">not reproduced</span>', "not measured by this study yet"
        rows.append((_e(claim.ref), _e(claim.text), mark, evidence))
    parts.append(_table(("reference", "claim", "on Cairn", "evidence"), rows, escape=False))
    if r.differences:
        parts.append("<h3>Where and why the results differ</h3>")
        parts.append(f"<p>{_e(r.differences)}</p>")
    return "\n".join(parts)


def _table(columns: Iterable[str], rows: Iterable[Sequence[Any]], escape: bool = True) -> str:
    head = "".join(f"<th>{_e(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(_cell(c)) if escape else c}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _value(v: Any, unit: str) -> str:
    text = ", ".join(_cell(x) for x in v) if isinstance(v, list) else _cell(v)
    return f"{text} {unit}".strip()


def _e(s: str) -> str:
    return html.escape(s, quote=True)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
