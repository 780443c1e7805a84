// SpGEMM and Galerkin benchmark: Strata's products beside cuSPARSE's SpGEMM
// on the device (and Strata's on the host with --host).
//
//   strata_bench_spgemm [--case NAME]... [--n7 N] [--n27 N] [--ng N] [--repeat R]
//                       [--cusparse-alg default|alg2|alg3] [--no-cusparse]
//                       [--json FILE] [--host] [--spgemm-stages]
//
// Cases (all by default except big):
//   poisson7     A*A, 7-point Laplacian on n7^3 (default 256)
//   diffusion27  A*A, 27-point operator on n27^3 (default 128)
//   galerkin-agg R*A*P, A 7-point on ng^3 (default 256), P piecewise constant
//                on 2x2x2 aggregates (one entry per row), R = P^T
//   galerkin-lin R*A*P, same A, P trilinear interpolation from the coarse grid
//                of every second point (1, 2, 4 or 8 entries, 3.4 a row on
//                average; rows normalised to sum 1), R = P^T
//   big          A*A, 27-point on 260^3: C has 2.17e9 > 2^31 nonzeros (Strata
//                only: cuSPARSE takes 32-bit indices); rows checked on the host
//
// For each product: time (best of R runs after a warm-up), products per
// second (multiplications a_ik b_kj; the flop count is twice that), peak
// device memory above the inputs (Executor::memory_stats() after
// reset_peak_memory(); cuSPARSE's buffers come from the same pool, so the
// same measure applies), of which the output and the scratch; the value-only
// recompute time (Strata's SparseProduct::recompute, cuSPARSE's
// cusparseSpGEMMreuse_compute). The results are compared entry by entry.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_timing.hpp"
#include "core/spgemm_internal.hpp"
#include "strata/strata.hpp"

#if STRATA_BENCH_CUSPARSE
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

using namespace strata;
using bench::best_time;
using bench::matrix_bytes;
using bench::peak_extra;
using bench::Clock;
using bench::seconds_since;

struct Options {
  std::vector<std::string> cases;
  size_type n7 = 256, n27 = 128, ng = 256, n_big = 260;
  int repeat = 3;
  std::string cusparse_alg = "default";
  bool cusparse = true;
  bool host = false;
  std::string json;
};


double gb(std::size_t bytes) { return static_cast<double>(bytes) / 1e9; }

// ------------------------------------------------------------- prolongators

/// Piecewise constant on 2x2x2 aggregates of an n^3 grid (n even): row
/// (i, j, k) has a 1 in column (i/2, j/2, k/2).
CsrMatrix<double> aggregation_P(const Executor& exec, size_type n) {
  const size_type nc = n / 2, rows = n * n * n;
  std::vector<offset_type> rp(rows + 1);
  std::vector<index_type> ci(rows);
  for (size_type r = 0; r < rows; ++r) {
    const size_type i = r % n, j = (r / n) % n, k = r / (n * n);
    rp[r] = r;
    ci[r] = static_cast<index_type>(i / 2 + nc * (j / 2 + nc * (k / 2)));
  }
  rp[rows] = rows;
  const auto h = Executor::host();
  return CsrMatrix<double>(rows, nc * nc * nc, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, rows, 1.0))
      .to(exec);
}

