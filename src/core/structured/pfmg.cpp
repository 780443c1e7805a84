// PFMG setup and V-cycle (see strata/structured/pfmg.hpp for the algorithm
// and hypre's pfmg_setup.c for the choices it follows).

#include "strata/structured/pfmg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cuda_bridge.hpp"
#include "core/single_precision.hpp"
#include "core/structured/geometry.hpp"
#include "kernels/base/primitives_kernels.hpp"
#include "kernels/structured/structured_kernels.hpp"
#include "strata/core/primitives.hpp"

namespace strata::structured {

namespace ks = kernels::structured;

const char* to_string(PfmgRelaxation relaxation) noexcept {
  switch (relaxation) {
    case PfmgRelaxation::weighted_jacobi: return "weighted_jacobi";
    case PfmgRelaxation::red_black_gauss_seidel: return "red_black_gauss_seidel";
  }
  return "unknown";
}

const char* to_string(PfmgCoarseOperator coarse_operator) noexcept {
  switch (coarse_operator) {
    case PfmgCoarseOperator::galerkin:
      return "galerkin";
    case PfmgCoarseOperator::non_galerkin:
      return "non_galerkin";
    case PfmgCoarseOperator::automatic:
      return "automatic";
  }
  return "unknown";
}

/// One precision's V-cycle: the operators and weights it reads (the
/// setup's own, or float copies it owns), and its vectors.
template <class S>
struct PfmgCycle {
  std::vector<const StructMatrix<S>*> A;
  std::vector<const Array<S>*> wl, wr;
  /// Right-hand side, iterate and work vector of each level (ghosted).
  mutable std::vector<StructVector<S>> b, x, t;
  /// Whether x of a level holds its values; false: x is zero but was not
  /// written (the cycle writes it before reading it, or zeroes it then).
  mutable std::vector<char> written;
  /// The float copies the pointers above point into (a single-precision
  /// cycle only).
  std::vector<StructMatrix<S>> own_matrices;
  std::vector<Array<S>> own_weights;
  /// Cycles run so far, and the cycle recorded for replay (see
  /// PfmgParams::record_cycle; the single-precision cycle on a device).
  mutable int runs = 0;
  mutable std::shared_ptr<cuda_detail::RecordedWork> recorded;
};

template <class T>
struct Pfmg<T>::Data {
  PfmgParams params;
  /// galerkin or non_galerkin: params.coarse_operator with automatic
  /// resolved.
  PfmgCoarseOperator coarse_operator = PfmgCoarseOperator::galerkin;
  std::shared_ptr<const StructMatrix<T>> A0;
  std::vector<PfmgLevel> info;
  /// Matrices of levels 1..L-1 (level 0 is A0).
  std::vector<StructMatrix<T>> coarse;
  /// Interpolation weights of levels 0..L-2 (fine cells of the level).
  std::vector<Array<T>> wl, wr;
  /// The coarsest level repeats the cycle's pre and post sweeps this often.
  int coarsest_repeats = 1;
  /// The V-cycle on the setup's own operators (cycle() always runs it).
  PfmgCycle<T> full;
  /// The V-cycle on float copies of them (apply() with a single-precision
  /// cycle); null when the cycle is in double.
  std::unique_ptr<PfmgCycle<float>> single;

