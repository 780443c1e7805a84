"""Strata: algebraic multigrid and Krylov solvers for SciPy and CuPy.

    import strata
    x, info = strata.solve(A, b)                     # AMG-preconditioned CG
    M = strata.AMG(A)                                 # a scipy LinearOperator
    x, code = scipy.sparse.linalg.cg(A, b, M=M)

Settings use the names of the library's JSON configuration (the same as
``strata solve --config`` and ``--print-config``): ``config={"solver":
{"tolerance": 1e-10}, "preconditioner": {"amg": {"coarsening":
"aggregation"}}}``. docs/python.md is the guide.

Data decides where a solve runs: SciPy/NumPy input runs on the host
(OpenMP), CuPy input on its CUDA device. Nothing is moved between host and
device behind your back; mixing the two is an error.
"""

import json as _json
import warnings as _warnings

import numpy as _np
import scipy.sparse as _sp
import scipy.sparse.linalg as _spla

from . import _strata
from ._strata import (  # noqa: F401  (re-exported)
    BackendError,
    DimensionMismatchError,
    Error,
    InvalidArgumentError,
    FileError,
    LocationMismatchError,
    NotCompiledError,
    OutOfMemoryError,
    UnsupportedError,
    cuda_available,
)

__version__ = _strata.__version__
#: True when this build has the CUDA backend (CuPy input accepted).
with_cuda = _strata.with_cuda

__all__ = [
    "solve",
    "AMG",
    "default_config",
    "cuda_available",
    "with_cuda",
    "Error",
    "InvalidArgumentError",
    "DimensionMismatchError",
    "LocationMismatchError",
    "OutOfMemoryError",
    "NotCompiledError",
    "UnsupportedError",
    "FileError",
    "BackendError",
    "SettingWarning",
]


class SettingWarning(UserWarning):
    """A setting that was given but changes nothing in this solve (the
    library's ineffective_settings), or one the library adjusted to the
    problem (a GMRES restart longer than the number of unknowns)."""


def default_config():
    """Every setting at its default, as a nested dict (the JSON names)."""
    return _json.loads(_strata.default_config())


# ------------------------------------------------------------------ inputs


def _is_cupy(a):
    return type(a).__module__.split(".")[0] in ("cupy", "cupyx")


def _xp(a):
    """numpy or cupy, whichever owns the array a."""
    if _is_cupy(a):
        import cupy

        return cupy
    return _np


def _sync_cupy(*arrays):
    """Waits for CuPy's current stream when any array is a CuPy array: the
    library works on its own CUDA stream, which is not ordered after
    CuPy's, so the inputs must be complete before it reads them."""
    if any(a is not None and _is_cupy(a) for a in arrays):
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def _check_array(a, name):
    if not (hasattr(a, "__array_interface__") or hasattr(a, "__dlpack__")
            or hasattr(a, "__cuda_array_interface__")):
        raise TypeError(
            f"{name} is a {type(a).__name__}; expected a NumPy array "
            f"(or a CuPy array with the CUDA backend)")


def _index_array(a, name, dtype, limit=None):
    """a as a contiguous array of the integer dtype the library takes
    (int64 row offsets, int32 column indices), converted where it lives."""
    _check_array(a, name)
    xp = _xp(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} has dtype {a.dtype}; expected an integer array")
    if a.dtype != dtype:
        if limit is not None and a.size and int(a.max()) >= limit:
            raise ValueError(
                f"{name} holds {int(a.max())}; expected values below 2**31 "
                f"(the library's column indices are 32-bit)")
        a = a.astype(dtype)
    return xp.ascontiguousarray(a)


def _values_array(a, name):
    _check_array(a, name)
    if a.dtype != _np.float64:
        raise TypeError(
            f"{name} has dtype {a.dtype}; expected float64 "
            f"(convert explicitly, e.g. A.astype(numpy.float64))")
    return a


