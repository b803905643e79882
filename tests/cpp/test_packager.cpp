// Schema validation, definition loading and binding, workloads, bundles.
#include "codegen/kernel_emitter.h"
#include "ir_fixtures.h"
#include "package/definition.h"
#include "package/generate.h"
#include "package/packager.h"
#include "package/schema.h"
#include "package/workloads.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

using namespace solbench;
using namespace solbench::package;
namespace fs = std::filesystem;

namespace {

nlohmann::json good_solution() {
    BundleOptions o;
    o.name = "rmsnorm_solgen";
    return make_solution(fixtures::rmsnorm(), "rmsnorm", o, "// kernel\n");
}

bool rejects(const nlohmann::json& sol, const std::string& pointer) {
    for (const auto& v : validate_solution(sol))
        if (v.pointer.rfind(pointer, 0) == 0) return true;
    return false;
}

const char* kRmsnormDefinition = R"({
  "name": "rmsnorm_h4096",
  "axes": {"batch_size": {"type": "var"}, "hidden_size": {"type": "const", "value": 4096}},
  "inputs": {
    "hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"},
    "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"}
  },
  "outputs": {"out": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"}},
  "reference": "import torch\n\ndef run(hidden_states, weight):\n    return hidden_states\n"
})";

// The first diagnostic of a failed result, as solgen prints it ("" when it did not fail).
template <class T> std::string first(const Result<T>& r) {
    const auto* f = std::get_if<Failure>(&r);
    return f && !f->diagnostics.empty() ? render_short(f->file, f->diagnostics.front()) : "";
}

Definition parse_ok(const std::string& text) {
    auto r = parse_definition("definition.json", text);
    if (std::holds_alternative<Failure>(r)) {
        ADD_FAILURE() << first(r);
        return {};
    }
    return std::get<Definition>(r);
}

std::string bind_error(const std::string& text) {
    auto r = bind(fixtures::rmsnorm(), parse_ok(text));
    return first(r);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
    size_t p = s.find(from);
    if (p != std::string::npos) s.replace(p, from.size(), to);
    return s;
}

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() /
               ("solbench-pkg-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(Schema, AcceptsAGoodSolution) {
    auto v = validate_solution(good_solution());
    EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v[0].pointer + ": " + v[0].message);
}

TEST(Schema, RejectsEachRuleOfTheContract) {
    auto s = good_solution();
    s["name"] = "";
    EXPECT_TRUE(rejects(s, "/name"));
    s = good_solution();
    s.erase("definition");
    EXPECT_FALSE(validate_solution(s).empty());
    s = good_solution();
    s["author"] = 3;
    EXPECT_TRUE(rejects(s, "/author"));
    s = good_solution();
    s["author"] = ""; // Solution.author is a NonEmptyString in the harness
    EXPECT_TRUE(rejects(s, "/author"));
    s = good_solution();
    s["spec"]["languages"] = {"cuda_cpp", "triton"}; // families never mix
    EXPECT_TRUE(rejects(s, "/spec/languages"));
    s = good_solution();
    s["spec"]["target_hardware"] = {"b200"};
    EXPECT_TRUE(rejects(s, "/spec/target_hardware"));
    s = good_solution();
    s["spec"]["target_hardware"] = nlohmann::json::array();
    EXPECT_TRUE(rejects(s, "/spec/target_hardware"));
    s = good_solution();
    s["spec"]["entry_point"] = "kernel.cu:run";
    EXPECT_TRUE(rejects(s, "/spec/entry_point"));
    s["spec"]["entry_point"] = "kernel.cu::a::run";
    EXPECT_TRUE(rejects(s, "/spec/entry_point"));
    s["spec"]["entry_point"] = "kernel.py::run";
    EXPECT_TRUE(rejects(s, "/spec/entry_point"));
    s["spec"]["entry_point"] = "other.cu::run"; // not among the sources
    EXPECT_TRUE(rejects(s, "/spec/entry_point"));
    s = good_solution();
    s["spec"]["binding"] = "python";
    EXPECT_TRUE(rejects(s, "/spec/binding"));
    s = good_solution();
    s["spec"]["dependencies"] = {1};
    EXPECT_TRUE(rejects(s, "/spec/dependencies"));
    s = good_solution();
    s["sources"] = nlohmann::json::array();
    EXPECT_TRUE(rejects(s, "/sources"));
    s = good_solution();
    s["sources"][0]["path"] = "../kernel.cu";
    EXPECT_TRUE(rejects(s, "/sources/0/path"));
    s["sources"][0]["path"] = "/abs/kernel.cu";
    EXPECT_TRUE(rejects(s, "/sources/0/path"));
    s = good_solution();
    s["sources"][0]["content"] = "";
    EXPECT_TRUE(rejects(s, "/sources/0/content"));
    s = good_solution();
    s["sources"].push_back(s["sources"][0]);
    EXPECT_TRUE(rejects(s, "/sources/1/path")); // duplicate
}

