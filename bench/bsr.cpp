// Blocked against scalar storage for the SAME operators of smoothed
// aggregation on 3D elasticity (issue 23's targets, from the blocked GAMG
// paper: SpMV >= 1.4x, P^T A P >= 1.8x, memory <= 0.6x).
//
//   strata_bench_bsr [--n N] [--repeat R] [--host] [--json FILE]
//
// Problem: gallery::elasticity3d(n) (default n = 64 on the device, 16 with
// --host), A as BSR 3x3 (to_bsr(A, 3)) and as CSR (to_csr of that BSR, so
// both hold the same entries). P is the first prolongator of the
// smoothed-aggregation hierarchy of A (amg::make_smoothed_aggregation_
// coarsening with its defaults and the rigid-body modes: MIS(2) aggregates
// of the nodes, 3x6 blocks by per-aggregate QR, smoothed once with the
// block diagonal), R = P^T (6x3 blocks), A_c = R (A P) (6x6 blocks).
//
// Measured, blocked (BSR) beside scalar (CSR of the same matrices):
//  - y = A x: best of R runs after a warm-up, and its bandwidth (matrix, x
//    and y bytes once);
//  - the Galerkin product first time (GalerkinProduct<BsrMatrix> against
//    GalerkinProduct<CsrMatrix> on to_csr(R), to_csr(A), to_csr(P):
//    symbolic + numeric, allocation included) and value-only recompute,
//    the recompute's two products alone, a fresh product's first recompute
//    (on the device it builds the product's plan) and the plans' bytes;
//  - bytes of A, P, R, A_c in each form, and of every level's A and P of
//    the hierarchy; the peak memory above the inputs while the first
//    product runs (the device memory pool on the GPU);
//  - one V-cycle (Hierarchy::apply) of the blocked hierarchy against the
//    same hierarchy with every level converted to CSR (its coarsening
//    replays the blocked one's P as CSR, so the scalar Galerkin products
//    give the same coarse operators), both with scalar l1-Jacobi (the same
//    arithmetic on both kinds; the SA default, point-block l1-Jacobi, is
//    timed beside it on the blocked hierarchy), and each level's part of
//    a V-cycle (hierarchies that synchronise per level).
// The results are compared: y, A_c (to_csr of the blocked one against the
// scalar one, entry by entry) and the V-cycles' outputs.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "strata/strata.hpp"

namespace {

using namespace strata;
using bench::best_time;
using bench::Clock;
using bench::matrix_bytes;
using bench::peak_extra;
using bench::seconds_since;

struct Options {
  size_type n = 0;  // 0: 64 on the device, 16 on the host
  int repeat = 5;
  bool host = false;
  std::string json;
};

double mb(std::size_t bytes) { return static_cast<double>(bytes) / 1e6; }

/// max |x - y| / max |y| over two equally long host vectors.
double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return -1;
  double worst = 0, scale = 0;
  for (double v : y) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst / std::max(scale, 1e-300);
}

/// The blocked matrix's CSR form against the scalar one: -1 when the
/// patterns differ, else the largest difference relative to max |value|.
double compare(const BsrMatrix<double>& blocked, const CsrMatrix<double>& scalar) {
  const auto b = to_csr(blocked);
  if (b.row_ptr().to_vector() != scalar.row_ptr().to_vector() ||
      b.col_idx().to_vector() != scalar.col_idx().to_vector()) {
    return -1;
  }
  return relative_difference(b.values().to_vector(), scalar.values().to_vector());
}

struct Pair {
  double blocked = 0, scalar = 0;
  /// How many times faster (or smaller, for bytes) the blocked form is.
  double ratio() const { return blocked > 0 ? scalar / blocked : 0; }
};

