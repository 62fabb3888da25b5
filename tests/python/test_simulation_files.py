"""perp.read_simulation: what `perp simulate` wrote, from its CSVs or its simulation.h5, as numpy arrays.

The runs are made by the CLI of the same build tree (build/bin/perp beside build/python)."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import perp
from conftest import EXAMPLES

PERP = pathlib.Path(perp.__file__).resolve().parents[2] / "bin" / "perp"


def simulate(scene, out, *options):
    if not PERP.is_file():
        pytest.skip(f"no CLI at {PERP} (the tests run from the build tree)")
    done = subprocess.run([str(PERP), "simulate", str(scene), "--out", str(out), "--plot", "none", *options],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def assert_same(a, b):
    """The two readings hold the same tables: numbers to the CSV's 12 digits, names and texts exactly."""
    assert a["bodies"] == b["bodies"] and a["fields"] == b["fields"] and a["dimension"] == b["dimension"]
    np.testing.assert_allclose(a["t"], b["t"], rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(a["state"], b["state"], rtol=1e-11, atol=1e-300)
    for table in ("energy", "steps", "contacts"):
        assert a[table].keys() == b[table].keys(), table
        for column, values in a[table].items():
            other = b[table][column]
            assert values.shape == other.shape, (table, column)
            if values.dtype.kind in "fi":
                np.testing.assert_allclose(values, other, rtol=1e-11, atol=1e-300, err_msg=f"{table}/{column}")
            else:
                assert values.tolist() == other.tolist(), (table, column)


def test_csv_and_hdf5_read_back_equal_with_every_kth_state(tmp_path):
    out = tmp_path / "block"
    simulate(EXAMPLES / "scenes" / "two_contact_block.json", out, "--every", "30", "--contacts", "--format", "both")
    csv = perp.read_simulation(out, format="csv")
    h5 = perp.read_simulation(out / "simulation.h5")
    assert perp.read_simulation(out)["every"] == 30  # a folder holding both: simulation.h5
    assert_same(csv, h5)
    # 500 steps of 1 ms: states 0, 30, …, 480 and the last, 500; steps.csv every step.
    expected = np.array(list(range(0, 500, 30)) + [500]) * 0.001
    np.testing.assert_allclose(h5["t"], expected, rtol=1e-12)
    np.testing.assert_allclose(h5["energy"]["t"], expected, rtol=1e-12)
    assert h5["state"].shape == (len(expected), 1, 6)
    assert h5["steps"]["step"].tolist() == list(range(500))
    # The block rests: y = 0.25 (half its height) at every recorded state, two ground contacts a step
    # carrying m g h / 2 = 0.005 N s each.
    y = h5["state"][:, h5["bodies"].index("block"), h5["fields"].index("y")]
    np.testing.assert_allclose(y, 0.25, atol=1e-9)
    assert set(h5["contacts"]["body_b"].tolist()) == {"ground"}
    assert len(h5["contacts"]["t"]) == 1000
    np.testing.assert_allclose(h5["contacts"]["normal_impulse"], 0.005, atol=1e-12)
    assert h5["dimension"] == 2 and h5["timestep"] == 0.001


def test_contacts_only_on_request_and_hdf5_alone(tmp_path):
    out = tmp_path / "h5"
    simulate(EXAMPLES / "scenes" / "two_contact_block.json", out, "--format", "hdf5")
    assert sorted(p.name for p in out.iterdir()) == ["simulation.h5", "view.html"]
    sim = perp.read_simulation(out)
    assert sim["contacts"] is None
    assert len(sim["t"]) == 501 and sim["steps"]["status"].tolist() == ["solved"] * 500
    csv_out = tmp_path / "csv"
    simulate(EXAMPLES / "scenes" / "two_contact_block.json", csv_out)
    assert perp.read_simulation(csv_out)["contacts"] is None
    assert not (csv_out / "contacts.csv").exists()


def test_3d_run_reads_back_from_both(tmp_path):
    scene = tmp_path / "ball3d.json"
    scene.write_text(json.dumps({
        "dimension": 3, "gravity": [0, 0, -9.81], "timestep": 0.01, "duration": 0.3, "restitution": 0,
        "friction": 0.3, "planes": [{"name": "slope", "point": [0, 0, 0], "normal": [-0.3, 0, 1]}],
        "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1,
                    "position": [0, 0, 0.5]}]}))
    out = tmp_path / "out3d"
    simulate(scene, out, "--every", "7", "--contacts", "--format", "both")
    csv = perp.read_simulation(out, format="csv")
    h5 = perp.read_simulation(out, format="hdf5")
    assert_same(csv, h5)
    assert h5["dimension"] == 3 and h5["state"].shape == (6, 1, 13)
    np.testing.assert_allclose(h5["t"], [0, 0.07, 0.14, 0.21, 0.28, 0.3], rtol=1e-12)
    # Falling freely until it reaches the slope (z = 0.1 / cos of the slope's angle at x = 0 ≈ 0.104):
    # z = 0.5 − g t² / 2 at t = 0.07 (the trapezoidal update is exact for a constant acceleration).
    assert h5["state"][1, 0, h5["fields"].index("z")] == pytest.approx(0.5 - 9.81 * 0.07 ** 2 / 2, abs=1e-12)
    assert set(h5["contacts"]["body_b"].tolist()) <= {"slope"}


def test_missing_and_wrong_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="no simulation.h5 or trajectory.csv"):
        perp.read_simulation(tmp_path)
    with pytest.raises(FileNotFoundError, match="neither a folder nor a file"):
        perp.read_simulation(tmp_path / "none")
    (tmp_path / "x.h5").write_text("t,x\n")
    with pytest.raises(perp.InvalidProblem, match="x.h5"):
        perp.read_simulation(tmp_path / "x.h5")
    with pytest.raises(ValueError, match="format must be 'csv', 'hdf5' or None, got 'xyz'"):
        perp.read_simulation(tmp_path, format="xyz")