TEST(Schema, SolutionSpecFromOptions) {
    BundleOptions o;
    o.name = "n";
    o.targets = {"B200", "LOCAL"};
    o.arch = "sm_90";
    o.destination_passing = false;
    auto s = make_solution(fixtures::rmsnorm(), "rmsnorm", o, "x");
    EXPECT_EQ(s["spec"]["compile_options"]["cuda_cflags"],
              nlohmann::json({"-O3", "--use_fast_math", "-gencode=arch=compute_90,code=sm_90"}));
    EXPECT_EQ(s["spec"]["compile_options"]["ld_flags"], nlohmann::json({"-lcuda"}));
    EXPECT_EQ(s["spec"]["target_hardware"], nlohmann::json({"B200", "LOCAL"}));
    EXPECT_EQ(s["spec"]["destination_passing_style"], false);
    EXPECT_EQ(s["description"], "Root-mean-square normalization of each row.");
}

TEST(Definition, ValidationNamesFileAndPointer) {
    auto r =
        parse_definition("defs/x.json", replace(kRmsnormDefinition, "\"bfloat16\"", "\"bf16\""));
    ASSERT_TRUE(std::holds_alternative<Failure>(r));
    EXPECT_NE(first(r).find("defs/x.json:/inputs/hidden_states/dtype: error:"), std::string::npos)
        << first(r);
    auto bad_axis =
        parse_definition("d.json", replace(kRmsnormDefinition, "[\"hidden_size\"]", "[\"width\"]"));
    ASSERT_TRUE(std::holds_alternative<Failure>(bad_axis));
    EXPECT_NE(first(bad_axis).find("d.json:/inputs/weight/shape/0"), std::string::npos);
    auto bad_ref =
        parse_definition("d.json", replace(kRmsnormDefinition, "def run(hidden_states, weight)",
                                           "def run(weight, hidden_states)"));
    ASSERT_TRUE(std::holds_alternative<Failure>(bad_ref));
    EXPECT_NE(first(bad_ref).find("/reference"), std::string::npos);
}

TEST(Definition, DuplicateKeysAreRefusedWithTheirPointer) {
    auto first_error = [](const std::string& text) {
        auto r = parse_definition("d.json", text);
        return first(r);
    };
    EXPECT_NE(first_error(replace(kRmsnormDefinition, "\"name\": \"rmsnorm_h4096\",",
                                  "\"name\": \"a\", \"name\": \"b\","))
                  .find("d.json:/name: error: duplicate key"),
              std::string::npos);
    // Nested, after an object and an array have closed: the pointer follows the keys.
    EXPECT_NE(first_error(replace(kRmsnormDefinition, "\"dtype\": \"bfloat16\"}\n  },",
                                  "\"dtype\": \"bfloat16\", \"dtype\": \"float32\"}\n  },"))
                  .find("d.json:/inputs/weight/dtype: error: duplicate key"),
              std::string::npos);
    EXPECT_NE(first_error(replace(kRmsnormDefinition, "\"outputs\": {\"out\"",
                                  "\"outputs\": {\"out\": {}, \"out\""))
                  .find("d.json:/outputs/out: error: duplicate key"),
              std::string::npos);
    // The same key in two different objects is fine.
    parse_ok(kRmsnormDefinition);
}

