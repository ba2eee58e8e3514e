#pragma once

#include <benchd/scenario/scenario_row.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::control {

/// A scenario-file name the library refuses (400): what() says why.
class ScenarioNameError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An upload or removal that conflicts with what is there (409), e.g. replacing a built-in file.
class ScenarioConflictError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The scenario files the daemon offers: the built-in folder (read only; its workloads/ are
/// every file's workloads) and the uploads folder in the state folder. A name is a plain file
/// name ending in ".csv" (letters, digits, '.', '_', '-'; at most 100 characters; not starting
/// with '.'), so no name can reach outside its folder. Built-in names cannot be uploaded, so
/// a name means one file, the same one that a run of that name uses
/// (runner::resolveScenarioFile looks in the built-in folder, then in the uploads folder).
///
/// Thread-safety: every member function may be called from any thread. An upload is written
/// to a temporary file in the uploads folder and renamed over the old one, so readers see the
/// old or the new file, never a part of one.
class ScenarioLibrary {
 public:
  enum class Source : std::uint8_t { kBuiltIn = 1, kUploaded };
  struct Entry {
    std::string name;
    Source source = Source::kBuiltIn;
    std::filesystem::path path;
  };

  ScenarioLibrary(std::filesystem::path builtin_dir, std::filesystem::path uploads_dir);

  /// Every file, sorted by name.
  [[nodiscard]] std::vector<Entry> list() const;
  /// The file called `name` (exactly; no ".csv" added), or nothing (also for an invalid name).
  [[nodiscard]] std::optional<Entry> find(std::string_view name) const;
  /// The file's rows, checked against the built-in workloads. Throws scenario::ScenarioFileError
  /// (naming the file, the line, the column and the reason) for a file that cannot be used.
  [[nodiscard]] std::vector<scenario::ScenarioRow> rows(const Entry& entry) const;

  /// Checks `text` as `benchd run` would (the same line, column and reason errors) and stores it
  /// as `name` in the uploads folder. Returns true when it replaced an uploaded file of that
  /// name. Throws ScenarioNameError, ScenarioConflictError (a built-in name),
  /// scenario::ScenarioFileError (bad content; nothing is written), std::runtime_error (I/O).
  bool upload(std::string_view name, std::string_view text);
  /// Removes an uploaded file. Returns false when there is none of that name. Throws
  /// ScenarioNameError, ScenarioConflictError (a built-in file).
  bool remove(std::string_view name);

  /// Why `name` is not a valid scenario-file name, or nothing when it is.
  [[nodiscard]] static std::optional<std::string> nameProblem(std::string_view name);

  [[nodiscard]] const std::filesystem::path& uploadsDir() const noexcept { return uploads_dir_; }

 private:
  std::filesystem::path builtin_dir_;
  std::filesystem::path uploads_dir_;
};

[[nodiscard]] std::string_view scenarioSourceName(ScenarioLibrary::Source source);

}  // namespace benchd::control
