// Classical Gram-Schmidt: the multi-vector kernels (multi_dot, multi_axpy,
// multi_axpy_dot) against plain loops on awkward sizes, their fixed order,
// their argument checks, and the orthogonality of the basis GMRES builds
// with them (CGS2).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "strata/core/span.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using HostColumns = std::vector<std::vector<double>>;

/// k columns of n values and w, pseudo-random, the same on every executor.
struct Basis {
  HostColumns host;
  std::vector<Vector<double>> V;
  std::vector<double> w;

  Basis(const Executor& exec, std::size_t n, int k, unsigned seed) {
    for (int j = 0; j < k; ++j) {
      host.push_back(test::random_values(n, seed + 17 * j));
      V.emplace_back(Array<double>(exec, host.back()));
    }
    w = test::random_values(n, seed + 9999);
  }
};

/// out[j] = V_j^T w, out[k] = w^T w, accumulated in long double.
std::vector<double> reference_dots(const HostColumns& V, const std::vector<double>& w) {
  std::vector<double> out;
  for (const auto& v : V) {
    long double s = 0;
    for (std::size_t i = 0; i < w.size(); ++i) s += (long double)v[i] * w[i];
    out.push_back(double(s));
  }
  long double s = 0;
  for (double x : w) s += (long double)x * x;
  out.push_back(double(s));
  return out;
}

/// w - sum_j h_j V_j, in long double.
std::vector<double> reference_update(const HostColumns& V, const std::vector<double>& h,
                                     std::vector<double> w) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    long double s = w[i];
    for (std::size_t j = 0; j < V.size(); ++j) s -= (long double)h[j] * V[j][i];
    w[i] = double(s);
  }
  return w;
}

/// Rounding bound for a sum of n products of values in [-1, 1].
double dot_tolerance(std::size_t n) { return 1e-15 * (double(n) + 1) + 1e-300; }

class GramSchmidtKernels : public test::OnExecutor {};

const std::size_t sizes[] = {0, 1, 33, 1000};
// 31: GMRES(30)'s widest projection; 40: more columns than one pass holds.
const int widths[] = {1, 2, 8, 9, 31, 40};

TEST_P(GramSchmidtKernels, MultiDotMatchesReference) {
  for (std::size_t n : sizes) {
    for (int k : widths) {
      Basis b(exec(), n, k, 11u + unsigned(n) + unsigned(k));
      const Vector<double> w(Array<double>(exec(), b.w));
      std::vector<double> out(k + 1, -7.0);
      multi_dot<double>(b.V, w, out);
      const auto ref = reference_dots(b.host, b.w);
      for (int j = 0; j <= k; ++j) {
        EXPECT_NEAR(out[j], ref[j], dot_tolerance(n)) << "n " << n << " k " << k << " j " << j;
      }
    }
  }
}

TEST_P(GramSchmidtKernels, MultiAxpyMatchesReference) {
  for (std::size_t n : sizes) {
    for (int k : widths) {
      Basis b(exec(), n, k, 23u + unsigned(n) + unsigned(k));
      Vector<double> w(Array<double>(exec(), b.w));
      const auto h = test::random_values(std::size_t(k), 5u + unsigned(k));
      multi_axpy<double>(h, b.V, w);
      const auto ref = reference_update(b.host, h, b.w);
      const auto got = w.to_vector();
      ASSERT_EQ(got.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_NEAR(got[i], ref[i], 1e-15 * (k + 1)) << "n " << n << " k " << k << " i " << i;
      }
    }
  }
}

TEST_P(GramSchmidtKernels, MultiAxpyDotUpdatesThenProjects) {
  for (std::size_t n : sizes) {
    for (int k : widths) {
      Basis b(exec(), n, k, 37u + unsigned(n) + unsigned(k));
      Vector<double> w(Array<double>(exec(), b.w));
      const auto h = test::random_values(std::size_t(k), 3u + unsigned(k));
      std::vector<double> out(k + 1, -7.0);
      multi_axpy_dot<double>(h, b.V, w, out);
      const auto new_w = reference_update(b.host, h, b.w);
      const auto got = w.to_vector();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_NEAR(got[i], new_w[i], 1e-15 * (k + 1)) << "n " << n << " k " << k << " i " << i;
      }
      // The projections are of the updated w, whose entries are up to k + 1 in size.
      const auto ref = reference_dots(b.host, new_w);
      for (int j = 0; j <= k; ++j) {
        EXPECT_NEAR(out[j], ref[j], dot_tolerance(n) * (k + 1) * (j == k ? k + 1 : 1))
            << "n " << n << " k " << k << " j " << j;
      }
    }
  }
}

