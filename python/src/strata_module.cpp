// strata._strata: the nanobind module under the Python package (python/strata).
//
// It is thin on purpose. Settings arrive as the library's JSON text and are
// read by config::config_from_json; the preconditioner comes from
// config::make_preconditioner and the method from config::krylov_method,
// the same functions the strata program and the C API call, so the three
// front ends cannot disagree about a setting. The Python side
// (python/strata/__init__.py) recognises SciPy/CuPy objects and converts
// index types; this file checks every array it is handed (rank, dtype,
// contiguity, length, location) and copies it into library arrays where it
// lives: host arrays on the host, CUDA arrays device to device, never
// through the host.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "strata/amg/amg.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/config.hpp"
#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"
#include "strata/core/executor.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/solver/level_operator.hpp"

namespace nb = nanobind;
using namespace strata;

namespace {

using T = double;
// Any array from Python: NumPy (buffer protocol / DLPack), CuPy (DLPack),
// read-only allowed. Checked by hand below so that the messages name the
// argument; nanobind's own constraint errors would not.
using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

// ------------------------------------------------------------- exceptions

// strata.Error and its subclasses, each also a subclass of the built-in
// exception Python code would catch for that case (ValueError for bad
// arguments, MemoryError, NotImplementedError, OSError).
struct ErrorTypes {
  PyObject* error = nullptr;
  PyObject* invalid_argument = nullptr;
  PyObject* dimension_mismatch = nullptr;
  PyObject* location_mismatch = nullptr;
  PyObject* out_of_memory = nullptr;
  PyObject* not_compiled = nullptr;
  PyObject* not_implemented = nullptr;
  PyObject* io_error = nullptr;
  PyObject* backend_error = nullptr;
};
ErrorTypes errors;

PyObject* new_error_type(nb::module_& m, const char* name, PyObject* base1, PyObject* base2,
                         const char* doc) {
  const std::string qualified = std::string("strata.") + name;
  PyObject* bases = base2 ? PyTuple_Pack(2, base1, base2) : PyTuple_Pack(1, base1);
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  Py_DECREF(bases);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);  // the module keeps a reference
  return type;
}

void register_errors(nb::module_& m) {
  errors.error = new_error_type(m, "Error", PyExc_RuntimeError, nullptr,
                                "An error reported by the Strata library.");
  errors.invalid_argument =
      new_error_type(m, "InvalidArgumentError", errors.error, PyExc_ValueError,
                     "An argument or setting is out of range or malformed.");
  errors.dimension_mismatch = new_error_type(m, "DimensionMismatchError", errors.error,
                                             PyExc_ValueError, "Sizes of operands disagree.");
  errors.location_mismatch =
      new_error_type(m, "LocationMismatchError", errors.error, PyExc_ValueError,
                     "Data in host memory where device memory was expected, or the reverse.");
  errors.out_of_memory = new_error_type(m, "OutOfMemoryError", errors.error, PyExc_MemoryError,
                                        "The host or the CUDA device ran out of memory.");
  errors.not_compiled =
      new_error_type(m, "NotCompiledError", errors.error, PyExc_NotImplementedError,
                     "This build of Strata lacks what was asked for (CUDA).");
  errors.not_implemented = new_error_type(m, "UnsupportedError", errors.error,
                                          PyExc_NotImplementedError,
                                          "The library does not support this combination yet.");
  errors.io_error = new_error_type(m, "FileError", errors.error, PyExc_OSError,
                                   "A file could not be read or written.");
  errors.backend_error = new_error_type(m, "BackendError", errors.error, nullptr,
                                        "CUDA, cuSPARSE or cuSOLVER reported an error.");

  // Most specific first: every library exception derives from strata::error.
  // Python sees message(), the library's text without the C++ source
  // location that what() appends (a Python user cannot act on it).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const invalid_argument& e) {
      PyErr_SetString(errors.invalid_argument, e.message().c_str());
    } catch (const dimension_mismatch& e) {
      PyErr_SetString(errors.dimension_mismatch, e.message().c_str());
    } catch (const location_mismatch& e) {
      PyErr_SetString(errors.location_mismatch, e.message().c_str());
    } catch (const out_of_memory& e) {
      PyErr_SetString(errors.out_of_memory, e.message().c_str());
    } catch (const not_compiled& e) {
      PyErr_SetString(errors.not_compiled, e.message().c_str());
    } catch (const not_implemented& e) {
      PyErr_SetString(errors.not_implemented, e.message().c_str());
    } catch (const io_error& e) {
      PyErr_SetString(errors.io_error, e.message().c_str());
    } catch (const cuda_error& e) {
      PyErr_SetString(errors.backend_error, e.message().c_str());
    } catch (const cusparse_error& e) {
      PyErr_SetString(errors.backend_error, e.message().c_str());
    } catch (const error& e) {
      PyErr_SetString(errors.error, e.message().c_str());
    }
    // Anything else (std::bad_alloc, nanobind's own) falls through to
    // nanobind's default translators.
  });
}

