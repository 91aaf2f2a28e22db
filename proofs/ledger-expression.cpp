#include "ledger-expression.h"

#include <mpfi.h>
#include <mpfr.h>

#include <cctype>
#include <cmath>

namespace ropecheck::proofs {
namespace {

// A fresh interval at the current default precision (Boost's default constructor uses it).
Interval fresh() { return Interval(0); }

class Parser {
 public:
  Parser(const std::string& text, const ExpressionFunctions& extra) : s_(text), extra_(extra) {}

  Interval parse() {
    Interval v = expr();
    skip();
    if (pos_ != s_.size()) fail("an operator or the end of the expression");
    if (mpfi_nan_p(v.backend().data()) || !mpfi_bounded_p(v.backend().data())) fail_at(0, "a finite value (the result is unbounded)");
    return v;
  }

 private:
  const std::string& s_;
  const ExpressionFunctions& extra_;
  size_t pos_ = 0;

  [[noreturn]] void fail_at(size_t at, const std::string& expected) const {
    throw ExpressionError("expression '" + s_ + "': expected " + expected + " at position " + std::to_string(at));
  }
  [[noreturn]] void fail(const std::string& expected) const { fail_at(pos_, expected); }

  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Interval expr() {
    Interval v = term();
    for (;;) {
      if (eat('+')) v = Interval(v + term());
      else if (eat('-')) v = Interval(v - term());
      else return v;
    }
  }

  Interval term() {
    Interval v = unary();
    for (;;) {
      if (eat('*')) {
        v = Interval(v * unary());
      } else if (eat('/')) {
        const size_t at = pos_;
        const Interval d = unary();
        // MPFI would return [-inf, +inf]: an honest enclosure, but a ledger entry dividing by
        // something that may be zero is an authoring error, so it is reported as one.
        if (mpfi_has_zero(d.backend().data())) fail_at(at, "a divisor that is certainly non-zero");
        v = Interval(v / d);
      } else {
        return v;
      }
    }
  }

  Interval unary() {
    if (eat('-')) return Interval(-unary());
    if (eat('+')) return unary();
    return power();
  }

  Interval power() {
    Interval base = atom();
    if (!eat('^')) return base;
    const size_t at = pos_;
    const Interval e = unary();
    return raise(base, e, at);
  }

  // Integer exponents by repeated squaring in MPFI: 128*2^-1 or 10^4 stay exact points, so "equal"
  // rules in the ledger can decide exact integers. Other exponents go through exp(y log x), which
  // is only defined for x > 0.
  Interval raise(const Interval& x, const Interval& y, size_t at) {
    if (is_point(y)) {
      const Real yv = lower_of(y);
      if (yv == floor(yv) && abs(yv) <= 1 << 20) {
        long n = yv.convert_to<long>();
        const bool negative = n < 0;
        if (negative) n = -n;
        Interval result = fresh() + 1, b = x;
        while (n > 0) {
          if (n & 1) result = Interval(result * b);
          n >>= 1;
          if (n > 0) {
            Interval sq = fresh();
            mpfi_sqr(sq.backend().data(), b.backend().data());
            b = sq;
          }
        }
        if (negative) {
          if (mpfi_has_zero(result.backend().data())) fail_at(at, "a base that is certainly non-zero for a negative power");
          result = Interval(1 / result);
        }
        return result;
      }
    }
    if (!certainly_positive(x)) fail_at(at, "a certainly positive base for a non-integer exponent");
    return Interval(exp(Interval(y * log(x))));
  }

  Interval atom() {
    skip();
    if (pos_ >= s_.size()) fail("a number, 'pi', a function or '('");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      Interval v = expr();
      if (!eat(')')) fail("')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name = s_.substr(start, pos_ - start);
      if (name == "pi") return pi_value<Interval>();
      if (!eat('(')) fail_at(start, "'pi' or a function call name(...), got '" + name + "'");
      std::vector<std::vector<Interval>> groups(1);
      if (!eat(')')) {
        for (;;) {
          groups.back().push_back(expr());
          if (eat(',')) continue;
          if (eat(';')) {
            groups.emplace_back();
            continue;
          }
          if (eat(')')) break;
          fail("',', ';' or ')'");
        }
      }
      return call(name, groups, start);
    }
    fail("a number, 'pi', a function or '('");
  }

