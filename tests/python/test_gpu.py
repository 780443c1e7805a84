"""CuPy on the CUDA backend: device arrays in, device arrays out, checked
against SciPy on the host and against the host solve.

Skipped where CuPy, a CUDA device or the CUDA backend is missing; with
STRATA_REQUIRE_CUDA=1 (scripts/python-check on the GPU machine) each of
those is a failure instead, so a GPU run cannot pass by skipping."""

import os

import numpy as np
import pytest

import strata
from conftest import poisson2d, poisson3d, relative_residual, rhs


def _why_not():
    try:
        import cupy  # noqa: F401
        import cupyx.scipy.sparse  # noqa: F401
    except Exception as e:  # ImportError, or a CuPy without its CUDA libraries
        return f"CuPy is not usable here ({type(e).__name__}: {e})"
    if not strata.with_cuda:
        return "this strata build has no CUDA backend (nvcc was not found at pip install)"
    if not strata.cuda_available():
        return "no CUDA device is visible"
    return None


@pytest.fixture(autouse=True)
def gpu():
    reason = _why_not()
    if reason is not None:
        if os.environ.get("STRATA_REQUIRE_CUDA") == "1":
            pytest.fail(f"STRATA_REQUIRE_CUDA=1 but {reason}")
        pytest.skip(reason)


# The defaults follow the executor (hybrid Gauss-Seidel and a 64-row
# coarsest level on the host, l1-Jacobi and 600 rows on the device), so a
# comparison of the two backends names the same settings for both.
# PMIS named: the automatic classical splitting is HMIS on the host.
SAME_ON_BOTH = {"preconditioner": {"amg": {"smoother": "l1jacobi", "coarse_size": 600,
                                           "classical": {"splitting": "pmis"}}}}


def to_device(A):
    import cupyx.scipy.sparse as csp
    return csp.csr_matrix(A)


def test_cupy_in_cupy_out_matches_scipy_and_the_host():
    import cupy
    A = poisson3d(24)
    b = rhs(A.shape[0])
    x, info = strata.solve(to_device(A), cupy.asarray(b), config=SAME_ON_BOTH)
    assert isinstance(x, cupy.ndarray) and x.dtype == cupy.float64 and x.shape == b.shape
    assert info["converged"]
    res = relative_residual(A, b, cupy.asnumpy(x))
    assert res <= 1e-8
    assert info["true_relative_residual"] == pytest.approx(res, rel=1e-5)
    # The residual on the device too (cupyx SpMV), without SciPy.
    Ad = to_device(A)
    bd = cupy.asarray(b)
    assert float(cupy.linalg.norm(bd - Ad @ x) / cupy.linalg.norm(bd)) <= 1e-8
    # The same algorithm as the host (PMIS and aggregation are reproducible
    # on both); rounding may move the count by one.
    _, host = strata.solve(A, b, config=SAME_ON_BOTH)
    assert abs(info["iterations"] - host["iterations"]) <= 1
    assert info["summary"]["levels"][1]["rows"] == host["summary"]["levels"][1]["rows"]


@pytest.mark.parametrize("solver,config", [
    ("cg", {"preconditioner": {"amg": {"coarsening": "aggregation"}}}),
    ("fcg", {"preconditioner": {"amg": {"coarsening": "aggregation", "cycle": "K"}}}),
    ("gmres", {}),
    ("bicgstab", {"preconditioner": {"type": "l1jacobi"}}),
])
def test_device_methods(solver, config):
    import cupy
    A = poisson2d(64)
    b = rhs(A.shape[0], 4)
    x, info = strata.solve(to_device(A), cupy.asarray(b), solver=solver, config=config, tol=1e-9)
    assert info["converged"], info["status"]
    assert relative_residual(A, b, cupy.asnumpy(x)) <= 1e-9


def test_device_x0_and_int64_indices():
    import cupy
    A = poisson2d(32)
    b = rhs(A.shape[0])
    Ad = to_device(A)
    Ad.indptr = Ad.indptr.astype(cupy.int64)  # converted on the device
    x, info = strata.solve(Ad, cupy.asarray(b))
    x2, info2 = strata.solve(Ad, cupy.asarray(b), x0=x)
    assert info2["iterations"] <= 1
    assert relative_residual(A, b, cupy.asnumpy(x2)) <= 1e-8


def test_host_and_device_do_not_mix():
    import cupy
    A = poisson2d(8)
    with pytest.raises(strata.LocationMismatchError, match="b is a CuPy"):
        strata.solve(A, cupy.ones(64))
    with pytest.raises(strata.LocationMismatchError, match="b is a NumPy"):
        strata.solve(to_device(A), np.ones(64))


def test_amg_on_the_device_with_resetup_and_cupyx_cg():
    import cupy
    import cupyx.scipy.sparse.linalg as cspla
    A = poisson2d(48)
    n = A.shape[0]
    Ad = to_device(A)
    M = strata.AMG(Ad, config=SAME_ON_BOTH)
    u = cupy.asarray(rhs(n))
    Mu = M.matvec(u)
    assert isinstance(Mu, cupy.ndarray)
    # The device cycle equals the host cycle up to rounding.
    host = strata.AMG(A, config=SAME_ON_BOTH)
    np.testing.assert_allclose(cupy.asnumpy(Mu), host @ cupy.asnumpy(u), rtol=1e-8,
                               atol=1e-10 * float(cupy.abs(Mu).max()))
    # As M in CuPy's own CG.
    b = cupy.asarray(rhs(n, 3))
    # CuPy calls the relative tolerance tol (rtol in newer releases).
    import inspect
    rtol = "rtol" if "rtol" in inspect.signature(cspla.cg).parameters else "tol"
    x, code = cspla.cg(Ad, b, M=M, maxiter=200, **{rtol: 1e-8})
    assert code == 0
    assert relative_residual(A, cupy.asnumpy(b), cupy.asnumpy(x)) <= 1e-7
    # Value-only resetup on the device.
    A_new = A * 2.0
    assert M.resetup(to_device(A_new)) == "values"
    x, info = M.solve(b)
    assert isinstance(x, cupy.ndarray) and info["converged"]
    assert relative_residual(A_new, cupy.asnumpy(b), cupy.asnumpy(x)) <= 1e-8


def test_blocked_smoothed_aggregation_with_device_coordinates():
    """Blocked SA from CuPy: the CSR matrix becomes BSR 2x2 on the device,
    the coordinates' rigid-body modes are made there, and the solve takes
    the host's iterations (the same aggregates, from the same hash)."""
    import cupy
    from conftest import elasticity2d
    A, xy = elasticity2d(24)
    b = rhs(A.shape[0])
    settings = {"preconditioner": {"amg": {"coarsening": "sa", "coarse_size": 600,
                                           "smoothed_aggregation": {"block_size": 2}}}}
    x, info = strata.solve(to_device(A), cupy.asarray(b), config=settings,
                           coordinates=cupy.asarray(xy))
    assert isinstance(x, cupy.ndarray) and info["converged"]
    assert info["operator"] == "BSR 2x2" and info["near_null_vectors"] == 3
    assert relative_residual(A, b, cupy.asnumpy(x)) <= 1e-8
    _, host = strata.solve(A, b, config=settings, coordinates=xy)
    assert abs(info["iterations"] - host["iterations"]) <= 1
    # Coordinates on the host for a device matrix: a location error.
    with pytest.raises(strata.LocationMismatchError):
        strata.solve(to_device(A), cupy.asarray(b), config=settings, coordinates=xy)