// -------------------------------------------------------------- executors

// One executor per CUDA device for the whole module: every object made
// from arrays on device d shares its stream and memory pool.
Executor cuda_executor(int device) {
  static std::map<int, Executor> cache;
  auto it = cache.find(device);
  if (it == cache.end()) it = cache.emplace(device, Executor::cuda(device)).first;
  return it->second;
}

// --------------------------------------------------------- array checking

std::string dtype_name(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  const std::string bits = std::to_string(t.bits);
  switch (static_cast<code>(t.code)) {
    case code::Int: return "int" + bits;
    case code::UInt: return "uint" + bits;
    case code::Float: return "float" + bits;
    case code::Complex: return "complex" + bits;
    case code::Bool: return "bool";
    default: return "a dtype of DLPack code " + std::to_string(t.code) + " (" + bits + " bits)";
  }
}

template <class E>
nb::dlpack::dtype dtype_of() {
  return nb::dtype<E>();
}

template <class E>
const char* type_name();
template <>
const char* type_name<double>() { return "float64"; }
template <>
const char* type_name<std::int64_t>() { return "int64"; }
template <>
const char* type_name<std::int32_t>() { return "int32"; }

template <class Arr>
std::string shape_text(const Arr& a) {
  std::string s = "(";
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    s += std::to_string(a.shape(d));
    s += (a.ndim() == 1 ? "," : (d + 1 < a.ndim() ? ", " : ""));
  }
  return s + ")";
}

/// Where `a` lives, as an executor (throws naming `name` for any other
/// memory than host or CUDA device, or CUDA memory in a host-only build).
template <class Arr>
Executor executor_of(const Arr& a, const std::string& name) {
  const int type = a.device_type();
  if (type == nb::device::cpu::value) return Executor::host();
  if (type == nb::device::cuda::value) {
#if STRATA_WITH_CUDA
    return cuda_executor(a.device_id());
#else
    throw not_compiled(name +
                       " is in CUDA device memory, but this strata module was built without "
                       "CUDA; expected a NumPy array (or rebuild with nvcc present)");
#endif
  }
  throw invalid_argument(name + " is in memory of DLPack device type " + std::to_string(type) +
                         "; expected host memory (NumPy) or CUDA device memory (CuPy)");
}

/// Checks that `a` is a contiguous 1-D array of E with `n` entries (n < 0:
/// any length) and returns its length.
template <class E, class Arr>
size_type check_vector(const Arr& a, const std::string& name, size_type n,
                       const std::string& length_meaning = "") {
  if (a.ndim() != 1) {
    throw nb::value_error((name + " has shape " + shape_text(a) +
                           "; expected a 1-D array (ravel() it)").c_str());
  }
  if (a.dtype() != dtype_of<E>()) {
    throw nb::type_error((name + " has dtype " + dtype_name(a.dtype()) + "; expected " +
                          type_name<E>())
                             .c_str());
  }
  const auto length = static_cast<size_type>(a.shape(0));
  if (length > 1 && a.stride(0) != 1) {
    throw nb::value_error((name + " is not contiguous (a stride of " + std::to_string(a.stride(0)) +
                           " elements); expected a contiguous array (numpy.ascontiguousarray)")
                              .c_str());
  }
  if (n >= 0 && length != n) {
    throw nb::value_error((name + " has " + std::to_string(length) + " entries; expected " +
                           std::to_string(n) + (length_meaning.empty() ? "" : " (" + length_meaning + ")"))
                              .c_str());
  }
  return length;
}

