#include "wall_clock.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace strata::app::wall_clock {

namespace {

/// Seconds between the process's start and now, from /proc; 0 where it
/// cannot be read.
double elapsed_from_proc() {
  std::ifstream stat("/proc/self/stat"), uptime_file("/proc/uptime");
  std::string line;
  double uptime = 0;
  if (!std::getline(stat, line) || !(uptime_file >> uptime)) return 0;
  // Field 2 (the command) is in parentheses and may hold spaces: the
  // fields counted from the last ')' on; starttime is field 22.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  for (int k = 3; k <= 22 && rest >> field; ++k) {
    if (k == 22) {
      const long ticks = sysconf(_SC_CLK_TCK);
      if (ticks <= 0) return 0;
      const double started = std::stod(field) / static_cast<double>(ticks);
      return uptime > started ? uptime - started : 0;
    }
  }
  return 0;
}

struct Anchor {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::now();
  double before = elapsed_from_proc();
};

const Anchor& anchor() {
  static const Anchor a;
  return a;
}

}  // namespace

double since_start() {
  const Anchor& a = anchor();
  return a.before + std::chrono::duration<double>(std::chrono::steady_clock::now() - a.at).count();
}

double before_first_call() { return anchor().before; }

}  // namespace strata::app::wall_clock
