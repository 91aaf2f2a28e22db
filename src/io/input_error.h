// File: input_error.h
// The one error type for bad user input. The CLI turns it into a single line on stderr and exit
// code 2; the library throws it wherever a parameter is outside the range its contract accepts, so
// the message always names the input and the accepted range.
#pragma once

#include <stdexcept>
#include <string>

namespace ropecheck {

class InputError : public std::invalid_argument {
 public:
  // input: the flag or field ("--dim"); accepted: the accepted range ("an even integer >= 2");
  // got: what was given.
  InputError(const std::string& input, const std::string& accepted, const std::string& got)
      : std::invalid_argument(input + " must be " + accepted + " (got " + (got.empty() ? "nothing" : got) + ")"),
        input_(input) {}
  const std::string& input() const { return input_; }

 private:
  std::string input_;
};

}  // namespace ropecheck
