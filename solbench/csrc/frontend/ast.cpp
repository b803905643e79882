#include "frontend/ast.h"

#include <type_traits>

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
    case ElemType::Int8:
        return "Int8";
    case ElemType::Int16:
        return "Int16";
    case ElemType::UInt8:
        return "UInt8";
    case ElemType::Float8E4M3:
        return "Float8E4M3";
    case ElemType::Float8E5M2:
        return "Float8E5M2";
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

namespace {
ExprPtr clone_or_null(const ExprPtr& e) {
    return e ? clone(*e) : nullptr;
}
} // namespace

ExprPtr clone(const Expr& e) {
    auto copy = [](const auto& n) -> decltype(Expr::node) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ItemOf>)
            return ItemOf{clone(*n.index), clone(*n.seq)};
        else if constexpr (std::is_same_v<T, LengthOf>)
            return LengthOf{clone(*n.seq)};
        else if constexpr (std::is_same_v<T, Slice>)
            return Slice{clone(*n.from), clone(*n.to), clone(*n.seq)};
        else if constexpr (std::is_same_v<T, NewSeq>)
            return NewSeq{n.type, clone_or_null(n.capacity)};
        else if constexpr (std::is_same_v<T, Call>) {
            Call c{n.callee, {}};
            for (const ExprPtr& a : n.args)
                c.args.push_back(clone(*a));
            return c;
        } else if constexpr (std::is_same_v<T, Cast>)
            return Cast{clone(*n.operand), n.to};
        else if constexpr (std::is_same_v<T, CopyOf>)
            return CopyOf{clone(*n.operand)};
        else if constexpr (std::is_same_v<T, Unary>)
            return Unary{n.op, clone(*n.operand)};
        else if constexpr (std::is_same_v<T, Binary>)
            return Binary{n.op, clone(*n.lhs), clone(*n.rhs)};
        else
            return n; // leaves: literals and names
    };
    return std::make_unique<Expr>(Expr{e.pos, std::visit(copy, e.node)});
}

const Function* Program::find(const std::string& name) const {
    const std::string& wanted = name.empty() ? op : name;
    for (const Function& f : functions)
        if (f.name == wanted) return &f;
    return nullptr;
}

const SkippedBlock* Program::skipped_block(const std::string& name) const {
    for (const SkippedBlock& b : skipped)
        if (b.name == name) return &b;
    return nullptr;
}

} // namespace solbench::ast
