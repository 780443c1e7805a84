#pragma once
// The processes of one `strata` run: one without MPI, or those mpirun
// started. This is the program's MPI (main() starts and ends it; the
// distributed solve asks it for the communicator and for agreement); the
// library's own messages go through strata::Communicator.
//
// MPI is initialized only when an MPI launcher started the program (it
// sets OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK): a plain `strata`
// then never touches MPI, so it starts as fast as before and works where
// Open MPI's singleton start (which spawns a helper daemon) cannot, and an
// MPI-free build has the same program. Under mpirun with one process the
// program is the serial one; with several, `strata solve` distributes.
//
// Output: with several processes only rank 0 writes to stdout and stderr;
// the other ranks' streams go to /dev/null from the start, so no line of
// the program (a note, a report, --help) is printed more than once. What
// another rank has to say reaches rank 0 through agree() below, or, for an
// error on one rank where the others cannot be told (abort()), is written
// to that rank's original stderr before MPI_Abort.

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "strata/distributed/communicator.hpp"

namespace strata::app::processes {

/// MPI_Init when an MPI launcher started the program (see the file
/// comment); then silences stdout and stderr on ranks other than 0 when
/// there are several. Call once, first thing in main (after
/// settle_threads, which may execute the program again).
void start(int& argc, char**& argv);
/// In a build without MPI started by mpirun -np N (N > 1): N, each copy a
/// whole serial run (which main refuses, rather than solve N times with
/// every copy printing); 1 otherwise. Only rank 0's copy is heard.
int copies_without_mpi();
/// MPI_Finalize when start() initialized MPI.
void finish();

/// This process's rank and the number of processes (0 and 1 without MPI).
int rank();
int size();
/// Several processes: `strata solve` distributes.
inline bool several() { return size() > 1; }
/// The processes as a Strata communicator (MPI_COMM_WORLD; self() when
/// MPI is not running).
Communicator communicator();

/// An error every process has thrown together (agree() below, or a check
/// that every process makes on the same input): only rank 0 reports it,
/// and every process exits with `status`.
class collective_error : public error {
 public:
  collective_error(const std::string& message, int status)
      : error(message, SourceLocation::current()), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

/// The exit status an exception stands for: exit_usage for usage_error,
/// collective_error's own, exit_error otherwise.
int status_of(const std::exception& e);
/// Its message for the user (a Strata error's message(), else what()).
std::string message_of(const std::exception& e);

/// Runs `step` on every process (collective). When it throws on any
/// process, every process throws collective_error with the message and
/// status of the first process that failed (its rank named when it is not
/// 0), so that none goes on into a collective the failed ones will never
/// join. Costs one allgather, and a broadcast of the message on failure.
void agree(const std::function<void()>& step);

/// For an exception on some processes only, where the others may already
/// wait in a collective: writes the message, with this rank, to this
/// process's original stderr and ends every process with `status`
/// (MPI_Abort). Without several processes it is not called.
[[noreturn]] void abort(const std::string& message, int status);

/// Rank 0's `text` on every process (collective).
std::string broadcast(const std::string& text);
/// Every process's value, in rank order, on every process (collective).
std::vector<long long> gather(long long value);
std::vector<double> gather(double value);

}  // namespace strata::app::processes
