#include "frontend/source.h"

#include <gtest/gtest.h>

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
