#pragma once

#include <filesystem>

namespace benchd::store {

/// A writer's claim on a store file, held as an advisory lock (flock) on "<store>.writers"
/// beside it for as long as the object lives: shared by every process that runs benchmarks
/// into the store, so a new writer can tell whether any other is alive. The kernel drops the
/// lock when its process dies, however it dies (SIGKILL, a full disk, power loss on reboot).
///
/// Thread-safety: none needed; made once per ResultStore, read-only afterwards.
class WriterClaim {
 public:
  /// Claims the store exclusively when no other writer holds a claim (`sole()`), else not at
  /// all until share(). Throws std::system_error when the lock file cannot be opened or locked.
  explicit WriterClaim(const std::filesystem::path& store_file);
  ~WriterClaim();
  WriterClaim(const WriterClaim&) = delete;
  WriterClaim& operator=(const WriterClaim&) = delete;

  /// Whether no other process (or ResultStore) held a claim on the store when this one was
  /// made: then every run the store says is running or queued belongs to a writer that is gone.
  [[nodiscard]] bool sole() const noexcept { return sole_; }

  /// Holds the claim shared from now on, beside any other writer's; waits while one holds it
  /// exclusively. A sole writer calls it after it has dealt with the runs left behind, so no
  /// other writer records a run in the meantime. Throws std::system_error.
  void share();

 private:
  std::filesystem::path lock_file_;
  int fd_ = -1;
  bool sole_ = false;
};

}  // namespace benchd::store