  const StructMatrix<T>& matrix(int l) const {
    return l == 0 ? *A0 : coarse[static_cast<std::size_t>(l - 1)];
  }
  int levels() const { return static_cast<int>(info.size()); }
};

namespace {

/// Coarse stencil of the Galerkin product after semicoarsening in d (see
/// galerkin_product in kernels/structured/structured_kernels.hpp): a fine
/// cell i = 2I + a (a in {-1, 0, 1}) coupled by offset o reaches the fine
/// cell 2I + a + o_d, which is coarse cell I + t/2 when t = a + o_d is
/// even and interpolates from I + (t-1)/2 and I + (t+1)/2 when t is odd.
Stencil galerkin_stencil(const Stencil& fine, int d) {
  std::set<Index> offsets;
  for (const Index& o : fine.offsets()) {
    for (int a = -1; a <= 1; ++a) {
      const auto t = a + o[d];
      Index c = o;
      if (t % 2 == 0) {
        c[d] = t / 2;
        offsets.insert(c);
      } else {
        c[d] = (t - 1) / 2;
        offsets.insert(c);
        c[d] = (t + 1) / 2;
        offsets.insert(c);
      }
    }
  }
  // Centre first (the smoothers' diagonal), then lexicographic.
  std::vector<Index> list{{0, 0, 0}};
  for (const Index& o : offsets) {
    if (o != Index{0, 0, 0}) list.push_back(o);
  }
  return Stencil(fine.ndim(), std::move(list));
}

ks::OffsetTable offset_table(const Stencil& stencil) {
  ks::OffsetTable table{};
  for (int& e : table.entry) e = -1;
  for (int e = 0; e < stencil.size(); ++e) {
    const Index& o = stencil.offset(e);
    table.entry[(o[0] + 1) + 3 * (o[1] + 1) + 9 * (o[2] + 1)] = e;
  }
  return table;
}

/// In a periodic direction of one cell every offset in that direction
/// reaches the cell itself, so the entries that differ only there act as
/// one. Merged into the entry with a zero component there, the stencil is
/// smaller and its centre is the true diagonal, which the smoothers divide
/// by: the stored centre alone would damp them far too much where the
/// merged entries nearly cancel it (a Laplacian coarsened to one cell in a
/// periodic direction). Nothing to merge: nullopt.
template <class T>
std::optional<StructMatrix<T>> merge_unit_periods(const StructMatrix<T>& A) {
  const StructGrid& grid = A.grid();
  std::array<bool, 3> unit{false, false, false};
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    unit[d] = grid.periodic(d) && grid.box().extent(d) == 1;
    for (const Index& o : A.stencil().offsets()) any = any || (unit[d] && o[d] != 0);
  }
  if (!any) return std::nullopt;
  std::vector<Index> offsets;
  ks::EntryMap map{};
  for (int e = 0; e < A.stencil().size(); ++e) {
    Index o = A.stencil().offset(e);
    for (int d = 0; d < 3; ++d) {
      if (unit[d]) o[d] = 0;
    }
    const auto at = std::find(offsets.begin(), offsets.end(), o);
    map.e[e] = static_cast<int>(at - offsets.begin());
    if (at == offsets.end()) offsets.push_back(o);
  }
  const int merged_entries = static_cast<int>(offsets.size());
  StructMatrix<T> merged(A.executor(), grid, Stencil(grid.ndim(), std::move(offsets)));
  A.executor().visit([&](const auto& e) {
    ks::merge_entries(e, detail::geometry(grid, 0), A.stencil().size(), map, merged_entries,
                      A.coefficients().data(), merged.coefficients().data());
  });
  return merged;
}

/// Parity of the lower corner: the red-black colouring follows the global
/// index (i + j + k), so it does not depend on where a box starts.
int corner_parity(const Box& box) {
  return static_cast<int>(((box.lower[0] + box.lower[1] + box.lower[2]) % 2 + 2) % 2);
}

/// The ghosted b, x and t of every level of a cycle (ghost width 1 covers
/// reach-1 stencils; a 2D grid keeps no z ghosts), allocated on first use:
/// the double cycle's only when cycle() or a double apply() runs.
template <class S>
void allocate_vectors(const PfmgCycle<S>& C) {
  if (C.written.size() == C.A.size()) return;
  // Built aside and moved in at the end: an allocation that fails (out of
  // device memory) leaves the cycle without vectors, not with some.
  std::vector<StructVector<S>> b, x, t;
  for (const auto* A : C.A) {
    b.emplace_back(A->executor(), A->grid(), 1);
    x.emplace_back(A->executor(), A->grid(), 1);
    t.emplace_back(A->executor(), A->grid(), 1);
  }
  C.b = std::move(b);
  C.x = std::move(x);
  C.t = std::move(t);
  C.written.assign(C.A.size(), 0);
}

/// The float cycle of a double one: every operator and weight rounded
/// once. Null, with `why` said, when a coefficient is beyond float's range
/// or a diagonal rounds to zero (the smoothers divide by it).
template <class T>
std::unique_ptr<PfmgCycle<float>> round_to_float(const PfmgCycle<T>& full,
                                                 const std::vector<PfmgLevel>& info,
                                                 std::string& why) {
  auto C = std::make_unique<PfmgCycle<float>>();
  const std::size_t L = full.A.size();
  C->own_matrices.reserve(L);
  C->own_weights.reserve(2 * L);
  const Executor& exec = full.A.front()->executor();
  // Per level: coefficients beyond float's range, and the first diagonal
  // that rounds below float's smallest normal number. Every level's counts
  // stay on the device until all are converted, then come back at once
  // (one wait in place of two per level).
  Array<size_type> checks(exec, static_cast<size_type>(2 * L));
  for (std::size_t l = 0; l < L; ++l) {
    const StructMatrix<T>& A = *full.A[l];
    StructMatrix<float> Af(exec, A.grid(), A.stencil(), A.storage());
    size_type* check = checks.data() + 2 * l;
    exec.visit([&](const auto& e) {
      kernels::base::convert(e, A.coefficients().data(), Af.coefficients().data(),
                             A.coefficients().size(), 0, check);
      ks::bad_diagonal(e, detail::geometry(Af.grid(), 0), Af.coefficients().data(),
                       Af.center_entry(), check + 1);
    });
    C->own_matrices.push_back(std::move(Af));
    if (l + 1 < L) {
      // Weights are -a / c of a nonzero c, about 1 at most: no overflow to
      // count (a plain conversion, no reduction to wait for).
      const auto geo = detail::geometry(A.grid(), 0);
      const auto cells = detail::cell_layout(geo, false);
      for (const Array<T>* w : {full.wl[l], full.wr[l]}) {
        Array<float> wf(w->executor(), w->size());
        A.executor().visit([&](const auto& e) {
          ks::convert_box(e, geo.extent(), cells, wf.data(), cells, w->data(), 0);
        });
        C->own_weights.push_back(std::move(wf));
      }
    }
  }
  const std::vector<size_type> found = checks.to_vector();
  for (std::size_t l = 0; l < L; ++l) {
    if (const size_type beyond = found[2 * l]; beyond > 0) {
      why = "level " + std::to_string(l) + " has " + std::to_string(beyond) +
            " coefficients beyond float's range";
      return nullptr;
    }
    if (const size_type bad = found[2 * l + 1]; bad != ks::no_bad_cell && info[l].relaxed) {
      why = "the diagonal of level " + std::to_string(l) +
            " is below float's smallest normal number at cell " + std::to_string(bad) +
            " (the smoother's 1 / diagonal would overflow)";
      return nullptr;
    }
  }
  for (std::size_t l = 0; l < L; ++l) {
    C->A.push_back(&C->own_matrices[l]);
    if (l + 1 < L) {
      C->wl.push_back(&C->own_weights[2 * l]);
      C->wr.push_back(&C->own_weights[2 * l + 1]);
    }
  }
  allocate_vectors(*C);
  return C;
}

}  // namespace