/// The location check for one more operand: it must live where `exec` is.
void check_same_place(const Executor& exec, const Executor& where, const std::string& name,
                      const std::string& reference) {
  if (exec == where) return;
  throw location_mismatch(name + " is on " + where.name() + " but " + reference + " is on " +
                          exec.name() + "; expected both in one place (move it explicitly: "
                          "numpy.asarray(x.get()) or cupy.asarray(x))");
}

/// A copy of the contiguous array `a` (n entries of E) in a new library
/// array on `exec`: host to host, or device to device.
template <class E, class Arr>
Array<E> copy_in(const Arr& a, size_type n, const Executor& exec) {
  Array<E> out(exec, n);
  if (n > 0) copy_bytes(out.data(), exec, a.data(), exec, sizeof(E) * static_cast<std::size_t>(n));
  return out;
}

// ----------------------------------------------------------------- Matrix

/// A sparse matrix handed over from Python, copied into library arrays
/// where its arrays live. CSR or BSR; the level operator shares it.
class Matrix {
 public:
  static Matrix csr(size_type rows, size_type cols, const InArray& indptr, const InArray& indices,
                    const InArray& data) {
    require(rows >= 0 && cols >= 0, "A has shape (" + std::to_string(rows) + ", " +
                                        std::to_string(cols) + "); expected sizes >= 0");
    check_vector<offset_type>(indptr, "A.indptr", rows + 1, "A.shape[0] + 1");
    const Executor exec = executor_of(indptr, "A.indptr");
    check_same_place(exec, executor_of(indices, "A.indices"), "A.indices", "A.indptr");
    check_same_place(exec, executor_of(data, "A.data"), "A.data", "A.indptr");
    const size_type nnz = check_vector<index_type>(indices, "A.indices", -1);
    check_vector<T>(data, "A.data", nnz, "len(A.indices)");
    Matrix m;
    nb::gil_scoped_release unlocked;
    m.csr_ = std::make_shared<CsrMatrix<T>>(rows, cols, copy_in<offset_type>(indptr, rows + 1, exec),
                                            copy_in<index_type>(indices, nnz, exec),
                                            copy_in<T>(data, nnz, exec));
    m.csr_->validate();  // names the first bad row: unsorted indptr, duplicates, NaN
    m.op_ = std::make_shared<const CsrOperator<T>>(m.csr_);
    return m;
  }

  /// data: the blocks, (num_blocks, r, c) row-major (SciPy's BSR layout).
  static Matrix bsr(size_type block_rows, size_type block_cols, int r, int c,
                    const InArray& indptr, const InArray& indices, const InArray& data) {
    require(block_rows >= 0 && block_cols >= 0 && r >= 1 && c >= 1,
            "A has " + std::to_string(block_rows) + " x " + std::to_string(block_cols) +
                " blocks of " + std::to_string(r) + " x " + std::to_string(c) +
                "; expected counts >= 0 and block sizes >= 1");
    check_vector<offset_type>(indptr, "A.indptr", block_rows + 1, "block rows + 1");
    const Executor exec = executor_of(indptr, "A.indptr");
    check_same_place(exec, executor_of(indices, "A.indices"), "A.indices", "A.indptr");
    check_same_place(exec, executor_of(data, "A.data"), "A.data", "A.indptr");
    const size_type blocks = check_vector<index_type>(indices, "A.indices", -1);
    check_vector<T>(data, "A.data (flattened blocks)", blocks * r * c,
                    "len(A.indices) * blocksize[0] * blocksize[1]");
    Matrix m;
    nb::gil_scoped_release unlocked;
    m.bsr_ = std::make_shared<BsrMatrix<T>>(
        block_rows, block_cols, r, c, copy_in<offset_type>(indptr, block_rows + 1, exec),
        copy_in<index_type>(indices, blocks, exec), copy_in<T>(data, blocks * r * c, exec));
    m.bsr_->validate();
    m.op_ = std::make_shared<const BsrOperator<T>>(m.bsr_);
    return m;
  }

