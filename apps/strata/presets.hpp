#pragma once
// Named presets of `strata solve --preset NAME`: JSON files of settings that
// ship with the program, one per kind of problem. A preset is a --config
// file (the library's parameter names, plus the program's own keys) with a
// "description" of what it is for.
//
// They live in share/strata/presets beside the program's bin/ folder, in the
// build tree (build/<preset>/share/...) and in an install prefix alike, so
// they are found relative to the executable and nothing is configured.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace strata::app {

struct Preset {
  std::string name;         // the file name without .json
  std::string description;  // what it is for
  std::string path;
};

/// The presets folder: <folder of the executable>/../share/strata/presets.
/// Throws io_error naming the folder looked in when it does not exist.
std::string preset_folder();

/// Every preset, sorted by name.
std::vector<Preset> list_presets();

/// The settings of preset `name` with "description" removed. An unknown
/// name is a usage_error listing the known ones.
nlohmann::ordered_json load_preset(const std::string& name);

}  // namespace strata::app
