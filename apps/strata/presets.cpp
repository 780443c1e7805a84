#include "presets.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "commands.hpp"
#include "config.hpp"

namespace strata::app {

namespace fs = std::filesystem;

std::string preset_folder() {
  std::error_code ec;
  // /proc/self/exe, not argv[0]: the program may be found through PATH or
  // a symbolic link, and what counts is where its file is.
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) throw io_error("--preset: cannot locate the strata program (/proc/self/exe): " + ec.message());
  const fs::path folder = exe.parent_path().parent_path() / "share" / "strata" / "presets";
  if (!fs::is_directory(folder, ec)) {
    throw io_error("--preset: no presets folder beside the program: '" + folder.string() +
                   "' does not exist (the presets are installed with the program)");
  }
  return folder.string();
}

std::vector<Preset> list_presets() {
  const fs::path folder = preset_folder();
  std::vector<Preset> presets;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    Preset p;
    p.name = entry.path().stem().string();
    p.path = entry.path().string();
    const auto j = read_json_file(p.path);
    if (j.is_object() && j.contains("description") && j["description"].is_string()) {
      p.description = j["description"].get<std::string>();
    }
    presets.push_back(std::move(p));
  }
  std::sort(presets.begin(), presets.end(),
            [](const Preset& a, const Preset& b) { return a.name < b.name; });
  return presets;
}

nlohmann::ordered_json load_preset(const std::string& name) {
  const auto presets = list_presets();
  const auto it = std::find_if(presets.begin(), presets.end(),
                               [&](const Preset& p) { return p.name == name; });
  if (it == presets.end()) {
    std::string known;
    for (const auto& p : presets) known += (known.empty() ? "" : ", ") + p.name;
    throw usage_error("--preset '" + name + "': unknown preset; expected one of " +
                      (known.empty() ? std::string("(none installed)") : known) + " (the files in " +
                      preset_folder() + ")");
  }
  auto j = read_json_file(it->path);
  if (!j.is_object()) {
    throw io_error("preset '" + name + "' (" + it->path + ") must hold a JSON object, got " +
                   std::string(j.type_name()));
  }
  j.erase("description");
  return j;
}

}  // namespace strata::app
