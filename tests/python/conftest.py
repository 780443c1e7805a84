"""Shared problems and checks for the Python package's tests.

Every residual here is computed by SciPy from the returned x, never taken
from the solver's own report, so a wrong solution cannot pass."""

import os
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parents[2]


def poisson2d(n):
    """The 5-point Laplacian on an n x n grid (Dirichlet), CSR float64."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    I = sp.identity(n, format="csr")
    return (sp.kron(I, T) + sp.kron(T, I)).tocsr()


def poisson3d(n):
    """The 7-point Laplacian on an n^3 grid (Dirichlet), CSR float64."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    I = sp.identity(n, format="csr")
    return (sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I)
            + sp.kron(sp.kron(T, I), I)).tocsr()


def relative_residual(A, b, x):
    """||b - A x|| / ||b||, by SciPy on the host."""
    x = np.asarray(x)
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def rhs(n, seed=7):
    return np.random.default_rng(seed).standard_normal(n)


@pytest.fixture(scope="module")
def A2d():
    return poisson2d(40)


def strata_cli():
    """The strata program of a CPU build (build/cpu), or $STRATA_CLI."""
    path = os.environ.get("STRATA_CLI") or str(ROOT / "build" / "cpu" / "bin" / "strata")
    return path if os.path.exists(path) else None
