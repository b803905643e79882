#include "frontend/ast.h"

namespace solbench::ast {

const char* to_string(ElemType t) {
    switch (t) {
    case ElemType::BFloat16:
        return "BFloat16";
    case ElemType::Float16:
        return "Float16";
    case ElemType::Float32:
        return "Float32";
    case ElemType::Float64:
        return "Float64";
    case ElemType::Real:
        return "Real";
    case ElemType::Int:
        return "Int";
    case ElemType::Int32:
        return "Int32";
    case ElemType::Int64:
        return "Int64";
    case ElemType::Bool:
        return "Bool";
    case ElemType::Text:
        return "Text";
    }
    return "?";
}

std::string to_string(const Type& t) {
    std::string out;
    for (int i = 0; i < t.rank; ++i)
        out += "Seq of ";
    return out + to_string(t.elem);
}

const char* to_string(BinaryOp op) {
    switch (op) {
    case BinaryOp::Add:
        return "+";
    case BinaryOp::Sub:
        return "-";
    case BinaryOp::Mul:
        return "*";
    case BinaryOp::Div:
        return "/";
    case BinaryOp::Mod:
        return "%";
    case BinaryOp::Eq:
        return "==";
    case BinaryOp::Ne:
        return "!=";
    case BinaryOp::Lt:
        return "<";
    case BinaryOp::Gt:
        return ">";
    case BinaryOp::Le:
        return "<=";
    case BinaryOp::Ge:
        return ">=";
    case BinaryOp::And:
        return "and";
    case BinaryOp::Or:
        return "or";
    case BinaryOp::Concat:
        return "combined with";
    }
    return "?";
}

const Function* Program::find(const std::string& name) const {
    if (name.empty()) return functions.empty() ? nullptr : &functions.back();
    for (const Function& f : functions)
        if (f.name == name) return &f;
    return nullptr;
}

} // namespace solbench::ast
