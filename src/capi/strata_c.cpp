// The C API (include/strata/strata_c.h): handles over the C++ objects,
// exceptions turned into status codes and a per-thread message.

#include "strata/strata_c.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "strata/amg/amg.hpp"
#include "strata/config.hpp"
#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/solver/level_operator.hpp"

struct strata_matrix_handle {
  // Shared with the solvers made from it; set_values writes through it.
  std::shared_ptr<strata::CsrMatrix<double>> A;
  // strata_matrix_set_near_null_space: copied into each solver made after.
  int block_size = 1;
  std::vector<strata::Vector<double>> near_null_space;
};

struct strata_solver_handle {
  std::shared_ptr<strata::CsrMatrix<double>> A;
  strata::config::SolverConfig config;
  // What the solver works on: A's CSR operator, or its BSR copy for
  // smoothed aggregation with block_size > 1 (config::level_operator),
  // remade from A on each resetup.
  std::shared_ptr<const strata::LevelOperator<double>> op;
  std::vector<strata::Vector<double>> near_null_space;
  std::unique_ptr<strata::LinearOperator<double>> preconditioner;
};

namespace {

using namespace strata;

thread_local std::string last_error;

strata_status fail(strata_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

/// Runs f, turning every exception into a status and the message.
template <class F>
strata_status guarded(const char* function, F&& f) {
  try {
    f();
    return STRATA_SUCCESS;
  } catch (const out_of_memory& e) {
    return fail(STRATA_ERROR_OUT_OF_MEMORY, std::string(function) + ": " + e.what());
  } catch (const invalid_argument& e) {
    return fail(STRATA_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + e.what());
  } catch (const dimension_mismatch& e) {
    return fail(STRATA_ERROR_DIMENSION_MISMATCH, std::string(function) + ": " + e.what());
  } catch (const location_mismatch& e) {
    return fail(STRATA_ERROR_LOCATION_MISMATCH, std::string(function) + ": " + e.what());
  } catch (const not_compiled& e) {
    return fail(STRATA_ERROR_NOT_COMPILED, std::string(function) + ": " + e.what());
  } catch (const cuda_error& e) {
    return fail(STRATA_ERROR_BACKEND, std::string(function) + ": " + e.what());
  } catch (const cusparse_error& e) {
    return fail(STRATA_ERROR_BACKEND, std::string(function) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return fail(STRATA_ERROR_OUT_OF_MEMORY, std::string(function) + ": out of host memory");
  } catch (const std::exception& e) {
    return fail(STRATA_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(STRATA_ERROR_INTERNAL, std::string(function) + ": an unknown exception");
  }
}

void require_pointer(const void* p, const char* name, const char* function) {
  if (p == nullptr) {
    throw invalid_argument(std::string(function) + ": " + name + " is NULL");
  }
}

Executor executor_of(strata_location location) {
  switch (location) {
    case STRATA_HOST: return Executor::host();
    case STRATA_DEVICE: return Executor::cuda();
    default: break;
  }
  throw invalid_argument("location is " + std::to_string(static_cast<int>(location)) +
                         "; expected STRATA_HOST (0) or STRATA_DEVICE (1)");
}

/// n values from the caller's memory on `exec` into a new array there.
template <class T>
Array<T> copied(const Executor& exec, const T* source, size_type n) {
  Array<T> a(exec, n);
  if (n > 0) copy_bytes(a.data(), exec, source, exec, sizeof(T) * static_cast<std::size_t>(n));
  return a;
}

/// The text into buffer when it fits; the size it needs into *needed.
void give_text(const std::string& text, char* buffer, size_t size, size_t* needed) {
  if (needed) *needed = text.size() + 1;
  if (buffer == nullptr || size == 0) return;
  if (size < text.size() + 1) {
    throw invalid_argument("the buffer has " + std::to_string(size) + " bytes, the text needs " +
                           std::to_string(text.size() + 1));
  }
  std::memcpy(buffer, text.c_str(), text.size() + 1);
}

void build_preconditioner(strata_solver_handle& s) {
  s.preconditioner.reset();  // free the old hierarchy before the new one is built
  s.op = config::level_operator<double>(s.config, s.A);
  std::vector<Vector<double>> B;  // the coarsening takes its own copy
  for (const auto& v : s.near_null_space) B.push_back(v.clone());
  s.preconditioner = config::make_preconditioner<double>(s.config, s.op, std::move(B));
}

/// The matrix's block size into the settings of a smoothed-aggregation
/// solver that left its own at 0; a different one is refused.
void apply_block_size(config::SolverConfig& cfg, int matrix_block_size, const char* fn) {
  if (matrix_block_size <= 1 ||
      cfg.preconditioner.amg.coarsening != config::CoarseningType::smoothed_aggregation) {
    return;
  }
  int& setting = cfg.preconditioner.amg.smoothed_aggregation.block_size;
  if (setting == 0) {
    setting = matrix_block_size;
  } else if (setting != matrix_block_size) {
    throw invalid_argument(std::string(fn) +
                           ": preconditioner.amg.smoothed_aggregation.block_size is " +
                           std::to_string(setting) +
                           " but strata_matrix_set_near_null_space gave block_size " +
                           std::to_string(matrix_block_size) + "; expected one size (or 0)");
  }
}

}  // namespace

extern "C" {

const char* strata_last_error(void) { return last_error.c_str(); }

const char* strata_version(void) { return STRATA_VERSION_STRING; }

int strata_cuda_available(void) { return cuda_available() ? 1 : 0; }

strata_status strata_matrix_create_csr(strata_location location, int64_t rows, int64_t cols,
                                       const int64_t* row_ptr, const int32_t* col_idx,
                                       const double* values, strata_matrix* matrix) {
  const char* fn = "strata_matrix_create_csr";
  return guarded(fn, [&] {
    require_pointer(matrix, "matrix (the output handle)", fn);
    *matrix = nullptr;
    require_pointer(row_ptr, "row_ptr", fn);
    require(rows >= 0 && cols >= 0, std::string(fn) + ": rows and cols must be >= 0, got " +
                                        std::to_string(rows) + " x " + std::to_string(cols));
    const Executor exec = executor_of(location);
    Array<offset_type> rp = copied<offset_type>(exec, row_ptr, rows + 1);
    offset_type nnz = 0;
    copy_bytes(&nnz, Executor::host(), rp.data() + rows, exec, sizeof nnz);
    require(nnz >= 0, std::string(fn) + ": row_ptr[rows] is " + std::to_string(nnz) +
                          "; expected the number of entries (>= 0)");
    if (nnz > 0) {
      require_pointer(col_idx, "col_idx", fn);
      require_pointer(values, "values", fn);
    }
    auto A = std::make_shared<CsrMatrix<double>>(rows, cols, std::move(rp),
                                                 copied<index_type>(exec, col_idx, nnz),
                                                 copied<double>(exec, values, nnz));
    A->validate();
    *matrix = new strata_matrix_handle{std::move(A), 1, {}};
  });
}

strata_status strata_matrix_set_values(strata_matrix matrix, const double* values) {
  const char* fn = "strata_matrix_set_values";
  return guarded(fn, [&] {
    require_pointer(matrix, "matrix", fn);
    CsrMatrix<double>& A = *matrix->A;
    if (A.nnz() == 0) return;
    require_pointer(values, "values", fn);
    copy_bytes(A.values().data(), A.executor(), values, A.executor(),
               sizeof(double) * static_cast<std::size_t>(A.nnz()));
  });
}

strata_status strata_matrix_size(strata_matrix matrix, int64_t* rows, int64_t* cols,
                                 int64_t* nnz) {
  const char* fn = "strata_matrix_size";
  return guarded(fn, [&] {
    require_pointer(matrix, "matrix", fn);
    if (rows) *rows = matrix->A->rows();
    if (cols) *cols = matrix->A->cols();
    if (nnz) *nnz = matrix->A->nnz();
  });
}

strata_status strata_matrix_set_near_null_space(strata_matrix matrix, int block_size, int64_t k,
                                                const double* near_null) {
  const char* fn = "strata_matrix_set_near_null_space";
  return guarded(fn, [&] {
    require_pointer(matrix, "matrix", fn);
    const CsrMatrix<double>& A = *matrix->A;
    if (block_size < 1 || A.rows() % block_size != 0) {
      throw invalid_argument(std::string(fn) + ": block_size is " + std::to_string(block_size) +
                             "; expected the unknowns per node, >= 1 and dividing the " +
                             std::to_string(A.rows()) + " rows");
    }
    require(k >= 0, std::string(fn) + ": k is " + std::to_string(k) +
                        "; expected the number of vectors (>= 0)");
    if (k > 0) require_pointer(near_null, "near_null", fn);
    std::vector<Vector<double>> B;
    for (int64_t j = 0; j < k; ++j) {
      B.emplace_back(copied<double>(A.executor(), near_null + j * A.rows(), A.rows()));
    }
    matrix->block_size = block_size;
    matrix->near_null_space = std::move(B);
  });
}

strata_status strata_matrix_destroy(strata_matrix matrix) {
  delete matrix;
  return STRATA_SUCCESS;
}

strata_status strata_solver_create(strata_matrix matrix, const char* json_config,
                                   strata_solver* solver) {
  const char* fn = "strata_solver_create";
  return guarded(fn, [&] {
    require_pointer(solver, "solver (the output handle)", fn);
    *solver = nullptr;
    require_pointer(matrix, "matrix", fn);
    const CsrMatrix<double>& A = *matrix->A;
    if (A.rows() != A.cols()) {
      throw dimension_mismatch(std::string(fn) + ": the matrix must be square, it is " +
                               std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
    }
    auto s = std::make_unique<strata_solver_handle>();
    s->A = matrix->A;
    if (json_config && json_config[0] != '\0') s->config = config::config_from_json(json_config);
    apply_block_size(s->config, matrix->block_size, fn);
    for (const auto& v : matrix->near_null_space) s->near_null_space.push_back(v.clone());
    build_preconditioner(*s);
    *solver = s.release();
  });
}

strata_status strata_solver_resetup(strata_solver solver) {
  const char* fn = "strata_solver_resetup";
  return guarded(fn, [&] {
    require_pointer(solver, "solver", fn);
    // A CSR operator shares A, whose values changed in place; a blocked
    // copy is remade from A's new values (same pattern).
    if (solver->op->kind() != "CSR") {
      solver->op = config::level_operator<double>(solver->config, solver->A);
    }
    if (!config::resetup_preconditioner<double>(solver->preconditioner.get(), solver->op)) {
      build_preconditioner(*solver);
    }
  });
}

strata_status strata_solver_solve(strata_solver solver, const double* b, double* x,
                                  strata_solve_info* info) {
  const char* fn = "strata_solver_solve";
  return guarded(fn, [&] {
    require_pointer(solver, "solver", fn);
    require_pointer(b, "b", fn);
    require_pointer(x, "x", fn);
    const CsrMatrix<double>& A = *solver->A;
    const Executor& exec = A.executor();
    const size_type n = A.rows();
    const Vector<double> bv(copied<double>(exec, b, n));
    Vector<double> xv(copied<double>(exec, x, n));
    const SolveInfo result = solve(config::krylov_method(solver->config), *solver->op, bv, xv,
                                   solver->preconditioner.get());
    if (n > 0) copy_bytes(x, exec, xv.data(), exec, sizeof(double) * static_cast<std::size_t>(n));
    if (info) {
      *info = strata_solve_info{};
      info->converged = result.converged() ? 1 : 0;
      info->iterations = result.iterations;
      info->initial_residual_norm = result.initial_residual_norm;
      info->residual_norm = result.residual_norm;
      info->relative_residual = result.relative_residual;
      info->true_relative_residual = result.true_relative_residual;
      std::snprintf(info->status, sizeof info->status, "%s", to_string(result.status));
      std::snprintf(info->message, sizeof info->message, "%s", result.message.c_str());
    }
  });
}

strata_status strata_solver_config(strata_solver solver, char* buffer, size_t size,
                                   size_t* needed) {
  const char* fn = "strata_solver_config";
  return guarded(fn, [&] {
    require_pointer(solver, "solver", fn);
    give_text(config::config_to_json(solver->config), buffer, size, needed);
  });
}

strata_status strata_solver_describe(strata_solver solver, char* buffer, size_t size,
                                     size_t* needed) {
  const char* fn = "strata_solver_describe";
  return guarded(fn, [&] {
    require_pointer(solver, "solver", fn);
    const std::string text = method_name(config::krylov_method(solver->config)) + ", " +
                             (solver->preconditioner ? solver->preconditioner->describe()
                                                     : std::string("no preconditioner"));
    give_text(text, buffer, size, needed);
  });
}

strata_status strata_solver_destroy(strata_solver solver) {
  delete solver;
  return STRATA_SUCCESS;
}

}  // extern "C"
