"""examples/python/ run as programs, and the Python snippets of README.md, docs/python.md, docs/contact3d.md,
docs/solvers.md and docs/sensitivity.md run as they are written (each file's ```python blocks in order, in one namespace), so that they cannot rot."""

import os
import contextlib
import io
import re
import subprocess
import sys

import pytest

from conftest import REPO

EXAMPLES = sorted((REPO / "examples" / "python").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs_and_succeeds(path):
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip()


def test_every_cpp_example_has_a_python_twin():
    cpp = {p.stem for p in (REPO / "examples").glob("*.cpp")}
    assert cpp <= {p.stem for p in EXAMPLES}


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("name", ["README.md", "docs/python.md", "docs/contact3d.md", "docs/solvers.md",
                                  "docs/sensitivity.md"])
def test_snippets_run(name, tmp_path, monkeypatch):
    blocks = python_blocks(REPO / name)
    assert blocks, f"{name} has no ```python block"
    # the snippets name files relative to the repository root and may write files: run them in a
    # scratch folder that sees the repository's examples/ and data/
    for folder in ("examples", "data"):
        (tmp_path / folder).symlink_to(REPO / folder)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__snippet__"}
    for k, block in enumerate(blocks):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, f"{name} python block {k + 1}", "exec"), namespace)
        # A `print(...)  # <shown output (...)>` comment shows what the line prints, up to its last "(" or "…".
        lines = printed.getvalue().splitlines()
        for shown in re.findall(r"^print\(.*?\)\s+# (<.*)$", block, flags=re.M):
            prefix = shown.split("…")[0]
            prefix = (prefix[: prefix.rfind("(")] if "(" in prefix else prefix).rstrip(" ,>")
            assert any(line.startswith(prefix) for line in lines), (name, shown, lines)