  const std::shared_ptr<const LevelOperator<T>>& op() const { return op_; }
  size_type rows() const { return op_->rows(); }
  size_type cols() const { return op_->cols(); }
  size_type nnz() const { return op_->nnz(); }
  std::string kind() const { return op_->kind(); }
  const Executor& executor() const { return op_->executor(); }
  std::string location() const { return executor().is_cuda() ? "cuda" : "host"; }

 private:
  std::shared_ptr<CsrMatrix<T>> csr_;
  std::shared_ptr<BsrMatrix<T>> bsr_;
  std::shared_ptr<const LevelOperator<T>> op_;
};

// ----------------------------------------------------------------- Solver

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nb::dict level_dict(const amg::LevelSummary& l) {
  nb::dict d;
  d["rows"] = l.rows;
  d["nnz"] = l.nnz;
  d["min_row_nnz"] = l.min_row_nnz;
  d["mean_row_nnz"] = l.mean_row_nnz;
  d["max_row_nnz"] = l.max_row_nnz;
  d["coarsening_ratio"] = l.coarsening_ratio;
  d["kind"] = l.kind;
  d["block_size"] = nb::make_tuple(l.row_block_size, l.col_block_size);
  d["setup_seconds"] = l.setup_seconds;
  d["solve_seconds"] = l.solve_seconds;
  return d;
}

/// Settings, matrix and preconditioner of a solve; kept by strata.AMG
/// between applications and resetups, made and dropped by strata.solve.
class Solver {
 public:
  /// near_null_space: (k, n) C-contiguous, row j the j-th vector of B
  /// (Python transposes SciPy's n x k convention), or None. coordinates:
  /// the nodes' coordinates, interleaved (n entries: block size per node),
  /// from which the rigid-body modes are made, or None. add_translations:
  /// put the block size's translations before near_null_space (a set of
  /// rotations only, as hypre's rigid-body-mode files are).
  Solver(const Matrix& A, const std::string& config_json, nb::object near_null_space,
         nb::object coordinates, bool add_translations)
      : A_(A) {
    if (A.rows() != A.cols()) {
      throw dimension_mismatch("A has shape (" + std::to_string(A.rows()) + ", " +
                               std::to_string(A.cols()) + "); expected a square matrix");
    }
    config_ = config::config_from_json(config_json.empty() ? "{}" : config_json);
    notes_ = config::fit_to_problem(config_, A.rows(), A.executor());
    ineffective_ = config::ineffective_settings(config_, A.executor().location());
    if (!near_null_space.is_none()) {
      const auto B = nb::cast<InArray>(near_null_space);
      if (B.ndim() != 2) {
        throw nb::value_error(("near_null_space has shape " + shape_text(B) +
                               "; expected a 2-D array of n rows and k columns")
                                  .c_str());
      }
      if (B.dtype() != dtype_of<T>()) {
        throw nb::type_error(
            ("near_null_space has dtype " + dtype_name(B.dtype()) + "; expected float64").c_str());
      }
      check_same_place(A.executor(), executor_of(B, "near_null_space"), "near_null_space", "A");
      const auto k = static_cast<size_type>(B.shape(0));
      const auto n = static_cast<size_type>(B.shape(1));
      require(n == A.rows(), "near_null_space has " + std::to_string(n) +
                                 " rows; expected A.shape[0] = " + std::to_string(A.rows()));
      require(k >= 1, "near_null_space has no columns; expected at least one (or None)");
      // Python passes B transposed and C-contiguous: each vector in a row.
      require(B.stride(1) == 1 && (k == 1 || B.stride(0) == n),
              "near_null_space is not contiguous; expected numpy.ascontiguousarray(B)");
      for (size_type j = 0; j < k; ++j) {
        Vector<T> v(A.executor(), n);
        if (n > 0) {
          copy_bytes(v.data(), A.executor(), static_cast<const T*>(B.data()) + j * n,
                     A.executor(), sizeof(T) * static_cast<std::size_t>(n));
        }
        near_null_space_.push_back(std::move(v));
      }
    }
    if (add_translations) {
      require(!near_null_space.is_none(),
              "add_translations=True puts translations before near_null_space, which is None; "
              "expected a near_null_space (coordinates make the translations themselves)");
      near_null_space_ = config::with_translations(std::move(near_null_space_), A.rows(),
                                                   block_size(), A.executor());
    }
    if (!coordinates.is_none()) {
      require(near_null_space_.empty(),
              "near_null_space and coordinates both give the near-null space; expected one");
      const int b = block_size();
      if (b != 2 && b != 3) {
        throw invalid_argument(
            "coordinates give the rigid-body modes of nodes in 2 or 3 dimensions, but the "
            "block size is " + std::to_string(b) +
            "; expected block_size=2 or 3 (with smoothed_aggregation coarsening) or a BSR "
            "matrix of 2x2 or 3x3 blocks");
      }
      const auto xyz = nb::cast<InArray>(coordinates);
      check_vector<T>(xyz, "coordinates (flattened)", A.rows(),
                      "A.shape[0] / block_size nodes, " + std::to_string(b) + " coordinates each");
      check_same_place(A.executor(), executor_of(xyz, "coordinates"), "coordinates", "A");
      near_null_space_ =
          amg::rigid_body_modes(Vector<T>(copy_in<T>(xyz, A.rows(), A.executor())), b);
    } else if (!near_null_space_.empty() && !add_translations) {
      const std::vector<int> missing = config::missing_translations(near_null_space_, block_size());
      if (!missing.empty()) {
        notes_.push_back("near_null_space does not span the constant translation of unknown " +
                         std::to_string(missing.front()) + " of each node (block size " +
                         std::to_string(block_size()) +
                         "); a set of rotations only (as hypre's rigid-body-mode files are) "
                         "needs add_translations=True");
      }
    }
    if (!near_null_space_.empty()) {
      amg::validate_near_null_space(near_null_space_, A.rows(), block_size());
    }
    build();
  }

