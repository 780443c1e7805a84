#include "problem.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "commands.hpp"

namespace strata::app {

size_type default_size(const std::string& name) {
  if (name == "poisson2d" || name == "poisson2d9" || name == "aniso2d") return 1024;
  if (name == "elasticity3d") return 32;
  return 64;
}

Problem load_problem(const std::string& spec, std::optional<long long> n, const Executor& exec,
                     size_type default_n) {
  const auto start = std::chrono::steady_clock::now();
  Problem p;
  p.name = spec;
  const auto& names = gallery::problem_names();
  const bool is_gallery = std::find(names.begin(), names.end(), spec) != names.end();
  if (is_gallery) {
    p.source = "gallery";
    if (n && *n < 1) {
      throw usage_error("--n " + std::to_string(*n) +
                             ": expected an integer >= 1 (the size of "
                             "gallery problem '" +
                             spec + "')");
    }
    p.n = n ? *n : default_n > 0 ? default_n : default_size(spec);
    if (spec == "elasticity3d") {
      auto e = gallery::elasticity3d(exec, p.n);
      p.A = std::move(e.A);
      p.coordinates = std::move(e.coordinates);
      p.block_size = 3;
      p.node_dimension = 3;
    } else {
      p.A = gallery::generate(spec, p.n, exec);
    }
  } else {
    const bool looks_like_file =
        spec.ends_with(".mtx") || std::filesystem::exists(std::filesystem::path(spec));
    if (!looks_like_file) {
      std::string list;
      for (const auto& s : names) list += (list.empty() ? "" : ", ") + s;
      throw usage_error("'" + spec + "' is neither a gallery problem (" + list +
                             ") nor a MatrixMarket file");
    }
    if (n) {
      throw usage_error("--n " + std::to_string(*n) + " sizes a gallery problem, but '" +
                             spec +
                             "' is a MatrixMarket file, whose size is its own; leave --n out");
    }
    p.source = "file";
    auto host_matrix = io::read_matrix_market(spec);
    p.A = exec.is_host() ? std::move(host_matrix) : host_matrix.to(exec);
  }
  exec.synchronize();
  p.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return p;
}

Executor pick_executor(bool host, bool device) {
  if (host && device) throw usage_error("--host and --device exclude each other");
  if (host) return Executor::host();
  if (device) return Executor::cuda();  // throws not_compiled / cuda_error with the reason
  return cuda_available() ? Executor::cuda() : Executor::host();
}

}  // namespace strata::app
