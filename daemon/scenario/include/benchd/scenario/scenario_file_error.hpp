#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace benchd::scenario {

/// A scenario file that cannot be used. what() is one line meant for the user, e.g.
/// "scenarios/x.csv:4: column 6 (connections): expected a positive integer, got 'abc'". The
/// parts are also available on their own (for an API answer): line() is 0 when the problem is
/// the file as a whole, column() is 0 when it is the line as a whole.
class ScenarioFileError : public std::runtime_error {
 public:
  ScenarioFileError(std::string file, std::size_t line, std::size_t column, std::string reason);

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  [[nodiscard]] std::size_t column() const noexcept { return column_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string reason_;
};

}  // namespace benchd::scenario