struct Results {
  std::string device;
  size_type n = 0, rows = 0, coarse_rows = 0;
  size_type a_blocks = 0, p_blocks = 0, ac_blocks = 0;
  int levels = 0;
  Pair spmv_ms, galerkin_ms, recompute_ms, vcycle_ms, peak_mb;
  double vcycle_point_block_ms = 0;
  Pair a_bytes, p_bytes, r_bytes, ac_bytes, total_bytes, hierarchy_bytes;
  double spmv_gbs_blocked = 0, spmv_gbs_scalar = 0;
  double spmv_difference = -1, galerkin_difference = -1, vcycle_difference = -1;
  size_type products = 0;
  /// The recompute's two products: A P (3x3 by 3x6) and R (A P) (6x3 by 3x6).
  Pair ap_recompute_ms, rap_recompute_ms;
  /// Blocked A P and R (A P): a fresh product's first recompute, which on
  /// the device builds the product's plan and runs the planned pass (the
  /// time of construction plus one recompute, less that of construction),
  /// and the plan's bytes.
  double ap_first_ms = 0, rap_first_ms = 0;
  double ap_plan_mb = 0, rap_plan_mb = 0;
  /// One V-cycle's time on each level (rows, blocked ms, scalar ms), from
  /// hierarchies that synchronise per level (profile_levels).
  struct LevelTime {
    size_type rows = 0;
    std::string kind;
    Pair ms;
  };
  std::vector<LevelTime> level_ms;
};

void print_pair(const char* what, const Pair& p, const char* target) {
  std::printf("   %-34s %12.3f %12.3f %9.2fx   %s\n", what, p.blocked, p.scalar, p.ratio(), target);
}

void print(const Results& r) {
  std::printf(
      "\n== elasticity3d n = %lld on %s: %lld unknowns (%lld blocks of 3x3); smoothed-aggregation "
      "P %lld x %lld (%lld blocks of 3x6); A_c %lld blocks of 6x6; %d levels\n",
      (long long)r.n, r.device.c_str(), (long long)r.rows, (long long)r.a_blocks, (long long)r.rows,
      (long long)r.coarse_rows, (long long)r.p_blocks, (long long)r.ac_blocks, r.levels);
  std::printf("   %-34s %12s %12s %10s   %s\n", "", "blocked", "scalar", "ratio", "target");
  print_pair("SpMV y = A x, ms", r.spmv_ms, "speedup >= 1.4x");
  std::printf("   %-34s %12.1f %12.1f\n", "SpMV bandwidth, GB/s", r.spmv_gbs_blocked,
              r.spmv_gbs_scalar);
  print_pair("P^T A P first time, ms", r.galerkin_ms, "speedup >= 1.8x");
  print_pair("P^T A P recompute, ms", r.recompute_ms, "speedup >= 1.8x");
  print_pair("  of which A P recompute, ms", r.ap_recompute_ms, "");
  print_pair("  of which R (A P) recompute, ms", r.rap_recompute_ms, "");
  std::printf("   %-34s %12.3f %12.3f\n", "first recompute, A P / R (A P), ms", r.ap_first_ms,
              r.rap_first_ms);
  std::printf("   %-34s %12.1f %12.1f\n", "their plans, A P / R (A P), MB", r.ap_plan_mb,
              r.rap_plan_mb);
  print_pair("P^T A P peak extra memory, MB", r.peak_mb, "");
  print_pair("V-cycle (scalar l1-Jacobi), ms", r.vcycle_ms, "");
  std::printf("   %-34s %12.3f\n", "V-cycle (point-block l1-Jacobi), ms", r.vcycle_point_block_ms);
  for (std::size_t l = 0; l < r.level_ms.size(); ++l) {
    const auto& t = r.level_ms[l];
    char what[64];
    std::snprintf(what, sizeof what, "  level %zu (%lld rows, %s), ms", l, (long long)t.rows,
                  t.kind.c_str());
    print_pair(what, t.ms, "");
  }
  print_pair("A, MB", r.a_bytes, "");
  print_pair("P, MB", r.p_bytes, "");
  print_pair("R = P^T, MB", r.r_bytes, "");
  print_pair("A_c, MB", r.ac_bytes, "");
  print_pair("A + P + R + A_c, MB", r.total_bytes, "");
  print_pair("every level's A and P, MB", r.hierarchy_bytes, "");
  std::printf(
      "   memory blocked / scalar: %.3f for A + P + R + A_c, %.3f for the hierarchy "
      "(target <= 0.6)\n",
      r.total_bytes.scalar > 0 ? r.total_bytes.blocked / r.total_bytes.scalar : 0.0,
      r.hierarchy_bytes.scalar > 0 ? r.hierarchy_bytes.blocked / r.hierarchy_bytes.scalar : 0.0);
  std::printf("   P^T A P: %lld multiplications (%.2f Gflop)\n", (long long)r.products,
              2e-9 * double(r.products));
  std::printf(
      "   checks, max relative difference blocked against scalar: SpMV %.2e, A_c %s%.2e, "
      "V-cycle %.2e\n",
      r.spmv_difference, r.galerkin_difference < 0 ? "PATTERNS DIFFER " : "", r.galerkin_difference,
      r.vcycle_difference);
}

