#include "ir/op_ir.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace solbench::ir;

TEST(DType, BenchmarkNamesRoundTrip) {
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int32,
                    DType::Int64, DType::Bool})
        EXPECT_EQ(dtype_from_benchmark(benchmark_name(t)), t);
    EXPECT_FALSE(dtype_from_benchmark("float8"));
}

TEST(DType, BFloat16RoundsToNearestEven) {
    EXPECT_EQ(round_to(DType::BFloat16, 1.0), 1.0);
    // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties go to even (1.0).
    EXPECT_EQ(round_to(DType::BFloat16, 1.0 + std::ldexp(1.0, -8)), 1.0);
    EXPECT_EQ(round_to(DType::BFloat16, 1.0 + 3 * std::ldexp(1.0, -8)), 1.0 + std::ldexp(1.0, -6));
    EXPECT_EQ(round_to(DType::BFloat16, 3.14159265), 3.140625);
}

TEST(DType, Float16RoundsAndSaturates) {
    EXPECT_EQ(round_to(DType::Float16, 1.0 + std::ldexp(1.0, -11)), 1.0); // tie to even
    EXPECT_EQ(round_to(DType::Float16, 0.1), 0.0999755859375);
    EXPECT_EQ(round_to(DType::Float16, 65504.0), 65504.0);
    EXPECT_TRUE(std::isinf(round_to(DType::Float16, 70000.0)));
    EXPECT_EQ(round_to(DType::Float16, std::ldexp(1.0, -24)), std::ldexp(1.0, -24)); // subnormal
}

TEST(DType, Float32Rounds) {
    EXPECT_EQ(round_to(DType::Float32, 0.1), static_cast<double>(0.1f));
    EXPECT_NE(round_to(DType::Float32, 0.1), 0.1);
}

TEST(DType, NewBenchmarkNamesRoundTrip) {
    for (DType t : {DType::Int8, DType::Int16, DType::Float8E4M3, DType::Float8E5M2})
        EXPECT_EQ(dtype_from_benchmark(benchmark_name(t)), t);
    EXPECT_STREQ(benchmark_name(DType::Float8E4M3), "float8_e4m3fn");
    EXPECT_FALSE(dtype_from_benchmark("uint8")); // a LOGOS type, not a benchmark dtype
}

// logos-ops.md §6 (r2): FP8 is nearest-even; past its range E4M3 saturates at
// +-448 and E5M2 becomes infinite. Values as torch's .to() gives them in range.
TEST(DType, Float8E4M3RoundsAndSaturates) {
    EXPECT_EQ(round_to(DType::Float8E4M3, 1.0 + 1.0 / 16), 1.0);  // a tie, to even
    EXPECT_EQ(round_to(DType::Float8E4M3, 1.0 + 3.0 / 16), 1.25); // a tie, to even (up)
    EXPECT_EQ(round_to(DType::Float8E4M3, 0.3), 0.3125);
    EXPECT_EQ(round_to(DType::Float8E4M3, std::ldexp(1.0, -9)), std::ldexp(1.0, -9)); // subnormal
    EXPECT_EQ(round_to(DType::Float8E4M3, std::ldexp(1.0, -10)), 0.0); // half the least: to 0
    EXPECT_EQ(round_to(DType::Float8E4M3, 464.0), 448.0);
    EXPECT_EQ(round_to(DType::Float8E4M3, -1000.0), -448.0);
    EXPECT_TRUE(std::isnan(round_to(DType::Float8E4M3, NAN)));
}

TEST(DType, Float8E5M2RoundsAndOverflows) {
    EXPECT_EQ(round_to(DType::Float8E5M2, 1.0 + 1.0 / 8), 1.0); // a tie, to even
    EXPECT_EQ(round_to(DType::Float8E5M2, 57344.0), 57344.0);
    EXPECT_EQ(round_to(DType::Float8E5M2, 61000.0), 57344.0);
    EXPECT_TRUE(std::isinf(round_to(DType::Float8E5M2, 61440.0)));
    EXPECT_EQ(round_to(DType::Float8E5M2, std::ldexp(1.0, -16)), std::ldexp(1.0, -16));
}

TEST(DType, IntegersTruncateTowardZero) {
    EXPECT_EQ(round_to(DType::Int8, 2.9), 2.0);
    EXPECT_EQ(round_to(DType::Int8, -2.9), -2.0);
    EXPECT_EQ(integer_range(DType::Int8), (std::pair<int64_t, int64_t>{-128, 127}));
    EXPECT_EQ(integer_range(DType::UInt8), (std::pair<int64_t, int64_t>{0, 255}));
    EXPECT_EQ(integer_range(DType::Int16), (std::pair<int64_t, int64_t>{-32768, 32767}));
}