template <class T>
Pfmg<T>::Pfmg(std::shared_ptr<const StructMatrix<T>> A, PfmgParams params)
    : data_(std::make_unique<Data>()) {
  const char* who = "Pfmg";
  require(A != nullptr, "Pfmg: A must not be null");
  require(params.pre_sweeps >= 0 && params.post_sweeps >= 0 &&
              params.pre_sweeps + params.post_sweeps > 0,
          "Pfmg: pre_sweeps and post_sweeps must be >= 0 and not both 0, got " +
              std::to_string(params.pre_sweeps) + " and " + std::to_string(params.post_sweeps));
  require(params.max_levels >= 0,
          "Pfmg: max_levels must be >= 0 (0: no limit), got " + std::to_string(params.max_levels));
  require(params.jacobi_weight >= 0 && params.jacobi_weight < 2 && std::isfinite(params.jacobi_weight),
          "Pfmg: jacobi_weight must be in [0, 2) (0: hypre's per-level weight), got " +
              std::to_string(params.jacobi_weight));
  bool star = true;
  for (const Index& o : A->stencil().offsets()) {
    const int axes = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);
    star = star && axes <= 1;
    require(axes <= 1 || params.coarse_operator != PfmgCoarseOperator::non_galerkin,
            "Pfmg: coarse_operator non_galerkin takes a star stencil (offsets on the axes "
            "only), but the stencil has the offset (" +
                std::to_string(o[0]) + ", " + std::to_string(o[1]) + ", " + std::to_string(o[2]) +
                "); use galerkin or automatic");
  }
  const StructGrid grid = A->grid();  // a copy: A0 below may replace A
  require(A->center_entry() >= 0, "Pfmg: the stencil has no centre entry (0, 0, 0)");
  require(A->stencil().reach() <= 1, "Pfmg: the stencil reaches " +
                                         std::to_string(A->stencil().reach()) +
                                         " cells; PFMG takes stencils within [-1, 1]");
  Data& D = *data_;
  D.params = params;
  // The setup reads full stencils: a symmetrically stored A is expanded for
  // it, and the cycle then keeps every level in symmetric storage (step 4).
  const bool symmetric = A->storage() == Storage::symmetric;
  std::shared_ptr<const StructMatrix<T>> stored = A;
  D.A0 = symmetric ? std::make_shared<const StructMatrix<T>>(A->to_full()) : std::move(A);
  bool merged_level0 = false;
  // Periodic in every direction with rows summing to zero (to rounding):
  // the constants are in A's null space, and in every coarse operator's
  // (P interpolates constants exactly from such rows, so P^T A P 1 =
  // P^T A 1 = 0); a one-cell coarsest level is then the zero matrix.
  bool constants_in_null_space = false;
  if (grid.periodic(0) && grid.periodic(1) && (grid.ndim() == 2 || grid.periodic(2))) {
    const auto& A0 = *D.A0;
    const double defect = D.A0->executor().visit([&](const auto& e) {
      return double(ks::largest_relative_row_sum(e, detail::geometry(grid, 0), A0.stencil().size(),
                                                 A0.coefficients().data(), A0.center_entry()));
    });
    constants_in_null_space = defect <= 1e-12;
  }
  if (auto merged = merge_unit_periods(*D.A0)) {
    D.A0 = std::make_shared<const StructMatrix<T>>(std::move(*merged));
    merged_level0 = true;
  }
  // A copy: step 4 may replace D.A0, whose executor a reference would name.
  const Executor exec = D.A0->executor();
  const int ndim = grid.ndim();

  // 1. Coupling per direction on the finest matrix -> mesh spacings dxyz
  //    (hypre's PFMGComputeDxyz), and whether the coefficients vary so much
  //    that hypre's weight 2/3 is safer (dxyz_flag).
  std::array<double, 3> dxyz{1.0, 1.0, 1.0};
  bool varying = false;
  {
    const auto geo = detail::geometry(grid, 0);
    const auto shape = detail::shape(D.A0->stencil());
    const double cells = static_cast<double>(grid.points());
    const auto sums = exec.visit([&](const auto& e) {
      return ks::direction_coupling(e, geo, shape, D.A0->coefficients().data(), grid.periodic());
    });
    for (int d = 0; d < ndim; ++d) {
      const double mean = sums[2 * d] / cells, square = sums[2 * d + 1] / cells;
      if (square - mean * mean > 0.1 * mean * mean) varying = true;
      // No coupling: as if infinitely far apart (never the strongest).
      dxyz[d] = mean > 0 ? 1.0 / std::sqrt(mean) : std::numeric_limits<double>::max() / 4;
    }
  }

  D.coarse_operator = params.coarse_operator;
  if (D.coarse_operator == PfmgCoarseOperator::automatic) {
    D.coarse_operator =
        star && !varying ? PfmgCoarseOperator::non_galerkin : PfmgCoarseOperator::galerkin;
  }

  // 2. Levels: direction, relaxation flag and weight (hypre's loop).
  Box cbox = grid.box();
  // smooth[d]: the error is smooth in direction d at the current spacing,
  // because a relaxed level had d strongly coupled at this spacing and d
  // was not coarsened since. Nothing is smooth before the finest level's
  // relaxation, which is therefore always done.
  std::array<bool, 3> smooth{false, false, false};
  for (int l = 0;; ++l) {
    PfmgLevel level;
    for (int d = 0; d < 3; ++d) level.extent[d] = cbox.extent(d);
    // cdir: the strongest direction that can be halved; `strongest`: the
    // strongest with more than one cell, which sets the Jacobi weight of a
    // coarsest level left with odd periods (several cells: damped sweeps
    // as on the levels above, where hypre switches to undamped Jacobi).
    int cdir = -1, strongest = -1;
    double min_dxyz = std::numeric_limits<double>::max();
    double min_any = std::numeric_limits<double>::max();
    double alpha = 0.0;
    for (int d = 0; d < ndim; ++d) {
      // Ties within rounding go to the lower direction: the couplings are
      // sums whose order differs between host and device, and a problem
      // symmetric in its axes must get the same hierarchy on both.
      if (cbox.extent(d) > 1 && dxyz[d] < min_any * (1 - 1e-10)) {
        min_any = dxyz[d];
        strongest = d;
      }
      // A periodic direction is halved only while its period is even, so
      // that the coarse grid is periodic too (period n / 2); hypre stops
      // coarsening altogether there, this goes on in the other directions.
      const bool halvable = !grid.periodic(d) || cbox.extent(d) % 2 == 0;
      if (cbox.extent(d) > 1 && halvable && dxyz[d] < min_dxyz * (1 - 1e-10)) {
        min_dxyz = dxyz[d];
        cdir = d;
      }
      alpha += 1.0 / (dxyz[d] * dxyz[d]);
    }
    const int weight_dir = cdir != -1 ? cdir : strongest;
    double weight = 1.0;
    if (weight_dir != -1) {
      if (varying) {
        weight = 2.0 / 3.0;
      } else if (ndim > 1) {
        double beta = 0.0;
        for (int d = 0; d < ndim; ++d) {
          if (d != weight_dir) beta += 1.0 / (dxyz[d] * dxyz[d]);
        }
        const double share = beta == alpha ? 0.0 : beta / alpha;
        weight = 2.0 / (3.0 - share);
      } else {
        weight = 2.0 / 3.0;
      }
    }
    if (params.max_levels > 0 && l == params.max_levels - 1) cdir = -1;
    if (params.relaxation == PfmgRelaxation::red_black_gauss_seidel) weight = 1.0;
    if (params.jacobi_weight > 0 && params.relaxation == PfmgRelaxation::weighted_jacobi) {
      weight = params.jacobi_weight;
    }
    level.weight = weight;
    level.coarsening_direction = cdir;
    if (cdir == -1) {
      level.relaxed = true;  // the coarsest level is relaxed (unless singular: step 3)
      D.info.push_back(level);
      break;
    }
    // Skip (hypre's skip_relax): relaxing is worthwhile unless the error is
    // already smooth in the direction about to be coarsened. A point
    // smoother smooths the directions strongly coupled on its level: those
    // whose spacing rounds to the smallest one on the log2 scale of
    // semicoarsening (ratio below sqrt(2), i.e. at least half the strongest
    // coupling); a direction one semicoarsening behind (ratio 2, a quarter
    // of the coupling) is not. hypre marks every direction smooth after any
    // relaxation. On an isotropic problem the ratios are exactly 1 or 2 and
    // both rules agree; on (1, 0.001, 0.001) hypre's rule relaxes only while
    // x alone is strong, then skips the first y and z coarsenings with y
    // and z never smoothed, and PCG's iterations grow with the grid.
    level.relaxed = !params.skip_relax || !smooth[cdir];
    if (level.relaxed) {
      for (int d = 0; d < ndim; ++d) smooth[d] = dxyz[d] < std::sqrt(2.0) * min_dxyz;
    }
    smooth[cdir] = false;  // its spacing doubles below
    D.info.push_back(level);
    dxyz[cdir] *= 2;
    // Even fine cells become coarse cells: n -> (n + 1) / 2, from 0.
    const auto n = cbox.extent(cdir);
    cbox.lower = {0, 0, 0};
    cbox.upper = {level.extent[0] - 1, level.extent[1] - 1, level.extent[2] - 1};
    cbox.upper[cdir] = (n + 1) / 2 - 1;
  }

  // 3. Operators: interpolation weights and Galerkin coarse matrices.
  const int L = D.levels();
  {
    // hypre's coarsest-grid rule: sweeps in proportion to the coarsest
    // grid's longest side (more than one cell when max_levels or an odd
    // period stopped the coarsening), at most the work of about four
    // sweeps per level; at least the cycle's own pre and post sweeps.
    const auto& e = D.info.back().extent;
    const std::int64_t longest = std::max({e[0], e[1], e[2]});
    const std::int64_t target = std::min<std::int64_t>(4 * L, longest);
    const int per_repeat = params.pre_sweeps + params.post_sweeps;
    D.coarsest_repeats =
        static_cast<int>(std::max<std::int64_t>(1, (target + per_repeat - 1) / per_repeat));
  }
  // The first bad diagonal of each level, read back once after the loop:
  // a level's weights and coarse operator are computed before its check is
  // known (a bad diagonal gives infinities there, then the error below).
  Array<size_type> first_bad(exec, static_cast<size_type>(L), ks::no_bad_cell);
  for (int l = 0; l < L; ++l) {
    const StructMatrix<T>& Al = D.matrix(l);
    const auto geo = detail::geometry(Al.grid(), 0);
    const int center = Al.center_entry();
    // A one-cell coarsest level of a problem with the constants in its
    // null space is zero up to rounding: the singular problem coarsened
    // down to its null space. Its correction would only add a constant,
    // and dividing by the rounding left of its diagonal would make that
    // huge; like hypre (no relaxation on a zero coarsest diagonal), it is
    // not relaxed. An exactly zero one-cell coarsest diagonal is the same.
    bool singular_coarsest = false;
    if (l == L - 1 && geo.points() == 1) {
      singular_coarsest = constants_in_null_space || Al.coefficients().to_vector()[center] == T{0};
      if (singular_coarsest) D.info[static_cast<std::size_t>(l)].relaxed = false;
    }
    if (!singular_coarsest) {
      exec.visit([&](const auto& e) {
        ks::bad_diagonal(e, geo, Al.coefficients().data(), center, first_bad.data() + l);
      });
    }
    if (l == L - 1) break;
    const int cdir = D.info[static_cast<std::size_t>(l)].coarsening_direction;
    Array<T> wl(exec, geo.points()), wr(exec, geo.points());
    exec.visit([&](const auto& e) {
      ks::interpolation_weights(e, geo, detail::shape(Al.stencil()), Al.coefficients().data(),
                                cdir, grid.periodic(), wl.data(), wr.data());
    });
    const auto& next = D.info[static_cast<std::size_t>(l + 1)];
    // The coarse grid keeps the periodicity (with half the period in cdir).
    StructGrid cgrid = StructGrid::from_extents(ndim, next.extent, grid.periodic());
    const bool galerkin = D.coarse_operator == PfmgCoarseOperator::galerkin;
    Stencil cstencil = galerkin ? galerkin_stencil(Al.stencil(), cdir) : Al.stencil();
    StructMatrix<T> Ac(exec, std::move(cgrid), cstencil);
    const auto cgeo = detail::geometry(Ac.grid(), 0);
    exec.visit([&](const auto& e) {
      if (galerkin) {
        ks::galerkin_product(e, geo, cgeo, cdir, detail::shape(Al.stencil()), grid.periodic(),
                             Al.coefficients().data(), wl.data(), wr.data(), offset_table(cstencil),
                             cstencil.size(), Ac.coefficients().data());
      } else {
        ks::non_galerkin_product(e, geo, cgeo, cdir, detail::shape(Al.stencil()), center,
                                 grid.periodic(), Al.coefficients().data(), wl.data(), wr.data(),
                                 Ac.coefficients().data());
      }
    });
    D.wl.push_back(std::move(wl));
    D.wr.push_back(std::move(wr));
    if (auto merged = merge_unit_periods(Ac)) {
      D.coarse.push_back(std::move(*merged));
    } else {
      D.coarse.push_back(std::move(Ac));
    }
    D.info[static_cast<std::size_t>(l + 1)].stencil_size = D.coarse.back().stencil().size();
  }
  D.info[0].stencil_size = D.A0->stencil().size();
  const std::vector<size_type> bad = first_bad.to_vector();
  for (int l = 0; l < L; ++l) {
    if (bad[static_cast<std::size_t>(l)] != ks::no_bad_cell) {
      throw invalid_argument(std::string(who) + ": the diagonal of level " + std::to_string(l) +
                             " is zero, subnormal or not finite at cell " +
                             std::to_string(bad[static_cast<std::size_t>(l)]) +
                             " (x fastest); PFMG's smoothers divide by it");
    }
  }

  // 4. A symmetrically stored A is symmetric, and so is every coarse
  //    operator (P^T A P, and the ParFlow operator of a symmetric star
  //    stencil) up to rounding: the cycle keeps one entry of each pair,
  //    about 4/7 of the bytes of a 7-point level per sweep and residual.
  //    Level 0 is A itself where nothing was merged.
  if (symmetric) {
    D.A0 = merged_level0 ? std::make_shared<const StructMatrix<T>>(
                               D.A0->to_symmetric(std::numeric_limits<double>::infinity()))
                         : std::move(stored);
    for (auto& Ac : D.coarse) Ac = Ac.to_symmetric(std::numeric_limits<double>::infinity());
  }

  // 5. The cycles: the double one on the operators above, and where the
  //    precision asks for it, a float one on rounded copies of them.
  for (int l = 0; l < L; ++l) {
    D.full.A.push_back(&D.matrix(l));
    if (l + 1 < L) {
      D.full.wl.push_back(&D.wl[static_cast<std::size_t>(l)]);
      D.full.wr.push_back(&D.wr[static_cast<std::size_t>(l)]);
    }
  }
  const bool single = params.cycle_precision == amg::CyclePrecision::single ||
                      (params.cycle_precision == amg::CyclePrecision::automatic && exec.is_cuda() &&
                       grid.points() >= amg::automatic_single_precision_rows);
  if (single) {
    std::string why;
    D.single = round_to_float(D.full, D.info, why);
    if (!D.single && params.cycle_precision == amg::CyclePrecision::single) {
      throw invalid_argument(std::string(who) + ": cycle_precision single: " + why);
    }
  }
}