std::string json_pair(const char* name, const Pair& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "\"%s\": {\"blocked\": %.6g, \"scalar\": %.6g, \"ratio\": %.4f}",
                name, p.blocked, p.scalar, p.ratio());
  return buf;
}

/// The BSR matrix of a BSR level operator (invalid_argument for another kind).
const BsrMatrix<double>& bsr_of(const LevelOperator<double>& op, const char* what) {
  const auto* bsr = dynamic_cast<const BsrOperator<double>*>(&op);
  if (!bsr) {
    throw invalid_argument(std::string(what) + " is a " + op.kind() + " operator, expected BSR");
  }
  return bsr->matrix();
}

/// Bytes of a CSR or BSR level operator.
std::size_t operator_bytes(const LevelOperator<double>& op) {
  if (const auto* bsr = dynamic_cast<const BsrOperator<double>*>(&op)) {
    return matrix_bytes(bsr->matrix());
  }
  return matrix_bytes(csr_matrix(op, "strata_bench_bsr"));
}

/// The transfers of a built hierarchy again, as CSR: level l gets to_csr of
/// that hierarchy's P_l and its transpose, so a hierarchy built with it has
/// the same operators on every level, stored as CSR.
class ReplayAsCsr final : public amg::Coarsening<double> {
 public:
  explicit ReplayAsCsr(const amg::Hierarchy<double>& blocked) : blocked_(blocked) {}
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>&, int level,
                                               amg::StageTimes&) override {
    if (level + 1 >= blocked_.num_levels()) return std::nullopt;
    CsrMatrix<double> P = to_csr(bsr_of(blocked_.level_interpolation_operator(level), "P"));
    CsrMatrix<double> R = transpose(P);
    return amg::Transfer<double>{std::make_shared<const CsrOperator<double>>(std::move(P)),
                                 std::make_shared<const CsrOperator<double>>(std::move(R))};
  }
  std::string name() const override { return "the blocked hierarchy's P as CSR"; }

 private:
  const amg::Hierarchy<double>& blocked_;
};

