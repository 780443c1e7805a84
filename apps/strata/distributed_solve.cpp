// strata solve over several MPI processes (mpirun -np N strata solve ...):
// the serial solve of solve.cpp with A, b and x split by rows.
//
//  - A: a gallery problem with a distributed generator is made process by
//    process, each only its rows (gallery::generate(name, n, comm, exec));
//    a MatrixMarket file, or a gallery problem without one, is made on
//    rank 0 and its rows sent out (scatter_rows), as are --rhs and --x0.
//  - The Krylov method runs on the DistributedOperator (with a block
//    size, the DistributedBsrOperator of its block form, as the serial
//    program runs on a BSR operator) with a DistributedReduction for every
//    sum, preconditioned by the Jacobi family, Chebyshev, the Gauss-Seidel
//    family and ILU (hybrid: each process its own rows) or AMG (classical,
//    aggregation or smoothed aggregation, every level distributed, built on
//    the scalar form) built with that reduction. A block problem
//    (elasticity3d, --block-size) is split by whole nodes
//    (RowPartition::uniform_nodes), as smoothed aggregation needs; its
//    near-null space (--near-null, --coordinates, or the problem's nodes:
//    elasticity3d's, made by each process and gathered) is made whole on
//    rank 0 as the serial program makes it, and each process gets its rows.
//    What does not run distributed yet (--null-space) is refused by name.
//  - Errors: every check of the settings is made by every process on the
//    same settings, so all throw together; a step whose failure depends on
//    the process (reading a file on rank 0, the GPU a rank gets) runs under
//    processes::agree, so all throw together; anything else that throws on
//    one process aborts them all (processes::abort), so none waits forever.
//  - Output: rank 0's (processes.hpp): the serial report and JSON, the
//    times the largest over the processes, with the split of rows and
//    nonzeros and each process's times.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "defaults.hpp"
#include "problem.hpp"
#include "processes.hpp"
#include "solve.hpp"
#include "wall_clock.hpp"