template <class T>
Pfmg<T>::~Pfmg() = default;

template <class T>
size_type Pfmg<T>::rows() const {
  return data_->A0->grid().points();
}
template <class T>
size_type Pfmg<T>::cols() const {
  return rows();
}
template <class T>
const Executor& Pfmg<T>::executor() const {
  return data_->A0->executor();
}
template <class T>
int Pfmg<T>::num_levels() const noexcept {
  return data_->levels();
}
template <class T>
const PfmgParams& Pfmg<T>::params() const noexcept {
  return data_->params;
}

template <class T>
PfmgCoarseOperator Pfmg<T>::coarse_operator() const noexcept {
  return data_->coarse_operator;
}

template <class T>
amg::CyclePrecision Pfmg<T>::cycle_precision() const noexcept {
  return data_->single ? amg::CyclePrecision::single : amg::CyclePrecision::full;
}

template <class T>
const PfmgLevel& Pfmg<T>::level(int l) const {
  require(l >= 0 && l < num_levels(), "Pfmg::level: l = " + std::to_string(l) + " is not in [0, " +
                                          std::to_string(num_levels()) + ")");
  return data_->info[static_cast<std::size_t>(l)];
}

template <class T>
const StructMatrix<T>& Pfmg<T>::level_matrix(int l) const {
  level(l);  // checks l
  return data_->matrix(l);
}