  /// Unknowns per node: the smoothed-aggregation setting when it is > 0,
  /// else a BSR matrix's square block size, else 1.
  int block_size() const {
    const int b = config::block_size(config_);
    if (b > 1) return b;
    const auto* bsr = dynamic_cast<const BsrOperator<T>*>(A_.op().get());
    return bsr && bsr->matrix().row_block_size() == bsr->matrix().col_block_size()
               ? bsr->matrix().row_block_size()
               : 1;
  }

  /// Solves A x = b; x holds x0 on entry and the solution on exit (both
  /// checked like b). Returns the info dict.
  nb::dict solve(const InArray& b, OutArray x) {
    const Executor& exec = A_.executor();
    const size_type n = A_.rows();
    check_vector<T>(b, "b", n, "A.shape[0]");
    check_same_place(exec, executor_of(b, "b"), "b", "A");
    check_vector<T>(x, "x0", n, "A.shape[0]");
    check_same_place(exec, executor_of(x, "x0"), "x0", "A");
    SolveInfo info;
    double solve_seconds = 0;
    {
      nb::gil_scoped_release unlocked;
      const Vector<T> bv(copy_in<T>(b, n, exec));
      Vector<T> xv(copy_in<T>(x, n, exec));
      const auto start = std::chrono::steady_clock::now();
      info = strata::solve(config::krylov_method(config_), *op_, bv, xv, preconditioner_.get());
      exec.synchronize();
      solve_seconds = seconds_since(start);
      if (n > 0) copy_bytes(x.data(), exec, xv.data(), exec, sizeof(T) * static_cast<std::size_t>(n));
    }
    nb::dict d;
    d["status"] = std::string(to_string(info.status));
    d["converged"] = info.converged();
    d["iterations"] = info.iterations;
    d["initial_residual_norm"] = info.initial_residual_norm;
    d["residual_norm"] = info.residual_norm;
    d["reference_norm"] = info.reference_norm;
    d["relative_residual"] = info.relative_residual;
    d["true_residual_norm"] = info.true_residual_norm;
    d["true_relative_residual"] = info.true_relative_residual;
    d["residual_replacements"] = info.residual_replacements;
    d["residual_history"] = info.residual_history;
    d["message"] = info.message;
    d["setup_seconds"] = setup_seconds_;
    d["solve_seconds"] = solve_seconds;
    d["solver"] = method_name(config::krylov_method(config_));
    d["preconditioner"] = preconditioner_ ? preconditioner_->describe() : std::string("none");
    d["operator"] = op_->kind();
    d["near_null_vectors"] = near_null_space_.size();
    return d;
  }

