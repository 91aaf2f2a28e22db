// File: named_values.h
// The project's "one list" tables: a constexpr array of entries {value, name, ...} (cpu::kPaths,
// accuracy::kImplementations, kLayouts, kTensorAxes, kDtypes), each the only place its values are
// named. These read any of them: a value's name, every name in order, a name parsed back.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/input_error.h"

namespace ropecheck {

// Returns: the name of `value` in `table` ("unknown" when it has no entry).
template <typename Entry, std::size_t N>
std::string name_in(const Entry (&table)[N], decltype(Entry::value) value) {
  for (const Entry& e : table)
    if (e.value == value) return std::string(e.name);
  return "unknown";
}

// Returns: every value of `table`, in order.
template <typename Entry, std::size_t N>
std::vector<decltype(Entry::value)> values_in(const Entry (&table)[N]) {
  std::vector<decltype(Entry::value)> values;
  for (const Entry& e : table) values.push_back(e.value);
  return values;
}

// Returns: every name of `table`, in order.
template <typename Entry, std::size_t N>
std::vector<std::string> names_in(const Entry (&table)[N]) {
  std::vector<std::string> names;
  for (const Entry& e : table) names.emplace_back(e.name);
  return names;
}

// Returns: the value named `name` in `table`. Throws InputError(input, "a, b or c" (every name),
// name) for a name it lacks.
template <typename Entry, std::size_t N>
decltype(Entry::value) parse_name_in(const Entry (&table)[N], const std::string& name, const std::string& input) {
  for (const Entry& e : table)
    if (name == e.name) return e.value;
  throw InputError(input, or_list(names_in(table)), name);
}

}  // namespace ropecheck
