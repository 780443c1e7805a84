// strata: the command-line face of the library.
//
//   strata info FILE.mtx|PROBLEM      what a matrix is like
//   strata gen PROBLEM --n N -o F     write a gallery problem
//   strata spmv PROBLEM|FILE          SpMV benchmark (beside cuSPARSE on the device)
//   strata solve [PROBLEM|FILE]       solve A x = b (no arguments: a default problem)
//   strata presets                    the presets of solve --preset, and what each is for
//
// Exit status (ExitStatus in commands.hpp; README, "The strata program"):
// 0 success, 1 error (a file, the data, the machine), 2 what was asked for is
// wrong (unknown option, missing argument, bad value), 3 a solve that did
// not converge. Every subcommand takes --json and then prints exactly one
// JSON object on stdout, errors included.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "processes.hpp"
#include "strata/strata.hpp"
#include "threads.hpp"
#include "wall_clock.hpp"

namespace {

/// The error in the form asked for: {"error": ..., "exit_status": ...} on
/// stdout with --json (whose promise is one JSON object on stdout, whatever
/// happened), a line on stderr otherwise.
int report(const std::string& message, int status, bool json) {
  if (json) {
    const char* kind = status == strata::app::exit_usage ? "usage" : "error";
    const nlohmann::ordered_json j = {{"error", message}, {"kind", kind}, {"exit_status", status}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(stderr, "strata: error: %s\n", message.c_str());
  }
  return status;
}

/// The program, between the start and the end of MPI (main below).
int run(int argc, char** argv) {
  // Progress lines reach a pipe as they are printed, not at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  CLI::App app{"Strata: algebraic multigrid and Krylov solvers on GPUs and CPUs", "strata"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION_STRING +
                                        (STRATA_WITH_CUDA ? " (CUDA)" : " (host only)"));
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success, 1 error (a file, the data, the machine), 2 bad command line or "
      "settings, 3 a solve that did not converge.");
  strata::app::Common common;
  strata::app::add_info(app, common);
  strata::app::add_gen(app, common);
  strata::app::add_spmv(app, common);
  int exit_code = 0;
  strata::app::add_solve(app, common, exit_code);
  strata::app::add_presets(app, common);
  // A parse error comes before --json is read; its form follows the words.
  bool json_asked = false;
  for (int i = 1; i < argc; ++i) json_asked = json_asked || std::strcmp(argv[i], "--json") == 0;
  namespace processes = strata::app::processes;
  // Copies of an MPI-free strata would each solve the whole problem and
  // print it.
  if (processes::copies_without_mpi() > 1) {
    return report("this strata was built without MPI (STRATA_WITH_MPI OFF, or no MPI found), and "
                  "the launcher started " + std::to_string(processes::copies_without_mpi()) +
                      " copies of it; run one, or build with MPI to solve across processes",
                  strata::app::exit_usage, json_asked);
  }
  // Under mpirun with several processes only `solve` distributes; the
  // others would run once per process (and `gen` write one file from
  // several processes at once).
  if (processes::several() && argc > 1 && argv[1][0] != '-' && std::strcmp(argv[1], "solve") != 0) {
    return report("strata " + std::string(argv[1]) + " runs on one process, and mpirun started " +
                      std::to_string(processes::size()) +
                      "; only `strata solve` runs on several processes: run it without mpirun",
                  strata::app::exit_usage, json_asked);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" of CLI11 with status 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    // CLI11's own statuses (106 missing positional, 109 unknown option, ...)
    // are one class here: the command line is wrong.
    const bool json = json_asked || common.json;
    return report(json ? std::string(e.what())
                       : std::string(e.what()) + "\nRun with --help for more information.",
                  strata::app::exit_usage, json);
  } catch (const strata::app::usage_error& e) {
    return report(e.message(), strata::app::exit_usage, json_asked || common.json);
  } catch (const std::exception& e) {
    // A Strata error's message says what was wrong; where in the library it
    // was detected (what()) matters to developers, not to the command line.
    // With several processes, what arrives here every process has thrown
    // alike (a check of the same command line and settings, or an error
    // the processes agreed on); rank 0 alone is heard.
    return report(processes::message_of(e), processes::status_of(e), json_asked || common.json);
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  strata::app::wall_clock::since_start();  // anchored before anything else runs
  strata::app::settle_threads(argc, argv);
  // After settle_threads, which may execute the program again: MPI is
  // started once, in the image that runs.
  strata::app::processes::start(argc, argv);
  const int status = run(argc, argv);
  strata::app::processes::finish();
  return status;
}