template <class T>
std::pair<const Array<T>*, const Array<T>*> Pfmg<T>::interpolation(int l) const {
  require(l >= 0 && l + 1 < num_levels(), "Pfmg::interpolation: l = " + std::to_string(l) +
                                              " is not in [0, " + std::to_string(num_levels() - 1) +
                                              ")");
  return {&data_->wl[static_cast<std::size_t>(l)], &data_->wr[static_cast<std::size_t>(l)]};
}

template <class T>
double Pfmg<T>::operator_complexity() const {
  double total = 0;
  for (int l = 0; l < num_levels(); ++l) {
    // The operator's stencil, whatever the storage.
    const auto& info = data_->info[static_cast<std::size_t>(l)];
    total += static_cast<double>(data_->matrix(l).grid().points()) * info.stencil_size;
  }
  return total / (static_cast<double>(data_->A0->grid().points()) * data_->info[0].stencil_size);
}

template <class T>
std::string Pfmg<T>::describe() const {
  return "PFMG(" + std::to_string(num_levels()) + " levels, " +
         to_string(data_->params.relaxation) +
         ", skip=" + (data_->params.skip_relax ? "on" : "off") + ", " +
         to_string(data_->coarse_operator) + " coarse operators" +
         (data_->single ? ", single-precision cycle" : "") + ")";
}

