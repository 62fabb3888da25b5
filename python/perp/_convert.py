"""Argument conversion shared by perp's modules: lists, float32, integer and non-contiguous arrays
are converted as numpy would; other dtypes, wrong dimensions and non-callables are refused with the
argument's name. scipy.sparse matrices are checked before scipy reads them, and densified up to
``perp.DENSE_LIMIT``."""

from __future__ import annotations

import json as _json
import numbers
import os
import sys
from typing import Any, Callable, Optional

import numpy as np

from ._perp import InvalidProblem


def _dense_limit() -> int:
    """``perp.DENSE_LIMIT``, read at each call: the package's attribute, which users may raise."""
    return sys.modules[__package__].DENSE_LIMIT


def _is_sparse(x: Any) -> bool:
    return type(x).__module__.startswith("scipy.sparse")


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _check_compressed(x: Any, name: str, major: int, minor: int, fmt: str) -> None:
    """The arrays of a CSC/CSR (or BSR, in blocks) matrix as scipy would trust them: indptr of major + 1
    entries, starting at 0, nondecreasing, ending at nnz = len(indices) = len(data); indices in
    [0, minor). scipy's own conversions read them unchecked (an index past the shape frees twice)."""
    indptr = np.asarray(x.indptr)
    indices = np.asarray(x.indices)
    what = "column" if fmt in ("csr", "bsr") else "row"
    if indptr.ndim != 1 or indptr.shape[0] != major + 1:
        raise ValueError(f"{name}: {fmt} indptr has {indptr.size} entries, expected {major + 1} (its shape "
                         f"{x.shape} gives {major} {'rows' if fmt != 'csc' else 'columns'}, plus one)")
    if indptr[0] != 0:
        raise ValueError(f"{name}: {fmt} indptr[0] is {int(indptr[0])}, expected 0")
    steps = np.diff(indptr)
    if steps.size and (steps < 0).any():
        k = _first_bad(steps < 0)
        raise ValueError(f"{name}: {fmt} indptr decreases at position {k + 1}: indptr[{k}] = {int(indptr[k])}, "
                         f"indptr[{k + 1}] = {int(indptr[k + 1])} (it must be nondecreasing)")
    nnz = int(indptr[-1])
    data_count = np.asarray(x.data).shape[0]
    if indices.ndim != 1 or indices.shape[0] != nnz or data_count != nnz:
        raise ValueError(f"{name}: {fmt} indptr[-1] = {nnz} (the number of stored entries), but indices has "
                         f"{indices.size} and data {data_count}")
    bad = (indices < 0) | (indices >= minor)
    if bad.any():
        k = _first_bad(bad)
        raise ValueError(f"{name}: {fmt} indices[{k}] = {int(indices[k])} is out of range: a {what} index of a "
                         f"matrix of shape {x.shape} must be in [0, {minor})")


