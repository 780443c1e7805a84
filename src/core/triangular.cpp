// TriangularSolver: the analysis (the triangle copied out, levels and level
// order for the level-scheduled solve) and the solves, run where the matrix
// lives.

#include "strata/matrix/triangular.hpp"

#include <atomic>
#include <limits>
#include <string>
#include <type_traits>

#include "core/triangular_internal.hpp"
#include "kernels/matrix/triangular_kernels.hpp"
#include "strata/core/primitives.hpp"

namespace strata {

namespace {

const char* triangle_name(Triangle t) { return t == Triangle::lower ? "lower" : "upper"; }

std::atomic<detail::TriangularDeviceSchedule> device_schedule{
    detail::TriangularDeviceSchedule::per_level};

}  // namespace

namespace detail {
TriangularDeviceSchedule triangular_device_schedule(TriangularDeviceSchedule schedule) {
  return device_schedule.exchange(schedule);
}
}  // namespace detail

template <class T>
TriangularSolver<T>::TriangularSolver(const CsrMatrix<T>& A, const TriangularSolveParams& params)
    : params_(params), rows_(A.rows()) {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch("TriangularSolver: A must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  require(params.algorithm != TriangularAlgorithm::jacobi || params.sweeps >= 1,
          "TriangularSolver: sweeps must be >= 1 for the Jacobi solve, got " +
              std::to_string(params.sweeps));
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  const bool lower = params.triangle == Triangle::lower;
  const bool unit = params.unit_diagonal;

  // The strict triangle with the rows in `order` (natural order when null):
  // counts and 1 / a_ii, a prefix sum, the copy.
  const auto copy_triangle = [&](const index_type* order) {
    ptr_ = Array<offset_type>(exec, n + 1, offset_type{0});
    inv_diag_ = Array<T>(exec, n);
    const size_type bad = exec.visit([&](const auto& e) {
      return kernels::triangular::split_count(e, n, order, A.row_ptr().data(),
                                              A.col_idx().data(), A.values().data(), lower, unit,
                                              ptr_.data(), inv_diag_.data());
    });
    if (bad >= 0) {
      throw invalid_argument("TriangularSolver: row " + std::to_string(bad + 1) + " (1-based) of " +
                             std::to_string(n) +
                             " has a zero, missing or non-finite diagonal entry; the " +
                             triangle_name(params.triangle) +
                             " triangular solve divides by it (unit_diagonal takes it as 1)");
    }
    const offset_type nnz = exclusive_scan(ptr_, ptr_);
    col_ = Array<index_type>(exec, nnz);
    val_ = Array<T>(exec, nnz);
    exec.visit([&](const auto& e) {
      kernels::triangular::split_fill(e, n, order, A.row_ptr().data(), A.col_idx().data(),
                                      A.values().data(), lower, ptr_.data(), col_.data(),
                                      val_.data());
    });
  };

  copy_triangle(nullptr);
  if (params.algorithm == TriangularAlgorithm::jacobi) {
    scratch_ = Array<T>(exec, n);
    return;
  }
  // Level scheduling: levels of the natural-order triangle, the rows sorted
  // by level, then the triangle stored again in that order so that the rows
  // of one level sit together.
  Array<index_type> level(exec, n);
  const size_type count = exec.visit([&](const auto& e) {
    return kernels::triangular::levels(e, n, col_.size(), ptr_.data(), col_.data(), val_.data(),
                                       lower, level.data());
  });
  order_ = Array<index_type>(exec, n);
  Array<offset_type> level_ptr(exec, count + 1, offset_type{0});
  exec.visit([&](const auto& e) {
    kernels::triangular::order_by_level(e, n, count, level.data(), order_.data(),
                                        level_ptr.data());
  });
  level_ptr_ = level_ptr.to_vector();
  copy_triangle(order_.data());
}

template <class T>
void TriangularSolver<T>::solve(const Vector<T>& b, Vector<T>& x) const {
  const Executor& exec = executor();
  check_location(exec, b.executor(), "b", "the triangular factor");
  check_location(exec, x.executor(), "x", "the triangular factor");
  if (b.size() != rows_ || x.size() != rows_) {
    throw dimension_mismatch("TriangularSolver::solve: the triangle is " + std::to_string(rows_) +
                             " x " + std::to_string(rows_) + ", b has " +
                             std::to_string(b.size()) + " and x has " + std::to_string(x.size()) +
                             " entries");
  }
  require(b.data() != x.data() || rows_ == 0,
          "TriangularSolver::solve: b and x must be separate vectors");
  if (params_.algorithm == TriangularAlgorithm::level_scheduled) {
    exec.visit([&](const auto& e) {
      using E = std::decay_t<decltype(e)>;
      if constexpr (std::is_same_v<E, CudaExec>) {
        const auto schedule = device_schedule.load();
        if (schedule == detail::TriangularDeviceSchedule::per_level ||
            schedule == detail::TriangularDeviceSchedule::recorded) {
          // A level holds about 10^4 short rows for a 3D stencil, so one
          // launch from the host per level costs more than its work: the
          // launches are recorded once and replayed (see solve_levels).
          const bool overlap = schedule == detail::TriangularDeviceSchedule::per_level;
          kernels::triangular::solve_levels(e, overlap, graph_, level_ptr_, strict_nnz(),
                                            order_.data(), ptr_.data(), col_.data(), val_.data(),
                                            inv_diag_.data(), b.data(), x.data());
          return;
        }
        if (schedule == detail::TriangularDeviceSchedule::sync_free) {
          if (ready_.size() != rows_ || epoch_ == std::numeric_limits<std::int32_t>::max()) {
            ready_ = Array<std::int32_t>(exec, rows_, 0);
            epoch_ = 0;
          }
          ++epoch_;
          const bool done = kernels::triangular::solve_sync_free(
              e, rows_, order_.data(), ptr_.data(), col_.data(), val_.data(), inv_diag_.data(),
              b.data(), x.data(), ready_.data(), epoch_);
          if (!done) {
            throw error("TriangularSolver: a row of the one-kernel device solve waited past "
                        "its bound for a row it depends on; this is a bug in the sync-free "
                        "schedule (the per-level schedule is the default)");
          }
          return;
        }
      }
      for (std::size_t l = 0; l + 1 < level_ptr_.size(); ++l) {
        kernels::triangular::solve_level(e, level_ptr_[l], level_ptr_[l + 1], order_.data(),
                                         ptr_.data(), col_.data(), val_.data(), inv_diag_.data(),
                                         b.data(), x.data());
      }
    });
    return;
  }
  // Jacobi sweeps alternate between x and the scratch vector; the first
  // target is chosen so that the last sweep writes x.
  const int sweeps = params_.sweeps;
  T* targets[2] = {x.data(), scratch_.data()};
  int target = sweeps % 2 == 1 ? 0 : 1;
  exec.visit([&](const auto& e) {
    const T* previous = nullptr;
    for (int s = 0; s < sweeps; ++s) {
      kernels::triangular::jacobi_sweep(e, rows_, ptr_.data(), col_.data(), val_.data(),
                                        inv_diag_.data(), b.data(), previous, targets[target]);
      previous = targets[target];
      target = 1 - target;
    }
  });
}

template class TriangularSolver<double>;

}  // namespace strata
