"""strata.solve: results checked against SciPy, settings by the library's
names, the solve info, and the errors for bad input."""

import json
import subprocess

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import strata
from conftest import poisson2d, relative_residual, rhs, strata_cli


def test_default_solve_converges_and_reports_truthfully(A2d):
    b = rhs(A2d.shape[0])
    x, info = strata.solve(A2d, b)
    assert isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == b.shape
    assert info["status"] == "converged" and info["converged"] is True
    res = relative_residual(A2d, b, x)
    assert res <= 1e-8
    # The reported true residual is the one SciPy computes.
    assert info["true_relative_residual"] == pytest.approx(res, rel=1e-6)
    # AMG-CG on 40x40 Poisson: 12 iterations measured; a regression shows.
    assert 1 <= info["iterations"] <= 14
    history = info["residual_history"]
    assert len(history) == info["iterations"] + 1
    assert history[0] == pytest.approx(np.linalg.norm(b), rel=1e-12)
    assert history[-1] < 1e-8 * history[0]
    assert info["setup_seconds"] > 0 and info["solve_seconds"] > 0
    assert info["solver"] == "cg" and info["preconditioner"].startswith("AMG")
    assert info["summary"]["levels"][0]["rows"] == A2d.shape[0]


@pytest.mark.parametrize("solver,precond,config,most", [
    # Measured: 12, 135, 135, 12, 97, 78, 21, 33 (the last: V-cycles of
    # unsmoothed aggregation down to the host's 64-row coarsest level);
    # bounds about 15% above.
    ("cg", "amg", {}, 14),
    ("cg", "jacobi", {}, 155),
    ("cg", "none", {}, 155),
    ("gmres", "amg", {}, 14),
    ("bicgstab", "l1jacobi", {}, 112),
    ("cg", "chebyshev", {}, 90),
    ("fcg", "amg", {"preconditioner": {"amg": {"coarsening": "aggregation", "cycle": "K"}}}, 25),
    ("fgmres", "amg", {"preconditioner": {"amg": {"coarsening": "aggregation"}}}, 38),
])
def test_methods_and_preconditioners(A2d, solver, precond, config, most):
    b = rhs(A2d.shape[0], seed=3)
    x, info = strata.solve(A2d, b, solver=solver, precond=precond, config=config, tol=1e-9)
    assert info["converged"], info["status"]
    assert info["solver"] == solver
    assert relative_residual(A2d, b, x) <= 1e-9
    assert info["iterations"] <= most


def test_x0_is_used():
    A = poisson2d(20)
    b = rhs(A.shape[0])
    exact = spla.spsolve(A.tocsc(), b)
    x, info = strata.solve(A, b, x0=exact)
    assert info["iterations"] == 0 and info["converged"]
    np.testing.assert_allclose(x, exact, rtol=0, atol=0)
    # x0 is not written to.
    x0 = np.zeros(A.shape[0])
    strata.solve(A, b, x0=x0)
    assert not x0.any()


def test_keywords_set_the_library_settings(A2d):
    b = rhs(A2d.shape[0])
    x, info = strata.solve(A2d, b, precond="none", maxiter=3)
    assert info["status"] == "max_iterations" and not info["converged"]
    assert info["iterations"] == 3
    loose, info_loose = strata.solve(A2d, b, config={"solver": {"tolerance": 1e-3}})
    tight, info_tight = strata.solve(A2d, b, tol=1e-11)
    assert 1e-11 < relative_residual(A2d, b, loose) <= 1e-3
    assert relative_residual(A2d, b, tight) <= 1e-11
    assert info_loose["iterations"] < info_tight["iterations"]
    # atol alone: ||r|| <= atol.
    x, info = strata.solve(A2d, b, tol=0.0, atol=1e-6)
    assert np.linalg.norm(b - A2d @ x) <= 1e-6


def test_config_as_json_text_and_the_default_config(A2d):
    b = rhs(A2d.shape[0])
    full = strata.default_config()
    assert full["solver"]["type"] == "cg" and full["preconditioner"]["type"] == "amg"
    assert full["solver"]["tolerance"] == 1e-8
    x, info = strata.solve(A2d, b, config=json.dumps(full))
    assert info["converged"] and relative_residual(A2d, b, x) <= 1e-8


