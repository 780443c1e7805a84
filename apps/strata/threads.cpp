#include "threads.hpp"

#include <unistd.h>

#include <cstdlib>

#include "strata/config.hpp"

namespace strata::app {

void settle_threads(int argc, char** argv) {
  (void)argc;
#if STRATA_WITH_OPENMP
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;  // the user's choice stands
  // Set before the new image loads libgomp; the variable being set is also
  // what stops the new image from executing itself again.
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not reached unless execv failed (no /proc, say): go on as things are.
  ::unsetenv("OMP_WAIT_POLICY");
#else
  (void)argv;
#endif
}

}  // namespace strata::app
