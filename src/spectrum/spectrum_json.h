// File: spectrum_json.h
// The one JSON form of a spectrum, written and read here for every file that names one:
// counterexample heads (adversarial/counterexample.h), kernel counterexamples
// (adversarial/kernel_fuzz.h) and Monte Carlo params (montecarlo/experiment.h, partial and result
// files from version 2 on).
//
// Schema: an object holding a spectrum request (request.h), every field optional but one of
// "config" and "dim":
//   {"config": "gemma-7b",           a named configuration (config.h); the fields below override it
//    "dim": 256,                     a JSON integer: even, >= 2
//    "theta": "10000",               a decimal string > 1 (or a JSON integer; never a JSON float)
//    "variant": "p-rope",            rope | nope | p-rope | reversed | partial
//    "fraction": "0.75",             a decimal string in [0, 1] (or a JSON integer): required with,
//                                    and only allowed with, p-rope, reversed and partial
//    "scaling": SCALING}
// SCALING is the --scaling text where one exists: "none", "linear:F" (F a decimal in (0, 2^40]), "llama3"
// (Llama 3.1's factor 8, low 1, high 4, original context 8192); or an object with its "kind" and
// that kind's parameters, each required, no other key:
//   {"kind": "none"}
//   {"kind": "linear", "factor": "F"}
//   {"kind": "llama3", "factor": "8", "low_freq_factor": "1", "high_freq_factor": "4",
//    "original_context": 8192}      (decimals > 0, high >= low; original_context an integer >= 1)
//   {"kind": "dynamic", "factor": "F", "max_position": M, "sequence_length": S, "vllm_static": false}
//   {"kind": "yarn", "factor": "F", "original_context": C, "beta_fast": "32", "beta_slow": "1",
//    "truncate": true, optional "attention_factor", "mscale", "mscale_all_dim"}
//   {"kind": "longrope", optional "factor" (absent: M/C), "original_context": C, "max_position": M,
//    "sequence_length": S, "short_factor": [...], "long_factor": [...], optional "attention_factor"}
// A request naming a model (model.h) also holds "model" (a zoo name or config.json path),
// "layer_type", "sequence_length" and "vllm_dynamic" when set; requests without them are written
// byte for byte as before.
// (scaling.h states each rule; dynamic, yarn and longrope were added after the first files were
// written: every earlier file reads as before.)
// A new scaling kind adds its name and its keys to this object form (spectrum_json.cpp: one case in
// the writer, one in the reader). Unknown keys are refused at every level.
//
// Canonical form (the writer): the request's fields that are set, "fraction" only with a variant
// that takes one, "scaling" as its short text when it has one (what --scaling would read back)
// and as the object otherwise. A spectrum written in full (spectrum_to_json) holds dim, theta,
// variant, fraction when it applies, scaling, and the configuration's name when given. Files are
// compared byte for byte (content-addressed counterexamples, Monte Carlo merges): the writer is
// deterministic, and nlohmann sorts object keys.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "spectrum/request.h"

namespace ropecheck {

// Returns: the canonical JSON of a request (its context is not part of a spectrum: not written).
nlohmann::json spectrum_request_to_json(const SpectrumRequest& request);
// Returns: the request that names `s` by its explicit fields, with `config` as its configuration
// name when given (the fields then override nothing: they are the spectrum itself).
SpectrumRequest spelled_out_request(const Spectrum& s, const std::optional<std::string>& config = std::nullopt);
// Returns: spectrum_request_to_json(spelled_out_request(s, config)).
nlohmann::json spectrum_to_json(const Spectrum& s, const std::optional<std::string>& config = std::nullopt);

// Returns: the request a spectrum object names. Throws InputError naming `where` + the field
// ("cx.json: head.spectrum.dim") for a value that is not an object, an unknown key, a wrong type,
// a fraction without a variant that takes one (or missing with one), an unknown variant, an
// unreadable scaling, and neither config nor dim. The configuration name and the ranges of dim,
// theta and fraction are checked by spectrum_from_json.
SpectrumRequest spectrum_request_from_json(const nlohmann::json& j, const std::string& where);
// Returns: the spectrum the object names: resolve(spectrum_request_from_json(j, where)). Throws as
// that, and InputError naming the field for whatever resolve() refuses (an unknown config, an odd
// dim, theta <= 1, a fraction outside [0, 1]).
Spectrum spectrum_from_json(const nlohmann::json& j, const std::string& where);
// Returns: resolve(spectrum_request_from_json(j, where)) whole (a model's layer type included).
// Throws as spectrum_from_json.
ResolvedSpectrum resolved_from_json(const nlohmann::json& j, const std::string& where);

// Returns: SCALING above, canonical (short text when there is one).
nlohmann::json scaling_to_json(const Scaling& s);
// Returns: the scaling SCALING names. Throws InputError(where, ...) for anything else.
Scaling scaling_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace ropecheck
