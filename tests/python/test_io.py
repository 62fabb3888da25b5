"""perp.read / loads / write_siconos / write_json: corpus files and exact round trips."""

import numpy as np
import pytest
import scipy.sparse

import perp
from conftest import DATA, EXAMPLES


def test_read_every_example_problem():
    kinds = {}
    for path in sorted((EXAMPLES / "problems").glob("*.json")):
        p = perp.read(path)
        kinds[path.name] = p.type
        r = p.solve()
        assert r.solved, (path.name, r.message)
    assert set(kinds.values()) == {"lcp", "box-lcp", "friction-contact", "mlcp", "qp"}


def test_read_siconos_mlcp():
    p = perp.read(sorted((DATA / "mlcp").glob("*.dat"))[0])
    assert isinstance(p, perp.Mlcp)
    n, m = p.a.size, p.b.size
    assert p.A.shape == (n, n) and p.B.shape == (m, m) and p.C.shape == (n, m) and p.D.shape == (m, n)


def test_round_trip_lcp_siconos_and_json(tmp_path, block):
    M, q = block
    M = M + np.array([[1e-17, 0], [0, np.pi]])
    p = perp.Lcp(M, q)
    perp.write_siconos(tmp_path / "p.dat", p)
    back = perp.read(tmp_path / "p.dat")
    assert np.array_equal(back.M, M) and np.array_equal(back.q, q)
    perp.write_json(tmp_path / "p.json", p)
    back = perp.read(tmp_path / "p.json")
    assert isinstance(back, perp.Lcp) and np.array_equal(back.M, M)


def test_round_trip_other_types(tmp_path):
    box = perp.BoxLcp(np.eye(2), [-1.0, -2.0], [0.0, -np.inf], [np.inf, np.inf], [(1, 0, 0.5)])
    perp.write_json(tmp_path / "box.json", box)
    back = perp.read(tmp_path / "box.json")
    assert back.friction == [(1, 0, 0.5)] and back.lo[1] == -np.inf
    np.testing.assert_array_equal(back.solve().z, box.solve().z)
    mlcp = perp.Mlcp([[2.0]], [[1.0]], [[1.0]], [[-1.0]], [-2.0], [-1.0])
    perp.write_siconos(tmp_path / "m.dat", mlcp)
    back = perp.read(tmp_path / "m.dat")
    assert isinstance(back, perp.Mlcp) and back.A[0, 0] == 2.0 and back.D[0, 0] == -1.0
    W = scipy.sparse.random(6, 6, density=0.3, random_state=1, format="csc") + scipy.sparse.identity(6)
    fc = perp.FrictionContact(W, np.arange(6.0) - 3, [0.1, 0.2, 0.3], 2)
    perp.write_siconos(tmp_path / "fc.dat", fc)
    back = perp.read(tmp_path / "fc.dat")
    assert back.dimension == 2 and (back.W != W).nnz == 0 and np.array_equal(back.mu, [0.1, 0.2, 0.3])
    with pytest.raises(perp.InvalidProblem, match="no file format"):
        perp.write_siconos(tmp_path / "box.dat", box)


def test_loads_and_errors(tmp_path):
    p = perp.loads('{"type": "qp", "Q": [[2]], "c": [-2]}')
    assert isinstance(p, perp.Qp) and p.solve().x[0] == pytest.approx(1.0)
    with pytest.raises(perp.InvalidProblem, match="Q"):
        perp.loads('{"type": "qp", "q": [[2]], "c": [-2]}')
    with pytest.raises(perp.InvalidProblem, match="cannot open"):
        perp.read(tmp_path / "missing.dat")
    bad = tmp_path / "bad.dat"
    bad.write_text("2\n0 2 2\n2 2\n1 x 0 1\n")
    with pytest.raises(perp.InvalidProblem, match="token"):
        perp.read(bad)
    with pytest.raises(perp.InvalidProblem, match="extension|\\.txt"):
        perp.read(tmp_path / "p.txt")
    with pytest.raises(TypeError, match="path"):
        perp.read(3)
    with pytest.raises(TypeError, match="problem"):
        perp.write_json(tmp_path / "x.json", {"M": [[1]]})