/// Trilinear interpolation from the coarse points (odd fine indices,
/// I = (i - 1) / 2) of an n^3 grid: a fine index i maps to I = (i-1)/2 with
/// weight 1 when odd, to (i/2 - 1, i/2) with weights 1/2 when even (the one
/// outside [0, n/2) dropped and the row renormalised), in each direction.
CsrMatrix<double> linear_P(const Executor& exec, size_type n) {
  const size_type nc = n / 2, rows = n * n * n;
  struct W {
    int count;
    index_type at[2];
    double w[2];
  };
  std::vector<W> one_d(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) {
    W w{0, {0, 0}, {0, 0}};
    if (i % 2 == 1) {
      w = {1, {index_type((i - 1) / 2), 0}, {1.0, 0}};
    } else {
      const size_type lo = i / 2 - 1, hi = i / 2;
      if (lo >= 0) w.at[w.count] = index_type(lo), w.w[w.count++] = 0.5;
      if (hi < nc) w.at[w.count] = index_type(hi), w.w[w.count++] = 0.5;
      for (int m = 0; m < w.count; ++m) w.w[m] = 1.0 / w.count;
    }
    one_d[i] = w;
  }
  std::vector<offset_type> rp(rows + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  ci.reserve(rows * 27 / 8 + 8);
  va.reserve(rows * 27 / 8 + 8);
  for (size_type r = 0; r < rows; ++r) {
    const W& x = one_d[r % n];
    const W& y = one_d[(r / n) % n];
    const W& z = one_d[r / (n * n)];
    for (int c = 0; c < z.count; ++c) {
      for (int b = 0; b < y.count; ++b) {
        for (int a = 0; a < x.count; ++a) {
          ci.push_back(index_type(x.at[a] + nc * (y.at[b] + nc * z.at[c])));
          va.push_back(x.w[a] * y.w[b] * z.w[c]);
        }
      }
    }
    rp[r + 1] = offset_type(ci.size());
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(rows, nc * nc * nc, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va))
      .to(exec);
}

// ----------------------------------------------------------------- cuSPARSE

struct Side {
  bool ok = false;
  std::string note;
  double ms = 0, recompute_ms = 0;
  std::size_t peak = 0, output = 0, scratch = 0;
  size_type nnz = 0;
};

#if STRATA_BENCH_CUSPARSE

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
  }
}
void check(cudaError_t s, const char* what) {
  if (s != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(s));
}
#define CK(call) check((call), #call)

cudaStream_t stream_of(const Executor& exec) {
  return exec.visit([](const auto& e) -> cudaStream_t {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
      return static_cast<cudaStream_t>(e.stream());
    } else {
      return nullptr;
    }
  });
}

/// Device memory from the executor's pool (so that memory_stats sees it).
struct Buffer {
  Executor exec;
  void* p = nullptr;
  std::size_t bytes = 0;
  Buffer(const Executor& e, std::size_t b) : exec(e), p(b ? e.allocate(b) : nullptr), bytes(b) {}
  ~Buffer() {
    if (p) exec.deallocate(p, bytes);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

/// A CSR matrix as cuSPARSE takes it: 32-bit row offsets (converted once).
struct CusparseMatrix {
  Array<std::int32_t> row_ptr;
  cusparseSpMatDescr_t descr = nullptr;
  CusparseMatrix(const CsrMatrix<double>& M) {
    if (M.nnz() > std::numeric_limits<std::int32_t>::max()) {
      throw std::runtime_error("nnz >= 2^31: cuSPARSE SpGEMM takes 32-bit indices");
    }
    const auto rp = M.row_ptr().to_vector();
    std::vector<std::int32_t> rp32(rp.begin(), rp.end());
    row_ptr = Array<std::int32_t>(M.executor(), rp32);
    CK(cusparseCreateCsr(&descr, M.rows(), M.cols(), M.nnz(), row_ptr.data(),
                         const_cast<index_type*>(M.col_idx().data()),
                         const_cast<double*>(M.values().data()), CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  }
  ~CusparseMatrix() {
    if (descr) cusparseDestroySpMat(descr);
  }
};

cusparseSpGEMMAlg_t alg_of(const std::string& name) {
  if (name == "alg2") return CUSPARSE_SPGEMM_ALG2;
  if (name == "alg3") return CUSPARSE_SPGEMM_ALG3;
  return CUSPARSE_SPGEMM_DEFAULT;
}

/// C = A B by cusparseSpGEMM (workEstimation, compute, copy), buffers from
/// the pool. Returns C (32-bit offsets) and the bytes of both buffers.
struct CusparseProduct {
  Array<std::int32_t> row_ptr, col_idx;
  Array<double> values;
  size_type rows = 0, cols = 0, nnz = 0;
  std::size_t buffer_bytes = 0;
};

CusparseProduct cusparse_multiply(const Executor& exec, cusparseHandle_t handle,
                                  cusparseSpMatDescr_t A, cusparseSpMatDescr_t B, size_type rows,
                                  size_type cols, cusparseSpGEMMAlg_t alg) {
  const double alpha = 1.0, beta = 0.0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  CusparseProduct C;
  C.rows = rows;
  C.cols = cols;
  C.row_ptr = Array<std::int32_t>(exec, rows + 1);
  cusparseSpMatDescr_t matC = nullptr;
  CK(cusparseCreateCsr(&matC, rows, cols, 0, C.row_ptr.data(), nullptr, nullptr, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseSpGEMMDescr_t desc = nullptr;
  CK(cusparseSpGEMM_createDescr(&desc));
  std::size_t b1 = 0, b2 = 0;
  CK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg, desc,
                                   &b1, nullptr));
  Buffer buf1(exec, b1);
  CK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg, desc,
                                   &b1, buf1.p));
  std::size_t b3 = 0;
  std::unique_ptr<Buffer> buf3;
  if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
    CK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg,
                                     desc, 0.2f, &b3, nullptr, nullptr));
    buf3 = std::make_unique<Buffer>(exec, b3);
    CK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg,
                                     desc, 0.2f, &b3, buf3->p, &b2));
    buf3.reset();
  } else {
    CK(cusparseSpGEMM_compute(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg, desc, &b2,
                              nullptr));
  }
  Buffer buf2(exec, b2);
  CK(cusparseSpGEMM_compute(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg, desc, &b2,
                            buf2.p));
  int64_t r = 0, c = 0, nnz = 0;
  CK(cusparseSpMatGetSize(matC, &r, &c, &nnz));
  C.nnz = nnz;
  C.col_idx = Array<std::int32_t>(exec, nnz);
  C.values = Array<double>(exec, nnz);
  CK(cusparseCsrSetPointers(matC, C.row_ptr.data(), C.col_idx.data(), C.values.data()));
  CK(cusparseSpGEMM_copy(handle, op, op, &alpha, A, B, &beta, matC, CUDA_R_64F, alg, desc));
  exec.synchronize();
  C.buffer_bytes = b1 + b2 + b3;
  cusparseSpGEMM_destroyDescr(desc);
  cusparseDestroySpMat(matC);
  return C;
}