// The benchmark's own files: null optional fields, axes without a type, sizes
// as pydantic's lax mode reads them, and an unknown key, all accepted.
TEST(Definition, ReadsTheFilesAsThePublishedOnesAreWritten) {
    const char* published = R"({
  "name": "rmsnorm_h4096", "description": null, "op_type": null, "hf_id": null,
  "custom_inputs_entrypoint": null, "constraints": ["hidden_size % 8 == 0"],
  "axes": {"batch_size": {"description": null}, "hidden_size": {"value": "4096"}},
  "inputs": {
    "hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16", "description": null},
    "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"}
  },
  "outputs": {"out": {"shape": ["batch_size", "4096"], "dtype": "bfloat16"}},
  "reference": "def run(hidden_states, weight):\n    return hidden_states\n"
})";
    Definition def = parse_ok(published);
    ASSERT_EQ(def.axes.size(), 2u);
    EXPECT_EQ(def.axes[0].kind, AxisDef::Kind::Var);
    EXPECT_EQ(def.axes[1].kind, AxisDef::Kind::Const);
    EXPECT_EQ(def.axes[1].value, 4096);
    auto r = bind(fixtures::rmsnorm(), def);
    ASSERT_TRUE(std::holds_alternative<OpDescription>(r)) << first(r);
    EXPECT_EQ(std::get<OpDescription>(r).ir.axes[1].value, 4096);
    // What the harness's models reject stays rejected, with the field named.
    for (auto [from, to, pointer] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"\"hf_id\": null", "\"hf_id\": \"\"", "/hf_id"},
             {"\"op_type\": null", "\"op_type\": 7", "/op_type"},
             {"[\"batch_size\", \"4096\"]", "[\"batch_size\", 4096]", "/outputs/out/shape/1"},
             {"[\"batch_size\", \"4096\"]", "[\"batch_size\", \"-1\"]", "/outputs/out/shape/1"},
             // (without "type", {"value": 4096.5} is a var axis to pydantic: only AxisVar fits)
             {"{\"value\": \"4096\"}", "{\"type\": \"const\", \"value\": 4096.5}",
              "/axes/hidden_size"},
             // Whole but no size: refused without converting it to an integer (the
             // fuzzer found valijson's multipleOf doing so, undefined behaviour).
             {"{\"value\": \"4096\"}", "{\"type\": \"const\", \"value\": 1e300}",
              "/axes/hidden_size"},
             {"{\"value\": \"4096\"}", "{\"type\": \"const\", \"value\": -1e300}",
              "/axes/hidden_size"}}) {
        auto bad = parse_definition("d.json", replace(published, from, to));
        ASSERT_TRUE(std::holds_alternative<Failure>(bad)) << to;
        EXPECT_NE(first(bad).find("d.json:" + pointer), std::string::npos) << first(bad);
    }
}

TEST(Definition, LiteralSizesBindAsConstantsAndMustAgree) {
    auto r = bind(fixtures::rmsnorm(),
                  parse_ok(replace(kRmsnormDefinition, "\"weight\": {\"shape\": [\"hidden_size\"]",
                                   "\"weight\": {\"shape\": [\"4096\"]")));
    ASSERT_TRUE(std::holds_alternative<OpDescription>(r)) << first(r);
    EXPECT_EQ(std::get<OpDescription>(r).ir.axes[1].value, 4096);
    EXPECT_NE(bind_error(replace(kRmsnormDefinition, "\"weight\": {\"shape\": [\"hidden_size\"]",
                                 "\"weight\": {\"shape\": [\"2048\"]"))
                  .find("definition.json:/inputs/weight/shape/0: error: the definition's size here "
                        "is 2048, but the op's axis 'hidden_size' is 4096"),
              std::string::npos);
}

