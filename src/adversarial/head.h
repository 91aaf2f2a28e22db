// File: head.h
// The model of a semantic attention head shared by the generators, the search, the counterexample
// files and replay (issue 6).
//
// A head is a spectrum plus one query vector and one key vector per token type: the TARGET type
// (what the head should attend to), one or more DISTRACTOR types, and optionally a BOS sink whose
// token sits at position 0 and never moves. Every vector has spectrum.dim() components; chunk p is
// (x[2p], x[2p+1]) and rotates at g_p (the math works on chunks, spectrum.h; the array layout of
// the kernel does not change an activation). Components are binary64 values and are exact: the
// certified evaluation encloses the activation of exactly these numbers. The activation is the
// rotation's, q^T R^(-s) k over the spectrum's frequencies: a yarn/longrope attention factor a
// (which multiplies cos and sin in the model) is NOT applied; it multiplies every rotated pair's
// product by a^2, i.e. it is the same head with the query scaled by a^2 (model_bands.h does that).
//
// The query is the LAST token of a sequence (positions 0..L, query at L), and it is itself a token
// of the sequence: its key is the key of the type at position L. The head WORKS on a sequence when
//   notion attention:  alpha(target) > 1 - epsilon,
//   notion argmax:     a(target) > a(every other token)   (strictly),
// and a sequence BREAKS it when
//   notion attention:  alpha(target) <= break_at            (default 1/2: Lemma A.3's bound),
//   notion argmax:     some other token has a(other) > a(target).
// epsilon and break_at are decimal strings, enclosed exactly in MPFI. A counterexample needs
// 1 - epsilon > break_at, so that "works" and "breaks" are disjoint (validate() checks it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "spectrum/request.h"

namespace ropecheck::adversarial {

enum class Notion { attention, argmax };
std::string notion_name(Notion n);  // "attention", "argmax"

// Token types. In JSON: "target", "bos", "d0", "d1", ...
using TypeId = int;
inline constexpr TypeId kTarget = 0;
inline constexpr TypeId kBos = -1;
inline constexpr TypeId distractor(int i) { return 1 + i; }
std::string type_name(TypeId t);

struct Head {
  SpectrumRequest spectrum_request;  // how the spectrum was named (config and/or explicit fields)
  Spectrum spectrum{2, "10000"};     // resolve(spectrum_request).spectrum
  std::vector<double> query;                     // dim components
  std::vector<double> target;                    // key of the target type
  std::vector<std::vector<double>> distractors;  // >= 1 keys; "d0" is distractors[0]
  std::optional<std::vector<double>> bos;        // sink key (position 0 only)
  Notion notion = Notion::attention;
  std::string epsilon = "0.1";
  std::string break_at = "0.5";

  int dim() const { return spectrum.dim(); }
  // Returns: the key of type t. Preconditions: t is a type of this head.
  const std::vector<double>& key(TypeId t) const;
  bool has_type(TypeId t) const;
};

// Throws InputError naming `where` + the field ("head.query[3]", "head.distractors") and the reason:
// a vector whose length is not spectrum.dim(), a NaN or infinite component, no distractor,
// epsilon outside (0, 1), break_at outside [0, 1), or 1 - epsilon <= break_at.
void validate(const Head& head, const std::string& where = "head");

// Returns: the chunks (pairs) where the query and at least one key are both non-zero: the only
// chunks that contribute to any activation. Every evaluation skips the others.
std::vector<int> active_chunks(const Head& head);

// Returns: true when every active chunk has frequency 0 in the head's spectrum (p-RoPE's removed
// band, NoPE): then every activation is the same at every distance.
bool position_free(const Head& head);

}  // namespace ropecheck::adversarial