namespace {

/// `sweeps` sweeps of the level's smoother on A x = b; `forward` picks the
/// red-black order (red first before the correction, black first after it,
/// so that the V-cycle is symmetric).
template <class T>
void relax(const StructMatrix<T>& A, const StructVector<T>& b, StructVector<T>& x,
           StructVector<T>& t, const PfmgParams& params, double weight, int sweeps, bool forward) {
  const auto geo = detail::geometry(A.grid(), x.ghost_width());
  const ks::StencilMatrix<T> stencil{detail::shape(A.stencil()), A.coefficients().data(),
                                     A.center_entry(), A.storage() == Storage::symmetric,
                                     A.grid().periodic()};
  const int parity = corner_parity(A.grid().box());
  A.executor().visit([&](const auto& e) {
    for (int s = 0; s < sweeps; ++s) {
      if (params.relaxation == PfmgRelaxation::weighted_jacobi) {
        // One pass into t, then t and x trade storage; x's ghosts (zero,
        // or in a periodic direction the images) are refreshed.
        ks::jacobi_sweep(e, geo, stencil, T(weight), b.data().data(), x.data().data(),
                         t.data().data());
        std::swap(x.data(), t.data());
        x.update_ghosts();
      } else {
        for (int c = 0; c < 2; ++c) {
          const int colour = forward ? c : 1 - c;
          ks::relax_correction(e, geo, stencil, T{1}, b.data().data(), x.data().data(),
                               t.data().data(), colour, parity);
          ks::add_correction(e, geo, t.data().data(), x.data().data(), colour, parity);
          x.update_ghosts();
        }
      }
    }
  });
}

}  // namespace

