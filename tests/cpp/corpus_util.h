// Shared helpers for the corpus tests: paths and manifest loading.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace solbench::testing {

inline std::string source_dir() { return SOLBENCH_SOURCE_DIR; }
inline std::string shared_corpus() { return source_dir() + "/../shared/corpus"; }
inline std::string own_corpus() { return source_dir() + "/tests/ops"; }

inline nlohmann::json load_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

} // namespace solbench::testing