def test_keyword_contradicting_config_is_an_error(A2d):
    b = rhs(A2d.shape[0])
    with pytest.raises(ValueError, match=r"tol=1e-06 contradicts config solver.tolerance"):
        strata.solve(A2d, b, tol=1e-6, config={"solver": {"tolerance": 1e-4}})


def test_unknown_setting_names_the_key_and_the_known_ones(A2d):
    b = rhs(A2d.shape[0])
    with pytest.raises(strata.InvalidArgumentError) as e:
        strata.solve(A2d, b, config={"solver": {"tolerence": 1e-6}})
    assert isinstance(e.value, ValueError) and isinstance(e.value, strata.Error)
    text = str(e.value)
    assert "solver.tolerence" in text and "tolerance" in text
    assert ".cpp" not in text  # the library's message, without its C++ location


def test_bad_setting_values_name_the_path(A2d):
    b = rhs(A2d.shape[0])
    with pytest.raises(ValueError, match=r"solver\.type.*cg, bicgstab, gmres, fgmres or fcg"):
        strata.solve(A2d, b, solver="minres")
    with pytest.raises(ValueError, match=r"solver\.tolerance"):
        strata.solve(A2d, b, tol=-1.0)
    with pytest.raises(TypeError, match="config is a list"):
        strata.solve(A2d, b, config=[1])


def test_ineffective_setting_warns(A2d):
    b = rhs(A2d.shape[0])
    with pytest.warns(strata.SettingWarning, match="restart"):
        strata.solve(A2d, b, solver="cg", restart=10)


def test_bsr_matrix():
    A = poisson2d(16)
    b = rhs(A.shape[0])
    B = A.tobsr(blocksize=(2, 2))
    x, info = strata.solve(B, b, precond="jacobi", tol=1e-10)
    assert info["converged"]
    assert relative_residual(A, b, x) <= 1e-10
    # With the scalar diagonal (point_block false; by default a BSR matrix
    # is preconditioned by its inverted 2x2 blocks) the same iterations as
    # CSR: the same operator, the same Jacobi.
    scalar = {"preconditioner": {"jacobi": {"point_block": False}}}
    _, info_scalar = strata.solve(B, b, precond="jacobi", tol=1e-10, config=scalar)
    _, info_csr = strata.solve(A, b, precond="jacobi", tol=1e-10)
    assert info_scalar["iterations"] == info_csr["iterations"]
    assert "block" in info["preconditioner"] and "block" not in info_scalar["preconditioner"]
    # AMG coarsens CSR levels only: the library says so (coarse_size 10:
    # 256 rows would otherwise be one level, solved directly).
    with pytest.raises(strata.InvalidArgumentError, match="BSR"):
        strata.solve(B, b, config={"preconditioner": {"amg": {"coarse_size": 10}}})


def test_any_object_with_csr_arrays():
    A = poisson2d(12)

    class Plain:
        def __init__(self, M):
            self.indptr, self.indices, self.data, self.shape = (
                M.indptr, M.indices, M.data, M.shape)

    b = rhs(A.shape[0])
    x, info = strata.solve(Plain(A), b)
    assert info["converged"] and relative_residual(A, b, x) <= 1e-8


def test_64bit_indices_are_accepted():
    A = poisson2d(12)
    A64 = A.copy()
    # Set directly: SciPy's constructor would narrow them back to int32.
    A64.indptr, A64.indices = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    assert A64.indptr.dtype == np.int64 and A64.indices.dtype == np.int64
    b = rhs(A.shape[0])
    x, info = strata.solve(A64, b)
    assert info["converged"] and relative_residual(A, b, x) <= 1e-8


