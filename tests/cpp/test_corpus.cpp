// The corpora: every accepted op is recognized exactly as its manifest says;
// every refused op is refused (or rejected) at the right line.
#include "cli/explain.h"
#include "corpus_util.h"
#include "driver/compile.h"

#include <gtest/gtest.h>

using namespace solbench;
using solbench::testing::load_json;

namespace {

struct Case {
    std::string dir;
    std::string file;
    nlohmann::json expect;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.file;
}

// The external corpus gives no cases when it is absent (see SharedCorpus.Present).
std::vector<Case> cases(const std::string& dir, const char* section) {
    std::vector<Case> out;
    if (dir == solbench::testing::shared_corpus() && !solbench::testing::shared_corpus_present())
        return out;
    auto manifest = load_json(dir + "/manifest.json");
    for (auto& [file, expect] : manifest[section].items())
        out.push_back({dir, file, expect});
    return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string n = solbench::testing::corpus_label(info.param.dir) + info.param.file;
    for (char& c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

void expect_tensors(const nlohmann::json& got, const nlohmann::json& want,
                    const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what << ": " << got.dump();
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i]["name"], want[i][0]) << what << " " << i;
        EXPECT_EQ(got[i]["rank"], want[i][1]) << what << " " << i;
        EXPECT_EQ(got[i]["dtype"], want[i][2]) << what << " " << i;
    }
}

class Accept : public ::testing::TestWithParam<Case> {};
class Refuse : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(Accept, RecognizedAsManifestSays) {
    const Case& c = GetParam();
    Compiled compiled = compile_file(c.dir + "/" + c.file);
    nlohmann::json j = cli::explain_json(compiled);
    ASSERT_TRUE(j.contains("family")) << j.dump(2);
    EXPECT_EQ(j["op"], c.expect["op"]);
    EXPECT_EQ(j["family"], c.expect["family"]);
    expect_tensors(j["inputs"], c.expect["inputs"], "inputs");
    expect_tensors(j["outputs"], c.expect["outputs"], "outputs");
    if (c.expect.contains("axes")) {
        std::vector<std::string> names;
        for (auto& a : j["axes"])
            names.push_back(a["name"]);
        for (auto& want : c.expect["axes"])
            EXPECT_NE(std::find(names.begin(), names.end(), want.get<std::string>()), names.end())
                << "axis " << want << " missing in " << j["axes"].dump();
    }
    // Broadcast inputs: the row axes each follows (r2 §7).
    if (c.expect.contains("follows"))
        for (auto& [name, want] : c.expect["follows"].items()) {
            nlohmann::json got;
            for (auto& t : j["inputs"])
                if (t["name"] == name) got = t["follows"];
            EXPECT_EQ(got, want) << "the row axes '" << name << "' follows";
        }
    std::map<std::string, nlohmann::json> consts;
    for (auto& a : j["axes"])
        if (!a["const"].is_null()) consts[a["name"]] = a["const"];
    std::map<std::string, nlohmann::json> want_consts;
    if (c.expect.contains("const_axes"))
        for (auto& [k, v] : c.expect["const_axes"].items())
            want_consts[k] = v;
    EXPECT_EQ(consts, want_consts);
}

TEST_P(Refuse, RefusedAtTheRightLine) {
    const Case& c = GetParam();
    Compiled compiled = compile_file(c.dir + "/" + c.file);
    nlohmann::json j = cli::explain_json(compiled);
    ASSERT_FALSE(j.contains("family")) << "accepted: " << j.dump(2);
    if (!c.expect.is_object()) { // the shared manifest gives only a reason
        EXPECT_TRUE(j.contains("refused") || j.contains("errors")) << j.dump();
        return;
    }
    ASSERT_TRUE(j.contains("refused")) << j.dump(2);
    const auto& r = j["refused"];
    std::vector<std::string> rules;
    if (c.expect.contains("rules"))
        rules = c.expect["rules"].get<std::vector<std::string>>();
    else
        rules = {c.expect["rule"].get<std::string>()};
    EXPECT_NE(std::find(rules.begin(), rules.end(), r["rule"].get<std::string>()), rules.end())
        << r.dump();
    std::vector<int> lines;
    if (c.expect.contains("lines"))
        lines = c.expect["lines"].get<std::vector<int>>();
    else
        lines = {c.expect["line"].get<int>()};
    EXPECT_NE(std::find(lines.begin(), lines.end(), r["line"].get<int>()), lines.end()) << r.dump();
}

// The external suite runs when ../shared/corpus is beside the checkout; this
// test says so either way (skipped, with the reason, in a clone on its own).
TEST(SharedCorpus, Present) {
    if (!solbench::testing::shared_corpus_present())
        GTEST_SKIP() << solbench::testing::shared_corpus()
                     << " is not there: the external corpus suite (Shared/*) is skipped";
    EXPECT_FALSE(cases(solbench::testing::shared_corpus(), "accept").empty());
}

INSTANTIATE_TEST_SUITE_P(Base, Accept,
                         ::testing::ValuesIn(cases(solbench::testing::base_corpus(), "accept")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Base, Refuse,
                         ::testing::ValuesIn(cases(solbench::testing::base_corpus(), "refuse")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Shared, Accept,
                         ::testing::ValuesIn(cases(solbench::testing::shared_corpus(), "accept")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Own, Accept,
                         ::testing::ValuesIn(cases(solbench::testing::own_corpus(), "accept")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Shared, Refuse,
                         ::testing::ValuesIn(cases(solbench::testing::shared_corpus(), "refuse")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Own, Refuse,
                         ::testing::ValuesIn(cases(solbench::testing::own_corpus(), "refuse")),
                         case_name);