  Interval number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      return pos_ > from;
    };
    bool any = digits();
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      any = digits() || any;
    }
    if (!any) fail_at(start, "a decimal number");
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) fail("the digits of an exponent");
    }
    // The decimal text itself is enclosed (0.1 means 1/10), never a binary64 approximation of it.
    return from_decimal<Interval>(s_.substr(start, pos_ - start));
  }

  const std::vector<Interval>& single(const std::vector<std::vector<Interval>>& g, const std::string& name, size_t arity,
                                      size_t at) const {
    if (g.size() != 1 || g[0].size() != arity)
      fail_at(at, name + "(...) with " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s"));
    return g[0];
  }

  Interval call(const std::string& name, const std::vector<std::vector<Interval>>& g, size_t at) {
    if (name == "sqrt") {
      const Interval& x = single(g, name, 1, at)[0];
      if (lower_of(x) < 0) fail_at(at, "sqrt of a certainly non-negative value");
      return Interval(sqrt(x));
    }
    if (name == "exp") return Interval(exp(single(g, name, 1, at)[0]));
    if (name == "log") {
      const Interval& x = single(g, name, 1, at)[0];
      if (!certainly_positive(x)) fail_at(at, "log of a certainly positive value");
      return Interval(log(x));
    }
    if (name == "sin" || name == "cos") {
      Interval s = fresh(), c = fresh();
      sin_cos(single(g, name, 1, at)[0], s, c);
      return name == "sin" ? s : c;
    }
    if (name == "abs") return Interval(abs(single(g, name, 1, at)[0]));
    if (name == "floor") {
      const Interval& x = single(g, name, 1, at)[0];
      Real lo = lower_of(x), hi = upper_of(x);
      mpfr_floor(lo.backend().data(), lo.backend().data());
      mpfr_floor(hi.backend().data(), hi.backend().data());
      Interval r = fresh();
      mpfi_interv_fr(r.backend().data(), lo.backend().data(), hi.backend().data());
      return r;
    }
    if (name == "f64") {
      // Rounding to nearest is monotone, so [fl(lower), fl(upper)] encloses fl(t) for every t in x;
      // both are doubles, hence exact in MPFI.
      const Interval& x = single(g, name, 1, at)[0];
      const double lo = mpfr_get_d(lower_of(x).backend().data(), MPFR_RNDN);
      const double hi = mpfr_get_d(upper_of(x).backend().data(), MPFR_RNDN);
      if (!std::isfinite(lo) || !std::isfinite(hi)) fail_at(at, "f64 of a value inside the binary64 range");
      Interval r = fresh();
      mpfi_interv_d(r.backend().data(), lo, hi);
      return r;
    }
    if (name == "interval") {
      const std::vector<Interval>& a = single(g, name, 2, at);
      if (upper_of(a[1]) < lower_of(a[0])) fail_at(at, "interval(a, b) with a <= b");
      return hull_of(a[0], a[1]);
    }
    if (name == "dot") {
      if (g.size() != 2 || g[0].size() != g[1].size() || g[0].empty())
        fail_at(at, "dot(x1, ..., xn; y1, ..., yn) with two groups of the same length n >= 1");
      Interval sum = fresh();
      for (size_t i = 0; i < g[0].size(); ++i) sum = Interval(sum + g[0][i] * g[1][i]);
      return sum;
    }
    const auto it = extra_.find(name);
    if (it == extra_.end()) fail_at(at, "a known function (sqrt exp log sin cos abs floor f64 interval dot" +
                                            [&] {
                                              std::string names;
                                              for (const auto& [n, f] : extra_) names += " " + n;
                                              return names;
                                            }() +
                                            "), got '" + name + "'");
    if (g.size() != 1) fail_at(at, name + "(...) with one argument group");
    return it->second(g[0]);
  }
};

}  // namespace

Interval evaluate_expression(const std::string& text, const ExpressionFunctions& extra) {
  return Parser(text, extra).parse();
}

}  // namespace ropecheck::proofs
