// A C++17 program that uses an installed Strata: the public headers compile
// as C++17 (the library itself is C++20), and what replaced C++20 types in
// them behaves: SourceLocation names the caller, Span views an Array.
#include <cstdio>
#include <cstring>
#include <strata/strata.hpp>
#include <vector>

// The point of the program: were Strata::strata to ask for C++20 again
// (cxx_std_20), CMake would compile this as C++20 and prove nothing.
static_assert(__cplusplus == 201703L, "consumer17 must be compiled as C++17");

int main() {
  using namespace strata;
  const Executor exec = Executor::host();
  auto A = share(gallery::poisson3d(exec, 12, 12, 12));
  amg::HierarchyParams params;
  params.cycle = amg::CycleType::V;  // no designated initialisers in C++17
  int levels_reported = 0;
  params.on_level = [&](const amg::LevelBuilt&) { ++levels_reported; };
  amg::Hierarchy<double> M(A, amg::make_classical_coarsening<double>({}), params);
  Vector<double> b(exec, A->rows(), 1.0), x(exec, A->rows(), 0.0);
  const SolveInfo info = solve(KrylovMethod{Cg{}}, CsrOperator<double>(A), b, x, &M);
  std::printf("consumer17: %s in %d iterations, %d levels reported\n", to_string(info.status),
              info.iterations, levels_reported);
  if (!info.converged() || levels_reported != M.num_levels()) return 1;

  // Span: a view of host memory, as std::span is in C++20.
  double sum = 0;
  for (double v : b.values().host_view()) sum += v;
  if (sum != static_cast<double>(A->rows())) return 1;
  std::vector<double> dots(3);  // V^T b for V = (b, x), then b^T b
  std::vector<Vector<double>> basis;
  basis.push_back(b.clone());
  basis.push_back(x.clone());
  multi_dot<double>(basis, b, dots);
  if (dots[0] != sum || dots[2] != sum) return 1;

  // SourceLocation: an error names the line that called the library.
  const int line = __LINE__ + 2;
  try {
    require(false, "consumer17: expected");
  } catch (const error& e) {
    const bool here = std::strstr(e.where().file_name(), "consumer17.cpp") != nullptr &&
                      e.where().line() == static_cast<unsigned>(line);
    std::printf("consumer17: error located at %s:%u\n", e.where().file_name(),
                static_cast<unsigned>(e.where().line()));
    return here ? 0 : 1;
  }
  return 1;
}