namespace {

/// The V-cycle on C's finest vectors: b[0] given, x[0] given (written[0])
/// or zero. A level's x that is zero need not be stored as zeros: a
/// Jacobi sweep from zero and an interpolation into it write every cell
/// without reading it; it is zeroed only where a sweep reads it first
/// (red-black Gauss-Seidel, the coarsest level) or an unrelaxed coarsest
/// level is interpolated from.
template <class S>
void run_cycle(const PfmgCycle<S>& C, const std::vector<PfmgLevel>& levels,
               const PfmgParams& params, int coarsest_repeats) {
  const int L = static_cast<int>(levels.size());
  const Executor& exec = C.A.front()->executor();
  const auto at = [](int l) { return static_cast<std::size_t>(l); };
  const auto store_zero = [&](int l) {
    if (!C.written[at(l)]) C.x[at(l)].fill(S{0});
    C.written[at(l)] = 1;
  };
  for (int l = 0; l < L; ++l) {
    const auto& info = levels[at(l)];
    const StructMatrix<S>& A = *C.A[at(l)];
    auto &b = C.b[at(l)], &x = C.x[at(l)], &t = C.t[at(l)];
    if (l == L - 1) {
      // Coarsest: one cell in every direction unless max_levels or odd
      // periods stopped earlier; the sweeps of both halves of the cycle
      // (coarsest_repeats times each), in the order of each half, so that
      // the cycle stays symmetric. A singular one-cell coarsest level is
      // not relaxed (see the setup).
      if (!info.relaxed) break;
      store_zero(l);
      for (int r = 0; r < coarsest_repeats; ++r) {
        relax(A, b, x, t, params, info.weight, params.pre_sweeps, true);
      }
      for (int r = 0; r < coarsest_repeats; ++r) {
        relax(A, b, x, t, params, info.weight, params.post_sweeps, false);
      }
      break;
    }
    if (info.relaxed && params.pre_sweeps > 0) {
      int sweeps = params.pre_sweeps;
      if (!C.written[at(l)] && params.relaxation == PfmgRelaxation::weighted_jacobi) {
        // From x = 0 the first sweep is x = w b / diag: no product.
        const auto geo = detail::geometry(A.grid(), 1);
        exec.visit([&](const auto& e) {
          ks::jacobi_from_zero(e, geo, A.coefficients().data(), A.center_entry(), S(info.weight),
                               b.data().data(), x.data().data());
        });
        x.update_ghosts();
        C.written[at(l)] = 1;
        --sweeps;
      }
      if (sweeps > 0) {
        store_zero(l);
        relax(A, b, x, t, params, info.weight, sweeps, true);
      }
    }
    // Residual, restricted by P^T. Where x is still zero (a skipped level)
    // the residual is b itself: no product needed.
    const StructVector<S>* r = &b;
    if (C.written[at(l)]) {
      residual(A, b, x, t);
      r = &t;
    }
    const auto fine = detail::geometry(A.grid(), 1);
    const auto coarse = detail::geometry(C.A[at(l + 1)]->grid(), 1);
    exec.visit([&](const auto& e) {
      ks::restrict_by_stencil(e, fine, coarse, info.coarsening_direction,
                              A.grid().periodic(info.coarsening_direction), C.wl[at(l)]->data(),
                              C.wr[at(l)]->data(), r->data().data(), C.b[at(l + 1)].data().data());
    });
    C.written[at(l + 1)] = 0;
  }
  for (int l = L - 2; l >= 0; --l) {
    const auto& info = levels[at(l)];
    const StructMatrix<S>& A = *C.A[at(l)];
    store_zero(l + 1);  // only an unrelaxed coarsest level is not written yet
    const auto fine = detail::geometry(A.grid(), 1);
    const auto coarse = detail::geometry(C.A[at(l + 1)]->grid(), 1);
    exec.visit([&](const auto& e) {
      ks::interpolate_add(e, fine, coarse, info.coarsening_direction,
                          A.grid().periodic(info.coarsening_direction), C.wl[at(l)]->data(),
                          C.wr[at(l)]->data(), C.x[at(l + 1)].data().data(),
                          C.x[at(l)].data().data(), C.written[at(l)] != 0);
    });
    C.written[at(l)] = 1;
    C.x[at(l)].update_ghosts();
    if (info.relaxed) {
      relax(A, C.b[at(l)], C.x[at(l)], C.t[at(l)], params, info.weight, params.post_sweeps, false);
    }
  }
  store_zero(0);  // a one-level hierarchy whose only level is not relaxed
}

/// run_cycle for the single-precision cycle, which only apply() runs:
/// recorded at its second run on a device and replayed from then on. The
/// recording holds the vectors' addresses as they were when it was made,
/// and the host's record of the cycle (the vectors swapped by the sweeps,
/// the written flags) ends in the state the recorded cycle leaves, which
/// is all apply() reads afterwards (x of level 0); the cycle never reads
/// the flags of a level before it sets them, so every replay repeats the
/// recorded decisions.
void run_single_cycle(const PfmgCycle<float>& C, const std::vector<PfmgLevel>& levels,
                      const PfmgParams& params, int coarsest_repeats) {
#if STRATA_WITH_CUDA
  const Executor& exec = C.A.front()->executor();
  if (params.record_cycle && exec.is_cuda()) {
    exec.visit([&](const auto& e) {
      if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
        if (!C.recorded && C.runs > 0) {
          C.recorded =
              cuda_detail::record(e, [&] { run_cycle(C, levels, params, coarsest_repeats); });
        }
        if (C.recorded) cuda_detail::replay(e, *C.recorded);
      }
    });
    if (C.recorded) return;
  }
#endif
  run_cycle(C, levels, params, coarsest_repeats);
  ++C.runs;
}

}  // namespace