Results run(const Options& o, const Executor& exec) {
  Results r;
  r.device = exec.name();
  r.n = o.n;
  auto problem = gallery::elasticity3d(exec, o.n);
  const auto A = share(to_bsr(problem.A, 3));
  const CsrMatrix<double> As = to_csr(*A);
  amg::HierarchyParams hp;
  hp.smoother = L1JacobiParams{.omega = 1.0, .point_block = false};
  // Blocked against scalar in one precision (the scalar CSR hierarchy
  // would take single precision by itself at this size).
  hp.cycle_precision = amg::CyclePrecision::full;
  const auto t0 = Clock::now();
  amg::Hierarchy<double> Hb(std::make_shared<const BsrOperator<double>>(A),
                            amg::make_smoothed_aggregation_coarsening<double>(
                                {}, amg::rigid_body_modes(problem.coordinates, 3)),
                            hp);
  std::fprintf(stderr, "[bsr] smoothed-aggregation hierarchy built in %.2f s\n", seconds_since(t0));
  if (Hb.num_levels() < 2) throw invalid_argument("the hierarchy has one level: choose a larger n");
  const BsrMatrix<double>& P = bsr_of(Hb.level_interpolation_operator(0), "P");
  const BsrMatrix<double> R = transpose(P);
  const CsrMatrix<double> Ps = to_csr(P), Rs = to_csr(R);
  r.rows = A->rows();
  r.coarse_rows = P.cols();
  r.a_blocks = A->num_blocks();
  r.p_blocks = P.num_blocks();
  r.levels = Hb.num_levels();

  // SpMV.
  Vector<double> x(Array<double>(exec, [&] {
    std::vector<double> v(static_cast<std::size_t>(A->cols()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + double((i * 7919) % 101) / 101.0;
    return v;
  }()));
  Vector<double> yb(exec, A->rows()), ys(exec, A->rows());
  r.spmv_ms.blocked = 1e3 * best_time(exec, o.repeat, [&] { spmv(*A, x, yb); });
  r.spmv_ms.scalar = 1e3 * best_time(exec, o.repeat, [&] { spmv(As, x, ys); });
  const double vectors = double(x.values().bytes() + yb.values().bytes());
  r.spmv_gbs_blocked = 1e-6 * (double(matrix_bytes(*A)) + vectors) / r.spmv_ms.blocked;
  r.spmv_gbs_scalar = 1e-6 * (double(matrix_bytes(As)) + vectors) / r.spmv_ms.scalar;
  r.spmv_difference = relative_difference(yb.to_vector(), ys.to_vector());

  // Galerkin product, first time (symbolic + numeric) and recompute.
  r.galerkin_ms.blocked =
      1e3 * best_time(exec, o.repeat, [&] { GalerkinProduct<BsrMatrix<double>> G(R, *A, P); });
  r.galerkin_ms.scalar =
      1e3 * best_time(exec, o.repeat, [&] { GalerkinProduct<CsrMatrix<double>> G(Rs, As, Ps); });
  std::unique_ptr<GalerkinProduct<BsrMatrix<double>>> Gb;
  std::unique_ptr<GalerkinProduct<CsrMatrix<double>>> Gs;
  r.peak_mb.blocked = mb(peak_extra(
      exec, [&] { Gb = std::make_unique<GalerkinProduct<BsrMatrix<double>>>(R, *A, P); }));
  r.peak_mb.scalar = mb(peak_extra(
      exec, [&] { Gs = std::make_unique<GalerkinProduct<CsrMatrix<double>>>(Rs, As, Ps); }));
  r.recompute_ms.blocked = 1e3 * best_time(exec, o.repeat, [&] { Gb->recompute(R, *A, P); });
  r.recompute_ms.scalar = 1e3 * best_time(exec, o.repeat, [&] { Gs->recompute(Rs, As, Ps); });
  r.galerkin_difference = compare(Gb->result(), Gs->result());
  {
    // The recompute's two products alone, to say which one the time is in.
    SparseProduct<BsrMatrix<double>> APb(*A, P), RAPb(R, APb.result());
    SparseProduct<CsrMatrix<double>> APs(As, Ps), RAPs(Rs, APs.result());
    r.ap_recompute_ms.blocked = 1e3 * best_time(exec, o.repeat, [&] { APb.recompute(*A, P); });
    r.ap_recompute_ms.scalar = 1e3 * best_time(exec, o.repeat, [&] { APs.recompute(As, Ps); });
    r.rap_recompute_ms.blocked =
        1e3 * best_time(exec, o.repeat, [&] { RAPb.recompute(R, APb.result()); });
    r.rap_recompute_ms.scalar =
        1e3 * best_time(exec, o.repeat, [&] { RAPs.recompute(Rs, APs.result()); });
    r.ap_plan_mb = mb(APb.plan_bytes());
    r.rap_plan_mb = mb(RAPb.plan_bytes());
    const auto first_recompute = [&](const BsrMatrix<double>& X, const BsrMatrix<double>& Y) {
      const double both = best_time(exec, o.repeat, [&] {
        SparseProduct<BsrMatrix<double>> product(X, Y);
        product.recompute(X, Y);
      });
      const double built =
          best_time(exec, o.repeat, [&] { SparseProduct<BsrMatrix<double>> product(X, Y); });
      return 1e3 * (both - built);
    };
    r.ap_first_ms = first_recompute(*A, P);
    r.rap_first_ms = first_recompute(R, APb.result());
  }
  r.products = Gb->products();
  r.ac_blocks = Gb->result().num_blocks();

  // V-cycles: the same hierarchy stored as CSR, and the SA default smoother.
  amg::Hierarchy<double> Hs(std::make_shared<const CsrOperator<double>>(As.clone()),
                            std::make_unique<ReplayAsCsr>(Hb), hp);
  if (Hs.num_levels() != Hb.num_levels()) {
    throw invalid_argument("the CSR hierarchy has " + std::to_string(Hs.num_levels()) +
                           " levels, the blocked one " + std::to_string(Hb.num_levels()));
  }
  const Vector<double> b(exec, A->rows(), 1.0);
  Vector<double> xb(exec, A->rows()), xs(exec, A->rows());
  r.vcycle_ms.blocked = 1e3 * best_time(exec, o.repeat, [&] { Hb.apply(b, xb); });
  r.vcycle_ms.scalar = 1e3 * best_time(exec, o.repeat, [&] { Hs.apply(b, xs); });
  r.vcycle_difference = relative_difference(xb.to_vector(), xs.to_vector());
  {
    amg::HierarchyParams point_block = hp;
    point_block.smoother = L1JacobiParams{};
    amg::Hierarchy<double> Hp(std::make_shared<const BsrOperator<double>>(A),
                              amg::make_smoothed_aggregation_coarsening<double>(
                                  {}, amg::rigid_body_modes(problem.coordinates, 3)),
                              point_block);
    r.vcycle_point_block_ms = 1e3 * best_time(exec, o.repeat, [&] { Hp.apply(b, xb); });
  }
  {
    // Where a V-cycle's time goes: the same two hierarchies again, each
    // synchronising after every level's part (so the sum is a little above
    // the V-cycle's time), over `repeat` cycles after a warm-up.
    amg::HierarchyParams profiled = hp;
    profiled.profile_levels = true;
    amg::Hierarchy<double> Pb(std::make_shared<const BsrOperator<double>>(A),
                              amg::make_smoothed_aggregation_coarsening<double>(
                                  {}, amg::rigid_body_modes(problem.coordinates, 3)),
                              profiled);
    amg::Hierarchy<double> Ps2(std::make_shared<const CsrOperator<double>>(As.clone()),
                               std::make_unique<ReplayAsCsr>(Hb), profiled);
    Pb.apply(b, xb);
    Ps2.apply(b, xs);
    const auto before_b = Pb.summary(), before_s = Ps2.summary();
    for (int k = 0; k < o.repeat; ++k) Pb.apply(b, xb);
    for (int k = 0; k < o.repeat; ++k) Ps2.apply(b, xs);
    const auto after_b = Pb.summary(), after_s = Ps2.summary();
    for (std::size_t l = 0; l < after_b.levels.size() && l < after_s.levels.size(); ++l) {
      Results::LevelTime t;
      t.rows = after_b.levels[l].rows;
      t.kind = after_b.levels[l].kind;
      t.ms.blocked =
          1e3 * (after_b.levels[l].solve_seconds - before_b.levels[l].solve_seconds) / o.repeat;
      t.ms.scalar =
          1e3 * (after_s.levels[l].solve_seconds - before_s.levels[l].solve_seconds) / o.repeat;
      r.level_ms.push_back(t);
    }
  }

  const auto bytes = [](std::size_t b, std::size_t s) { return Pair{mb(b), mb(s)}; };
  r.a_bytes = bytes(matrix_bytes(*A), matrix_bytes(As));
  r.p_bytes = bytes(matrix_bytes(P), matrix_bytes(Ps));
  r.r_bytes = bytes(matrix_bytes(R), matrix_bytes(Rs));
  r.ac_bytes = bytes(matrix_bytes(Gb->result()), matrix_bytes(Gs->result()));
  r.total_bytes =
      Pair{r.a_bytes.blocked + r.p_bytes.blocked + r.r_bytes.blocked + r.ac_bytes.blocked,
           r.a_bytes.scalar + r.p_bytes.scalar + r.r_bytes.scalar + r.ac_bytes.scalar};
  for (int l = 0; l < Hb.num_levels(); ++l) {
    r.hierarchy_bytes.blocked += mb(operator_bytes(Hb.level_operator(l)));
    r.hierarchy_bytes.scalar += mb(operator_bytes(Hs.level_operator(l)));
    if (l + 1 < Hb.num_levels()) {
      r.hierarchy_bytes.blocked += mb(operator_bytes(Hb.level_interpolation_operator(l)));
      r.hierarchy_bytes.scalar += mb(operator_bytes(Hs.level_interpolation_operator(l)));
    }
  }
  return r;
}

int usage() {
  std::fprintf(stderr, "usage: strata_bench_bsr [--n N] [--repeat R] [--host] [--json FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) throw std::runtime_error("missing value after " + arg);
      return argv[++a];
    };
    try {
      if (arg == "--n")
        o.n = std::stoll(value());
      else if (arg == "--repeat")
        o.repeat = std::stoi(value());
      else if (arg == "--host")
        o.host = true;
      else if (arg == "--json")
        o.json = value();
      else
        return usage();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return usage();
    }
  }
  if (o.n == 0) o.n = o.host ? 16 : 64;
  if (o.n < 2 || o.repeat < 1) {
    std::fprintf(stderr, "--n must be >= 2 and --repeat >= 1\n");
    return usage();
  }
  if (!o.host && !cuda_available()) {
    std::fprintf(stderr, "no CUDA device; run with --host for the host backend\n");
    return 0;
  }
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  Results r;
  try {
    r = run(o, exec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_bench_bsr: error: %s\n", e.what());
    return 1;
  }
  print(r);
  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.json.c_str());
      return 1;
    }
    std::fprintf(f,
                 "{\"device\": \"%s\", \"problem\": \"elasticity3d\", \"n\": %lld, \"rows\": %lld, "
                 "\"coarse_rows\": %lld, \"levels\": %d, \"prolongator\": \"smoothed "
                 "aggregation (level 0)\",\n",
                 r.device.c_str(), (long long)r.n, (long long)r.rows, (long long)r.coarse_rows,
                 r.levels);
    std::fprintf(f, " %s,\n %s,\n %s,\n %s,\n %s,\n %s,\n %s,\n",
                 json_pair("spmv_ms", r.spmv_ms).c_str(),
                 json_pair("galerkin_ms", r.galerkin_ms).c_str(),
                 json_pair("galerkin_recompute_ms", r.recompute_ms).c_str(),
                 json_pair("galerkin_peak_mb", r.peak_mb).c_str(),
                 json_pair("vcycle_ms", r.vcycle_ms).c_str(),
                 json_pair("operator_mb", r.total_bytes).c_str(),
                 json_pair("hierarchy_mb", r.hierarchy_bytes).c_str());
    std::fprintf(f,
                 " \"spmv_max_relative_difference\": %.3e, "
                 "\"galerkin_max_relative_difference\": %.3e, "
                 "\"vcycle_max_relative_difference\": %.3e, \"vcycle_point_block_ms\": %.6g}\n",
                 r.spmv_difference, r.galerkin_difference, r.vcycle_difference,
                 r.vcycle_point_block_ms);
    std::fclose(f);
  }
  const bool ok = r.spmv_difference >= 0 && r.spmv_difference < 1e-10 &&
                  r.galerkin_difference >= 0 && r.galerkin_difference < 1e-10 &&
                  r.vcycle_difference >= 0 && r.vcycle_difference < 1e-8;
  if (!ok) std::fprintf(stderr, "strata_bench_bsr: blocked and scalar results DIFFER\n");
  return ok ? 0 : 1;
}
