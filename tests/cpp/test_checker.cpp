// The static checker: one snippet per rule, with the diagnostic's line:col,
// and the whole corpus (accepted and refused ops alike) checking clean.
#include "frontend/checker.h"
#include "frontend/parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace solbench;

namespace {

const std::string kCorpus = SOLBENCH_SOURCE_DIR "/tests/corpus/";

std::vector<Diagnostic> check_text(const std::string& text) {
    SourceFile file("t.lg", text);
    ParseResult r = parse(file);
    for (const Diagnostic& d : r.errors)
        ADD_FAILURE() << "parse error: " << render(file, d);
    return check(r.program);
}

std::string dump(const std::vector<Diagnostic>& ds) {
    std::string s;
    for (const Diagnostic& d : ds)
        s += render_short("t.lg", d) + "\n";
    return s;
}

// Exactly one diagnostic, at line:col, whose message contains `needle`.
void expect_one(const std::string& text, int line, int col, const std::string& needle) {
    std::vector<Diagnostic> ds = check_text(text);
    ASSERT_EQ(ds.size(), 1u) << dump(ds);
    EXPECT_EQ(ds[0].pos, (SourcePos{line, col})) << dump(ds);
    EXPECT_NE(ds[0].message.find(needle), std::string::npos) << dump(ds);
}

void expect_clean(const std::string& text) {
    std::vector<Diagnostic> ds = check_text(text);
    EXPECT_TRUE(ds.empty()) << dump(ds);
}

TEST(Checker, UnknownName) {
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return x + y.\n",
               2, 16, "unknown name `y`");
}

TEST(Checker, DuplicateParameter) {
    expect_one("## To f (x: Real) and (x: Real) -> Real:\n"
               "    Return x.\n",
               1, 24, "parameter `x` is declared twice");
}

TEST(Checker, ReLetInTheSameScopeButShadowingInANestedOne) {
    expect_one("## To f (xs: Seq of Real) -> Real:\n"
               "    Let y be 1.0.\n"
               "    Repeat for v in xs:\n"
               "        Let y be v.\n"
               "    Let y be 2.0.\n"
               "    Return y.\n",
               5, 5, "`y` is already defined in this block (at 2:5)");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Let x be 2.0.\n"
               "    Return x.\n",
               2, 5, "`x` is already defined");
}

TEST(Checker, SetNeedsAMutableLet) {
    expect_one("## To f (x: Real) -> Real:\n"
               "    Let y be x.\n"
               "    Set y to 2.0.\n"
               "    Return y.\n",
               3, 5, "not mutable");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Set x to 2.0.\n"
               "    Return x.\n",
               2, 5, "input parameter");
    expect_one("## To f (xs: Seq of Real) -> Real:\n"
               "    Let mutable t be 0.0.\n"
               "    Repeat for v in xs:\n"
               "        Set v to v + 1.0.\n"
               "    Return t.\n",
               4, 9, "loop variable");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Set z to 2.0.\n"
               "    Return x.\n",
               2, 5, "unknown name `z`");
    expect_clean("## To f (x: Real) -> Real:\n"
                 "    Let mutable y be x.\n"
                 "    Set y to y * 2.0.\n"
                 "    Return y.\n");
}

TEST(Checker, SetItemOnlyOnOutputsAndLocalSequences) {
    expect_one("## To f (x: Seq of Real) into (out: Seq of Real):\n"
               "    Check that length of out equals length of x.\n"
               "    Set item 1 of x to 1.0.\n",
               3, 19, "cannot Set an item of `x`");
    // Through an alias of an input row, too.
    expect_one("## To f (x: Seq of Seq of Real) -> Real:\n"
               "    Let row be item 1 of x.\n"
               "    Push 1.0 to row.\n"
               "    Return 0.0.\n",
               3, 17, "cannot Push to `row`");
    expect_clean("## To f (x: Seq of Real) into (out: Seq of Real):\n"
                 "    Check that length of out equals length of x.\n"
                 "    Let local be copy of x.\n"
                 "    Set item 1 of local to 2.0.\n"
                 "    Set item 1 of out to item 1 of local.\n");
}