  /// x = M b: one application of the preconditioner (one AMG cycle from
  /// x = 0); with no preconditioner, x = b.
  void apply(const InArray& b, OutArray x) {
    const Executor& exec = A_.executor();
    const size_type n = A_.rows();
    check_vector<T>(b, "x (the vector M is applied to)", n, "A.shape[0]");
    check_same_place(exec, executor_of(b, "x"), "x", "A");
    check_vector<T>(x, "out", n, "A.shape[0]");
    check_same_place(exec, executor_of(x, "out"), "out", "A");
    nb::gil_scoped_release unlocked;
    const Vector<T> bv(copy_in<T>(b, n, exec));
    Vector<T> xv(exec, n);
    if (preconditioner_) {
      preconditioner_->apply(bv, xv);
    } else {
      copy(bv.values(), xv.values());
    }
    if (n > 0) copy_bytes(x.data(), exec, xv.data(), exec, sizeof(T) * static_cast<std::size_t>(n));
  }

  /// New matrix values. same_pattern (the caller compared indptr and
  /// indices): a value-only resetup of the AMG hierarchy (no new
  /// coarsening) when it kept what that needs; otherwise a new setup.
  /// Returns "values" or "full", what was done.
  std::string resetup(const Matrix& A_new, bool same_pattern) {
    if (A_new.rows() != A_.rows() || A_new.cols() != A_.cols()) {
      throw dimension_mismatch("A_new has shape (" + std::to_string(A_new.rows()) + ", " +
                               std::to_string(A_new.cols()) + "); expected the shape of A, (" +
                               std::to_string(A_.rows()) + ", " + std::to_string(A_.cols()) +
                               "): a new problem size needs a new strata.AMG");
    }
    check_same_place(A_.executor(), A_new.executor(), "A_new", "A");
    nb::gil_scoped_release unlocked;
    const bool same_kind = A_new.kind() == A_.kind();
    A_ = A_new;
    if (same_pattern && same_kind) {
      const auto start = std::chrono::steady_clock::now();
      op_ = operator_of(A_);
      if (config::resetup_preconditioner<T>(preconditioner_.get(), op_)) {
        A_.executor().synchronize();
        setup_seconds_ = seconds_since(start);
        return "values";
      }
    }
    build();
    return "full";
  }

  /// The hierarchy summary as a dict, or None when the preconditioner is
  /// not AMG.
  nb::object summary() const {
    const auto* h = hierarchy();
    if (h == nullptr) return nb::none();
    const amg::HierarchySummary s = h->summary();
    nb::dict d;
    d["coarsening"] = s.coarsening;
    nb::list levels;
    for (const auto& l : s.levels) levels.append(level_dict(l));
    d["levels"] = levels;
    d["num_levels"] = s.levels.size();
    d["operator_complexity"] = s.operator_complexity;
    d["grid_complexity"] = s.grid_complexity;
    d["coarse_solver"] = s.coarse_solver;
    d["cycle_precision"] = s.cycle_precision;
    nb::dict stages;
    for (const auto& [name, seconds] : s.setup_stage_seconds) stages[name.c_str()] = seconds;
    d["setup_stage_seconds"] = stages;
    d["setup_seconds"] = s.setup_seconds;
    d["resetup_seconds"] = s.resetup_seconds;
    d["setup_bytes"] = s.setup_bytes;
    d["setup_peak_bytes"] = s.setup_peak_bytes;
    return d;
  }

  std::string summary_text() const {
    const auto* h = hierarchy();
    if (h == nullptr) return describe();
    return describe() + "\n" + amg::format_summary(h->summary());
  }

  std::string describe() const {
    return method_name(config::krylov_method(config_)) + ", " +
           (preconditioner_ ? preconditioner_->describe() : std::string("no preconditioner"));
  }

