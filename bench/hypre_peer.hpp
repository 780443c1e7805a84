#pragma once
// hypre's results from the same device call, for the benchmarks' ratio
// columns. A ratio against hypre counts only when both ran on the same
// machine in the same run (the GPU machines differ from call to call), so
// the benchmarks never carry hypre numbers of their own: scripts/gpu-check
// runs the peer (`.peers/hypre/build-and-run.sh`, see ../shared/peers/) just
// before them and hands its output over with `--hypre FILE`.
//
// The file holds one line per hypre case, as build-and-run.sh prints them:
//   HYPRE 7pt-256              setup 0.28 s  solve 0.19 s  iterations 20
// Other lines are ignored; a case whose times are missing (nan) did not run.
// A case may appear several times (gpu-check runs the peer in three
// processes): the best total counts, as the benchmarks report the best of
// their own warm repeats.

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::bench {

struct HypreRun {
  std::string name;
  double setup = 0, solve = 0;
  int iterations = 0;
  double total() const { return setup + solve; }
};

class HyprePeer {
 public:
  HyprePeer() = default;

  /// Reads the peer's output; throws naming the file when it cannot be read
  /// or holds no completed case (a peer that did not run must not silently
  /// turn into a benchmark without its comparison).
  static HyprePeer read(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("--hypre: cannot read " + path);
    HyprePeer peer;
    std::string line;
    while (std::getline(in, line)) {
      char name[128];
      double setup = NAN, solve = NAN;
      int iterations = 0;
      if (std::sscanf(line.c_str(), "HYPRE %127s setup %lf s solve %lf s iterations %d", name,
                      &setup, &solve, &iterations) == 4 &&
          std::isfinite(setup) && std::isfinite(solve) && iterations > 0) {
        peer.runs_.push_back({name, setup, solve, iterations});
      }
    }
    if (peer.runs_.empty()) {
      throw std::runtime_error("--hypre: " + path +
                               " holds no completed hypre case (expected lines 'HYPRE name "
                               "setup S s solve S s iterations N')");
    }
    return peer;
  }

  bool empty() const { return runs_.empty(); }

  /// The run with the smallest total among `names` (hypre's best
  /// configuration for a problem), or nullptr when none of them ran.
  const HypreRun* best(const std::vector<std::string>& names) const {
    const HypreRun* best = nullptr;
    for (const HypreRun& r : runs_) {
      for (const std::string& n : names) {
        if (r.name == n && (best == nullptr || r.total() < best->total())) best = &r;
      }
    }
    return best;
  }

 private:
  std::vector<HypreRun> runs_;
};

}  // namespace strata::bench
