"""The repository stands alone: README.md and docs/ name no path outside the repository and
no file that does not exist, and no source file sends a reader outside the repository.

Checked in Markdown: link targets (`[text](target)`), and every word inside code spans and
code blocks that starts with one of the repository's top-level folders (`sim/`, `kernel/`,
...) or names a Markdown page. Words with placeholders (`<name>`, `*`, `{a,b}`, `NAME`) are
checked up to their last literal folder. Build products (`build/`, `out/`) are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cairn.paths import repo_root

ROOT = repo_root()
TOP = ("sim/", "kernel/", "python/", "docs/", "experiments/", "scripts/", ".ci/")
# Paths a reader of this repository does not have: the planning material beside it.
OUTSIDE = re.compile(r"\.\./shared|/work/|\bshared/(design\.md|seeds|ref)|\bseeds/0\d\d")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?$(.*?)^```", re.S | re.M)
# Comments and user docs say why, not which planning ticket: those numbers mean nothing to a
# reader of the repository (docs/STATUS.md, the progress log, is where they belong). A
# GitHub reference of another project ("its issue #1") is a citation, not a ticket.
TICKET = re.compile(r"\b[Ii]ssue \d+")
PLACEHOLDER = re.compile(r"[<>*{}$\[\]]|\.\.\.|\b[A-Z]{3,}\b")


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def source_files() -> list[Path]:
    out: list[Path] = [ROOT / "Makefile", ROOT / "scripts" / "bootstrap", ROOT / ".ci" / "run"]
    for folder, globs in (("kernel", ("*.c", "*.h", "*.mk", "*.ld", "*.txt", "*.toml")),
                          ("sim", ("*.rs", "*.toml")),
                          ("python", ("*.py", "*.toml", "*.txt")),
                          ("experiments", ("*.toml", "*.md"))):
        for g in globs:
            out += [p for p in (ROOT / folder).rglob(g)
                    if "target" not in p.parts and ".venv" not in p.parts]
    this_file = Path(__file__).resolve()
    return sorted(p for p in set(out) if p.resolve() != this_file)


def literal_prefix(word: str) -> str:
    """The part of a path before its first placeholder, cut back to a whole folder."""
    m = PLACEHOLDER.search(word)
    if not m:
        return word
    head = word[: m.start()]
    return head[: head.rfind("/") + 1] if "/" in head else ""


def candidate_paths(text: str) -> list[str]:
    """Repository paths named in code spans and code blocks."""
    words: list[str] = []
    for block in FENCE.findall(text):
        words += block.split()
    text_outside_fences = FENCE.sub("", text)
    for span in CODE_SPAN.findall(text_outside_fences):
        words += span.split()
    out = []
    for w in words:
        w = w.strip("\"'(),;.").split("=", 1)[-1]
        w = re.sub(r":\d+(-\d+)?$", "", w)  # file.rs:12
        if w.startswith("./"):
            w = w[2:]
        if w.startswith(TOP) or (w.endswith(".md") and "/" not in w):
            out.append(w)
    return out


def exists(path: str, doc: Path) -> bool:
    literal = literal_prefix(path).rstrip("/")
    if not literal:
        return True
    return any((base / literal).exists() for base in (ROOT, doc.parent))


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_names_only_files_in_the_repository(doc: Path) -> None:
    text = doc.read_text()
    problems = [f"names a path outside the repository: {m.group(0)!r}" for m in OUTSIDE.finditer(text)]
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if not path.is_relative_to(ROOT):
            problems.append(f"link leaves the repository: {target}")
        elif not path.exists():
            problems.append(f"link to a missing file: {target}")
    for path in candidate_paths(text):
        if not exists(path, doc):
            problems.append(f"names a missing file: {path}")
    assert not problems, f"{doc.relative_to(ROOT)}:\n  " + "\n  ".join(sorted(set(problems)))


def test_sources_do_not_send_readers_outside_the_repository() -> None:
    problems = []
    for f in source_files():
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                problems.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not problems, "\n".join(problems)


def test_sources_and_docs_name_no_ticket_numbers() -> None:
    files = [*source_files(), *(d for d in markdown_files() if d.name != "STATUS.md")]
    problems = []
    for f in files:
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            if TICKET.search(line):
                problems.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not problems, "\n".join(problems)


def test_the_checker_catches_what_it_should() -> None:
    """The rules above on made-up text: a missing file, a placeholder path, an outside path."""
    text = ("See `kernel/no_such_file.c` and `kernel/tests/sim/<name>.c`.\n"
            "```sh\nbuild/bin/cairn-sim run --device experiments/nothing/here.toml\n```\n"
            "The design is in ../shared/design.md.")
    doc = ROOT / "docs" / "README.md"
    missing = [p for p in candidate_paths(text) if not exists(p, doc)]
    assert sorted(missing) == ["experiments/nothing/here.toml", "kernel/no_such_file.c"]
    assert OUTSIDE.search(text)
    assert TICKET.search("/* the fast path (issue 3 part 8) */")
