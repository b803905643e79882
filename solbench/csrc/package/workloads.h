// workload.jsonl generation for an op without a benchmark definition.
//
// Row axes spread from 1 to about 16k rows, variable column axes take
// realistic widths, constant axes keep their value. uuids are derived from a
// hash of the op name and the workload index, so the same op always produces
// the same file. Tensors are `random`; scalars get values (eps-like names
// 1e-5, otherwise 1.0); tolerances follow the shipped problems per output dtype.
#pragma once

#include "recognizers/recognizer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace solbench::package {

// A deterministic RFC 4122-shaped uuid from `key`.
std::string stable_uuid(const std::string& key);

// The tolerance object for the op's outputs.
nlohmann::ordered_json tolerance_for(const ir::OpIR& op);

// The value a scalar input named `name` gets in generated workloads.
nlohmann::json scalar_value(const ir::Tensor& scalar);

std::vector<nlohmann::ordered_json> make_workloads(const ir::OpIR& op, const std::string& def_name);

// One JSON object per line, each line ending in a newline.
std::string workloads_jsonl(const ir::OpIR& op, const std::string& def_name);

} // namespace solbench::package
