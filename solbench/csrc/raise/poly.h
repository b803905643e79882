// Integer polynomials over axis sizes and loop counters: the raiser's index
// arithmetic. `r * hidden_size + c` is {[r, hidden_size]: 1, [c]: 1}; an
// index is row-major when it splits into a multiple of the row length plus a
// column part. Products keep atoms sorted, so equal polynomials compare equal.
// Arithmetic that overflows int64 throws std::overflow_error.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace solbench::raise {

struct Atom {
    enum Kind { Axis, Loop } kind = Axis;
    int id = 0;
    friend auto operator<=>(const Atom&, const Atom&) = default;
};

using Monomial = std::vector<Atom>; // sorted; empty = the constant term

class Poly {
  public:
    Poly() = default;
    static Poly constant(int64_t v);
    static Poly atom(Atom a);

    Poly operator+(const Poly& o) const;
    Poly operator-(const Poly& o) const;
    Poly operator*(const Poly& o) const;
    Poly scaled(int64_t k) const;
    friend bool operator==(const Poly&, const Poly&) = default;

    bool is_constant() const;
    std::optional<int64_t> constant_value() const; // when is_constant()
    int64_t constant_term() const;
    // The atom when the polynomial is exactly `1 * atom`.
    std::optional<Atom> single_atom() const;
    bool mentions(Atom a) const;
    bool mentions_kind(Atom::Kind k) const;
    // Splits into (quotient, remainder): the terms whose monomial contains `a`
    // (divided by one factor of a) and the rest.
    std::pair<Poly, Poly> split_by(Atom a) const;
    // Exact division by a constant, when every coefficient is divisible.
    std::optional<Poly> divided_by(int64_t k) const;
    // Replaces every occurrence of `a` by `with`.
    Poly substituted(Atom a, const Poly& with) const;
    // The terms with coefficient != 0.
    const std::map<Monomial, int64_t>& terms() const { return terms_; }

  private:
    void add_term(const Monomial& m, int64_t c);
    std::map<Monomial, int64_t> terms_;
};

} // namespace solbench::raise