def _checked_sparse(x: Any, name: str) -> Any:
    """A scipy.sparse matrix whose index arrays are checked (a ValueError naming the array and the
    position otherwise), as CSC with sorted indices and duplicates summed."""
    shape = tuple(int(v) for v in x.shape)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"{name}: expected a 2-D shape, got {x.shape}")
    rows, cols = shape
    fmt = getattr(x, "format", "")
    if fmt == "csc":
        _check_compressed(x, name, cols, rows, "csc")
    elif fmt == "csr":
        _check_compressed(x, name, rows, cols, "csr")
    elif fmt == "bsr":
        br, bc = x.blocksize
        if br <= 0 or bc <= 0 or rows % br or cols % bc:
            raise ValueError(f"{name}: bsr blocksize {x.blocksize} does not divide the shape {x.shape}")
        data = np.asarray(x.data)
        if data.ndim != 3 or data.shape[1:] != (br, bc):
            raise ValueError(f"{name}: bsr data has shape {data.shape}, expected (blocks, {br}, {bc})")
        _check_compressed(x, name, rows // br, cols // bc, "bsr")
    elif fmt == "coo":
        row, col = np.asarray(x.row), np.asarray(x.col)
        count = np.asarray(x.data).shape[0]
        if row.shape != (count,) or col.shape != (count,):
            raise ValueError(f"{name}: coo row, col and data have {row.size}, {col.size} and {count} entries; "
                             "expected the same number")
        for label, index, bound in (("row", row, rows), ("col", col, cols)):
            bad = (index < 0) | (index >= bound)
            if bad.any():
                k = _first_bad(bad)
                raise ValueError(f"{name}: coo {label}[{k}] = {int(index[k])} is out of range: must be in "
                                 f"[0, {bound}) for a matrix of shape {x.shape}")
    C = x.tocsc(copy=True)
    C.sum_duplicates()  # sorts the indices too
    return C




def _densify(x: Any, name: str) -> np.ndarray:
    x = _checked_sparse(x, name)
    rows, cols = x.shape
    limit = _dense_limit()
    if max(rows, cols) > limit:
        raise ValueError(
            f"{name}: a scipy.sparse matrix of shape {x.shape} would be densified for this problem type "
            f"({rows * cols * 8 / 1e6:.0f} MB), whose methods take a dense matrix; above perp.DENSE_LIMIT = "
            f"{limit} pass a dense array or raise perp.DENSE_LIMIT")
    return x.toarray()


def _real_array(x: Any, name: str, what: str = "an array") -> np.ndarray:
    """``np.asarray(x)`` of real numbers (bool, int, uint, float): a ValueError naming ``name`` where x
    cannot be read as ``what`` (ragged nested lists), a TypeError for any other dtype."""
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as error:  # ragged nested lists
        raise ValueError(f"{name}: cannot be read as {what} ({error})") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got an array of dtype {a.dtype}")
    return a


def _array(x: Any, name: str, ndim: int) -> np.ndarray:
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == ndim:
        return x  # the fast path: the compiled side reads it as it is
    if _is_sparse(x):
        if ndim != 2:
            raise TypeError(f"{name}: expected a 1-D array, got a scipy.sparse matrix")
        x = _densify(x, name)
    if x is None:
        raise TypeError(f"{name}: expected an array of real numbers, got None")
    a = _real_array(x, name, f"a {ndim}-D array")
    if a.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-D array, got shape {a.shape}")
    return np.asarray(a, dtype=np.float64, order="F")


def _matrix(x: Any, name: str) -> np.ndarray:
    return _array(x, name, 2)


def _vector(x: Any, name: str) -> np.ndarray:
    return _array(x, name, 1)


def _vector_or_scalar(x: Any, name: str, n: int) -> np.ndarray:
    """A 1-D array of n entries, or a scalar broadcast to n entries."""
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return np.full(n, float(x))
    return _vector(x, name)


def _optional_vector(x: Any, name: str) -> Optional[np.ndarray]:
    return None if x is None else _vector(x, name)


def _method(method: Any) -> str:
    if type(method) is not str:
        raise TypeError(f"method: expected a method name (str) such as 'lemke', got {type(method).__name__}")
    return method


def _real(x: Any, name: str) -> float:
    if type(x) is float:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}")
    return float(x)


def _max_iter(x: Any) -> Any:
    if x is None or type(x) is int:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"max_iter: expected an int or None, got {type(x).__name__}")
    return int(x)


def _callable(f: Any, name: str) -> Callable:
    if not callable(f):
        raise TypeError(f"{name}: expected a callable taking and returning numpy arrays, got {type(f).__name__}")
    return f


def _sparse_operator(W: Any, name: str):
    """W for the compiled side: a dense float64 array, or the CSC arrays of a scipy.sparse matrix."""
    if not _is_sparse(W):
        return _matrix(W, name)
    if W.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got {W.ndim}-D")
    if W.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got a sparse matrix of dtype {W.dtype}")
    C = _checked_sparse(W, name)
    return (C.shape[0], C.shape[1], C.indptr.astype(np.int64), C.indices.astype(np.int64),
            np.asarray(C.data, dtype=np.float64))


def _path(path: Any, name: str = "path") -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a str or os.PathLike, got {type(path).__name__}")
    return os.fspath(path)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _scene_json(scene: dict) -> str:
    """A scene dict as JSON text for the compiled scene reader (numpy arrays and scalars as lists
    and numbers); InvalidProblem where it cannot be written (NaN, an unknown type)."""
    try:
        return _json.dumps(scene, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as error:
        raise InvalidProblem(f"scene: cannot be written as JSON ({error})") from None
