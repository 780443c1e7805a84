#pragma once
// The subcommands of the strata program. Each registers its options on the
// CLI11 app and runs when selected; `solve` will join them.

#include <CLI/CLI.hpp>
#include <vector>

#include "strata/core/types.hpp"

namespace strata::app {

/// Options every subcommand shares.
struct Common {
  bool json = false;
};

void add_info(CLI::App& app, Common& common);
void add_gen(CLI::App& app, Common& common);
void add_spmv(CLI::App& app, Common& common);
/// `solve` sets exit_code: 0 converged, 3 not converged.
void add_solve(CLI::App& app, Common& common, int& exit_code);

/// The x of `strata spmv`: 1 + sin(i/1000)/2, deterministic and not constant.
std::vector<double> test_vector(size_type n);

}  // namespace strata::app
