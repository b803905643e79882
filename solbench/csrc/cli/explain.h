// `solgen explain`: the recognized structure of an op, as text or JSON.
#pragma once

#include "driver/compile.h"

#include <nlohmann/json.hpp>
#include <string>

namespace solbench::cli {

std::string explain_text(const OpDescription& d);
// One JSON object: the op on success, {"refused": ...} or {"errors": [...]}.
nlohmann::json explain_json(const Compiled& c);

} // namespace solbench::cli