TEST_P(GramSchmidtKernels, ProjectingTwiceAnnihilatesTheComponentsInAnOrthonormalBasis) {
  // CGS2 on an orthonormal basis (unit vectors e_0 .. e_{k-1} of R^n): after
  // h1 = V^T w, w -= V h1 the first k entries of w are exactly 0.
  const std::size_t n = 1000;
  const int k = 31;
  std::vector<Vector<double>> V;
  for (int j = 0; j < k; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1.0;
    V.emplace_back(Array<double>(exec(), e));
  }
  const auto w0 = test::random_values(n, 77);
  Vector<double> w(Array<double>(exec(), w0));
  std::vector<double> h1(k + 1), h2(k + 1);
  multi_dot<double>(V, w, h1);
  multi_axpy_dot<double>(strata::Span<const double>(h1.data(), k), V, w, h2);
  const auto got = w.to_vector();
  double tail = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < std::size_t(k)) {
      EXPECT_EQ(h1[i], w0[i]);
      EXPECT_EQ(got[i], 0.0) << i;
      EXPECT_EQ(h2[i], 0.0) << i;
    } else {
      EXPECT_EQ(got[i], w0[i]);
      tail += w0[i] * w0[i];
    }
  }
  EXPECT_NEAR(h2[k], tail, 1e-12 * tail);
}

TEST_P(GramSchmidtKernels, ResultsRepeatBitForBit) {
  const std::size_t n = 100000;  // many reduction chunks and blocks
  const int k = 31;
  Basis b(exec(), n, k, 5);
  const Vector<double> w(Array<double>(exec(), b.w));
  std::vector<double> first(k + 1), again(k + 1);
  multi_dot<double>(b.V, w, first);
  multi_dot<double>(b.V, w, again);
  EXPECT_EQ(first, again);
  if (exec().is_host()) {  // the order must not depend on the thread count
    for (int threads : {1, 3}) {
      const Executor other = Executor::host(threads);
      std::vector<Vector<double>> V;
      for (const auto& v : b.host) V.emplace_back(Array<double>(other, v));
      const Vector<double> w2(Array<double>(other, b.w));
      multi_dot<double>(V, w2, again);
      EXPECT_EQ(first, again) << threads << " threads";
    }
  }
}