// [N, N]: one name for the op's row and column axes. The harness gives both
// one size; the kernel checks they agree, and workloads name N once.
TEST(Definition, RepeatedAxisNameMakesTheOpsAxesEqual) {
    std::string square =
        replace(replace(replace(kRmsnormDefinition,
                                "{\"batch_size\": {\"type\": \"var\"}, \"hidden_size\": {\"type\": "
                                "\"const\", \"value\": 4096}}",
                                "{\"N\": {\"type\": \"var\"}}"),
                        "\"hidden_states\": {\"shape\": [\"batch_size\", \"hidden_size\"]",
                        "\"hidden_states\": {\"shape\": [\"N\", \"N\"]"),
                "\"weight\": {\"shape\": [\"hidden_size\"]", "\"weight\": {\"shape\": [\"N\"]");
    square = replace(square, "\"out\": {\"shape\": [\"batch_size\", \"hidden_size\"]",
                     "\"out\": {\"shape\": [\"N\", \"N\"]");
    auto r = bind(fixtures::rmsnorm(), parse_ok(square));
    ASSERT_TRUE(std::holds_alternative<OpDescription>(r)) << first(r);
    const auto& op = std::get<OpDescription>(r);
    ASSERT_EQ(op.ir.equal_axes.size(), 1u);
    EXPECT_EQ(op.ir.axes[op.ir.equal_axes[0].first].name, "N");
    auto kernel = codegen::emit_kernel(op, {});
    ASSERT_TRUE(std::holds_alternative<std::string>(kernel));
    EXPECT_NE(std::get<std::string>(kernel).find("must equal N (one axis of the definition)"),
              std::string::npos);
    for (const auto& w : make_workloads(op.ir, "square")) {
        EXPECT_EQ(w["axes"].size(), 1u) << w.dump();
        EXPECT_TRUE(w["axes"].contains("N")) << w.dump();
    }
}

TEST(Definition, BindTakesNamesAndConstants) {
    auto r = bind(fixtures::rmsnorm(), parse_ok(kRmsnormDefinition));
    ASSERT_TRUE(std::holds_alternative<OpDescription>(r)) << first(r);
    const auto& op = std::get<OpDescription>(r);
    EXPECT_EQ(op.ir.outputs[0].name, "out");
    ASSERT_TRUE(op.ir.axes[1].value.has_value());
    EXPECT_EQ(*op.ir.axes[1].value, 4096);
}

TEST(Definition, BindReordersInputsByName) {
    std::string text =
        replace(kRmsnormDefinition,
                R"("hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"},
    "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"})",
                R"("weight": {"shape": ["hidden_size"], "dtype": "bfloat16"},
    "hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"})");
    text = replace(text, "def run(hidden_states, weight)", "def run(weight, hidden_states)");
    auto r = bind(fixtures::rmsnorm(), parse_ok(text));
    ASSERT_TRUE(std::holds_alternative<OpDescription>(r));
    const auto& op = std::get<OpDescription>(r);
    EXPECT_EQ(op.ir.inputs[0].name, "weight");
    // The loads follow: the row input is now input 1.
    EXPECT_NE(ir::print(op.ir, op.ir.values[0]).find("hidden_states"), std::string::npos);
    EXPECT_EQ(op.reductions.size(), 1u);
    EXPECT_EQ(op.reductions[0]->args[0]->args[0]->index, 1);
}

TEST(Definition, BindRejectsMismatchesNamingBothSides) {
    std::string dtype = bind_error(
        replace(kRmsnormDefinition, R"("weight": {"shape": ["hidden_size"], "dtype": "bfloat16"})",
                R"("weight": {"shape": ["hidden_size"], "dtype": "float32"})"));
    EXPECT_NE(dtype.find("input 2: the op has 'weight' bfloat16[hidden_size], the definition has "
                         "'weight' float32[hidden_size]"),
              std::string::npos)
        << dtype;
    std::string rank =
        bind_error(replace(kRmsnormDefinition, R"("weight": {"shape": ["hidden_size"])",
                           R"("weight": {"shape": ["batch_size", "hidden_size"])"));
    EXPECT_NE(rank.find("the definition has 'weight' bfloat16[batch_size, hidden_size]"),
              std::string::npos)
        << rank;
    std::string extra = bind_error(replace(
        replace(
            kRmsnormDefinition, R"("weight": {"shape": ["hidden_size"], "dtype": "bfloat16"})",
            R"("weight": {"shape": ["hidden_size"], "dtype": "bfloat16"}, "bias": {"shape": ["hidden_size"], "dtype": "bfloat16"})"),
        "def run(hidden_states, weight)", "def run(hidden_states, weight, bias)"));
    EXPECT_NE(extra.find("the op has 2 inputs (hidden_states, weight), the definition has 3 "
                         "(hidden_states, weight, bias)"),
              std::string::npos)
        << extra;
    std::string missing = bind_error(replace(
        replace(kRmsnormDefinition, R"("weight": {"shape": ["hidden_size"], "dtype": "bfloat16"})",
                R"("gamma": {"shape": ["hidden_size"], "dtype": "bfloat16"})"),
        "def run(hidden_states, weight)", "def run(hidden_states, gamma)"));
    EXPECT_NE(missing.find(
                  "input 2: the op has 'weight' bfloat16[hidden_size], the definition has 'gamma'"),
              std::string::npos)
        << missing;
    // The op fixes an axis the definition leaves variable.
    auto fixed = bind(fixtures::rmsnorm(ir::DType::BFloat16, 2048), parse_ok(kRmsnormDefinition));
    ASSERT_TRUE(std::holds_alternative<Failure>(fixed));
    EXPECT_NE(first(fixed).find(
                  ":/inputs/hidden_states/shape/1: error: the definition's size here is 4096, but "
                  "the op's axis 'hidden_size' is 2048"),
              std::string::npos)
        << first(fixed);
}

