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


def elasticity2d(n):
    """Plane-strain linear elasticity (E = 1, nu = 0.3) on the unit square
    cut into n x n bilinear (Q1) squares, the side x = 0 clamped: CSR
    float64 with 2 unknowns per node interleaved (u_x, u_y), and the free
    nodes' coordinates as a (nodes, 2) array. Assembled here from the
    element stiffness (B^T D B by 2x2 Gauss quadrature), independently of
    the library."""
    E, nu, h = 1.0, 0.3, 1.0 / n
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    D = np.array([[lam + 2 * mu, lam, 0], [lam, lam + 2 * mu, 0], [0, 0, mu]])
    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
    K = np.zeros((8, 8))
    g = 1 / np.sqrt(3)
    for xi in (-g, g):
        for eta in (-g, g):
            B = np.zeros((3, 8))
            for a, (ax, ay) in enumerate(corners):
                sx, sy = 2 * ax - 1, 2 * ay - 1
                dx = sx * (1 + sy * eta) / 4 * (2 / h)
                dy = sy * (1 + sx * xi) / 4 * (2 / h)
                B[:, 2 * a:2 * a + 2] = [[dx, 0], [0, dy], [dy, dx]]
            K += B.T @ D @ B * (h / 2) ** 2
    # Free nodes (i, j), i = 1..n, j = 0..n; node p = (i - 1) + n j.
    node = lambda i, j: (i - 1) + n * j  # noqa: E731
    rows, cols, vals = [], [], []
    for ey in range(n):
        for ex in range(n):
            dofs = []
            for ax, ay in corners:
                i, j = ex + ax, ey + ay
                dofs += [-1, -1] if i == 0 else [2 * node(i, j), 2 * node(i, j) + 1]
            for r in range(8):
                for c in range(8):
                    if dofs[r] >= 0 and dofs[c] >= 0:
                        rows.append(dofs[r])
                        cols.append(dofs[c])
                        vals.append(K[r, c])
    size = 2 * n * (n + 1)
    A = sp.coo_matrix((vals, (rows, cols)), shape=(size, size)).tocsr()
    A.sum_duplicates()
    xy = np.array([[i * h, j * h] for j in range(n + 1) for i in range(1, n + 1)])
    return A, xy


def rigid_body_modes2d(xy):
    """The 2D rigid-body modes of nodes at xy: the translations, then the
    rotation (-y, x), as an (2 * nodes, 3) array."""
    B = np.zeros((2 * len(xy), 3))
    B[0::2, 0] = 1
    B[1::2, 1] = 1
    B[0::2, 2] = -xy[:, 1]
    B[1::2, 2] = xy[:, 0]
    return B
