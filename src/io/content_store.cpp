#include "io/content_store.h"

#include <filesystem>
#include <system_error>

#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/sha256.h"

namespace ropecheck {

std::string canonical_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

StoredFile store_by_content(const std::string& dir, const nlohmann::json& doc, const std::string& input) {
  namespace fs = std::filesystem;
  const std::string accepted = "a writable directory";
  const fs::path d(dir);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) throw InputError(input, accepted, d.string() + ": " + ec.message());
  if (!fs::is_directory(d, ec)) throw InputError(input, accepted, d.string() + ": not a directory");
  const std::string text = canonical_text(doc);
  StoredFile out;
  out.path = (d / (sha256_hex(text) + ".json")).string();
  out.created = atomic_create(out.path, text, input);
  return out;
}

}  // namespace ropecheck
