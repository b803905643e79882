// Shared helpers for the corpus tests: paths and manifest loading.
//
// Three corpora, each a directory with accept/, refuse/ and manifest.json:
// tests/corpus (the project's copy of the base corpus), tests/ops (the
// project's own), and ../shared/corpus, the external suite, run as an extra
// when it sits beside the checkout (a clone on its own has none).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace solbench::testing {

inline std::string source_dir() {
    return SOLBENCH_SOURCE_DIR;
}
inline std::string base_corpus() {
    return source_dir() + "/tests/corpus";
}
inline std::string own_corpus() {
    return source_dir() + "/tests/ops";
}
inline std::string shared_corpus() {
    return source_dir() + "/../shared/corpus";
}

inline bool shared_corpus_present() {
    std::error_code ec;
    return std::filesystem::is_regular_file(shared_corpus() + "/manifest.json", ec);
}

// Every corpus present: the two in the repository, and the external one if there.
inline std::vector<std::string> corpora() {
    std::vector<std::string> dirs = {base_corpus(), own_corpus()};
    if (shared_corpus_present()) dirs.push_back(shared_corpus());
    return dirs;
}

// A test-name prefix saying which corpus a path is in.
inline std::string corpus_label(const std::string& path) {
    if (path.rfind(shared_corpus(), 0) == 0) return "shared_";
    if (path.rfind(base_corpus(), 0) == 0) return "base_";
    return "own_";
}

inline nlohmann::json load_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

} // namespace solbench::testing
