// Whole LOGOS programs (tests/programs/manifest.json): the op inside a file
// that is also a runnable program. Only the op and the helpers it reaches are
// read (logos-ops.md §1, r2); every other block, in any LOGOS, is skipped, and
// the op generates the same bundle as the file holding the op alone.
#include "corpus_util.h"
#include "driver/compile.h"
#include "package/generate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using solbench::testing::load_json;
using solbench::testing::source_dir;

std::string programs() {
    return source_dir() + "/tests/programs";
}

struct Case {
    std::string file, op, expect, alone, message, note;
    std::optional<int> line;
    std::vector<std::string> skipped;
    std::string label;
};

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    nlohmann::json m = load_json(programs() + "/manifest.json");
    for (const auto& c : m["cases"]) {
        Case k;
        k.file = c["file"];
        k.op = c["op"].is_null() ? "" : c["op"].get<std::string>();
        k.expect = c["expect"];
        k.alone = c.value("alone", "");
        k.message = c.value("message", "");
        k.note = c.value("note", "");
        if (c.contains("line") && c["line"].is_number_integer()) k.line = c["line"].get<int>();
        if (c.contains("skipped")) k.skipped = c["skipped"].get<std::vector<std::string>>();
        k.label = fs::path(k.file).stem().string() + (k.op.empty() ? "" : "_op_" + k.op);
        cases.push_back(std::move(k));
    }
    return cases;
}

// Every file of a bundle directory, by relative path.
std::map<std::string, std::string> read_tree(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        files[fs::relative(e.path(), dir).string()] = s.str();
    }
    return files;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "solgen-programs-XXXXXX").string();
        if (mkdtemp(tmpl.data())) path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
};

// The bundle `file`'s op generates, as files; the source name is kept alike.
std::map<std::string, std::string> bundle_of(const std::string& file, const std::string& op,
                                             const fs::path& out) {
    solbench::Compiled c = solbench::compile_file(file, op);
    const auto* d = std::get_if<solbench::OpDescription>(&c.result);
    if (!d) return {};
    solbench::GenerateOptions opts;
    opts.out_dir = out.string();
    opts.source_file_name = fs::path(file).filename().string();
    std::ostringstream log, err;
    if (solbench::generate(*d, opts, log, err) != solbench::cli::Exit::Ok)
        return {{"error", err.str()}};
    return read_tree(out);
}

std::string errors_of(const solbench::Compiled& c) {
    std::string s;
    if (const auto* f = std::get_if<solbench::Failure>(&c.result))
        for (const auto& d : f->diagnostics)
            s += solbench::render_short(f->file, d) + "\n";
    return s;
}

class Program : public ::testing::TestWithParam<Case> {};

TEST_P(Program, ReadAsTheManifestSays) {
    const Case& k = GetParam();
    std::string file = programs() + "/" + k.file;
    solbench::Compiled c = solbench::compile_file(file, k.op);
    if (k.expect == "ok") {
        ASSERT_TRUE(std::holds_alternative<solbench::OpDescription>(c.result)) << errors_of(c);
        for (const std::string& name : k.skipped)
            EXPECT_NE(c.program.skipped_block(name), nullptr) << name << " was read";
        // Only the op and what it reaches were parsed.
        for (const auto& f : c.program.functions)
            EXPECT_EQ(std::find(k.skipped.begin(), k.skipped.end(), f.name), k.skipped.end())
                << f.name;
        return;
    }
    const auto* f = std::get_if<solbench::Failure>(&c.result);
    ASSERT_NE(f, nullptr) << "expected errors";
    ASSERT_FALSE(f->refused()) << errors_of(c);
    ASSERT_EQ(f->diagnostics.size(), 1u) << errors_of(c);
    const solbench::Diagnostic& d = f->diagnostics.front();
    if (k.line)
        EXPECT_EQ(d.pos.line, *k.line) << d.message;
    else
        EXPECT_FALSE(d.pos.valid()) << d.message;
    EXPECT_NE(d.message.find(k.message), std::string::npos) << d.message;
    if (!k.note.empty()) {
        ASSERT_EQ(d.notes.size(), 1u);
        EXPECT_NE(d.notes[0].find(k.note), std::string::npos) << d.notes[0];
    }
}

class ProgramAndOpAlone : public ::testing::TestWithParam<Case> {};

std::vector<Case> cases_with_alone() {
    std::vector<Case> all = load_cases(), some;
    std::copy_if(all.begin(), all.end(), std::back_inserter(some),
                 [](const Case& k) { return !k.alone.empty(); });
    return some;
}

TEST_P(ProgramAndOpAlone, GenerateTheSameBundle) {
    const Case& k = GetParam();
    TempDir tmp;
    ASSERT_FALSE(tmp.path.empty());
    // Both files are named alike, as the bundle's kernel names its source file.
    fs::create_directories(tmp.path / "program");
    fs::create_directories(tmp.path / "alone");
    fs::path program = tmp.path / "program" / "op.lg", alone = tmp.path / "alone" / "op.lg";
    fs::copy_file(programs() + "/" + k.file, program);
    fs::copy_file(programs() + "/" + k.alone, alone);
    auto a = bundle_of(program.string(), k.op, tmp.path / "a");
    auto b = bundle_of(alone.string(), k.op, tmp.path / "b");
    ASSERT_FALSE(a.empty());
    ASSERT_TRUE(a.count("solution.json")) << (a.count("error") ? a["error"] : "");
    EXPECT_EQ(a, b);
}

std::string label(const ::testing::TestParamInfo<Case>& p) {
    return p.param.label;
}

INSTANTIATE_TEST_SUITE_P(Manifest, Program, ::testing::ValuesIn(load_cases()), label);
INSTANTIATE_TEST_SUITE_P(Manifest, ProgramAndOpAlone, ::testing::ValuesIn(cases_with_alone()),
                         label);

} // namespace