TEST(Workloads, DeterministicSpreadAndScalars) {
    auto op = fixtures::rmsnorm(ir::DType::BFloat16, {}, true);
    std::string a = workloads_jsonl(op.ir, "rmsnorm"), b = workloads_jsonl(op.ir, "rmsnorm");
    EXPECT_EQ(a, b);
    auto wls = make_workloads(op.ir, "rmsnorm");
    ASSERT_GE(wls.size(), 8u);
    EXPECT_EQ(wls.front()["axes"]["batch_size"], 1);
    EXPECT_GE(wls.back()["axes"]["batch_size"].get<int64_t>(), 8192);
    EXPECT_EQ(wls[0]["axes"]["hidden_size"], 4096);
    EXPECT_EQ(wls[0]["inputs"]["eps"]["value"], 1e-5);
    EXPECT_EQ(wls[0]["inputs"]["hidden_states"]["type"], "random");
    EXPECT_EQ(wls[0]["tolerance"]["max_rtol"], 5e-2);
    EXPECT_NE(wls[0]["uuid"], wls[1]["uuid"]);
    EXPECT_EQ(stable_uuid("x/0").size(), 36u);
    EXPECT_EQ(stable_uuid("x/0"), stable_uuid("x/0"));
    auto fp32 = make_workloads(fixtures::softmax().ir, "softmax");
    EXPECT_EQ(fp32[0]["tolerance"]["max_atol"], 1e-5);
}

TEST(Packager, BundleIsCompleteAndDeterministic) {
    BundleOptions o;
    o.name = "swiglu_solgen";
    o.source_file_name = "swiglu_packed.lg";
    auto a = build_bundle(fixtures::swiglu_packed(), o, nullptr);
    auto b = build_bundle(fixtures::swiglu_packed(), o, nullptr);
    ASSERT_TRUE(std::holds_alternative<BundleFiles>(a)) << first(a);
    const auto& files = std::get<BundleFiles>(a);
    EXPECT_EQ(files, std::get<BundleFiles>(b));
    for (const char* f :
         {"solution.json", "kernel.cu", "definition.json", "workload.jsonl", "reference.py"})
        EXPECT_TRUE(files.count(f)) << f;
    auto sol = nlohmann::json::parse(files.at("solution.json"));
    EXPECT_EQ(sol["sources"][0]["content"], files.at("kernel.cu"));
    EXPECT_EQ(sol["definition"], "swiglu");
    auto def = nlohmann::ordered_json::parse(files.at("definition.json"));
    EXPECT_EQ(def["axes"]["intermediate_size_x2"]["expression"], "2 * intermediate_size");
    EXPECT_EQ(def["inputs"]["x"]["shape"], nlohmann::json({"num_tokens", "intermediate_size_x2"}));
    EXPECT_EQ(def["reference"], files.at("reference.py"));
    EXPECT_TRUE(std::holds_alternative<Definition>(
        parse_definition("definition.json", files.at("definition.json"))));
}

