// The static types the checker infers (private to checker.cpp).
//
// Coarser than ast::Type on purpose: every floating element type is a Real
// number and every integer type an Int, because LOGOS arithmetic mixes them
// (logos-ops.md §6); only sequences keep their element type and rank.
// Unknown is what an erroneous expression has, so one mistake is reported
// once and not again by every expression around it.
#pragma once

#include "frontend/ast.h"

#include <string>

namespace solbench::check_types {

enum class Kind { Unknown, Nothing, Int, Real, Bool, Text, Seq };

struct CType {
    Kind kind = Kind::Unknown;
    ast::ElemType elem = ast::ElemType::Real; // Seq only
    int rank = 0;                             // Seq only, >= 1

    bool unknown() const { return kind == Kind::Unknown; }
    bool number() const { return kind == Kind::Int || kind == Kind::Real; }
    bool seq() const { return kind == Kind::Seq; }
};

inline CType scalar_of(ast::ElemType e) {
    using E = ast::ElemType;
    switch (e) {
    case E::Int:
    case E::Int8:
    case E::Int16:
    case E::UInt8:
    case E::Int32:
    case E::Int64:
        return {Kind::Int};
    case E::Bool:
        return {Kind::Bool};
    case E::Text:
        return {Kind::Text};
    default:
        return {Kind::Real};
    }
}

inline CType of_type(const ast::Type& t) {
    if (t.rank == 0) return scalar_of(t.elem);
    return {Kind::Seq, t.elem, t.rank};
}

// The type of `item i of` a value of type t.
inline CType element_of(const CType& t) {
    if (t.kind == Kind::Text) return {Kind::Text};
    if (t.kind != Kind::Seq) return {};
    if (t.rank == 1) return scalar_of(t.elem);
    return {Kind::Seq, t.elem, t.rank - 1};
}

// Whether a value of type v may be stored where a t is held. Int widens to
// Real; a Real does not narrow to Int; sequences must agree in rank (their
// element types convert on store).
inline bool fits(const CType& v, const CType& t) {
    if (v.unknown() || t.unknown()) return true;
    if (t.kind == Kind::Real) return v.number();
    if (t.kind == Kind::Seq) return v.kind == Kind::Seq && v.rank == t.rank;
    return v.kind == t.kind;
}

// "an Int", "a Real", "a Seq of Float32", "no value".
inline std::string describe(const CType& t) {
    switch (t.kind) {
    case Kind::Unknown:
        return "a value";
    case Kind::Nothing:
        return "no value";
    case Kind::Int:
        return "an Int";
    case Kind::Real:
        return "a Real";
    case Kind::Bool:
        return "a Bool";
    case Kind::Text:
        return "a Text";
    case Kind::Seq:
        return "a " + ast::to_string(ast::Type{t.elem, t.rank, {}});
    }
    return "a value";
}

} // namespace solbench::check_types