template <class T>
void Pfmg<T>::cycle(const StructVector<T>& b, StructVector<T>& x) const {
  Data& D = *data_;
  const char* who = "Pfmg::cycle";
  check_location(executor(), b.executor(), "b", who);
  check_location(executor(), x.executor(), "x", who);
  require(b.grid() == D.A0->grid() && x.grid() == D.A0->grid(),
          std::string(who) + ": b and x must be on A's grid " + to_string(D.A0->grid().box()));
  // Level 0 works on copies with PFMG's ghost width, so the caller's
  // vectors may have any ghost width.
  const Box& box = D.A0->grid().box();
  allocate_vectors(D.full);
  Array<T> cells(executor(), box.volume());
  b.get_box_values(box, cells);
  D.full.b[0].set_box_values(box, cells);
  x.get_box_values(box, cells);
  D.full.x[0].set_box_values(box, cells);
  D.full.written[0] = 1;
  run_cycle(D.full, D.info, D.params, D.coarsest_repeats);
  D.full.x[0].get_box_values(box, cells);
  x.set_box_values(box, cells);
}

template <class T>
void Pfmg<T>::apply(const Vector<T>& b, Vector<T>& x) const {
  apply_and_dot(b, x, false);
}

template <class T>
T Pfmg<T>::apply_dot(const Vector<T>& b, Vector<T>& x) const {
  return apply_and_dot(b, x, true);
}

template <class T>
T Pfmg<T>::apply_and_dot(const Vector<T>& b, Vector<T>& x, bool want_dot) const {
  Data& D = *data_;
  const char* who = want_dot ? "Pfmg::apply_dot" : "Pfmg::apply";
  check_location(executor(), b.executor(), "b", who);
  check_location(executor(), x.executor(), "x", who);
  if (b.size() != rows() || x.size() != rows()) {
    throw dimension_mismatch(std::string(who) + ": b has " + std::to_string(b.size()) + " and x " +
                             std::to_string(x.size()) + " entries, expected " +
                             std::to_string(rows()) + " (one per cell)");
  }
  if (!D.single) {
    allocate_vectors(D.full);
    D.full.b[0].copy_from(b);
    D.full.written[0] = 0;  // from x = 0
    run_cycle(D.full, D.info, D.params, D.coarsest_repeats);
    D.full.x[0].copy_to(x);
    return want_dot ? dot(b, x) : T{0};
  }
  // b scaled by a power of two into float's range (and its ghosted
  // layout), x scaled back.
  const int e = strata::detail::single_precision_exponent(b);
  const PfmgCycle<float>& C = *D.single;
  const auto geo = detail::geometry(D.A0->grid(), 1);
  const auto ghosted = detail::cell_layout(geo, true), plain = detail::cell_layout(geo, false);
  executor().visit([&](const auto& ex) {
    ks::convert_box(ex, geo.extent(), ghosted, C.b[0].data().data(), plain, b.data(), e);
  });
  C.b[0].update_ghosts();
  C.written[0] = 0;
  run_single_cycle(C, D.info, D.params, D.coarsest_repeats);
  return executor().visit([&](const auto& ex) {
    if (want_dot) {
      return ks::convert_box_dot(ex, geo.extent(), plain, x.data(), ghosted, C.x[0].data().data(),
                                 -e, plain, b.data());
    }
    ks::convert_box(ex, geo.extent(), plain, x.data(), ghosted, C.x[0].data().data(), -e);
    return T{0};
  });
}

template <class T>
SolveInfo Pfmg<T>::solve(const Vector<T>& b, Vector<T>& x, const KrylovParams& params) const {
  const StructOperator<T> A(data_->A0);
  return solve_stationary(params, A, b, x, *this);
}

template class Pfmg<double>;

}  // namespace strata::structured
