"""strata.AMG: a SciPy LinearOperator, its hierarchy summary, resetup for
new values, the near-null space and the block size."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import strata
from conftest import poisson2d, poisson3d, relative_residual, rhs


def cg_iterations(A, b, M=None):
    count = [0]

    def step(_):
        count[0] += 1

    x, code = spla.cg(A, b, M=M, rtol=1e-8, maxiter=2000, callback=step)
    return x, code, count[0]


def test_amg_preconditions_scipy_cg(A2d):
    M = strata.AMG(A2d)
    assert isinstance(M, spla.LinearOperator)
    assert M.shape == A2d.shape and M.dtype == np.float64
    b = rhs(A2d.shape[0])
    x, code, its = cg_iterations(A2d, b, M)
    _, code_plain, its_plain = cg_iterations(A2d, b)
    assert code == 0 and code_plain == 0
    assert relative_residual(A2d, b, x) <= 1e-8
    # 12 with AMG (measured), about 100 without.
    assert its <= 14 and its_plain > 5 * its


def test_apply_is_one_fixed_linear_cycle(A2d):
    M = strata.AMG(A2d)
    u, v = rhs(A2d.shape[0], 1), rhs(A2d.shape[0], 2)
    Mu, Mv = M @ u, M @ v
    np.testing.assert_allclose(M @ (2.0 * u - 3.0 * v), 2.0 * Mu - 3.0 * Mv,
                               rtol=1e-10, atol=1e-12 * np.abs(Mu).max())
    np.testing.assert_array_equal(M @ u, Mu)  # deterministic
    # A 2-D (n, 1) vector, as SciPy may pass, gives the same.
    np.testing.assert_array_equal(M.matvec(u.reshape(-1, 1)).ravel(), Mu)
    # Symmetric for symmetric A (l1-Jacobi V(1,1)): u^T M v == v^T M u.
    assert u @ Mv == pytest.approx(v @ Mu, rel=1e-10)
    # And it reduces the error of A x = b like a preconditioner should.
    b = A2d @ u
    assert np.linalg.norm(u - M @ b) < 0.5 * np.linalg.norm(u)


def test_summary_matches_the_hierarchy(A2d):
    M = strata.AMG(A2d, config={"preconditioner": {"amg": {"coarse_size": 50}}})
    s = M.summary()
    levels = s["levels"]
    assert s["num_levels"] == len(levels) >= 3
    assert levels[0]["rows"] == A2d.shape[0] and levels[0]["nnz"] == A2d.nnz
    rows = [l["rows"] for l in levels]
    assert rows == sorted(rows, reverse=True) and rows[-1] <= 100
    nnz = [l["nnz"] for l in levels]
    assert s["operator_complexity"] == pytest.approx(sum(nnz) / nnz[0])
    assert s["grid_complexity"] == pytest.approx(sum(rows) / rows[0])
    assert levels[1]["coarsening_ratio"] == pytest.approx(rows[0] / rows[1])
    assert "classical" in s["coarsening"]
    assert s["setup_seconds"] > 0 and s["setup_bytes"] > 0
    assert s["setup_peak_bytes"] >= s["setup_bytes"]
    text = str(M)
    assert "operator complexity" in text and str(rows[-1]) in text
    assert f"{s['num_levels']} levels" in repr(M)
    assert M.config["preconditioner"]["amg"]["coarse_size"] == 50


def test_resetup_with_the_same_pattern_is_value_only():
    A = poisson2d(30)
    # Scaled values, same pattern. (A shifted diagonal would be a fair test
    # of resetup too, but not of "the same as a fresh setup": a value-only
    # resetup keeps the coarse levels' splittings, which a fresh classical
    # setup of a shifted matrix may choose differently below level 1.)
    A_new = A.copy()
    A_new.data = A.data * 2.0
    assert (A_new.indptr == A.indptr).all() and (A_new.indices == A.indices).all()
    for coarsening in ("classical", "aggregation"):
        config = {"preconditioner": {"amg": {"coarsening": coarsening}}}
        M = strata.AMG(A, config=config)
        assert M.resetup(A_new) == "values" and M.last_setup == "values"
        assert M.summary()["resetup_seconds"] > 0
        fresh = strata.AMG(A_new, config=config)
        u = rhs(A.shape[0])
        # The same hierarchy as a fresh setup of A_new (rounding aside).
        np.testing.assert_allclose(M @ u, fresh @ u, rtol=1e-9,
                                   atol=1e-12 * np.abs(fresh @ u).max())
        b = rhs(A.shape[0], 5)
        x, info = M.solve(b)
        assert info["converged"] and relative_residual(A_new, b, x) <= 1e-8


def test_resetup_with_a_new_pattern_sets_up_again():
    A = poisson2d(20)
    # New entries, kept symmetric and diagonally dominant (SPD) so that the
    # default CG applies.
    A_new = (A + sp.diags([-0.1, -0.1, 0.5], [5, -5, 0], shape=A.shape)).tocsr()
    M = strata.AMG(A)
    assert M.resetup(A_new) == "full"
    b = rhs(A.shape[0])
    x, info = M.solve(b)
    assert info["converged"], info["status"]
    assert relative_residual(A_new, b, x) <= 1e-8
    with pytest.raises(strata.DimensionMismatchError, match="a new strata.AMG"):
        M.resetup(poisson2d(10))


def test_resetup_without_resetup_data_sets_up_again():
    A = poisson2d(20)
    M = strata.AMG(A, config={"preconditioner": {"amg": {"keep_resetup_data": False}}})
    assert M.resetup(A * 3.0) == "full"


def test_lean_resetup_data_gives_the_same_preconditioner_with_less_memory():
    A = poisson3d(16)
    full = strata.AMG(A)
    lean = strata.AMG(A, config={"preconditioner": {"amg": {"lean_resetup_data": True}}})
    assert lean.summary()["setup_bytes"] < full.summary()["setup_bytes"]
    A_new = (A * 2.0).tocsr()
    assert full.resetup(A_new) == "values"
    assert lean.resetup(A_new) == "values"
    u = rhs(A.shape[0])
    np.testing.assert_allclose(lean @ u, full @ u, rtol=1e-12, atol=0)


def test_single_precision_cycle_reaches_the_tolerance_in_double():
    A = poisson3d(16)
    b = rhs(A.shape[0])
    amg = {"smoother": "l1jacobi"}
    double = strata.AMG(A, config={"preconditioner": {"amg": {**amg, "cycle_precision": "double"}}})
    single = strata.AMG(A, config={"preconditioner": {"amg": {**amg, "cycle_precision": "single"}}})
    assert double.summary()["cycle_precision"] == "double"
    assert single.summary()["cycle_precision"] == "single"
    x, info = single.solve(b)
    assert info["converged"], info["status"]
    assert relative_residual(A, b, x) <= 1e-8
    _, info_double = double.solve(b)
    assert info["iterations"] <= info_double["iterations"] + 1
    # The host's default smoother (hybrid Gauss-Seidel) has no float form.
    with pytest.raises(strata.InvalidArgumentError, match="no single-precision form"):
        strata.AMG(A, config={"preconditioner": {"amg": {"cycle_precision": "single"}}})


def test_near_null_space_goes_to_aggregation():
    A = poisson3d(10)
    n = A.shape[0]
    agg = {"preconditioner": {"amg": {"coarsening": "aggregation"}}}
    default = strata.AMG(A, config=agg)
    ones = strata.AMG(A, config=agg, near_null_space=np.ones((n, 1)))
    u = rhs(n)
    # B = ones is the default: the same hierarchy, bit for bit.
    np.testing.assert_array_equal(default @ u, ones @ u)
    # Two vectors: two coarse unknowns per aggregate (fewer where an
    # aggregate is too small for them).
    coord = np.tile(np.arange(10.0), 100)
    B = np.column_stack([np.ones(n), coord])
    two = strata.AMG(A, config=agg, near_null_space=B)
    rows_one = default.summary()["levels"][1]["rows"]
    rows_two = two.summary()["levels"][1]["rows"]
    assert rows_one < rows_two <= 2 * rows_one
    b = rhs(n, 9)
    x, info = two.solve(b)
    assert info["converged"] and relative_residual(A, b, x) <= 1e-8


def test_near_null_space_errors():
    A = poisson2d(10)
    with pytest.raises(strata.InvalidArgumentError, match="classical.*expected coarsening aggregation"):
        strata.AMG(A, near_null_space=np.ones(100))
    agg = {"preconditioner": {"amg": {"coarsening": "aggregation"}}}
    with pytest.raises(ValueError, match=r"near_null_space has shape \(99, 1\); expected \(100, k\)"):
        strata.AMG(A, config=agg, near_null_space=np.ones(99))
    with pytest.raises(TypeError, match="near_null_space has dtype int64; expected float64"):
        strata.AMG(A, config=agg, near_null_space=np.ones((100, 1), dtype=np.int64))


def test_block_size():
    # A scalar problem is block size 1; the blocked forms are in test_blocked.py.
    A = poisson2d(6)
    assert strata.AMG(A).block_size == 1
    assert strata.AMG(A, coarsening="sa", block_size=1).block_size == 1
    with pytest.raises(ValueError, match="block_size is 0; expected an integer >= 1"):
        strata.AMG(A, block_size=0)


def test_amg_needs_an_amg_preconditioner():
    with pytest.raises(ValueError, match="preconditioner.type is 'jacobi'"):
        strata.AMG(poisson2d(6), config={"preconditioner": {"type": "jacobi"}})


def test_k_cycle_with_fcg():
    """The aggregation paper's set-up: K-cycle, FCG (a flexible method,
    since a K-cycle is no fixed linear map)."""
    A = poisson3d(16)
    M = strata.AMG(A, config={"solver": {"type": "fcg"},
                              "preconditioner": {"amg": {"coarsening": "aggregation",
                                                         "cycle": "K"}}})
    b = rhs(A.shape[0])
    x, info = M.solve(b)
    assert info["converged"] and info["solver"] == "fcg"
    assert relative_residual(A, b, x) <= 1e-8
    assert info["iterations"] <= 30
