#include "raise/poly.h"

#include <algorithm>
#include <stdexcept>

namespace solbench::raise {

namespace {
// Index arithmetic on hostile input (huge constants) must not overflow silently.
int64_t checked_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) throw std::overflow_error("index arithmetic overflow");
    return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error("index arithmetic overflow");
    return r;
}
} // namespace

Poly Poly::constant(int64_t v) {
    Poly p;
    p.add_term({}, v);
    return p;
}

Poly Poly::atom(Atom a) {
    Poly p;
    p.add_term({a}, 1);
    return p;
}

void Poly::add_term(const Monomial& m, int64_t c) {
    if (c == 0) return;
    auto [it, inserted] = terms_.emplace(m, c);
    if (!inserted) {
        it->second = checked_add(it->second, c);
        if (it->second == 0) terms_.erase(it);
    }
}

Poly Poly::operator+(const Poly& o) const {
    Poly r = *this;
    for (const auto& [m, c] : o.terms_)
        r.add_term(m, c);
    return r;
}

Poly Poly::operator-(const Poly& o) const {
    return *this + o.scaled(-1);
}

Poly Poly::operator*(const Poly& o) const {
    Poly r;
    for (const auto& [m1, c1] : terms_)
        for (const auto& [m2, c2] : o.terms_) {
            Monomial m = m1;
            m.insert(m.end(), m2.begin(), m2.end());
            std::sort(m.begin(), m.end());
            r.add_term(m, checked_mul(c1, c2));
        }
    return r;
}

Poly Poly::scaled(int64_t k) const {
    Poly r;
    for (const auto& [m, c] : terms_)
        r.add_term(m, checked_mul(c, k));
    return r;
}

bool Poly::is_constant() const {
    return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::optional<int64_t> Poly::constant_value() const {
    if (!is_constant()) return std::nullopt;
    return constant_term();
}

int64_t Poly::constant_term() const {
    auto it = terms_.find(Monomial{});
    return it == terms_.end() ? 0 : it->second;
}

std::optional<Atom> Poly::single_atom() const {
    if (terms_.size() != 1) return std::nullopt;
    const auto& [m, c] = *terms_.begin();
    if (c != 1 || m.size() != 1) return std::nullopt;
    return m[0];
}

bool Poly::mentions(Atom a) const {
    for (const auto& [m, c] : terms_)
        if (std::find(m.begin(), m.end(), a) != m.end()) return true;
    return false;
}

bool Poly::mentions_kind(Atom::Kind k) const {
    for (const auto& [m, c] : terms_)
        for (const Atom& a : m)
            if (a.kind == k) return true;
    return false;
}

std::pair<Poly, Poly> Poly::split_by(Atom a) const {
    Poly quotient, rest;
    for (const auto& [m, c] : terms_) {
        auto it = std::find(m.begin(), m.end(), a);
        if (it == m.end()) {
            rest.add_term(m, c);
        } else {
            Monomial q = m;
            q.erase(q.begin() + (it - m.begin()));
            quotient.add_term(q, c);
        }
    }
    return {quotient, rest};
}

std::optional<Poly> Poly::divided_by(int64_t k) const {
    if (k == 0) return std::nullopt;
    Poly r;
    for (const auto& [m, c] : terms_) {
        if (c % k != 0) return std::nullopt;
        r.add_term(m, c / k);
    }
    return r;
}

Poly Poly::substituted(Atom a, const Poly& with) const {
    Poly r;
    for (const auto& [m, c] : terms_) {
        Poly term = constant(c);
        for (const Atom& x : m)
            term = term * (x == a ? with : atom(x));
        r = r + term;
    }
    return r;
}

} // namespace solbench::raise