/// cuSPARSE's reuse API, for its value-only recompute: the structure is set
/// up once (workEstimation, nnz, copy); compute() redoes the values.
struct CusparseReuse {
  Executor exec;
  cusparseHandle_t handle;
  const CusparseMatrix& A;
  const CusparseMatrix& B;
  Array<std::int32_t> row_ptr, col_idx;
  Array<double> values;
  cusparseSpMatDescr_t matC = nullptr;
  cusparseSpGEMMDescr_t desc = nullptr;
  std::unique_ptr<Buffer> buf4, buf5;

  CusparseReuse(const Executor& e, cusparseHandle_t h, const CusparseMatrix& a,
                const CusparseMatrix& b, size_type rows, size_type cols)
      : exec(e), handle(h), A(a), B(b) {
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    row_ptr = Array<std::int32_t>(exec, rows + 1);
    CK(cusparseCreateCsr(&matC, rows, cols, 0, row_ptr.data(), nullptr, nullptr, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CK(cusparseSpGEMM_createDescr(&desc));
    std::size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0;
    CK(cusparseSpGEMMreuse_workEstimation(handle, op, op, A.descr, B.descr, matC, alg, desc, &b1,
                                          nullptr));
    auto buf1 = std::make_unique<Buffer>(exec, b1);
    CK(cusparseSpGEMMreuse_workEstimation(handle, op, op, A.descr, B.descr, matC, alg, desc, &b1,
                                          buf1->p));
    CK(cusparseSpGEMMreuse_nnz(handle, op, op, A.descr, B.descr, matC, alg, desc, &b2, nullptr, &b3,
                               nullptr, &b4, nullptr));
    auto buf2 = std::make_unique<Buffer>(exec, b2);
    auto buf3 = std::make_unique<Buffer>(exec, b3);
    buf4 = std::make_unique<Buffer>(exec, b4);
    CK(cusparseSpGEMMreuse_nnz(handle, op, op, A.descr, B.descr, matC, alg, desc, &b2, buf2->p, &b3,
                               buf3->p, &b4, buf4->p));
    buf1.reset();
    buf2.reset();
    int64_t r = 0, c = 0, nnz = 0;
    CK(cusparseSpMatGetSize(matC, &r, &c, &nnz));
    col_idx = Array<std::int32_t>(exec, nnz);
    values = Array<double>(exec, nnz);
    CK(cusparseCsrSetPointers(matC, row_ptr.data(), col_idx.data(), values.data()));
    CK(cusparseSpGEMMreuse_copy(handle, op, op, A.descr, B.descr, matC, alg, desc, &b5, nullptr));
    buf5 = std::make_unique<Buffer>(exec, b5);
    CK(cusparseSpGEMMreuse_copy(handle, op, op, A.descr, B.descr, matC, alg, desc, &b5, buf5->p));
    buf3.reset();
    compute();
  }
  void compute() {
    const double alpha = 1.0, beta = 0.0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    CK(cusparseSpGEMMreuse_compute(handle, op, op, &alpha, A.descr, B.descr, &beta, matC,
                                   CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, desc));
  }
  ~CusparseReuse() {
    if (desc) cusparseSpGEMM_destroyDescr(desc);
    if (matC) cusparseDestroySpMat(matC);
  }
};

#endif  // STRATA_BENCH_CUSPARSE

// ------------------------------------------------------------------ compare

/// Largest |a - b| / max(|b|, tiny) over C's entries when the patterns agree;
/// -1 when they do not.
double compare(const std::vector<offset_type>& rp, const std::vector<index_type>& ci,
               const std::vector<double>& va, const std::vector<std::int32_t>& rp2,
               const std::vector<std::int32_t>& ci2, const std::vector<double>& va2) {
  if (rp.size() != rp2.size() || ci.size() != ci2.size()) return -1;
  for (std::size_t i = 0; i < rp.size(); ++i) {
    if (rp[i] != rp2[i]) return -1;
  }
  double worst = 0, scale = 0;
  for (double v : va2) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < ci.size(); ++k) {
    if (ci[k] != ci2[k]) return -1;
    worst = std::max(worst, std::abs(va[k] - va2[k]) / std::max(scale, 1e-300));
  }
  return worst;
}

// -------------------------------------------------------------------- cases

struct Report {
  std::string name, what;
  size_type rows = 0, nnz = 0, products = 0;
  Side strata, cusparse;
  double max_difference = -1;
  std::string extra;
};

void print(const Report& r) {
  std::printf("\n== %s: %s\n", r.name.c_str(), r.what.c_str());
  std::printf("   C: %lld rows, %lld nonzeros; %lld products (%.2f Gflop)\n", (long long)r.rows,
              (long long)r.nnz, (long long)r.products, 2e-9 * double(r.products));
  std::printf("   %-10s %10s %12s %11s %11s %11s %13s\n", "", "time ms", "Gproducts/s", "peak GB",
              "output GB", "scratch GB", "recompute ms");
  for (const auto* s : {&r.strata, &r.cusparse}) {
    const char* who = s == &r.strata ? "strata" : "cusparse";
    if (!s->ok) {
      std::printf("   %-10s %s\n", who, s->note.empty() ? "not run" : s->note.c_str());
      continue;
    }
    const auto number = [](double v) {
      char buf[32];
      if (v > 0)
        std::snprintf(buf, sizeof buf, "%.2f", v);
      else
        std::snprintf(buf, sizeof buf, "-");
      return std::string(buf);
    };
    std::printf("   %-10s %10.2f %12.2f %11s %11.2f %11s %13s\n", who, s->ms,
                1e-6 * double(r.products) / s->ms, number(gb(s->peak)).c_str(), gb(s->output),
                number(gb(s->scratch)).c_str(), number(s->recompute_ms).c_str());
  }
  if (r.strata.ok && r.cusparse.ok) {
    std::printf(
        "   speedup %.2fx, scratch %.1f%% of cuSPARSE's", r.cusparse.ms / r.strata.ms,
        100.0 * double(r.strata.scratch) / double(std::max<std::size_t>(r.cusparse.scratch, 1)));
    if (r.cusparse.recompute_ms > 0) {
      std::printf(", recompute speedup %.2fx", r.cusparse.recompute_ms / r.strata.recompute_ms);
    }
    std::printf("; max relative difference %.2e%s\n", r.max_difference,
                r.max_difference < 0 ? " (PATTERNS DIFFER)" : "");
  }
  if (!r.extra.empty()) std::printf("   %s\n", r.extra.c_str());
}

std::string json_side(const Side& s) {
  if (!s.ok) return "null";
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "{\"ms\": %.4f, \"recompute_ms\": %.4f, \"peak_bytes\": %zu, \"output_bytes\": %zu, "
      "\"scratch_bytes\": %zu}",
      s.ms, s.recompute_ms, s.peak, s.output, s.scratch);
  return buf;
}