def _matrix(A, name="A"):
    """The library matrix for a SciPy/CuPy sparse matrix or any object with
    CSR arrays (indptr, indices, data, shape)."""
    fmt = getattr(A, "format", None)
    if _sp.issparse(A) or _is_cupy(A):
        if fmt not in ("csr", "bsr"):
            raise TypeError(
                f"{name} is a {type(A).__name__} ({fmt} format); expected CSR or BSR "
                f"(convert explicitly with {name}.tocsr())")
    elif not all(hasattr(A, k) for k in ("indptr", "indices", "data", "shape")):
        raise TypeError(
            f"{name} is a {type(A).__name__}; expected a scipy.sparse CSR or BSR "
            f"matrix, a cupyx.scipy.sparse CSR matrix, or an object with the CSR "
            f"arrays indptr, indices, data and shape")
    shape = tuple(int(s) for s in A.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{name} has shape {shape}; expected a square matrix")
    data = _values_array(A.data, f"{name}.data")
    indptr = _index_array(A.indptr, f"{name}.indptr", _np.int64)
    indices = _index_array(A.indices, f"{name}.indices", _np.int32, limit=2**31)
    _sync_cupy(data, indptr, indices)
    if fmt == "bsr":
        r, c = (int(s) for s in A.blocksize)
        data = _xp(data).ascontiguousarray(data).reshape(-1)
        return _strata.Matrix.bsr(shape[0] // r, shape[1] // c, r, c, indptr, indices, data)
    return _strata.Matrix.csr(shape[0], shape[1], indptr, indices, data)


def _vector(v, name, like):
    """v checked as a float64 1-D array; like is the matrix (for messages)."""
    _check_array(v, name)
    if v.dtype != _np.float64:
        raise TypeError(
            f"{name} has dtype {v.dtype}; expected float64 "
            f"(convert explicitly, e.g. {name}.astype(numpy.float64))")
    if v.ndim != 1:
        raise ValueError(f"{name} has shape {tuple(v.shape)}; expected a 1-D array of "
                         f"{like.rows} values")
    if v.shape[0] != like.rows:
        raise ValueError(f"{name} has {v.shape[0]} entries; expected {like.rows} "
                         f"(A.shape[0])")
    on_device = _is_cupy(v)
    if on_device != (like.location == "cuda"):
        where = "a CuPy (device) array" if on_device else "a NumPy (host) array"
        a_where = "on the CUDA device" if like.location == "cuda" else "on the host"
        raise LocationMismatchError(
            f"{name} is {where} but A is {a_where}; expected both in one place "
            f"(move one explicitly: cupy.asarray / cupy.asnumpy)")
    return v


def _config_json(config, **settings):
    """The JSON text for the library: config (a dict with the library's
    names, or a JSON string) plus the keyword settings, each given as a
    dotted path. A keyword that contradicts config is an error."""
    if config is None:
        cfg = {}
    elif isinstance(config, str):
        cfg = _json.loads(config)
    elif isinstance(config, dict):
        cfg = _json.loads(_json.dumps(config))  # a deep copy; rejects non-JSON values
    else:
        raise TypeError(f"config is a {type(config).__name__}; expected a dict "
                        f"(or JSON text) with the library's setting names")
    for path, (value, keyword) in settings.items():
        if value is None:
            continue
        node = cfg
        keys = path.split(".")
        for k in keys[:-1]:
            node = node.setdefault(k, {})
            if not isinstance(node, dict):
                raise ValueError(f"config['{k}'] is not an object; expected a dict")
        if keys[-1] in node and node[keys[-1]] != value:
            raise ValueError(
                f"{keyword}={value!r} contradicts config {path} = {node[keys[-1]]!r}; "
                f"give it once")
        node[keys[-1]] = value
    return _json.dumps(cfg)


def _warn_settings(solver):
    for line in list(solver.notes) + list(solver.ineffective_settings):
        _warnings.warn(line, SettingWarning, stacklevel=3)


def _near_null_space(B, A, name="near_null_space"):
    """B (n x k, or a 1-D vector) as the (k, n) C-contiguous array the
    module takes: each vector contiguous."""
    if B is None:
        return None
    _check_array(B, name)
    xp = _xp(B)
    if B.dtype != _np.float64:
        raise TypeError(f"{name} has dtype {B.dtype}; expected float64")
    if B.ndim == 1:
        B = B.reshape(-1, 1)
    if B.ndim != 2 or B.shape[0] != A.rows:
        raise ValueError(f"{name} has shape {tuple(B.shape)}; expected ({A.rows}, k): "
                         f"one column per near-null vector")
    Bt = xp.ascontiguousarray(B.T)
    _sync_cupy(Bt)
    return Bt


def _coordinates(xyz, A):
    """Nodal coordinates (nodes x dimension, or flat and interleaved) as the
    flat float64 array of A.shape[0] values the module takes."""
    if xyz is None:
        return None
    _check_array(xyz, "coordinates")
    if xyz.dtype != _np.float64:
        raise TypeError(f"coordinates has dtype {xyz.dtype}; expected float64")
    if xyz.ndim not in (1, 2):
        raise ValueError(f"coordinates has shape {tuple(xyz.shape)}; expected (nodes, "
                         f"dimension) or a flat interleaved array")
    flat = _xp(xyz).ascontiguousarray(xyz).reshape(-1)  # row-major: x, y, z of node 0 first
    _sync_cupy(flat)
    return flat


def _blocked_settings(block_size, coarsening=None):
    """The keyword settings of blocked smoothed aggregation, for _config_json."""
    if block_size is not None and (not isinstance(block_size, (int, _np.integer))
                                   or isinstance(block_size, bool) or block_size < 1):
        raise ValueError(f"block_size is {block_size!r}; expected an integer >= 1 "
                         f"(unknowns per node: 3 for 3D elasticity)")
    return {"preconditioner.amg.smoothed_aggregation.block_size":
            (None if block_size is None else int(block_size), "block_size"),
            "preconditioner.amg.coarsening": (coarsening, "coarsening")}


def _new_output(b, x0, name="x0"):
    """The array the solution is written into: a copy of x0, or zeros, in
    b's place (NumPy or CuPy)."""
    xp = _xp(b)
    if x0 is None:
        return xp.zeros(b.shape[0], dtype=_np.float64)
    return xp.array(x0, dtype=_np.float64, copy=True, order="C")


# ------------------------------------------------------------------- solve


def solve(A, b, solver=None, precond=None, config=None, x0=None, tol=None,
          atol=None, maxiter=None, restart=None, coarsening=None, block_size=None,
          near_null_space=None, coordinates=None, add_translations=False):
    """Solves A x = b; returns (x, info).

    A: scipy.sparse CSR or BSR matrix (float64), a cupyx.scipy.sparse CSR
    matrix, or any object with the CSR arrays indptr, indices, data and
    shape. b: a float64 NumPy array (CuPy with the CUDA backend, then x is
    a CuPy array too).

    solver ("solver.type": cg, bicgstab, gmres, fgmres, fcg), precond
    ("preconditioner.type": none, jacobi, l1jacobi, chebyshev, amg), tol
    ("solver.tolerance", relative to ||b||), atol
    ("solver.absolute_tolerance"), maxiter ("solver.max_iterations") and
    restart ("solver.restart") are shortcuts for settings of config, a dict
    with the library's JSON names; defaults are the library's (CG with
    classical AMG, tolerance 1e-8). x0: the initial guess (zeros).

    Systems (elasticity): coarsening ("preconditioner.amg.coarsening":
    "smoothed_aggregation" or "sa" for blocked smoothed aggregation) and
    block_size ("preconditioner.amg.smoothed_aggregation.block_size",
    unknowns per node; a CSR A is then solved as BSR of these blocks; a BSR
    A gives its own). near_null_space: an n x k float64 array of near-null
    vectors (rigid-body modes); add_translations=True puts the block_size
    translations before them (for rotations only). coordinates: the nodes'
    coordinates (nodes x dimension, or flat interleaved, dimension = block
    size 2 or 3), whose rigid-body modes become the near-null space.

    info: status (the library's name: "converged", "max_iterations",
    "diverged", ...), converged, iterations, true_relative_residual
    (||b - A x|| / ||b|| recomputed at the end), residual_history (one
    norm per iteration, iteration 0 first), setup_seconds, solve_seconds,
    and the rest of the library's SolveInfo. Not converging is a result,
    not an exception.
    """
    M = _matrix(A)
    b = _vector(b, "b", M)
    x = _new_output(b, None if x0 is None else _vector(x0, "x0", M))
    text = _config_json(config,
                        **{"solver.type": (solver, "solver"),
                           "preconditioner.type": (precond, "precond"),
                           "solver.tolerance": (tol, "tol"),
                           "solver.absolute_tolerance": (atol, "atol"),
                           "solver.max_iterations": (maxiter, "maxiter"),
                           "solver.restart": (restart, "restart"),
                           **_blocked_settings(block_size, coarsening)})
    _sync_cupy(b, x)
    s = _strata.Solver(M, text, _near_null_space(near_null_space, M), _coordinates(coordinates, M),
                       bool(add_translations))
    _warn_settings(s)
    info = s.solve(b, x)
    info["summary"] = s.summary()
    return x, info


# --------------------------------------------------------------------- AMG


class AMG(_spla.LinearOperator):
    """An AMG hierarchy of A as a preconditioner: a
    scipy.sparse.linalg.LinearOperator whose matvec applies one cycle, so
    it can be SciPy's M= (cg, gmres, ...), and which can solve on its own
    with the configured Krylov method (solve()).

    config: settings with the library's JSON names ("preconditioner.amg"
    and "solver"); preconditioner.type must be amg (the default).
    near_null_space: an n x k float64 array, the near-null space B handed
    to aggregation (needs config preconditioner.amg.coarsening
    "aggregation" or "smoothed_aggregation"; classical AMG takes none);
    add_translations=True puts the block_size translations before it.
    coordinates: nodal coordinates whose rigid-body modes become B instead.
    block_size: unknowns per node for smoothed aggregation (the setting
    preconditioner.amg.smoothed_aggregation.block_size; a CSR A is then
    held as BSR of these blocks; None: the setting's, or a BSR A's own).
    coarsening: the setting preconditioner.amg.coarsening ("sa" for
    smoothed aggregation).
    """

    def __init__(self, A, config=None, near_null_space=None, block_size=None,
                 coordinates=None, add_translations=False, coarsening=None):
        text = _config_json(config, **_blocked_settings(block_size, coarsening))
        cfg = _json.loads(text)
        ptype = cfg.get("preconditioner", {}).get("type", "amg")
        if ptype != "amg":
            raise ValueError(f"config preconditioner.type is {ptype!r}; strata.AMG "
                             f"expected 'amg' (use strata.solve for other preconditioners)")
        self._matrix = _matrix(A)
        self._solver = _strata.Solver(self._matrix, text,
                                      _near_null_space(near_null_space, self._matrix),
                                      _coordinates(coordinates, self._matrix),
                                      bool(add_translations))
        _warn_settings(self._solver)
        self._on_device = self._matrix.location == "cuda"
        #: Unknowns per node the solver works with (1: scalar).
        self.block_size = self._solver.block_size()
        self._pattern = self._pattern_of(A)
        #: "setup", then "values" or "full" after each resetup().
        self.last_setup = "setup"
        super().__init__(dtype=_np.float64, shape=(self._matrix.rows, self._matrix.cols))

    @staticmethod
    def _pattern_of(A):
        return (A.indptr.copy(), A.indices.copy(), getattr(A, "format", "csr"),
                tuple(getattr(A, "blocksize", (1, 1))))

    def _same_pattern(self, A):
        indptr, indices, fmt, blocks = self._pattern
        if getattr(A, "format", "csr") != fmt or tuple(getattr(A, "blocksize", (1, 1))) != blocks:
            return False
        if A.indptr.shape != indptr.shape or A.indices.shape != indices.shape:
            return False
        xp = _xp(A.indptr)
        return bool(xp.array_equal(A.indptr, indptr)) and bool(xp.array_equal(A.indices, indices))

    def _matvec(self, x):
        x = x.reshape(-1)
        xp = _xp(x)
        if x.dtype != _np.float64:
            x = x.astype(_np.float64)
        x = xp.ascontiguousarray(x)
        _vector(x, "x", self._matrix)
        out = xp.empty(self.shape[0], dtype=_np.float64)
        _sync_cupy(x)
        self._solver.apply(x, out)
        return out

    def matvec(self, x):
        """M x: one cycle applied to x (NumPy, or CuPy on the device; SciPy's
        own matvec would turn a CuPy array into NumPy, so CuPy input is
        taken here, which also lets cupyx.scipy.sparse.linalg use M)."""
        if _is_cupy(x):
            if x.ndim == 2 and x.shape[1] != 1:
                raise ValueError(f"x has shape {tuple(x.shape)}; expected ({self.shape[1]},) "
                                 f"or ({self.shape[1]}, 1)")
            return self._matvec(x).reshape(x.shape)
        return super().matvec(x)

    def dot(self, x):
        if _is_cupy(x):
            return self.matvec(x)
        return super().dot(x)

    def _rmatvec(self, x):
        # One V-cycle with symmetric smoothing is symmetric for symmetric A;
        # SciPy asks for the adjoint only in methods that need it (BiCG, QMR).
        return self._matvec(x)

    def solve(self, b, x0=None):
        """Solves A x = b with the configured Krylov method ("solver"
        settings: CG by default) preconditioned by this hierarchy; returns
        (x, info) as strata.solve does."""
        b = _vector(b, "b", self._matrix)
        x = _new_output(b, None if x0 is None else _vector(x0, "x0", self._matrix))
        _sync_cupy(b, x)
        info = self._solver.solve(b, x)
        info["summary"] = self._solver.summary()
        return x, info

    def resetup(self, A_new):
        """New values for A (a Newton step, a time step). When A_new has the
        pattern (indptr, indices) of the current matrix, the hierarchy is
        refreshed without a new coarsening (Hierarchy::resetup: new P
        values, Galerkin products on the stored plans, smoothers, coarse
        inverse); otherwise it is set up again. Returns "values" or "full"
        (also kept in last_setup)."""
        M = _matrix(A_new, "A_new")
        same = self._same_pattern(A_new)
        self.last_setup = self._solver.resetup(M, same)
        self._matrix = M
        self._pattern = self._pattern_of(A_new)
        return self.last_setup

    def summary(self):
        """The hierarchy as a dict: levels (rows, nnz, row lengths,
        coarsening ratio, setup seconds per level), num_levels,
        operator_complexity, grid_complexity, coarsening, coarse_solver,
        cycle_precision ("double" or "single", see the configuration's
        preconditioner.amg.cycle_precision), setup_seconds, resetup_seconds, setup_bytes, setup_peak_bytes,
        setup_stage_seconds."""
        return self._solver.summary()

    def __str__(self):
        return self._solver.summary_text()

    @property
    def config(self):
        """Every setting in effect, as a dict (the library's JSON)."""
        return _json.loads(self._solver.config_json())

    @property
    def setup_seconds(self):
        """Seconds of the last setup or resetup."""
        return self._solver.setup_seconds

    def __repr__(self):
        s = self.summary()
        return (f"<strata.AMG {self.shape[0]}x{self.shape[1]} on "
                f"{self._matrix.location}: {s['num_levels']} levels, "
                f"operator complexity {s['operator_complexity']:.3f}>")
