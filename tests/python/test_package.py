"""The package perp: its modules' names reach `perp`, and perp.plot loads on first use (issue 37)."""

import inspect
import os
import subprocess
import sys

import perp
import perp.analysis
import perp.contact
import perp.problems
import perp.solvers


def test_every_public_name_of_a_module_is_a_name_of_perp():
    for module in (perp.solvers, perp.problems, perp.analysis, perp.contact):
        defined = [name for name, value in vars(module).items()
                   if not name.startswith("_") and getattr(value, "__module__", module.__name__) == module.__name__
                   and not inspect.ismodule(value)]
        assert defined, module.__name__
        for name in defined:
            assert getattr(perp, name) is getattr(module, name), f"perp.{name} is not {module.__name__}.{name}"


def test_all_names_exist():
    missing = [name for name in perp.__all__ if not hasattr(perp, name)]
    assert missing == []
    assert len(set(perp.__all__)) == len(perp.__all__)


CHILD = """
import sys
import perp
assert "matplotlib" not in sys.modules, "import perp loaded matplotlib"
r = perp.solve([[1.75, 0.25], [0.25, 1.75]], [-10.0, -10.0], method="pgs", tol=1e-12)
fig = perp.plot.convergence(r)
assert "perp.plot" in sys.modules and fig.axes
print("ok")
"""


def test_plot_is_reachable_after_import_perp_alone():
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
