// The one table from LOGOS element types to storage dtypes.
#include "frontend/elem_dtype.h"

namespace solbench {

std::optional<ir::DType> to_dtype(ast::ElemType t) {
    using E = ast::ElemType;
    switch (t) {
    case E::BFloat16:
        return ir::DType::BFloat16;
    case E::Float16:
        return ir::DType::Float16;
    case E::Float32:
        return ir::DType::Float32;
    case E::Float64:
    case E::Real:
        return ir::DType::Float64;
    case E::Int:
    case E::Int64:
        return ir::DType::Int64;
    case E::Int32:
        return ir::DType::Int32;
    case E::Int8:
        return ir::DType::Int8;
    case E::Int16:
        return ir::DType::Int16;
    case E::UInt8:
        return ir::DType::UInt8;
    case E::Float8E4M3:
        return ir::DType::Float8E4M3;
    case E::Float8E5M2:
        return ir::DType::Float8E5M2;
    case E::Bool:
        return ir::DType::Bool;
    case E::Text:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace solbench
