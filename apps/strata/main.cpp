// strata: the command-line face of the library.
//
//   strata info FILE.mtx|PROBLEM      what a matrix is like
//   strata gen PROBLEM --n N -o F     write a gallery problem
//   strata spmv PROBLEM|FILE          SpMV benchmark (beside cuSPARSE on the device)
//   strata solve [PROBLEM|FILE]       solve A x = b (no arguments: a default problem)
//
// Exit status: 0 success, 1 error (bad input, I/O), 2 bad command line,
// 3 a solve that did not converge.
// Every subcommand takes --json and then prints exactly one JSON object.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "strata/strata.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Strata: algebraic multigrid and Krylov solvers on GPUs and CPUs", "strata"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION_STRING +
                                        (STRATA_WITH_CUDA ? " (CUDA)" : " (host only)"));
  app.require_subcommand(1);
  strata::app::Common common;
  strata::app::add_info(app, common);
  strata::app::add_gen(app, common);
  strata::app::add_spmv(app, common);
  int exit_code = 0;
  strata::app::add_solve(app, common, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // A Strata error's message says what was wrong; where in the library it
    // was detected (what()) matters to developers, not to the command line.
    const auto* strata_error = dynamic_cast<const strata::error*>(&e);
    const std::string message = strata_error ? strata_error->message() : e.what();
    if (common.json) {
      std::printf("%s\n", nlohmann::json{{"error", message}}.dump(2).c_str());
    } else {
      std::fprintf(stderr, "strata: error: %s\n", message.c_str());
    }
    return 1;
  }
  return exit_code;
}
