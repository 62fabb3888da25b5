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


def _cone_projection(x, mu):
    """P_K(x) of one contact onto ‖x_T‖ <= mu x_N (normal first), in numpy."""
    xn, xt = x[0], x[1:]
    t = np.linalg.norm(xt)
    if t <= mu * xn:
        return x.copy()
    if mu * t <= -xn:
        return np.zeros_like(x)
    pn = (xn + mu * t) / (1.0 + mu * mu)
    return np.concatenate(([pn], mu * pn * xt / t))


def _global_criteria(problem, v, r, law="coulomb"):
    """Recomputed here from (v, r): the relative natural-map error (Siconos'), the equilibrium
    ‖M v − H r − q‖∞ and the four physical criteria, as core/global_friction_contact.hpp defines them."""
    d = problem.dimension
    M = scipy.sparse.csc_matrix(problem.M)
    H = scipy.sparse.csc_matrix(problem.H)
    u = H.T @ v + problem.b
    equilibrium = float(np.max(np.abs(M @ v - H @ r - problem.q))) if v.size else 0.0
    total = 0.0
    signorini = coulomb = complementarity = dissipation = 0.0
    for i, mu in enumerate(np.broadcast_to(problem.mu, (r.size // d,))):
        ri, ui = r[i * d:(i + 1) * d], u[i * d:(i + 1) * d]
        hat = ui.copy()
        if law == "coulomb":
            hat[0] += mu * np.linalg.norm(ui[1:])
        total += float(np.sum((ri - _cone_projection(ri - hat, mu)) ** 2))
        un = ui[0] if law == "coulomb" else ui[0] - mu * np.linalg.norm(ui[1:])
        signorini = max(signorini, -un)
        coulomb = max(coulomb, np.linalg.norm(ri[1:]) - mu * ri[0], -ri[0])
        complementarity = max(complementarity, abs(ri[0] * un))
        dissipation = max(dissipation, abs(ri[1:] @ ui[1:] + mu * ri[0] * np.linalg.norm(ui[1:])))
    scale = max(np.linalg.norm(problem.b), np.linalg.norm(r), np.linalg.norm(u))
    relative = np.sqrt(total) / scale if scale > 0 else np.sqrt(total)
    return {"relative_error": relative, "equilibrium": equilibrium, "signorini": signorini, "coulomb": coulomb,
            "complementarity": complementarity, "dissipation": dissipation, "u": u}


def _refuse_densifying(monkeypatch):
    """scipy.sparse matrices refuse to be densified from here on: the solve must take M and H sparse."""
    def densified(*args, **kwargs):
        raise AssertionError("a sparse matrix was densified")
    for kind in (scipy.sparse.csc_matrix, scipy.sparse.csr_matrix, scipy.sparse.coo_matrix):
        monkeypatch.setattr(kind, "toarray", densified)
        monkeypatch.setattr(kind, "todense", densified)
        monkeypatch.setattr(kind, "__array__", densified, raising=False)


def _sliding_block(mu=0.3):
    """A unit box (1 × 0.5, m = 1, I = 1/12) on the ground on its two lower corners, moving at 1 m/s,
    one step of h = 0.01 under g = 10: M v = H r + q with q = M v_free, b = 0."""
    M = scipy.sparse.diags([1.0, 1.0, 1.0 / 12]).tocsc()
    # Columns: (normal, tangent) of each corner, arms (∓0.5, −0.25): [n, r × n], [t, r × t].
    H = scipy.sparse.csc_matrix(np.array([[0.0, 1.0, 0.0, 1.0],
                                          [1.0, 0.0, 1.0, 0.0],
                                          [-0.5, 0.25, 0.5, 0.25]]))
    q = M @ np.array([1.0, -0.1, 0.0])
    return perp.GlobalFrictionContact(M, H, q, np.zeros(4), np.array([mu, mu]), 2)


def test_global_friction_contact_solves_in_cpp_with_sparse_matrices(monkeypatch):
    tol = 1e-10
    for problem in (perp.read(FCLIB / "LMGC_GlobalFrictionContactProblem00046.hdf5"), _sliding_block()):
        with monkeypatch.context() as patch:
            _refuse_densifying(patch)
            result = problem.solve(tol=tol)
        assert isinstance(result, perp.GlobalFrictionContactResult)
        assert result.solved, result.message
        assert result.status == perp.Status.SOLVED and result.method != "auto"
        v, r = np.array(result.v), np.array(result.r)
        assert v.shape == (problem.q.size,) and r.shape == (problem.b.size,)
        c = _global_criteria(problem, v, r)
        # The criteria recomputed here, not by the solver's code.
        assert c["relative_error"] <= 10 * tol, c
        assert c["equilibrium"] <= 1e-9 * max(1.0, np.abs(problem.q).max()), c
        assert np.allclose(result.u, c["u"], atol=1e-10 * max(1.0, np.abs(c["u"]).max()))
        assert abs(result.criteria["relative_error"] - c["relative_error"]) <= 1e-9
        assert result.equilibrium <= 1e-9 * max(1.0, np.abs(problem.q).max())
    # The sliding block: both corners on the cone's edge, r_T = −mu r_N, sliding forwards, u_N = 0, and
    # the total normal impulse carries the weight m g h (the block does not rotate: u_N = 0 at both).
    block = _sliding_block()
    result = block.solve(tol=tol)
    r, u = np.array(result.r), np.array(result.u)
    assert np.allclose(r[1::2], -0.3 * r[0::2], atol=1e-10)
    assert np.allclose(u[0::2], 0.0, atol=1e-10) and np.all(u[1::2] > 0)
    assert abs(r[0] + r[2] - 0.1) <= 1e-10


def test_global_friction_contact_convex_law_and_bad_input():
    block = _sliding_block()
    result = block.solve(law="convex", tol=1e-9)
    assert result.solved, result.message
    c = _global_criteria(block, np.array(result.v), np.array(result.r), law="convex")
    assert c["relative_error"] <= 1e-8 and c["equilibrium"] <= 1e-9, c
    # The convex law lifts a sliding contact: u_N = mu ‖u_T‖ > 0 (Coulomb's u_N is 0).
    u = np.array(result.u)
    assert np.allclose(u[0::2], 0.3 * np.abs(u[1::2]), atol=1e-7) and np.all(u[0::2] > 0)
    with pytest.raises(perp.InvalidProblem, match="law.*'sideways'"):
        block.solve(law="sideways")
    bad = perp.GlobalFrictionContact(block.M, block.H[:, :3], block.q, block.b, block.mu, 2)
    with pytest.raises(perp.InvalidProblem, match="H"):
        bad.solve()
    with pytest.raises(perp.InvalidProblem, match="dimension"):
        perp.GlobalFrictionContact(block.M, block.H, block.q, block.b, block.mu, 4).solve()
    with pytest.raises(perp.InvalidProblem):
        block.solve(warm_start=np.zeros(3))
