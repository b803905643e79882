#include "frontend/source.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace solbench;

TEST(Source, RendersCaretUnderColumn) {
    SourceFile f("op.lg", "line one\n    Let x be 1\n");
    std::string out = render(f, Diagnostic{{2, 15}, "expected '.'"});
    EXPECT_EQ(out, "op.lg:2:15: error: expected '.'\n        Let x be 1\n                  ^\n");
}

TEST(Source, LineOutOfRangeIsEmpty) {
    SourceFile f("a.lg", "x");
    EXPECT_EQ(f.line(0), "");
    EXPECT_EQ(f.line(2), "");
    EXPECT_EQ(f.line(1), "x");
}

// Every rule has its own id and words, from the one table in diag/diagnostic.cpp.
TEST(Rules, EachRuleHasItsOwnIdAndWords) {
    std::set<std::string> ids;
    for (int i = 0; i <= static_cast<int>(Rule::Unsupported); ++i) {
        Rule r = static_cast<Rule>(i);
        std::string id = to_string(r);
        EXPECT_TRUE(ids.insert(id).second) << "two rules print as " << id;
        EXPECT_NE(std::string(describe(r)), "") << id;
        EXPECT_EQ(id.find_first_not_of("abcdefghijklmnopqrstuvwxyz-"), std::string::npos) << id;
    }
    EXPECT_EQ(std::string(to_string(Rule::StorePattern)), "store-pattern");
    EXPECT_EQ(std::string(to_string(Rule::Unsupported)), "unsupported");
}