TEST(Checker, CallsNameAHelperOrABuiltinWithTheRightArity) {
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return rsqrt(x).\n",
               2, 12, "unknown function `rsqrt`");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return max(x).\n",
               2, 12, "`max` takes 2 argument(s), got 1");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return 1.0 + sqrt(x, x).\n",
               2, 18, "`sqrt` takes 1 argument(s), got 2");
    expect_one("## To g (a: Real) and (b: Real) -> Real:\n"
               "    Return a * b.\n"
               "\n"
               "## To f (x: Real) -> Real:\n"
               "    Return g(x).\n",
               5, 12, "`g` takes 2 argument(s), got 1");
    expect_clean("## To g (a: Real) and (b: Real) -> Real:\n"
                 "    Return pow(a, b) + min(a, b) + sigmoid(a) + erf(b).\n"
                 "\n"
                 "## To f (x: Real) -> Real:\n"
                 "    Return g(x, abs(x)).\n");
}

TEST(Checker, LengthAndItemNeedSequences) {
    expect_one("## To f (x: Real) -> Int:\n"
               "    Return length of x.\n",
               2, 12, "`length of` needs a sequence");
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return item 1 of x.\n",
               2, 12, "`item of` needs a sequence");
}

TEST(Checker, ObviousTypeErrors) {
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return x + true.\n",
               2, 16, "`+` needs a number, but `true` is a Bool");
    expect_one("## To f (xs: Seq of Real) -> Real:\n"
               "    Return item 1.5 of xs.\n",
               2, 17, "an index must be an Int");
    expect_one("## To f (x: Real) -> Real:\n"
               "    If x:\n"
               "        Let y be 1.0.\n"
               "    Return x.\n",
               2, 8, "`If` needs a Bool condition");
    // Set to an Int first, it is an Int (r2 promotes only an Int literal Set to a Real).
    expect_one("## To f (x: Real) -> Real:\n"
               "    Let mutable n be 0.\n"
               "    Set n to n + 1.\n"
               "    Set n to x.\n"
               "    Return x.\n",
               4, 14, "holds an Int");
    expect_one("## To f (xs: Seq of Real) -> Seq of Real:\n"
               "    Let mutable out be a new Seq of Real.\n"
               "    Push xs to out.\n"
               "    Return out.\n",
               3, 10, "each item of `out` is a Real");
    expect_one("## To f (x: Real) -> Bool:\n"
               "    Return x is less than true.\n",
               2, 12, "cannot compare");
    expect_one("## To f (x: Seq of Real) -> Real:\n"
               "    Return x.\n",
               2, 12, "`f` returns Real, but `x` is a Seq of Real");
}

TEST(Checker, AConstantIndexBelowOneIsAlwaysWrong) {
    expect_one("## To f (xs: Seq of Real) -> Real:\n"
               "    Return item 0 of xs.\n",
               2, 17, "LOGOS indices start at 1");
    expect_one("## To f (n: Int) into (out: Seq of Real):\n"
               "    Check that length of out equals n.\n"
               "    Set item (-1) of out to 1.0.\n",
               3, 15, "item -1 is outside every sequence");
}

TEST(Checker, LongNamesAreClippedInMessages) {
    std::string name(5000, 'z');
    std::vector<Diagnostic> ds = check_text("## To f (x: Real) -> Real:\n"
                                            "    Return x + " +
                                            name + ".\n");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_LT(ds[0].message.size(), 100u);
    EXPECT_NE(ds[0].message.find("unknown name `zzzz"), std::string::npos) << ds[0].message;
}

TEST(Checker, TextIsLenientButNotArithmetic) {
    expect_clean("## To greet (name: Text) -> Text:\n"
                 "    Return \"Hello, \" combined with name.\n");
    expect_one("## To f (name: Text) -> Real:\n"
               "    Return name * 2.0.\n",
               2, 12, "`*` needs a number, but `name` is a Text");
}

TEST(Checker, ReturnPlacementInTheOp) {
    expect_one("## To f (x: Real) -> Real:\n"
               "    Return x.\n"
               "    Let y be 2.0.\n",
               2, 5, "must be the last statement of the op");
    expect_one("## To f (x: Real) -> Real:\n"
               "    If x is less than 0.0:\n"
               "        Return 0.0.\n"
               "    Return x.\n",
               3, 9, "must be the last statement of the op");
}