def test_bad_inputs_name_the_argument_and_the_expectation():
    A = poisson2d(6)
    n = A.shape[0]
    b = rhs(n)
    with pytest.raises(TypeError, match=r"b has dtype float32; expected float64"):
        strata.solve(A, b.astype(np.float32))
    with pytest.raises(TypeError, match=r"A.data has dtype float32; expected float64"):
        strata.solve(A.astype(np.float32), b)
    with pytest.raises(ValueError, match=rf"b has {n - 1} entries; expected {n}"):
        strata.solve(A, b[:-1])
    with pytest.raises(ValueError, match=r"b has shape \(36, 1\); expected a 1-D array"):
        strata.solve(A, b.reshape(-1, 1))
    with pytest.raises(ValueError, match=r"b is not contiguous"):
        strata.solve(A, np.repeat(b, 2)[::2])
    with pytest.raises(ValueError, match=r"x0 has 3 entries; expected 36"):
        strata.solve(A, b, x0=np.zeros(3))
    with pytest.raises(ValueError, match=r"A has shape \(36, 35\); expected a square matrix"):
        strata.solve(A[:, :-1].tocsr(), b)
    with pytest.raises(TypeError, match=r"coo.*expected CSR or BSR.*tocsr"):
        strata.solve(A.tocoo(), b)
    with pytest.raises(TypeError, match=r"b is a list; expected a NumPy array"):
        strata.solve(A, list(b))
    with pytest.raises(TypeError, match=r"A is a ndarray; expected a scipy.sparse CSR"):
        strata.solve(A.toarray(), b)


def test_invalid_matrix_content_is_reported_by_the_library():
    # A duplicate column in row 0 (SciPy keeps it until sum_duplicates()).
    indptr = np.array([0, 2, 3], dtype=np.int32)
    indices = np.array([0, 0, 1], dtype=np.int32)
    data = np.array([1.0, 1.0, 2.0])
    A = sp.csr_matrix((data, indices, indptr), shape=(2, 2))
    with pytest.raises(strata.InvalidArgumentError, match="row 0"):
        strata.solve(A, np.ones(2))
    B = poisson2d(4)
    B.data[5] = np.nan
    with pytest.raises(ValueError, match="finite|NaN|nan"):
        strata.solve(B, np.ones(16))


def test_cupy_input_needs_the_cuda_backend():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if strata.with_cuda:
        pytest.skip("this build has CUDA: tests/python/test_gpu.py covers CuPy")
    A = poisson2d(4)
    import cupyx.scipy.sparse as csp
    with pytest.raises(strata.NotCompiledError, match="without CUDA"):
        strata.solve(csp.csr_matrix(A), cupy.ones(16))


@pytest.mark.skipif(strata_cli() is None,
                    reason="no strata program (build it: cmake --preset cpu && "
                           "cmake --build --preset cpu), or set STRATA_CLI")
def test_same_result_as_the_strata_program(tmp_path):
    """The program and the package read the same settings and run the same
    library: the same iterations and residual history. Every setting is
    given: for those left out the program chooses by the problem (a K-cycle
    and FCG with aggregation), the package takes the library's defaults."""
    A = poisson2d(40)
    b = rhs(A.shape[0], seed=11)
    partial = {"solver": {"tolerance": 1e-9},
               "preconditioner": {"amg": {"coarsening": "aggregation", "coarse_size": 100}}}
    config = strata.AMG(A, config=partial).config  # every setting, explicit
    assert config["preconditioner"]["amg"]["cycle"] == "V"
    x, info = strata.solve(A, b, config=config)
    scipy.io.mmwrite(tmp_path / "A.mtx", A)
    scipy.io.mmwrite(tmp_path / "b.mtx", b.reshape(-1, 1))
    (tmp_path / "config.json").write_text(json.dumps(config))
    run = subprocess.run([strata_cli(), "solve", str(tmp_path / "A.mtx"), "--rhs",
                          str(tmp_path / "b.mtx"), "--config", str(tmp_path / "config.json"),
                          "--host", "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    cli = json.loads(run.stdout)
    assert cli["converged"] and info["converged"]
    assert cli["iterations"] == info["iterations"]
    assert len(cli["levels"]) == info["summary"]["num_levels"]
    assert [l["rows"] for l in cli["levels"]] == [l["rows"] for l in info["summary"]["levels"]]
    np.testing.assert_allclose(cli["residual_history"], info["residual_history"], rtol=1e-6)
    assert cli["operator_complexity"] == pytest.approx(info["summary"]["operator_complexity"])