TEST_P(GramSchmidtKernels, BadArgumentsAreNamed) {
  Basis b(exec(), 10, 3, 1);
  Vector<double> w(Array<double>(exec(), b.w));
  std::vector<double> out(3), h(2);
  try {
    multi_dot<double>(b.V, w, out);
    ADD_FAILURE() << "out with 3 entries for k = 3 was accepted";
  } catch (const dimension_mismatch& e) {
    EXPECT_NE(std::string(e.what()).find("out has 3 entries, expected 4"), std::string::npos)
        << e.what();
  }
  try {
    multi_axpy<double>(h, b.V, w);
    ADD_FAILURE() << "h with 2 entries for k = 3 was accepted";
  } catch (const dimension_mismatch& e) {
    EXPECT_NE(std::string(e.what()).find("h has 2 entries, expected 3"), std::string::npos)
        << e.what();
  }
  b.V[1] = Vector<double>(exec(), 9, 0.0);
  out.resize(4);
  try {
    multi_dot<double>(b.V, w, out);
    ADD_FAILURE() << "a short V[1] was accepted";
  } catch (const dimension_mismatch& e) {
    EXPECT_NE(std::string(e.what()).find("V[1] has 9 entries but w has 10"), std::string::npos)
        << e.what();
  }
  b.V[1] = Vector<double>(exec(), 10, 0.0);
  h.resize(3);
  EXPECT_THROW(multi_axpy_dot<double>(h, strata::Span<const Vector<double>>(b.V), b.V[2], out),
               invalid_argument);  // w aliases V[2]
  if (!exec().is_host()) {
    Vector<double> on_host(Executor::host(), 10, 1.0);
    EXPECT_THROW(multi_dot<double>(b.V, on_host, out), location_mismatch);
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(GramSchmidtKernels);

// ------------------------------------------------------------ GMRES's basis

/// The identity as a preconditioner that keeps a host copy of the first
/// `keep` vectors it is applied to: in GMRES(m) these are the Arnoldi basis
/// vectors V_0 .. V_{m-1} of the first cycle.
CallbackOperator<double> recording_identity(const Executor& exec, size_type n, std::size_t keep,
                                            HostColumns& seen) {
  return CallbackOperator<double>(
      exec, n, n,
      [&seen, keep](const Vector<double>& x, Vector<double>& y) {
        if (seen.size() < keep) seen.push_back(x.to_vector());
        copy(x.values(), y.values());
      },
      "recording identity");
}

/// max |V^T V - I| over the recorded columns.
double orthogonality_loss(const HostColumns& V) {
  double worst = 0;
  for (std::size_t a = 0; a < V.size(); ++a) {
    for (std::size_t c = 0; c <= a; ++c) {
      long double s = 0;
      for (std::size_t i = 0; i < V[a].size(); ++i) s += (long double)V[a][i] * V[c][i];
      worst = std::max(worst, std::abs(double(s) - (a == c ? 1.0 : 0.0)));
    }
  }
  return worst;
}

class GmresBasis : public test::OnExecutor {};

TEST_P(GmresBasis, StaysOrthonormalOnAnIllConditionedNonsymmetricProblem) {
  // Convection-dominated (cell Peclet number about 60, so upwinding makes A
  // far from normal): GMRES(30) needs many cycles and the Krylov space
  // becomes nearly dependent within one, which is where single classical
  // Gram-Schmidt loses orthogonality.
  const auto A = gallery::convdiff3d(exec(), 16, 16, 16,
                                     {.velocity = {2000.0, -1000.0, 500.0}, .diffusion = 1.0});
  CsrOperator<double> op(test::shared(A));
  const int m = 30;
  for (const bool flexible : {false, true}) {
    HostColumns seen;
    auto M = recording_identity(exec(), A.rows(), m, seen);
    Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
    KrylovParams p;
    p.relative_tolerance = 1e-14;
    p.max_iterations = m;
    const auto info = flexible ? solve(KrylovMethod{Fgmres{p, m}}, op, b, x, &M)
                               : solve(KrylovMethod{Gmres{p, m}}, op, b, x, &M);
    ASSERT_EQ(info.status, SolveStatus::max_iterations) << info.message;
    ASSERT_EQ(seen.size(), std::size_t(m));
    EXPECT_LT(orthogonality_loss(seen), 1e-12) << (flexible ? "fgmres" : "gmres");
  }
}

TEST_P(GmresBasis, IterationCountsAreNoWorseThanWithModifiedGramSchmidt) {
  // Iterations GMRES(m) and FGMRES(m) took with modified Gram-Schmidt (the
  // previous orthogonalisation, measured at 32^3 with `strata solve`):
  // reorthogonalised CGS must not need more.
  struct Case {
    const char* problem;
    int restart;
    bool flexible;
    int mgs_iterations;
  };
  const Case cases[] = {{"convdiff3d", 30, false, 191}, {"convdiff3d", 30, true, 191},
                        {"convdiff3d", 10, false, 438}, {"convdiff3d", 50, false, 164},
                        {"poisson3d", 30, false, 157},  {"poisson3d", 30, true, 157}};
  for (const Case& c : cases) {
    const auto A = gallery::generate(c.problem, 32, exec());
    CsrOperator<double> op(test::shared(A));
    auto M = make_smoother(test::shared(A), JacobiParams{});
    Vector<double> b(exec(), A.rows(), 1.0), x(exec(), A.rows(), 0.0);
    KrylovParams p;
    p.relative_tolerance = 1e-8;
    p.max_iterations = 5000;
    const auto info = c.flexible ? solve(KrylovMethod{Fgmres{p, c.restart}}, op, b, x, M.get())
                                 : solve(KrylovMethod{Gmres{p, c.restart}}, op, b, x, M.get());
    const std::string what = std::string(c.flexible ? "fgmres(" : "gmres(") +
                             std::to_string(c.restart) + ") on " + c.problem;
    EXPECT_TRUE(info.converged()) << what << ": " << info.message;
    EXPECT_LE(info.iterations, c.mgs_iterations) << what;
    EXPECT_LT(test::relative_residual(A, b, x), 1e-8) << what;
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(GmresBasis);

}  // namespace
}  // namespace strata
