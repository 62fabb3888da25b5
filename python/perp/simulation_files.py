"""Reading back what ``perp simulate`` wrote: its CSVs or its simulation.h5, as numpy arrays.

Example::

    sim = perp.read_simulation("out/")               # the folder (CSVs or simulation.h5)
    sim["t"].shape, sim["state"].shape               # (n,), (n, bodies, fields)
    y = sim["state"][:, sim["bodies"].index("ball"), sim["fields"].index("y")]

The HDF5 file is read through the C++ reader of the compiled module (io/hdf5.hpp), so no h5py is
needed. Both give the same dictionary (docs/cli.md, "simulate"):

- ``t`` (n,), ``state`` (n, bodies, fields), ``bodies`` and ``fields`` (lists of names): the
  trajectory, every ``every``-th step and the last;
- ``energy``, ``steps``, ``contacts``: one dict a table, a numpy array per column of the CSV (text
  columns as arrays of str; ``contacts`` is None when the run wrote none, without ``--contacts``);
- ``dimension`` (2 or 3), and from simulation.h5 ``timestep`` and ``every`` (None from the CSVs).
"""

from __future__ import annotations

import csv
import os
from typing import Any, Dict, List, Optional

import numpy as np

from . import _perp

__all__ = ["read_simulation"]

_FIELDS = {2: ["x", "y", "angle", "vx", "vy", "omega"],
           3: ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]}
# The columns of the tables that are not floating-point numbers.
_INTEGER_COLUMNS = {"step", "contacts", "iterations", "warm_started", "feature"}
_TEXT_COLUMNS = {"status", "method", "fallback", "body_a", "body_b"}
_HDF5_NAME = "simulation.h5"


def read_simulation(path, format: Optional[str] = None) -> Dict[str, Any]:
    """The run written by ``perp simulate`` into ``path``: a folder (its CSVs, or its simulation.h5
    when it holds no trajectory.csv) or a simulation.h5 file.

    ``format``: ``"csv"`` or ``"hdf5"`` to choose in a folder holding both (``--format both``); by
    default simulation.h5 when the folder holds it. Raises FileNotFoundError naming the path when
    neither is there, ValueError (``InvalidProblem``) for a file that is not such an output.
    """
    path = os.fspath(path)
    if format not in (None, "csv", "hdf5"):
        raise ValueError(f"read_simulation: format must be 'csv', 'hdf5' or None, got {format!r}")
    if os.path.isdir(path):
        h5 = os.path.join(path, _HDF5_NAME)
        has_csv = os.path.isfile(os.path.join(path, "trajectory.csv"))
        has_h5 = os.path.isfile(h5)
        if format == "csv" or (format is None and has_csv and not has_h5):
            if not has_csv:
                raise FileNotFoundError(f"read_simulation: no trajectory.csv in '{path}'")
            return _read_csv_folder(path)
        if not has_h5:
            raise FileNotFoundError(f"read_simulation: no {_HDF5_NAME}" + ("" if format else " or trajectory.csv") +
                                    f" in '{path}'")
        return _read_hdf5(h5)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"read_simulation: '{path}' is neither a folder nor a file")
    if format == "csv":
        raise ValueError(f"read_simulation: '{path}' is a file; format='csv' reads a folder of CSVs")
    return _read_hdf5(path)


def _read_hdf5(path: str) -> Dict[str, Any]:
    datasets, numbers, texts = _perp.read_hdf5(path)
    if texts.get("format") != "perp simulation":
        raise _perp.InvalidProblem(f"'{path}' is not a simulation.h5 of perp simulate (no format attribute "
                                   f"'perp simulation')")

    def table(name: str) -> Optional[Dict[str, np.ndarray]]:
        prefix = name + "/"
        columns = {key[len(prefix):]: value for key, value in datasets.items() if key.startswith(prefix)}
        if not columns:
            return None
        surfaces = columns.pop("surfaces", None)
        out = {}
        for column, value in columns.items():
            if surfaces is not None and column in ("body_a", "body_b"):
                out[column] = np.array(surfaces, dtype=str)[value] if len(value) else np.array([], dtype=str)
            elif isinstance(value, list):
                out[column] = np.array(value, dtype=str)
            else:
                out[column] = value
        return out

    return {
        "t": datasets["trajectory/t"],
        "state": datasets["trajectory/state"],
        "bodies": list(datasets["trajectory/bodies"]),
        "fields": list(datasets["trajectory/fields"]),
        "energy": table("energy"),
        "steps": table("steps"),
        "contacts": table("contacts"),
        "dimension": int(numbers["dimension"]),
        "timestep": float(numbers["timestep"]),
        "every": int(numbers["every"]),
    }


def _unquote_name(text: str) -> str:
    # csv_field prefixes an apostrophe to a name a spreadsheet would read as a formula.
    return text[1:] if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r" else text


def _read_table(path: str) -> Optional[Dict[str, np.ndarray]]:
    if not os.path.isfile(path):
        return None
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise _perp.InvalidProblem(f"'{path}' is empty: no header")
    header, body = rows[0], rows[1:]
    out = {}
    for c, name in enumerate(header):
        values = [row[c] if c < len(row) else "" for row in body]
        if name in _TEXT_COLUMNS:
            out[name] = np.array([_unquote_name(v) for v in values], dtype=str)
        elif name in _INTEGER_COLUMNS:
            out[name] = np.array([int(v) for v in values], dtype=np.int64)
        else:
            out[name] = np.array([float(v) for v in values], dtype=np.float64)
    return out


def _read_csv_folder(folder: str) -> Dict[str, Any]:
    path = os.path.join(folder, "trajectory.csv")
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise _perp.InvalidProblem(f"'{path}' is empty: no header")
        data = np.array([[float(v) for v in row] for row in reader], dtype=np.float64).reshape(-1, len(header))
    dimension = 3 if header[-1].endswith(".wz") else 2
    fields = _FIELDS[dimension]
    count = (len(header) - 1) // len(fields)
    if len(header) != 1 + count * len(fields) or not header[-1].endswith("." + fields[-1]):
        raise _perp.InvalidProblem(f"'{path}': the header is not t then BODY.{fields[0]} … BODY.{fields[-1]} per body")
    bodies: List[str] = []
    for b in range(count):
        column = _unquote_name(header[1 + b * len(fields)])
        bodies.append(column[: -len("." + fields[0])])
    return {
        "t": data[:, 0].copy(),
        "state": data[:, 1:].reshape(len(data), count, len(fields)),
        "bodies": bodies,
        "fields": list(fields),
        "energy": _read_table(os.path.join(folder, "energy.csv")),
        "steps": _read_table(os.path.join(folder, "steps.csv")),
        "contacts": _read_table(os.path.join(folder, "contacts.csv")),
        "dimension": dimension,
        "timestep": None,
        "every": None,
    }