TEST(Packager, WriteBundleIsAtomicAndRefusesNonEmptyTargets) {
    TempDir tmp;
    fs::path target = tmp.path / "bundle";
    BundleFiles files{{"a.txt", "one\n"}, {"sub/b.txt", "two\n"}};
    ASSERT_FALSE(write_bundle(target.string(), files, false));
    EXPECT_EQ(read(target / "sub/b.txt"), "two\n");
    // Existing non-empty directory: refused, nothing changed.
    auto err = write_bundle(target.string(), {{"a.txt", "changed\n"}}, false);
    ASSERT_TRUE(err);
    EXPECT_NE(err->find("not empty"), std::string::npos);
    EXPECT_EQ(read(target / "a.txt"), "one\n");
    // With force it is replaced whole.
    ASSERT_FALSE(write_bundle(target.string(), {{"a.txt", "new\n"}}, true));
    EXPECT_EQ(read(target / "a.txt"), "new\n");
    EXPECT_FALSE(fs::exists(target / "sub"));
    // Paths that leave the directory and symlinked targets are refused.
    EXPECT_TRUE(write_bundle((tmp.path / "c").string(), {{"../escape.txt", "x"}}, false));
    EXPECT_FALSE(fs::exists(tmp.path / "escape.txt"));
    fs::create_symlink(target, tmp.path / "link");
    EXPECT_TRUE(write_bundle((tmp.path / "link").string(), files, true));
    EXPECT_EQ(read(target / "a.txt"), "new\n");
    // No temporaries left beside the target.
    for (const auto& e : fs::directory_iterator(tmp.path))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

TEST(Generate, WritesTheBundleAndReportsMismatches) {
    TempDir tmp;
    GenerateOptions opts;
    opts.out_dir = (tmp.path / "out").string();
    opts.source_file_name = "/somewhere/rmsnorm.lg";
    std::ostringstream out, err;
    ASSERT_EQ(generate(fixtures::rmsnorm(), opts, out, err), cli::Exit::Ok) << err.str();
    std::string kernel = read(tmp.path / "out/kernel.cu");
    EXPECT_NE(kernel.find("from rmsnorm.lg."), std::string::npos);
    EXPECT_EQ(kernel.find("/somewhere"), std::string::npos);
    // Again without force: rejected, the bundle untouched.
    std::ostringstream err2;
    EXPECT_EQ(generate(fixtures::rmsnorm(), opts, out, err2), cli::Exit::Rejected);
    EXPECT_EQ(read(tmp.path / "out/kernel.cu"), kernel);
    // A mismatched definition: rejected, nothing written.
    fs::path def = tmp.path / "definition.json";
    std::ofstream(def) << replace(kRmsnormDefinition, "\"dtype\": \"bfloat16\"}\n  },",
                                  "\"dtype\": \"float32\"}\n  },");
    GenerateOptions bound = opts;
    bound.definition_path = def.string();
    bound.out_dir = (tmp.path / "bound").string();
    std::ostringstream err3;
    EXPECT_EQ(generate(fixtures::rmsnorm(), bound, out, err3), cli::Exit::Rejected);
    EXPECT_NE(err3.str().find("error: input 2"), std::string::npos) << err3.str();
    EXPECT_FALSE(fs::exists(tmp.path / "bound"));
    // A matching definition: its copy and the sibling workloads travel with the bundle.
    std::ofstream(def) << kRmsnormDefinition;
    std::ofstream(tmp.path / "workload.jsonl") << "{\"uuid\": \"u\"}\n";
    std::ostringstream err4;
    ASSERT_EQ(generate(fixtures::rmsnorm(), bound, out, err4), cli::Exit::Ok) << err4.str();
    EXPECT_EQ(read(tmp.path / "bound/definition.json"), kRmsnormDefinition);
    EXPECT_EQ(read(tmp.path / "bound/workload.jsonl"), "{\"uuid\": \"u\"}\n");
    EXPECT_NE(read(tmp.path / "bound/kernel.cu").find("constexpr int64_t kHiddenSize = 4096;"),
              std::string::npos);
    // Usage errors.
    GenerateOptions usage = opts;
    usage.targets = {"H100"};
    std::ostringstream err5;
    EXPECT_EQ(generate(fixtures::rmsnorm(), usage, out, err5), cli::Exit::Usage);
}
