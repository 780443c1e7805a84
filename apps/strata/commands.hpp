#pragma once
// The subcommands of the strata program. Each registers its options on the
// CLI11 app and runs when selected.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/types.hpp"

namespace strata::app {

/// The program's exit statuses (README, "The strata program").
enum ExitStatus : int {
  exit_success = 0,
  /// A file that cannot be read, written or parsed, data that do not fit
  /// together, a matrix that cannot be solved as given, the machine.
  exit_error = 1,
  /// What was asked for is wrong, wherever it was written (a flag, --config,
  /// a preset): unknown option, missing argument, a bad or ineffective value.
  exit_usage = 2,
  /// The solve ran and did not converge.
  exit_not_converged = 3,
};

/// An error in what was asked for (exit 2), as opposed to the data or the
/// machine (exit 1). Thrown by the program's own checks of its options; the
/// library's invalid_argument from applying a setting is turned into one
/// where the setting is applied.
class usage_error : public invalid_argument {
 public:
  explicit usage_error(const std::string& message,
                       SourceLocation where = SourceLocation::current())
      : invalid_argument(message, where) {}
};

/// Throws usage_error(message) unless `ok`: for checks of what was asked
/// (flags, settings), which exit with exit_usage rather than exit_error.
inline void require_usage(bool ok, const std::string& message) {
  if (!ok) throw usage_error(message);
}

/// Options every subcommand shares.
struct Common {
  bool json = false;
  /// A line per AMG level as a solve's setup builds it, however short the
  /// setup (without it, only setups over a second print them).
  bool verbose = false;
};

void add_info(CLI::App& app, Common& common);
void add_gen(CLI::App& app, Common& common);
void add_spmv(CLI::App& app, Common& common);
/// `solve` sets exit_code: 0 converged, 3 not converged.
void add_solve(CLI::App& app, Common& common, int& exit_code);
/// `presets`: the shipped settings files, with what each is for.
void add_presets(CLI::App& app, Common& common);

/// The x of `strata spmv`: 1 + sin(i/1000)/2, deterministic and not constant.
std::vector<double> test_vector(size_type n);

}  // namespace strata::app
