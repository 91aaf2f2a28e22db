#include "report/section.h"

#include <sstream>

namespace ropecheck::report {

std::string mode_name(Mode m) {
  switch (m) {
    case Mode::smoke: return "smoke";
    case Mode::quick: return "quick";
    case Mode::full: return "full";
  }
  return "quick";
}

namespace {

// A cell must stay on one line and must not end the cell early.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream os;
  os << "|";
  for (const std::string& h : header) os << " " << cell(h) << " |";
  os << "\n|";
  for (size_t i = 0; i < header.size(); ++i) os << "---|";
  os << "\n";
  for (const auto& row : rows) {
    os << "|";
    for (size_t i = 0; i < header.size(); ++i) os << " " << (i < row.size() ? cell(row[i]) : std::string()) << " |";
    os << "\n";
  }
  return os.str();
}

}  // namespace ropecheck::report