  std::string config_json() const { return config::config_to_json(config_); }
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<std::string>& ineffective() const { return ineffective_; }
  bool is_fixed() const { return !preconditioner_ || preconditioner_->is_fixed(); }
  double setup_seconds() const { return setup_seconds_; }
  const Matrix& matrix() const { return A_; }

 private:
  const amg::Hierarchy<T>* hierarchy() const {
    return dynamic_cast<const amg::Hierarchy<T>*>(preconditioner_.get());
  }

  /// The operator to solve with: A's own, or for a CSR matrix with
  /// smoothed aggregation of block size > 1 its BSR copy (converted once
  /// per setup, config::level_operator).
  std::shared_ptr<const LevelOperator<T>> operator_of(const Matrix& A) const {
    if (const auto* csr = dynamic_cast<const CsrOperator<T>*>(A.op().get())) {
      return config::level_operator<T>(config_, csr->shared_matrix());
    }
    return A.op();
  }

  void build() {
    preconditioner_.reset();  // free the old hierarchy before the new one is built
    op_ = operator_of(A_);
    // Each build gets its own copy of B: the coarsening takes it over.
    std::vector<Vector<T>> B;
    for (const auto& v : near_null_space_) B.push_back(v.clone());
    const auto start = std::chrono::steady_clock::now();
    preconditioner_ = config::make_preconditioner<T>(config_, op_, std::move(B));
    A_.executor().synchronize();
    setup_seconds_ = seconds_since(start);
  }

  Matrix A_;
  std::shared_ptr<const LevelOperator<T>> op_;
  config::SolverConfig config_;
  std::vector<std::string> notes_, ineffective_;
  std::vector<Vector<T>> near_null_space_;
  std::unique_ptr<LinearOperator<T>> preconditioner_;
  double setup_seconds_ = 0;
};

}  // namespace

NB_MODULE(_strata, m) {
  m.doc() = "Strata's compiled core; use the strata package (strata.solve, strata.AMG).";
  register_errors(m);
  m.attr("__version__") = STRATA_VERSION_STRING;
  m.attr("with_cuda") = static_cast<bool>(STRATA_WITH_CUDA);
  m.def("cuda_available", &cuda_available,
        "True when this build has CUDA and a CUDA device can be used.");
  m.def("default_config", [] { return config::config_to_json(config::SolverConfig{}); },
        "Every setting at its default, as the JSON that config dicts use.");

  nb::class_<Matrix>(m, "Matrix")
      .def_static("csr", &Matrix::csr, nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"),
                  nb::arg("indices"), nb::arg("data"))
      .def_static("bsr", &Matrix::bsr, nb::arg("block_rows"), nb::arg("block_cols"),
                  nb::arg("row_block_size"), nb::arg("col_block_size"), nb::arg("indptr"),
                  nb::arg("indices"), nb::arg("data"))
      .def_prop_ro("rows", &Matrix::rows)
      .def_prop_ro("cols", &Matrix::cols)
      .def_prop_ro("nnz", &Matrix::nnz)
      .def_prop_ro("kind", &Matrix::kind)
      .def_prop_ro("location", &Matrix::location);

  nb::class_<Solver>(m, "Solver")
      .def(nb::init<const Matrix&, const std::string&, nb::object, nb::object, bool>(),
           nb::arg("A"), nb::arg("config_json"), nb::arg("near_null_space").none(),
           nb::arg("coordinates").none() = nb::none(), nb::arg("add_translations") = false)
      .def("solve", &Solver::solve, nb::arg("b"), nb::arg("x"))
      .def("apply", &Solver::apply, nb::arg("b"), nb::arg("x"))
      .def("resetup", &Solver::resetup, nb::arg("A_new"), nb::arg("same_pattern"))
      .def("summary", &Solver::summary)
      .def("summary_text", &Solver::summary_text)
      .def("block_size", &Solver::block_size)
      .def("describe", &Solver::describe)
      .def("config_json", &Solver::config_json)
      .def_prop_ro("notes", &Solver::notes)
      .def_prop_ro("ineffective_settings", &Solver::ineffective)
      .def_prop_ro("is_fixed", &Solver::is_fixed)
      .def_prop_ro("setup_seconds", &Solver::setup_seconds)
      .def_prop_ro("matrix", &Solver::matrix);
}