std::string json(const Report& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"case\": \"%s\", \"rows\": %lld, \"nnz\": %lld, \"products\": %lld, "
                "\"max_relative_difference\": %.3e, ",
                r.name.c_str(), (long long)r.rows, (long long)r.nnz, (long long)r.products,
                r.max_difference);
  return std::string(buf) + "\"strata\": " + json_side(r.strata) +
         ", \"cusparse\": " + json_side(r.cusparse) + "}";
}

/// A*B or R*A*P, ours and (on the device) cuSPARSE's.
Report run_case(const Options& o, const Executor& exec, const std::string& name,
                const std::string& what, const CsrMatrix<double>* R, const CsrMatrix<double>& A,
                const CsrMatrix<double>& B) {
  Report rep;
  rep.name = name;
  rep.what = what;
  const bool galerkin = R != nullptr;
  std::fprintf(stderr, "[%s] strata...\n", name.c_str());
  // Strata.
  {
    std::size_t out_bytes = 0;
    if (galerkin) {
      std::unique_ptr<GalerkinProduct<CsrMatrix<double>>> G;
      rep.strata.ms = 1e3 * best_time(exec, o.repeat, [&] {
                        G.reset();
                        G = std::make_unique<GalerkinProduct<CsrMatrix<double>>>(*R, A, B);
                      });
      G.reset();
      rep.strata.peak = peak_extra(
          exec, [&] { G = std::make_unique<GalerkinProduct<CsrMatrix<double>>>(*R, A, B); });
      out_bytes = matrix_bytes(G->result());
      rep.strata.recompute_ms = 1e3 * best_time(exec, o.repeat, [&] { G->recompute(*R, A, B); });
      rep.rows = G->result().rows();
      rep.nnz = G->result().nnz();
      rep.products = G->products();
      rep.extra = "A P: " + std::to_string(G->AP().nnz()) + " nonzeros";
    } else {
      std::unique_ptr<SparseProduct<CsrMatrix<double>>> P;
      rep.strata.ms = 1e3 * best_time(exec, o.repeat, [&] {
                        P.reset();
                        P = std::make_unique<SparseProduct<CsrMatrix<double>>>(A, B);
                      });
      P.reset();
      rep.strata.peak =
          peak_extra(exec, [&] { P = std::make_unique<SparseProduct<CsrMatrix<double>>>(A, B); });
      out_bytes = matrix_bytes(P->result());
      rep.strata.recompute_ms = 1e3 * best_time(exec, o.repeat, [&] { P->recompute(A, B); });
      rep.rows = P->result().rows();
      rep.nnz = P->result().nnz();
      rep.products = P->products();
    }
    rep.strata.output = out_bytes;
    rep.strata.scratch = rep.strata.peak > out_bytes ? rep.strata.peak - out_bytes : 0;
    rep.strata.nnz = rep.nnz;
    rep.strata.ok = true;
  }
  if (!exec.is_cuda() || !o.cusparse) return rep;
#if STRATA_BENCH_CUSPARSE
  std::fprintf(stderr, "[%s] cusparse...\n", name.c_str());
  try {
    cusparseHandle_t handle = nullptr;
    CK(cusparseCreate(&handle));
    CK(cusparseSetStream(handle, stream_of(exec)));
    const auto alg = alg_of(o.cusparse_alg);
    CusparseMatrix cA(A), cB(B);
    std::unique_ptr<CusparseMatrix> cR;
    if (galerkin) cR = std::make_unique<CusparseMatrix>(*R);
    // The whole product, as a caller without reuse would run it.
    auto product = [&]() {
      auto first = cusparse_multiply(exec, handle, cA.descr, cB.descr, A.rows(), B.cols(), alg);
      if (!galerkin) return first;
      // R (A P), with A P as cuSPARSE left it (32-bit offsets).
      cusparseSpMatDescr_t AP = nullptr;
      CK(cusparseCreateCsr(&AP, first.rows, first.cols, first.nnz, first.row_ptr.data(),
                           first.col_idx.data(), first.values.data(), CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
      CusparseProduct second;
      try {
        second = cusparse_multiply(exec, handle, cR->descr, AP, R->rows(), first.cols, alg);
      } catch (...) {
        cusparseDestroySpMat(AP);
        throw;
      }
      cusparseDestroySpMat(AP);
      second.buffer_bytes = std::max(second.buffer_bytes, first.buffer_bytes);
      return second;
    };
    CusparseProduct C;
    rep.cusparse.ms = 1e3 * best_time(exec, o.repeat, [&] {
                        C = CusparseProduct{};
                        C = product();
                      });
    C = CusparseProduct{};
    rep.cusparse.peak = peak_extra(exec, [&] { C = product(); });
    rep.cusparse.output = C.row_ptr.bytes() + C.col_idx.bytes() + C.values.bytes();
    rep.cusparse.scratch = C.buffer_bytes;
    rep.cusparse.nnz = C.nnz;
    rep.cusparse.ok = true;
    if (!galerkin) {
      try {
        CusparseReuse reuse(exec, handle, cA, cB, A.rows(), B.cols());
        rep.cusparse.recompute_ms = 1e3 * best_time(exec, o.repeat, [&] { reuse.compute(); });
      } catch (const std::exception& e) {
        rep.cusparse.note = std::string("reuse API failed: ") + e.what();
      }
    }
    // Compare with ours (a fresh product on the device).
    const auto ours = galerkin ? galerkin_product(*R, A, B) : spgemm(A, B);
    rep.max_difference =
        compare(ours.row_ptr().to_vector(), ours.col_idx().to_vector(), ours.values().to_vector(),
                C.row_ptr.to_vector(), C.col_idx.to_vector(), C.values.to_vector());
    cusparseDestroy(handle);
  } catch (const std::exception& e) {
    rep.cusparse.ok = false;
    rep.cusparse.note = std::string("failed: ") + e.what();
  }
#endif
  return rep;
}

/// 27-point A*A with nnz(C) > 2^31: ours only; rows spread over C (the last
/// ones at offsets beyond 2^31) are recomputed on the host and compared.
Report run_big(const Options& o, const Executor& exec) {
  Report rep;
  rep.name = "big";
  const size_type n = o.n_big;
  rep.what = "27-point " + std::to_string(n) + "^3 A*A, nnz(C) > 2^31 (64-bit offsets)";
  auto A = gallery::diffusion3d_27pt(exec, n, n, n);
  const auto t0 = Clock::now();
  SparseProduct<CsrMatrix<double>> P(A, A);
  exec.synchronize();
  rep.strata.ms = 1e3 * seconds_since(t0);
  const auto& C = P.result();
  rep.rows = C.rows();
  rep.nnz = C.nnz();
  rep.products = P.products();
  rep.strata.output = matrix_bytes(C);
  rep.strata.ok = true;
  rep.cusparse.note = "not applicable (32-bit indices)";
  const offset_type expected = (5 * n - 6) * (5 * n - 6) * (5 * n - 6);
  // Check some rows against a host product.
  const auto host_A = A.to(Executor::host());
  const auto arp = host_A.row_ptr().host_view();
  const auto aci = host_A.col_idx().host_view();
  const auto ava = host_A.values().host_view();
  std::vector<offset_type> crp(static_cast<std::size_t>(C.rows()) + 1);
  copy_bytes(crp.data(), Executor::host(), C.row_ptr().data(), exec,
             crp.size() * sizeof(offset_type));
  const size_type rows = C.rows();
  std::vector<size_type> check = {0,        1,       rows / 2, rows - n * n - 1, rows - n - 1,
                                  rows - 2, rows - 1};
  double worst = 0;
  bool ok = crp.back() == expected;
  for (const size_type i : check) {
    std::vector<std::pair<index_type, double>> ref;
    for (auto e = arp[i]; e < arp[i + 1]; ++e) {
      const auto k = aci[e];
      for (auto q = arp[k]; q < arp[k + 1]; ++q) ref.emplace_back(aci[q], ava[e] * ava[q]);
    }
    std::sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<std::pair<index_type, double>> merged;
    for (auto& [c, v] : ref) {
      if (!merged.empty() && merged.back().first == c)
        merged.back().second += v;
      else
        merged.emplace_back(c, v);
    }
    const offset_type len = crp[i + 1] - crp[i];
    if (len != offset_type(merged.size())) {
      ok = false;
      continue;
    }
    std::vector<index_type> ci(len);
    std::vector<double> va(len);
    copy_bytes(ci.data(), Executor::host(), C.col_idx().data() + crp[i], exec,
               len * sizeof(index_type));
    copy_bytes(va.data(), Executor::host(), C.values().data() + crp[i], exec, len * sizeof(double));
    for (offset_type m = 0; m < len; ++m) {
      if (ci[m] != merged[m].first) ok = false;
      worst = std::max(worst, std::abs(va[m] - merged[m].second) / 676.0);
    }
  }
  rep.max_difference = ok ? worst : -1;
  rep.extra = std::string("row_ptr[rows] = ") + std::to_string(crp.back()) +
              " (expected (5n-6)^3 = " + std::to_string(expected) + "); last row starts at " +
              std::to_string(crp[rows - 1]) +
              "; rows checked against the host: " + (ok ? "all equal" : "MISMATCH") +
              " (max relative difference " + std::to_string(worst) + ")";
  const auto t1 = Clock::now();
  P.recompute(A, A);
  exec.synchronize();
  rep.strata.recompute_ms = 1e3 * seconds_since(t1);
  return rep;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: strata_bench_spgemm [--case poisson7|diffusion27|galerkin-agg|galerkin-lin|big]...\n"
      "       [--n7 N] [--n27 N] [--ng N] [--nbig N] [--repeat R]\n"
      "       [--cusparse-alg default|alg2|alg3] [--no-cusparse] [--host] [--json FILE]\n"
      "       [--spgemm-stages]\n");
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
      if (arg == "--case")
        o.cases.push_back(value());
      else if (arg == "--n7")
        o.n7 = std::stoll(value());
      else if (arg == "--n27")
        o.n27 = std::stoll(value());
      else if (arg == "--ng")
        o.ng = std::stoll(value());
      else if (arg == "--nbig")
        o.n_big = std::stoll(value());
      else if (arg == "--repeat")
        o.repeat = std::stoi(value());
      else if (arg == "--cusparse-alg")
        o.cusparse_alg = value();
      else if (arg == "--no-cusparse")
        o.cusparse = false;
      else if (arg == "--host")
        o.host = true;
      else if (arg == "--json")
        o.json = value();
      else if (arg == "--spgemm-stages")
        strata::detail::spgemm_stage_timing(true);
      else
        return usage();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return usage();
    }
  }
  if (o.cases.empty()) o.cases = {"poisson7", "diffusion27", "galerkin-agg", "galerkin-lin"};
  if (!o.host && !cuda_available()) {
    std::fprintf(stderr, "no CUDA device; run with --host for the host backend\n");
    return 0;
  }
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  std::vector<Report> reports;
  try {
    for (const auto& name : o.cases) {
      if (name == "poisson7") {
        auto A = gallery::poisson3d(exec, o.n7, o.n7, o.n7);
        reports.push_back(
            run_case(o, exec, name, "7-point " + std::to_string(o.n7) + "^3 A*A", nullptr, A, A));
      } else if (name == "diffusion27") {
        auto A = gallery::diffusion3d_27pt(exec, o.n27, o.n27, o.n27);
        reports.push_back(
            run_case(o, exec, name, "27-point " + std::to_string(o.n27) + "^3 A*A", nullptr, A, A));
      } else if (name == "galerkin-agg" || name == "galerkin-lin") {
        auto A = gallery::poisson3d(exec, o.ng, o.ng, o.ng);
        auto P = name == "galerkin-agg" ? aggregation_P(exec, o.ng) : linear_P(exec, o.ng);
        exec.synchronize();
        const auto t0 = Clock::now();
        auto R = transpose(P);
        exec.synchronize();
        const double transpose_ms = 1e3 * seconds_since(t0);
        auto rep = run_case(o, exec, name,
                            "R A P, A 7-point " + std::to_string(o.ng) + "^3, P " +
                                (name == "galerkin-agg" ? "aggregation 2x2x2 (1 entry/row)"
                                                        : "trilinear (3.4 entries/row)") +
                                ", " + std::to_string(P.nnz()) + " entries",
                            &R, A, P);
        rep.extra += "; R = P^T took " + std::to_string(transpose_ms) + " ms";
        reports.push_back(std::move(rep));
      } else if (name == "big") {
        reports.push_back(run_big(o, exec));
      } else {
        std::fprintf(stderr, "unknown case %s\n", name.c_str());
        return usage();
      }
      print(reports.back());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_bench_spgemm: error: %s\n", e.what());
    return 1;
  }
  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.json.c_str());
      return 1;
    }
    std::fprintf(f, "{\"device\": \"%s\", \"cases\": [\n", exec.name().c_str());
    for (std::size_t r = 0; r < reports.size(); ++r) {
      std::fprintf(f, "  %s%s\n", json(reports[r]).c_str(), r + 1 < reports.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
  bool ok = true;
  for (const auto& r : reports) {
    if (!r.strata.ok) ok = false;
    if (r.cusparse.ok && r.max_difference < 0) ok = false;
    if (r.name == "big" && r.max_difference < 0) ok = false;
  }
  return ok ? 0 : 1;
}