namespace strata::app {

namespace {

using json = nlohmann::ordered_json;

template <class T>
T largest(const std::vector<T>& v) {
  return *std::max_element(v.begin(), v.end());
}
template <class T>
T smallest(const std::vector<T>& v) {
  return *std::min_element(v.begin(), v.end());
}

/// The GPU of this rank under --device (or the default where a GPU is
/// usable): rank % the GPUs this node shows, so that the ranks of a node
/// share its GPUs round-robin (one each when there are as many; several
/// ranks on one GPU for testing). Ranks are counted over the whole job,
/// which gives every GPU of a node its share when mpirun places ranks on
/// nodes by blocks of the node's GPU count (its default fills a node
/// before the next).
Executor rank_executor(bool host, bool device) {
  if (host && device) throw usage_error("--host and --device exclude each other");
  if (host || (!device && !cuda_available())) return Executor::host();
  const int gpus = cuda_device_count();
  if (gpus <= 0) return Executor::cuda();  // throws not_compiled / cuda_error with the reason
  return Executor::cuda(processes::rank() % gpus);
}

/// What rank 0 learns loading a matrix the others need: the global size
/// and the facts the defaults follow (defaults.hpp), sent as JSON.
struct Loaded {
  std::string source;
  size_type n = 0;
  size_type rows = 0;
  /// Unknowns per node the problem knows (Problem::block_size; 0 unknown).
  int block_size = 0;
  MatrixFacts facts;
};

std::string to_text(const Loaded& l) {
  return json{{"source", l.source},
              {"n", l.n},
              {"rows", l.rows},
              {"block_size", l.block_size},
              {"symmetric", l.facts.symmetric},
              {"symmetry_reason", l.facts.symmetry_reason},
              {"constant_null_space", l.facts.constant_null_space}}
      .dump();
}

Loaded from_text(const std::string& text) {
  const json j = json::parse(text);
  Loaded l;
  l.source = j["source"];
  l.n = j["n"];
  l.rows = j["rows"];
  l.block_size = j["block_size"];
  l.facts.symmetric = j["symmetric"];
  l.facts.symmetry_reason = j["symmetry_reason"];
  l.facts.constant_null_space = j["constant_null_space"];
  l.facts.positive_diagonal = l.rows;  // refuse_hopeless ran on rank 0
  return l;
}

/// Rank 0's vector file for `flag` (the others pass nothing), split into
/// each process's block; rank 0's read failing fails every process.
Vector<double> scattered_vector(const std::string& flag, const std::string& path,
                                const RowPartition& partition, const Executor& exec) {
  Vector<double> whole;
  processes::agree([&] {
    if (processes::rank() == 0) {
      whole = read_vector(flag, path, partition.global_size(), Executor::host());
    }
  });
  return std::move(scatter_vector(whole, partition, exec).local());
}

/// The block size of smoothed aggregation, decided on every process before
/// the rows are split (so that a block problem is split by whole nodes):
/// --block-size, else the problem's own (elasticity3d's 3), the rule of
/// near_null_input (solve.cpp), which then finds it set.
int node_block_size(const SolveOptions& o, config::SolverConfig& cfg, const Loaded& loaded,
                    std::vector<std::string>& chosen) {
  const auto& amg = cfg.preconditioner.amg;
  const bool sa = cfg.preconditioner.type == config::PreconditionerType::amg &&
                  amg.coarsening == config::CoarseningType::smoothed_aggregation;
  auto& block_size = cfg.preconditioner.amg.smoothed_aggregation.block_size;
  if (sa && loaded.block_size > 1 &&
      !o.given.count("preconditioner.amg.smoothed_aggregation.block_size") && block_size == 0) {
    block_size = loaded.block_size;
    chosen.push_back("block size " + std::to_string(loaded.block_size) + " (" + o.problem +
                     " has " + std::to_string(loaded.block_size) +
                     " unknowns per node; give --block-size for another)");
  }
  const int b = config::block_size(cfg);
  require_usage(loaded.rows % b == 0, "--block-size " + std::to_string(b) +
                                          " does not divide the " + std::to_string(loaded.rows) +
                                          " rows of A; expected the number of unknowns per node");
  return b;
}

}  // namespace

void refuse_undistributed(const SolveOptions& o, const config::SolverConfig& cfg) {
  const std::string why = " does not run on several processes yet (mpirun started " +
                          std::to_string(processes::size()) + ")";
  if (o.resetup) {
    require_usage(cfg.preconditioner.type == config::PreconditionerType::amg,
                  "--resetup needs --precond amg");
    require_usage(cfg.preconditioner.amg.hierarchy.keep_resetup_data,
                  "--resetup needs the data that --drop-resetup-data (preconditioner.amg."
                  "keep_resetup_data = false) frees; give one");
  }
  require_usage(o.null_space.empty(),
                "--null-space" + why + "; leave it out, or run on one process");
}

int run_distributed_solve(const SolveOptions& o, config::SolverConfig cfg, const Common& c) {
  refuse_undistributed(o, cfg);
  const Communicator comm = processes::communicator();
  const int processes_n = comm.size();
  const bool root = comm.rank() == 0;

  std::optional<Executor> picked;
  const double device_start_begin = wall_clock::since_start();
  processes::agree([&] {
    picked = rank_executor(o.host, o.device);
    if (root && !o.output.empty()) check_writable(o.output);
  });
  const Executor exec = *picked;
  const double device_start_seconds = wall_clock::since_start() - device_start_begin;

  // A: each process its rows.
  const auto load_start = std::chrono::steady_clock::now();
  const auto& names = gallery::problem_names();
  const bool generated = std::find(names.begin(), names.end(), o.problem) != names.end() &&
                         gallery::has_distributed_generator(o.problem);
  std::shared_ptr<const DistributedCsrMatrix<double>> A;
  Loaded loaded;
  // The problem as near_null_input sees it (on rank 0: the whole problem
  // when it was loaded there), and what deciding the block size chose.
  Problem whole;
  std::vector<std::string> node_chosen;
  // A generated problem's own nodes (elasticity3d): this process's, from
  // which it makes its rows of the rigid-body modes.
  Vector<double> local_coordinates;
  if (generated) {
    if (o.n && *o.n < 1) {
      throw usage_error("--n " + std::to_string(*o.n) +
                        ": expected an integer >= 1 (the size of gallery problem '" + o.problem +
                        "')");
    }
    loaded.source = "gallery";
    // The serial defaults (solve.cpp): 64^3 on the host, 128^3 on a GPU.
    loaded.n = o.n                        ? *o.n
               : o.problem == "poisson3d" ? (exec.is_cuda() ? 128 : 64)
                                          : default_size(o.problem);
    processes::agree([&] {
      if (o.problem == "elasticity3d") {
        // Split by whole nodes; each process makes its own nodes too.
        const size_type nodes = loaded.n * (loaded.n + 1) * (loaded.n + 1);
        auto e = gallery::elasticity3d(RowPartition::uniform_nodes(comm, 3 * nodes, 3), exec,
                                       loaded.n, loaded.n, loaded.n);
        A = std::make_shared<const DistributedCsrMatrix<double>>(std::move(e.A));
        local_coordinates = std::move(e.coordinates);
      } else {
        A = std::make_shared<const DistributedCsrMatrix<double>>(
            gallery::generate(o.problem, loaded.n, comm, exec));
      }
    });
    loaded.rows = A->global_rows();
    whole.name = o.problem;
    whole.source = "gallery";
    if (o.problem == "elasticity3d") {
      // What near_null_input finds in the serial problem: its block size
      // (its nodes stay where they were made: see the near-null space below).
      loaded.block_size = whole.block_size = whole.node_dimension = 3;
    }
    loaded.facts = inspect(whole, CsrMatrix<double>());
    node_block_size(o, cfg, loaded, node_chosen);  // a block size the generator's split cuts:
                                                   // smoothed aggregation names the node
    loaded.facts.positive_diagonal = loaded.rows;
  } else {
    // Read (or generated) once, on rank 0: the MatrixMarket format has no
    // index by which each process could find its rows (matrix.hpp).
    processes::agree([&] {
      if (!root) return;
      whole = load_problem(o.problem, o.n, Executor::host(), 0);
      if (whole.A.rows() != whole.A.cols()) {
        throw invalid_argument("solve: A must be square, it is " + std::to_string(whole.A.rows()) +
                               " x " + std::to_string(whole.A.cols()));
      }
      loaded.source = whole.source;
      loaded.n = whole.n;
      loaded.rows = whole.A.rows();
      loaded.block_size = whole.block_size;
      loaded.facts = inspect(whole, whole.A);
      refuse_hopeless(loaded.facts, whole.name);
    });
    loaded = from_text(processes::broadcast(root ? to_text(loaded) : std::string()));
    const int b = node_block_size(o, cfg, loaded, node_chosen);
    const RowPartition partition = RowPartition::uniform_nodes(comm, loaded.rows, b);
    processes::agree([&] {
      A = std::make_shared<const DistributedCsrMatrix<double>>(
          scatter_rows(whole.A, partition, exec));
    });
  }
  exec.synchronize();
  const double load_seconds = seconds(std::chrono::steady_clock::now() - load_start);
  const RowPartition& partition = A->row_partition();
  const MatrixFacts& facts = loaded.facts;

  // The Krylov settings fitted to the global size (restart and truncation
  // must be the same on every process, and the serial ones); the memory
  // check then counts the whole problem's vectors on each process, which
  // errs on the safe side.
  processes::agree([&] {
    for (const auto& change : config::fit_to_problem(cfg, loaded.rows, exec)) {
      std::fprintf(stderr, "strata: note: %s\n", change.c_str());
    }
  });
  Vector<double> b = o.rhs.empty() ? Vector<double>(exec, partition.local_size(), 1.0)
                                   : scattered_vector("--rhs", o.rhs, partition, exec);
  Vector<double> x = o.x0.empty() ? Vector<double>(exec, partition.local_size(), 0.0)
                                  : scattered_vector("--x0", o.x0, partition, exec);
  if (facts.constant_null_space) {
    std::fprintf(stderr,
                 "strata: note: every row of A sums to zero: constants are in its null space, "
                 "and A x = b has a solution only for b orthogonal to them (--null-space "
                 "constant, which projects them out, runs on one process only for now)\n");
  }
  std::vector<std::string> chosen = choose_defaults(cfg, facts, o.given);
  chosen.insert(chosen.end(), node_chosen.begin(), node_chosen.end());
  // The near-null space: rank 0 reads files (--near-null, --coordinates)
  // as the serial program does, and each process gets its rows (a
  // distributed near-null space is split by rows like A). Without files, a
  // generated problem's rigid-body modes are made by each process from its
  // own nodes (pointwise in the coordinates): no process holds the mesh.
  std::vector<Vector<double>> near_null;
  std::string near_null_source;
  {
    std::vector<Vector<double>> whole_B;
    processes::agree([&] {
      if (root) {
        whole_B = near_null_input(o, whole, cfg, loaded.rows, Executor::host(), chosen,
                                  near_null_source);
      }
    });
    const json sent = json::parse(processes::broadcast(
        root ? json{{"k", whole_B.size()}, {"source", near_null_source}}.dump() : std::string()));
    near_null_source = sent["source"];
    const std::size_t k = sent["k"];
    const Vector<double> nothing;  // what the other processes pass (not read)
    for (std::size_t c = 0; c < k; ++c) {
      near_null.push_back(
          std::move(scatter_vector(root ? whole_B[c] : nothing, partition, exec).local()));
    }
    if (k == 0 && generated) {
      std::vector<std::string> nodes_chosen;
      processes::agree([&] {
        near_null = nodes_near_null(cfg, whole.name, whole.node_dimension, local_coordinates,
                                    nodes_chosen, near_null_source);
      });
      chosen.insert(chosen.end(), nodes_chosen.begin(), nodes_chosen.end());
    }
  }
  const std::size_t near_null_vectors = near_null.size();
  settle_settings(cfg, facts, exec.location());

  const auto op = std::make_shared<const DistributedOperator<double>>(A);
  const auto shared_reduction = std::make_shared<const DistributedReduction<double>>(comm);
  const DistributedReduction<double>& reduction = *shared_reduction;
  const std::vector<long long> rows_per_process = processes::gather((long long)A->local_rows());
  const std::vector<long long> nnz_per_process = processes::gather((long long)A->local_nnz());
  const bool verbose = !c.json && o.print_every >= 0;
  if (verbose) {
    std::printf(
        "strata solve: %s%s, %lld rows, %lld nonzeros, on %s, %d processes\n", o.problem.c_str(),
        loaded.source == "gallery" ? (" n=" + std::to_string(loaded.n)).c_str() : "",
        (long long)A->global_rows(), (long long)A->global_nnz(), exec.name().c_str(), processes_n);
    const std::string why = device_transfer_reason(comm);
    std::printf("  per process: %lld-%lld rows, %lld-%lld nonzeros (%s); halo exchange: %s%s%s\n",
                smallest(rows_per_process), largest(rows_per_process), smallest(nnz_per_process),
                largest(nnz_per_process),
                generated ? "each generated its rows" : "rows sent from rank 0",
                A->halo_transfer(), why.empty() ? "" : ", because ", why.c_str());
    if (near_null_vectors > 0) {
      std::printf("  near-null space: %zu vectors, %s (each process its rows)\n",
                  near_null_vectors, near_null_source.c_str());
    }
    std::fflush(stdout);
  }

  const auto setup_start = std::chrono::steady_clock::now();
  std::unique_ptr<LinearOperator<double>> M;
  processes::agree([&] { M = config::make_preconditioner<double>(cfg, op, std::move(near_null), shared_reduction); });
  auto* hierarchy = dynamic_cast<amg::Hierarchy<double>*>(M.get());
  // With a block size (--block-size), the Krylov method multiplies by the
  // block form, as the serial program does (config::level_operator); the
  // hierarchy keeps the scalar form, which the distributed coarsenings
  // take. Made after the preconditioner, so that a split that cuts nodes is
  // named by smoothed aggregation's own check first.
  std::shared_ptr<const LevelOperator<double>> krylov_op = op;
  if (config::block_size(cfg) > 1) {
    processes::agree([&] {
      krylov_op = std::make_shared<const DistributedBsrOperator<double>>(
          to_bsr(*A, config::block_size(cfg)));
    });
  }
  exec.synchronize();
  const double setup_seconds = seconds(std::chrono::steady_clock::now() - setup_start);
  // --resetup: the same values again, which times the value-only path
  // (collective, like the solve: a failure here ends the job).
  double resetup_seconds = -1;
  if (o.resetup && hierarchy) {
    const auto start = std::chrono::steady_clock::now();
    try {
      hierarchy->resetup();
    } catch (const std::exception& e) {
      processes::abort(processes::message_of(e), exit_error);
    }
    exec.synchronize();
    resetup_seconds = seconds(std::chrono::steady_clock::now() - start);
  }
  const double slowest_resetup = largest(processes::gather(resetup_seconds));

  const auto method = monitored_method(cfg, o.print_every, verbose);
  const std::string precond_desc = M ? M->describe() : "none";
  if (verbose) {
    print_method(method, precond_desc, cfg, o, chosen);
    if (krylov_op != op) std::printf("  operator: A as %s\n", krylov_op->kind().c_str());
    std::fflush(stdout);
  }

  // From here on every process runs the same collectives in the same
  // order; an exception on one of them (the machine, not the input, which
  // was checked above) cannot be agreed on without a collective the others
  // may already be inside, so it ends the job.
  SolveInfo info;
  double solve_seconds = 0, true_relative = 0;
  try {
    const auto solve_start = std::chrono::steady_clock::now();
    info = solve(method, *krylov_op, b, x, M.get(), reduction);
    exec.synchronize();
    solve_seconds = seconds(std::chrono::steady_clock::now() - solve_start);
    // The true residual b - A x, its norm summed over the processes.
    Vector<double> r(exec, partition.local_size());
    krylov_op->apply(x, r);
    axpby(1.0, b, -1.0, r);
    const double b_norm = reduction.norm2(b);
    const double r_norm = reduction.norm2(r);
    true_relative = b_norm > 0 ? r_norm / b_norm : r_norm;
  } catch (const std::exception& e) {
    processes::abort(processes::message_of(e), exit_error);
  }
  const std::vector<double> load_per_process = processes::gather(load_seconds);
  const std::vector<double> setup_per_process = processes::gather(setup_seconds);
  const std::vector<double> solve_per_process = processes::gather(solve_seconds);
  const std::vector<double> device_start_per_process = processes::gather(device_start_seconds);
  const std::vector<double> startup_per_process =
      processes::gather(wall_clock::before_first_call());

  // Gathered on rank 0 and written there, whatever the status (as serial).
  if (!o.output.empty()) {
    const Vector<double> whole = gather_vector(DistributedVector<double>(partition, x.clone()));
    processes::agree([&] {
      if (root) io::write_matrix_market(o.output, whole);
    });
  }
  if (!root) return info.converged() ? 0 : 3;

  if (c.json) {
    json j = {{"command", "solve"},
              {"problem", o.problem},
              {"source", loaded.source},
              {"n", loaded.n},
              {"rows", A->global_rows()},
              {"nnz", A->global_nnz()},
              {"backend", exec.name()},
              {"processes", processes_n},
              {"rows_per_process", rows_per_process},
              {"nnz_per_process", nnz_per_process},
              {"matrix_built_by", generated ? "each process its rows" : "rank 0, rows scattered"},
              {"halo_transfer", A->halo_transfer()},
              {"device_transfer", device_transfer(comm)},
              {"device_transfer_reason", device_transfer_reason(comm)}};
    j.update(method_and_outcome(method, cfg, precond_desc, info, true_relative));
    j.update(json{{"chosen", chosen},
                  {"constant_null_space", facts.constant_null_space},
                  {"operator_kind", krylov_op->kind()},
                  {"block_size", config::block_size(cfg)},
                  {"near_null_vectors", near_null_vectors},
                  {"x0", o.x0},
                  {"output", o.output},
                  {"load_seconds", largest(load_per_process)},
                  {"setup_seconds", largest(setup_per_process)},
                  {"solve_seconds", largest(solve_per_process)},
                  {"seconds_per_iteration",
                   info.iterations > 0 ? largest(solve_per_process) / info.iterations : 0.0},
                  {"load_seconds_per_process", load_per_process},
                  {"setup_seconds_per_process", setup_per_process},
                  {"solve_seconds_per_process", solve_per_process},
                  {"residual_history", info.residual_history}});
    if (hierarchy) add_hierarchy(j, hierarchy->summary(), cfg);
    if (resetup_seconds >= 0) j["resetup_seconds"] = slowest_resetup;
    add_process_times(j, largest(startup_per_process), largest(device_start_per_process));
    j["config"] = json::parse(config::config_to_json(cfg));
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    print_outcome(info, true_relative);
    std::printf(
        "  setup %.4f s, solve %.4f s (%.3f ms per iteration); problem built in %.3f s (the "
        "slowest of %d processes)\n",
        largest(setup_per_process), largest(solve_per_process),
        (info.iterations > 0 ? largest(solve_per_process) / info.iterations : 0.0) * 1e3,
        largest(load_per_process), processes_n);
    std::printf("  per process: setup %.4f-%.4f s, solve %.4f-%.4f s\n",
                smallest(setup_per_process), largest(setup_per_process),
                smallest(solve_per_process), largest(solve_per_process));
    if (resetup_seconds >= 0) {
      std::printf(
          "  value-only resetup %.4f s (%.1fx faster than the setup; the slowest process)\n",
          slowest_resetup, largest(setup_per_process) / std::max(slowest_resetup, 1e-12));
    }
    if (hierarchy) std::printf("%s", amg::format_summary(hierarchy->summary()).c_str());
    if (!o.output.empty()) std::printf("  solution written to %s\n", o.output.c_str());
    print_process_times(exec, largest(startup_per_process), largest(device_start_per_process),
                        true);
  }
  return info.converged() ? 0 : 3;
}

}  // namespace strata::app
