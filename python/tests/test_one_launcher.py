"""cairn-sim is started by cairn.runners only (docs/experiments.md): the demo, the benchmarks,
the differential tester, the experiments and the tests all go through it, so a run's process
set-up, timeout and captured output mean the same everywhere.

The check reads every Python file under python/ and fails on a process-starting call
(subprocess, os.exec*/spawn*/posix_spawn/system/popen, asyncio, pty) whose program is the
simulator: an expression that uses `sim_binary`, the string "cairn-sim" or "CAIRN_SIM", or a
name assigned from one (in the file, or imported from another file under python/ that
assigns it so). A command list counts by its first element or a spliced (`*cmd`)
part, so `[python, "-m", tool, "--sim", sim]` (a tool that is given the simulator) passes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
LAUNCHER = PYTHON_DIR / "cairn" / "runners.py"

SPAWNERS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "os": {"system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp",
           "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp",
           "spawnlpe", "posix_spawn", "posix_spawnp"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "pty": {"spawn"},
}  # fmt: skip
SIM_WORDS = ("cairn-sim", "CAIRN_SIM")


class _Finder(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, imported: set[str]) -> None:
        self.spawners = self._imported_spawners(tree)
        self.sim_names = set(imported)
        self.found: list[int] = []
        # A name may be assigned from another that is assigned later in the file (a helper's
        # command built from a module constant): repeat until nothing new is learnt.
        while True:
            before = len(self.sim_names)
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and self.is_sim(node.value):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    self.sim_names |= {t.id for t in targets if isinstance(t, ast.Name)}
            if len(self.sim_names) == before:
                break

    @staticmethod
    def _imported_spawners(tree: ast.Module) -> set[str]:
        """Names bound by `from subprocess import run` and the like."""
        return {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in SPAWNERS
            for alias in node.names
            if alias.name in SPAWNERS[node.module]
        }

    def is_spawn(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.attr in SPAWNERS.get(func.value.id, set())
        return isinstance(func, ast.Name) and func.id in self.spawners

    def is_sim(self, e: ast.expr) -> bool:
        """Does `e`, as a program or a command, name the simulator?"""
        if isinstance(e, (ast.List, ast.Tuple)):
            first = e.elts[:1]
            spliced = [x.value for x in e.elts if isinstance(x, ast.Starred)]
            return any(self.is_sim(x) for x in [*first, *spliced])
        if isinstance(e, ast.Starred):
            return self.is_sim(e.value)
        if isinstance(e, ast.Constant):
            return isinstance(e.value, str) and any(w in e.value for w in SIM_WORDS)
        if isinstance(e, ast.Name):
            return e.id in self.sim_names or e.id == "sim_binary"
        if isinstance(e, ast.Attribute):
            return e.attr == "sim_binary" or self.is_sim(e.value)
        if isinstance(e, ast.Call):
            return self.is_sim(e.func) or any(self.is_sim(a) for a in [*e.args, *(k.value for k in e.keywords)])
        return any(self.is_sim(c) for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr))

    def visit_Call(self, node: ast.Call) -> None:
        if self.is_spawn(node.func):
            program = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
            if program is not None and self.is_sim(program):
                self.found.append(node.lineno)
        self.generic_visit(node)


def sim_spawns(source: str, imported: set[str] | None = None) -> list[int]:
    """Line numbers of the calls in `source` that start cairn-sim; `imported`: names it
    imports that name the simulator where they are defined."""
    tree = ast.parse(source)
    finder = _Finder(tree, imported or set())
    finder.visit(tree)
    return finder.found


def sim_names(source: str) -> set[str]:
    """The names `source` assigns from an expression that names the simulator."""
    return _Finder(ast.parse(source), set()).sim_names


def imported_sim_names(source: str, defined: dict[str, set[str]]) -> set[str]:
    """Names `source` imports (`from test_cli_errors import SIM`) that `defined`, by module
    name, says name the simulator."""
    return {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if alias.name in defined.get(node.module.rsplit(".", 1)[-1], set())
    }


def test_only_the_runners_start_cairn_sim() -> None:
    files = sorted(p for p in PYTHON_DIR.rglob("*.py") if p != LAUNCHER and ".venv" not in p.parts)
    assert len(files) > 50, f"too few Python files under {PYTHON_DIR}"
    sources = {p: p.read_text() for p in files}
    defined: dict[str, set[str]] = {}
    for p, text in sources.items():
        defined.setdefault(p.stem, set()).update(sim_names(text))
    offenders = [
        f"{p.relative_to(PYTHON_DIR)}:{line}"
        for p, text in sources.items()
        for line in sim_spawns(text, imported_sim_names(text, defined))
    ]
    assert not offenders, "these start cairn-sim themselves; use cairn.runners (run_cairn_sim, cairn.launch.Launch): " + ", ".join(offenders)


def test_a_name_imported_from_another_file_is_followed() -> None:
    defined = {"test_cli_errors": sim_names("SIM = Path(os.environ.get('CAIRN_SIM') or 'build/bin/cairn-sim')\n")}
    user = "import subprocess\nfrom test_cli_errors import SIM\nsubprocess.run([str(SIM), 'run'])\n"
    assert defined["test_cli_errors"] == {"SIM"}
    assert sim_spawns(user, imported_sim_names(user, defined)) == [3]
    assert not sim_spawns(user), "without the other file, SIM is just a name"


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run([str(sim_binary()), 'run', elf])\n",
        "import subprocess, os\nSIM = Path(os.environ.get('CAIRN_SIM') or ROOT / 'build' / 'bin' / 'cairn-sim')\n"
        "def f(args):\n    cmd = [str(SIM), *args]\n    return subprocess.run(cmd, capture_output=True)\n",
        "from subprocess import Popen as P\nP(['build/bin/cairn-sim', 'exec-cases', '-'])\n",
        "import subprocess\ncmd = [sim, 'run']\nsim = paths.sim_binary()\n"
        "subprocess.run(['sh', '-c', 'exec 2>&-; exec \"$@\"', 'sh', *cmd])\n",
        "import os\nos.execv(SIM, [SIM, 'run'])\nSIM = 'cairn-sim'\n",
    ],
    ids=["direct", "through-names", "imported-name", "through-a-shell", "exec"],
)
def test_a_direct_start_is_found(source: str) -> None:
    assert sim_spawns(source), source


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'cairn.flagship', '--sim', str(sim_binary())])\n",
        "import subprocess\nsubprocess.run(['arm-none-eabi-nm', '-S', str(elf)])\n",
        "from cairn.runners import run_cairn_sim\nrun_cairn_sim(['run', str(elf)])\n",
        "import subprocess\nprint('cairn-sim: usage')\nsubprocess.run(['make', 'build'])\n",
    ],
    ids=["tool-given-the-sim", "other-program", "through-the-runner", "word-elsewhere"],
)
def test_other_starts_pass(source: str) -> None:
    assert not sim_spawns(source), source
