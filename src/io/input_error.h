// File: input_error.h
// The one error type for bad user input. The CLI turns it into a single line on stderr and exit
// code 2; the library throws it wherever a parameter is outside the range its contract accepts, so
// the message always names the input and the accepted range.
//
// Names. The library names a parameter by its own name ("dim", "theta", "fraction", "context",
// "scaling", "config", "threads", "pairs"), never by the CLI flag that happens to carry it; a
// caller that knows the input under another name renders the same message with message_for:
// the CLI its flags (cli/flags.h: cli_message), the C ABI its struct fields ("spec->head_dim"), a
// file reader its field path ("cx.json: head.spectrum.theta"). Code that reads a flag or a file
// itself names that flag or field directly ("--out", "cx.json: head.query[3]").
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ropecheck {

class InputError : public std::invalid_argument {
 public:
  // input: the parameter, flag or field ("dim"); accepted: the accepted range ("an even integer
  // >= 2"); got: what was given ("" prints as "nothing").
  InputError(const std::string& input, const std::string& accepted, const std::string& got)
      : std::invalid_argument(compose(input, accepted, got)), input_(input), accepted_(accepted), got_(got) {}

  const std::string& input() const { return input_; }
  const std::string& accepted() const { return accepted_; }
  const std::string& got() const { return got_; }

  // Returns: what() with `name` in place of input(): "<name> must be <accepted> (got <got>)".
  std::string message_for(const std::string& name) const { return compose(name, accepted_, got_); }

 private:
  static std::string compose(const std::string& input, const std::string& accepted, const std::string& got) {
    return input + " must be " + accepted + " (got " + (got.empty() ? "nothing" : got) + ")";
  }

  std::string input_;
  std::string accepted_;
  std::string got_;
};

// Returns: "a", "a or b", "a, b or c": the accepted range of a choice among `names`, in order.
inline std::string or_list(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

}  // namespace ropecheck
