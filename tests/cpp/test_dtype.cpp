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
