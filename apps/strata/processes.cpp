#include "processes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "strata/config.hpp"

#if STRATA_WITH_MPI
#include "strata/distributed/mpi.hpp"
#endif

namespace strata::app::processes {

namespace {

#if STRATA_WITH_MPI
bool initialized_here = false;
#endif
int this_rank = 0;
int process_count = 1;
/// A duplicate of stderr taken before a rank other than 0 is silenced:
/// where abort() still writes.
int original_stderr = STDERR_FILENO;
/// In a build without MPI: how many copies a launcher started (1: none).
int launched_copies = 1;

#if STRATA_WITH_MPI
/// Whether an MPI launcher started this process: the variables Open MPI's
/// mpirun (OMPI_COMM_WORLD_SIZE), PMIx launchers (PMIX_RANK) and MPICH's
/// Hydra or Slurm's PMI (PMI_RANK) set for every process they start.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}
#endif

/// Points `fd` at /dev/null.
void silence(int fd) {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null < 0) return;  // nothing better to do: the rank stays audible
  ::dup2(null, fd);
  ::close(null);
}

}  // namespace

void start(int& argc, char**& argv) {
#if STRATA_WITH_MPI
  if (!launched_by_mpi()) return;
  // Only the main thread calls MPI (OpenMP threads never do).
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  initialized_here = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &this_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &process_count);
  if (process_count > 1 && this_rank != 0) {
    std::fflush(stdout);
    std::fflush(stderr);
    original_stderr = ::dup(STDERR_FILENO);
    silence(STDOUT_FILENO);
    silence(STDERR_FILENO);
  }
#else
  (void)argc;
  (void)argv;
  // Without MPI each process is a whole run of its own; the launcher's
  // variables still tell how many were started, for copies_without_mpi().
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) {
      launched_copies = std::atoi(value);
      break;
    }
  }
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name)) {
      if (std::atoi(value) != 0 && launched_copies > 1) {
        silence(STDOUT_FILENO);
        silence(STDERR_FILENO);
      }
      break;
    }
  }
#endif
}

int copies_without_mpi() { return launched_copies; }

void finish() {
#if STRATA_WITH_MPI
  if (!initialized_here) return;
  // Output first: a process that ends before its lines are flushed may
  // lose them when mpirun tears the job down.
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Finalize();
  initialized_here = false;
#endif
}

int rank() { return this_rank; }
int size() { return process_count; }

Communicator communicator() {
#if STRATA_WITH_MPI
  if (initialized_here) return make_communicator(MPI_COMM_WORLD);
#endif
  return Communicator::self();
}

int status_of(const std::exception& e) {
  if (const auto* c = dynamic_cast<const collective_error*>(&e)) return c->status();
  if (dynamic_cast<const usage_error*>(&e)) return exit_usage;
  return exit_error;
}

std::string message_of(const std::exception& e) {
  const auto* strata_error = dynamic_cast<const error*>(&e);
  return strata_error ? strata_error->message() : e.what();
}

void agree(const std::function<void()>& step) {
  int status = 0;
  std::string message;
  try {
    step();
  } catch (const std::exception& e) {
    status = status_of(e);
    message = message_of(e);
  } catch (...) {
    status = exit_error;
    message = "an unknown exception";
  }
  if (!several()) {
    if (status != 0) throw collective_error(message, status);
    return;
  }
#if STRATA_WITH_MPI
  std::vector<int> statuses(static_cast<std::size_t>(process_count));
  MPI_Allgather(&status, 1, MPI_INT, statuses.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int first = -1;
  for (int r = 0; r < process_count && first < 0; ++r) {
    if (statuses[static_cast<std::size_t>(r)] != 0) first = r;
  }
  if (first < 0) return;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw collective_error(first == 0 ? message : "process " + std::to_string(first) + ": " + message,
                         statuses[static_cast<std::size_t>(first)]);
#endif
}

void abort(const std::string& message, int status) {
  const std::string line =
      "strata: error on process " + std::to_string(this_rank) + ": " + message + "\n";
  std::fflush(stdout);
  if (::write(original_stderr, line.data(), line.size()) < 0) {
    // Nowhere left to say it; the exit status still tells.
  }
#if STRATA_WITH_MPI
  if (initialized_here) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::_Exit(status);
}

std::string broadcast(const std::string& text) {
#if STRATA_WITH_MPI
  if (several()) {
    std::string out = text;
    int length = static_cast<int>(out.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    out.resize(static_cast<std::size_t>(length));
    MPI_Bcast(out.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }
#endif
  return text;
}

std::vector<long long> gather(long long value) {
  std::vector<long long> all(static_cast<std::size_t>(process_count), value);
#if STRATA_WITH_MPI
  if (several()) {
    MPI_Allgather(&value, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  }
#endif
  return all;
}

std::vector<double> gather(double value) {
  std::vector<double> all(static_cast<std::size_t>(process_count), value);
#if STRATA_WITH_MPI
  if (several()) MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
  return all;
}

}  // namespace strata::app::processes
