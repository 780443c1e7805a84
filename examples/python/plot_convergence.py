#!/usr/bin/env python3
"""Solve a 3D Poisson problem (7-point Laplacian, built with SciPy) with
Strata's AMG-preconditioned CG, classical and aggregation AMG side by side,
and plot the residual history and the rows of each level to a PNG.

    python3 examples/python/plot_convergence.py [--n 32] [--output convergence.png]
"""

import argparse

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import strata  # noqa: E402


def poisson3d(n):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    I = sp.identity(n, format="csr")
    return (sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I)
            + sp.kron(sp.kron(T, I), I)).tocsr()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=32, help="grid points per direction")
    parser.add_argument("--output", default="convergence.png", help="PNG to write")
    args = parser.parse_args()

    A = poisson3d(args.n)
    b = np.ones(A.shape[0])
    runs = {}
    for coarsening in ("classical", "aggregation"):
        x, info = strata.solve(A, b, config={
            "solver": {"tolerance": 1e-10},
            "preconditioner": {"amg": {"coarsening": coarsening}}})
        # Checked here, independently of the solver's report.
        residual = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        print(f"{coarsening:12s} {info['status']:10s} {info['iterations']:3d} iterations, "
              f"||b - A x|| / ||b|| = {residual:.2e}, setup {info['setup_seconds']:.3f} s, "
              f"solve {info['solve_seconds']:.3f} s, operator complexity "
              f"{info['summary']['operator_complexity']:.2f}")
        runs[coarsening] = info

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, info in runs.items():
        history = np.asarray(info["residual_history"]) / info["residual_history"][0]
        left.semilogy(history, marker="o", markersize=3, label=f"{name} ({info['iterations']} it)")
        rows = [level["rows"] for level in info["summary"]["levels"]]
        right.semilogy(range(len(rows)), rows, marker="s", label=name)
    left.set(xlabel="iteration", ylabel="||r|| / ||r0||",
             title=f"AMG-CG, 3D Poisson {args.n}^3")
    right.set(xlabel="level", ylabel="rows", title="level sizes")
    right.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
