#pragma once
// `strata solve --interface struct`: the problem built on the structured
// interface and solved with PFMG (issue 18), beside the CSR path of
// solve.cpp. Kept in its own file so that the CSR solve is untouched.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace strata::app {

/// What `strata solve --interface struct` reads.
struct StructuredSolveOptions {
  std::string problem = "poisson3d";
  std::optional<long long> n;
  bool host = false;
  bool device = false;
  int print_every = 0;
  /// --coefficients CX,CY[,CZ] of aniso3d / aniso2d.
  std::string coefficients;
  /// --periodic x,y[,z]: the periodic directions of poisson3d, aniso3d,
  /// poisson2d and aniso2d (empty: none).
  std::string periodic;
  /// --pfmg-relax jacobi | rbgs, --pfmg-skip true | false.
  std::string relax = "jacobi";
  bool skip = true;
  /// --struct-storage full | symmetric: how the (symmetric) gallery matrix
  /// is stored. Full by default: on an H200 the symmetric PFMG-PCG solve
  /// took the same time and its setup 1 ms more (bench/NOTES.md, session 20).
  std::string storage = "full";
  /// --pfmg-coarse-operator auto | galerkin | non-galerkin.
  std::string coarse_operator = "auto";
};

/// The settings flags of the CSR solve that were given, as (flag, text);
/// the structured solve reads --precond, --solver, --tol and --maxit from
/// them and refuses the others by name.
using GivenSettings = std::vector<std::pair<std::string, std::string>>;

/// Registers the structured solve's own options on `cmd` (the `solve`
/// subcommand); they are refused unless --interface struct is given.
void add_structured_options(CLI::App& cmd, StructuredSolveOptions& o);

/// Runs the structured solve; 0 converged, 3 not converged.
int run_structured_solve(const StructuredSolveOptions& o, const GivenSettings& settings,
                         const Common& c);

/// Names of the structured problems: poisson3d, aniso3d, jumps3d, poisson2d, aniso2d.
std::vector<std::string> structured_problem_names();

}  // namespace strata::app
