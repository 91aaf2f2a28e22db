#include "io/file_bytes.h"

#include <fstream>
#include <sstream>

#include "io/input_error.h"

namespace ropecheck {

std::string read_file_bytes(const std::string& path, const std::string& input, const std::string& accepted) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(input, accepted, path);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(input, accepted, path + ": read error");
  return s.str();
}

}  // namespace ropecheck
