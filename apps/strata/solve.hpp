#pragma once
// What `strata solve` shares between its serial path (solve.cpp) and its
// path over several MPI processes (distributed_solve.cpp).

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "commands.hpp"
#include "defaults.hpp"
#include "problem.hpp"
#include "strata/config/solver_config.hpp"
#include "strata/strata.hpp"

namespace strata::app {

/// What the front end decides; everything else is in SolverConfig.
struct SolveOptions {
  std::string preset;
  std::string config;
  std::string problem = "poisson3d";
  /// --n (or "n" in --config) when given.
  std::optional<long long> n;
  std::string rhs;
  /// --x0: the initial guess (default zero).
  std::string x0;
  /// -o/--output: where the solution goes (MatrixMarket array).
  std::string output;
  /// --null-space: "constant" or a MatrixMarket vector to project out of b
  /// and x (a singular system such as a pure Neumann problem).
  std::string null_space;
  /// --near-null: a MatrixMarket array (n x k) of near-null vectors for
  /// the aggregation coarsenings (the rigid-body modes of elasticity);
  /// --add-translations puts the block_size translations before them (a
  /// file of rotations only, as hypre's rbm files are).
  std::string near_null;
  bool add_translations = false;
  /// --coordinates: nodal coordinates (MatrixMarket, nodes x dimension or
  /// one interleaved column), from which the rigid-body modes are made.
  std::string coordinates;
  bool host = false;
  bool device = false;
  int print_every = 0;
  bool resetup = false;
  bool print_config = false;
  /// Paths of the settings given by a flag or a --config key: the defaults
  /// that follow the matrix leave them alone.
  std::set<std::string> given;
};

/// The name of a choice parameter's current value ("cg", "amg", "V").
std::string choice_of(const config::SolverConfig& cfg, const char* path);

double seconds(std::chrono::steady_clock::duration d);

/// A vector file given for `flag` (--rhs, --x0, --null-space), on `exec`,
/// with A's number of rows.
Vector<double> read_vector(const std::string& flag, const std::string& path, size_type rows,
                           const Executor& exec);

/// The last word on the settings once the matrix is known: refuses
/// (usage_error) a setting the chosen solve ignores, and keeps Chebyshev's
/// symmetric (Lanczos) estimate only for a matrix known or found symmetric.
/// `where`: where the levels live (the automatic AMG smoother follows it).
void settle_settings(config::SolverConfig& cfg, const MatrixFacts& facts, Location where);

/// The rigid-body modes of a problem's own nodes (elasticity3d's), when
/// the preconditioner is smoothed aggregation with the nodes' dimension as
/// its block size; empty otherwise. Pointwise in the coordinates, so a
/// process of a distributed run makes its rows from its own nodes. Adds the
/// line to `chosen` and sets `source` when it makes them.
std::vector<Vector<double>> nodes_near_null(const config::SolverConfig& cfg,
                                            const std::string& name, int node_dimension,
                                            const Vector<double>& coordinates,
                                            std::vector<std::string>& chosen, std::string& source);

/// The near-null space B the coarsening gets, from --near-null (with
/// --add-translations), --coordinates, or for smoothed aggregation on a
/// problem that knows its nodes (elasticity3d) its rigid-body modes; sets
/// the block size such a problem has when --block-size was not given (see
/// solve.cpp). `rows` is the whole problem's.
std::vector<Vector<double>> near_null_input(const SolveOptions& o, const Problem& p,
                                            config::SolverConfig& cfg, size_type rows,
                                            const Executor& exec, std::vector<std::string>& chosen,
                                            std::string& source);

/// The Krylov method of `cfg`, printing the residual at every print_every-th
/// iteration when `verbose` (print_every 0: the first ten, then every tenth).
KrylovMethod monitored_method(const config::SolverConfig& cfg, int print_every, bool verbose);

/// The report's line naming the method, the preconditioner, the tolerance
/// and b, then the initial guess and the choices the defaults made.
void print_method(const KrylovMethod& method, const std::string& preconditioner,
                  const config::SolverConfig& cfg, const SolveOptions& o,
                  const std::vector<std::string>& chosen);

/// The report's line on what the solve did: the status, the iterations, the
/// tracked and the recomputed relative residuals, the message.
void print_outcome(const SolveInfo& info, double true_relative_residual);

/// The JSON report's fields on the method and what the solve did, shared by
/// the serial and the distributed report.
nlohmann::ordered_json method_and_outcome(const KrylovMethod& method,
                                          const config::SolverConfig& cfg,
                                          const std::string& preconditioner, const SolveInfo& info,
                                          double true_relative_residual);

/// The process's wall time so far and its first parts (start-up before
/// main, starting the executor), as JSON keys (startup_seconds,
/// device_start_seconds, process_seconds) or as the report's last line
/// (under mpirun: rank 0's total, the slowest process's parts).
void add_process_times(nlohmann::ordered_json& report, double startup_seconds,
                       double device_start_seconds);
void print_process_times(const Executor& exec, double startup_seconds, double device_start_seconds,
                         bool slowest_of_processes);

/// The JSON report's fields on an AMG hierarchy (levels, complexities,
/// coarse solver, memory), shared by the serial and the distributed report.
void add_hierarchy(nlohmann::ordered_json& report, const amg::HierarchySummary& summary,
                   const config::SolverConfig& cfg);

/// -o/--output is checked before anything is solved (io_error naming it
/// when the file cannot be written there).
void check_writable(const std::string& path);

/// Refuses (usage_error, naming the option) what does not run on several
/// processes yet: every process checks the same settings and throws alike.
void refuse_undistributed(const SolveOptions& o, const config::SolverConfig& cfg);

/// `strata solve` over the processes mpirun started (processes::several()):
/// 0 converged, 3 not converged; errors as collective_error, or the
/// processes are aborted (processes.hpp says when).
int run_distributed_solve(const SolveOptions& o, config::SolverConfig cfg, const Common& c);

}  // namespace strata::app