TEST(Checker, HelpersMayReturnFromIfBranchesButNotLoops) {
    expect_clean("## To relu (x: Real) -> Real:\n"
                 "    If x is less than 0.0:\n"
                 "        Return 0.0.\n"
                 "    Return x.\n"
                 "\n"
                 "## To f (x: Real) -> Real:\n"
                 "    Return relu(x).\n");
    expect_clean("## To sign (x: Real) -> Real:\n"
                 "    If x is less than 0.0:\n"
                 "        Return -1.0.\n"
                 "    Otherwise:\n"
                 "        Return 1.0.\n"
                 "\n"
                 "## To f (x: Real) -> Real:\n"
                 "    Return sign(x).\n");
    expect_one("## To first (xs: Seq of Real) -> Real:\n"
               "    Repeat for v in xs:\n"
               "        Return v.\n"
               "    Return 0.0.\n"
               "\n"
               "## To f (xs: Seq of Real) -> Real:\n"
               "    Return first(xs).\n",
               3, 9, "inside a loop");
}

TEST(Checker, ReturnMatchesTheSignature) {
    expect_one("## To g (x: Real) -> Real:\n"
               "    If x is less than 0.0:\n"
               "        Return 0.0.\n"
               "\n"
               "## To f (x: Real) -> Real:\n"
               "    Return g(x).\n",
               1, 1, "can reach its end without `Return`");
    expect_one("## To f (x: Seq of Real) into (y: Seq of Real):\n"
               "    Check that length of y equals length of x.\n"
               "    Return x.\n",
               3, 12, "must not return a value");
    expect_one("## To g (x: Seq of Real) into (y: Seq of Real):\n"
               "    Check that length of y equals length of x.\n"
               "\n"
               "## To f (x: Seq of Real) -> Real:\n"
               "    Return g(x, x).\n",
               5, 12, "`g` returns no value");
}

TEST(Checker, DiagnosticsComeInSourceOrder) {
    std::vector<Diagnostic> ds = check_text("## To f (x: Real) -> Real:\n"
                                            "    Let a be b.\n"
                                            "    Let c be true + 1.0.\n"
                                            "    Return d.\n");
    ASSERT_EQ(ds.size(), 3u) << dump(ds);
    EXPECT_EQ(ds[0].pos, (SourcePos{2, 14}));
    EXPECT_EQ(ds[1].pos, (SourcePos{3, 14}));
    EXPECT_EQ(ds[2].pos, (SourcePos{4, 12}));
}

TEST(Checker, WholeCorpusChecksClean) {
    int files = 0;
    for (const char* dir : {"accept", "refuse"}) {
        for (const auto& entry : std::filesystem::directory_iterator(kCorpus + dir)) {
            if (entry.path().extension() != ".lg") continue;
            std::ifstream in(entry.path());
            std::stringstream ss;
            ss << in.rdbuf();
            SourceFile file(entry.path().string(), ss.str());
            ParseResult r = parse(file);
            if (entry.path().filename() == "bad_syntax.lg") {
                EXPECT_FALSE(r.ok()); // a parse error: never reaches the checker
                continue;
            }
            ++files;
            ASSERT_TRUE(r.ok()) << entry.path();
            std::vector<Diagnostic> ds = check(r.program);
            std::string all;
            for (const Diagnostic& d : ds)
                all += render(file, d);
            EXPECT_TRUE(ds.empty()) << all;
        }
    }
    EXPECT_GE(files, 20);
}

} // namespace

// logos-ops.md §6 (r2): `Let mutable s be 0.` then `Set s to s + v.` sums Reals.
TEST(Checker, IntLiteralSetToARealIsAReal) {
    const char* text = "## To f (xs: Seq of Real) -> Real:\n"
                       "    Let mutable s be 0.\n"
                       "    Let mutable k be -1.\n"
                       "    Repeat for v in xs:\n"
                       "        Set s to s + v.\n"
                       "    Set k to 2.5.\n"
                       "    Return s + k.\n";
    SourceFile file("t.lg", text);
    ParseResult r = parse(file);
    ASSERT_TRUE(r.ok());
    TypeFacts facts;
    EXPECT_TRUE(check(r.program, &facts).empty());
    EXPECT_EQ(facts.real_int_literals.size(), 2u);
}
