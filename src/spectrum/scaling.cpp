#include "spectrum/scaling.h"

#include "io/input_error.h"
#include "numeric/scalar.h"
#include "spectrum/limits.h"

namespace ropecheck {

namespace {

// The exact decimal text as an enclosure; nullopt when the text is not one decimal number.
std::optional<Interval> decimal_enclosure(const std::string& text) {
  try {
    return from_decimal<Interval>(text);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// Decides d > 0 for a decimal d exactly (the enclosure of a decimal excludes 0 unless d = 0).
bool positive_decimal(const std::string& text) {
  const auto x = decimal_enclosure(text);
  return x && certainly_positive(*x);
}

void require_positive(const std::string& name, const std::string& text) {
  if (!positive_decimal(text)) throw InputError(name, "a decimal > 0", text);
}

// A context-extension factor is a ratio of context lengths: at most kMaxLengthArgument (2^40,
// spectrum/limits.h). Far larger ones (1e308) made dynamic NTK's base fS/M - (f - 1) cancel to an
// enclosure straddling 0 at the working precision, which the power then refused (exit 3).
bool factor_decimal(const std::string& text) {
  const auto x = decimal_enclosure(text);
  return x && certainly_positive(*x) && upper_of(*x) <= Real(static_cast<double>(kMaxLengthArgument));
}
void require_factor(const std::string& name, const std::string& text) {
  if (!factor_decimal(text)) throw InputError(name, "a decimal in (0, 2^40]", text);
}

// Decides a <= b for decimals exactly: the decimal texts are compared through enclosures, whose
// overlap at high precision means equality (two different decimals of a config's length are
// separated far above 2^-200).
bool decimal_at_most(const std::string& a, const std::string& b) {
  const auto x = decimal_enclosure(a), y = decimal_enclosure(b);
  return x && y && !certainly_less(*y, *x);
}

std::string context_text(long long c) { return std::to_string(c); }

}  // namespace

std::string scaling_kind_name(Scaling::Kind kind) {
  switch (kind) {
    case Scaling::Kind::none: return "none";
    case Scaling::Kind::linear: return "linear";
    case Scaling::Kind::llama3: return "llama3";
    case Scaling::Kind::dynamic: return "dynamic";
    case Scaling::Kind::yarn: return "yarn";
    case Scaling::Kind::longrope: return "longrope";
  }
  return "none";
}

std::string Scaling::describe() const {
  switch (kind) {
    case Kind::none: return "none";
    case Kind::linear: return "linear " + factor;
    case Kind::llama3:
      return "llama3 (factor " + factor + ", low " + low_freq_factor + ", high " + high_freq_factor +
             ", original context " + context_text(original_context) + ")";
    case Kind::dynamic:
      return "dynamic (factor " + factor + ", max position " + context_text(max_position) + ", " +
             (vllm_static ? std::string("vLLM static") : "sequence length " + context_text(sequence_length)) + ")";
    case Kind::yarn: {
      std::string d = "yarn (factor " + factor + ", original context " + context_text(original_context) + ", beta " +
                      beta_fast + "/" + beta_slow + (truncate ? ", truncate" : ", no truncate");
      if (attention_factor) d += ", attention factor " + *attention_factor;
      if (mscale) d += ", mscale " + *mscale;
      if (mscale_all_dim) d += ", mscale_all_dim " + *mscale_all_dim;
      return d + ")";
    }
    case Kind::longrope: {
      std::string d = "longrope (" + std::string(longrope_long() ? "long" : "short") + " factors, original context " +
                      context_text(original_context) + ", sequence length " + context_text(sequence_length);
      if (attention_factor) d += ", attention factor " + *attention_factor;
      return d + ")";
    }
  }
  return "none";
}

Scaling parse_scaling(const std::string& text) {
  const std::string accepted = "none, linear:F (F a decimal in (0, 2^40]), llama3 or llama3:F:LOW:HIGH:C";
  if (text == "none") return {};
  if (text == "llama3") return Scaling::llama3_1();
  if (text.rfind("linear:", 0) == 0) {
    const std::string f = text.substr(7);
    if (!factor_decimal(f)) throw InputError("scaling", accepted, text);
    return Scaling::linear(f);
  }
  if (text.rfind("llama3:", 0) == 0) {
    std::vector<std::string> parts;
    size_t start = 7;
    for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
      parts.push_back(text.substr(start, colon - start));
    parts.push_back(text.substr(start));
    if (parts.size() != 4) throw InputError("scaling", accepted, text);
    long long context = 0;
    try {
      size_t used = 0;
      context = std::stoll(parts[3], &used);
      if (used != parts[3].size()) context = 0;
    } catch (const std::exception&) {
      context = 0;
    }
    Scaling s = Scaling::llama3(parts[0], parts[1], parts[2], context);
    try {
      check_scaling(s, 1);
    } catch (const InputError&) {
      throw InputError("scaling", accepted + " (decimals F > 0, 0 < LOW <= HIGH, integer C >= 1)", text);
    }
    return s;
  }
  throw InputError("scaling", accepted, text);
}

void check_scaling(const Scaling& s, int pairs) {
  const std::string at_least_one = "an integer >= 1";
  auto require_context = [&](const std::string& name, long long v) {
    if (v < 1) throw InputError(name, at_least_one, context_text(v));
  };
  switch (s.kind) {
    case Scaling::Kind::none: return;
    case Scaling::Kind::linear: require_factor("scaling.factor", s.factor); return;
    case Scaling::Kind::llama3:
      require_factor("scaling.factor", s.factor);
      require_positive("scaling.low_freq_factor", s.low_freq_factor);
      require_positive("scaling.high_freq_factor", s.high_freq_factor);
      if (!decimal_at_most(s.low_freq_factor, s.high_freq_factor))
        throw InputError("scaling.high_freq_factor", "a decimal >= low_freq_factor (" + s.low_freq_factor + ")", s.high_freq_factor);
      require_context("scaling.original_context", s.original_context);
      return;
    case Scaling::Kind::dynamic:
      // factor > 0 keeps the base 1 + factor (S/M - 1) of the power >= 1 for every S >= M.
      require_factor("scaling.factor", s.factor);
      require_context("scaling.max_position", s.max_position);
      if (s.sequence_length < 0) throw InputError("scaling.sequence_length", "an integer >= 0", context_text(s.sequence_length));
      return;
    case Scaling::Kind::yarn:
      require_factor("scaling.factor", s.factor);
      require_context("scaling.original_context", s.original_context);
      require_positive("scaling.beta_fast", s.beta_fast);
      require_positive("scaling.beta_slow", s.beta_slow);
      if (s.attention_factor) require_positive("scaling.attention_factor", *s.attention_factor);
      if (s.mscale && !decimal_enclosure(*s.mscale)) throw InputError("scaling.mscale", "a decimal", *s.mscale);
      if (s.mscale_all_dim && !decimal_enclosure(*s.mscale_all_dim))
        throw InputError("scaling.mscale_all_dim", "a decimal", *s.mscale_all_dim);
      return;
    case Scaling::Kind::longrope: {
      require_context("scaling.original_context", s.original_context);
      if (s.factor.empty()) require_context("scaling.max_position", s.max_position);
      else require_factor("scaling.factor", s.factor);
      if (s.attention_factor) require_positive("scaling.attention_factor", *s.attention_factor);
      const std::string accepted = "a list of " + std::to_string(pairs) + " decimals > 0 (one per rotating pair)";
      for (const auto* list : {&s.short_factor, &s.long_factor}) {
        const std::string name = list == &s.short_factor ? "scaling.short_factor" : "scaling.long_factor";
        if (static_cast<int>(list->size()) != pairs)
          throw InputError(name, accepted, std::to_string(list->size()) + " values");
        for (const auto& v : *list)
          if (!positive_decimal(v)) throw InputError(name, accepted, v);
      }
      return;
    }
  }
}

}  // namespace ropecheck
