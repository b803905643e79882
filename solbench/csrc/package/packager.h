// The SOL-ExecBench bundle: solution.json (sources embedded), kernel.cu,
// definition.json, workload.jsonl and reference.py, as a sorted file map,
// rendered deterministically (nlohmann dump(2) + newline), and written
// atomically.
#pragma once

#include "package/definition.h"
#include "recognizers/recognizer.h"

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench::package {

using BundleFiles = std::map<std::string, std::string>; // relative path -> content

struct BundleOptions {
    std::string name; // the solution's name
    std::string author = "solgen";
    std::vector<std::string> targets{"B200"};
    std::optional<std::string> arch; // "sm_100a": pins -gencode
    bool destination_passing = true;
    std::string source_file_name; // the .lg file, directories dropped
};

// definition.json for an op without a benchmark definition (inputs in order).
nlohmann::ordered_json make_definition(const OpDescription& op, const std::string& reference);

// "sm_100a" / "100a" / "compute_90" -> "-gencode=arch=compute_100a,code=sm_100a".
std::optional<std::string> gencode_flag(const std::string& arch);

// The solution.json object for a kernel source.
nlohmann::json make_solution(const OpDescription& op, const std::string& definition_name,
                             const BundleOptions& options, const std::string& kernel);

// Every file of the bundle. With `def`, the bundle carries that definition
// (and its sibling workload.jsonl when present) instead of generated ones.
Result<BundleFiles> build_bundle(const OpDescription& op, const BundleOptions& options,
                                 const Definition* def);

// Writes `files` into `dir`: into a temporary directory beside it (no fsync: a
// generator's output is atomic against interruption, not against power loss),
// then renamed into place. Refuses a non-empty existing `dir` unless `force`,
// a `dir` that is a symlink, and paths that leave the directory. On error
// nothing is left behind and `dir` is unchanged. Returns the error, if any.
std::optional<std::string> write_bundle(const std::string& dir, const BundleFiles& files,
                                        bool force);

} // namespace solbench::package
