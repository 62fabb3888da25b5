"""fclib (HDF5) files: perp.read / read_fclib / write, perp.GlobalFrictionContact."""

import numpy as np
import pytest
import scipy.sparse

import perp
from conftest import DATA

FCLIB = DATA / "fclib"


def test_fclib_read_kinds_and_sizes():
    local = perp.read(FCLIB / "Capsules-i125-1213.hdf5")
    assert isinstance(local, perp.FrictionContact)
    assert local.dimension == 3 and local.q.shape == (858,) and local.mu.shape == (286,)
    assert scipy.sparse.issparse(local.W) and local.W.shape == (858, 858)
    glob = perp.read(FCLIB / "Box_Stacks-i0122-82-5.hdf5")
    assert isinstance(glob, perp.GlobalFrictionContact)
    assert glob.M.shape == (450, 450) and glob.H.shape == (450, 246)
    assert glob.q.shape == (450,) and glob.b.shape == (246,) and glob.mu.shape == (82,)
    everything = perp.read_fclib(FCLIB / "Box_Stacks-i0122-82-5.hdf5")
    assert everything["title"] == "Box_stacks"
    assert everything["solution"]["v"].shape == (450,)
    assert len(everything["guesses"]) == 1


def test_fclib_lmgc_mass_matrix_is_mirrored():
    glob = perp.read(FCLIB / "CubeH8.hdf5")
    M = glob.M.toarray()
    assert np.array_equal(M, M.T)


def test_fclib_write_read_round_trip(tmp_path):
    for name in ["Capsules-i125-1213.hdf5", "LMGC_GlobalFrictionContactProblem00046.hdf5"]:
        p = perp.read(FCLIB / name)
        out = tmp_path / name
        r = np.linspace(0.0, 1.0, p.mu.size * p.dimension)
        perp.write(out, p, solution={"r": r})
        back = perp.read_fclib(out)
        q = back["problem"]
        assert type(q) is type(p)
        assert np.array_equal(q.q, p.q) and np.array_equal(q.mu, p.mu)
        if isinstance(p, perp.GlobalFrictionContact):
            assert (q.M != p.M).nnz == 0 and (q.H != p.H).nnz == 0 and np.array_equal(q.b, p.b)
        else:
            assert (q.W != p.W).nnz == 0
        assert np.array_equal(back["solution"]["r"], r)


def test_fclib_global_solves_through_the_local_form():
    glob = perp.read(FCLIB / "LMGC_GlobalFrictionContactProblem00046.hdf5")
    result = glob.solve()
    assert result.solved, result.message
    v = glob.velocity(result.r)
    u = glob.H.T @ v + glob.b
    assert np.allclose(u, result.u, atol=1e-8 * max(1.0, np.abs(u).max()))


def test_fclib_rolling_and_garbage_refused(tmp_path):
    with pytest.raises(perp.InvalidProblem, match="Chute-ndof-768-nc-4-3.hdf5.*rolling"):
        perp.read(FCLIB / "Chute-ndof-768-nc-4-3.hdf5")
    junk = tmp_path / "junk.hdf5"
    junk.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(perp.InvalidProblem, match="junk.hdf5"):
        perp.read(junk)
