#pragma once
// Child processes: the run engine's short-lived `benchd-worker --inspect` probes and its
// long-running benchd-worker servers, the renderer, and the test suites' daemons and workers.
// One utility for all, so spawning, pipe reading, killing
// and "how did it die" are written once.
//
// Spawning
//   fork + execv, with only async-signal-safe calls in the child between the two (the daemon
//   is multithreaded). In the child: stdin is /dev/null, stdout and stderr are new pipes,
//   every other inherited descriptor is made close-on-exec, the signal mask and ignored
//   signals are reset to the defaults, the parent-death signal is set and the CPU affinity is
//   applied, then the program is executed. A failure before or at exec (no such program,
//   affinity refused) is reported back to the parent over a close-on-exec pipe and thrown from
//   the constructor, so a ChildProcess that exists is a program that started.
//
// PR_SET_PDEATHSIG fires when the *thread* that spawned the child exits, not only the whole
// process: spawn from a thread that outlives the child (the engine's own thread), not from a
// short-lived helper thread.
//
// Reaping: the owner must not ignore SIGCHLD (an ignored SIGCHLD makes the kernel reap children
// on its own and waitpid fails). Every ChildProcess is reaped by its owner: waitExit(), stop(),
// kill() or, at the latest, the destructor (which kills a still-running child).

#include <chrono>
#include <csignal>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace benchd::common {

/// How a child process ended: an exit code or a signal.
struct ExitStatus {
  enum class Kind { kExited, kSignalled };

  Kind kind = Kind::kExited;
  int exit_code = 0;      ///< valid when kind == kExited
  int signal_number = 0;  ///< valid when kind == kSignalled
  bool core_dumped = false;

  /// From a waitpid() status word (WIFEXITED / WIFSIGNALED; stopped states are not exits).
  static ExitStatus fromWaitStatus(int wait_status);

  [[nodiscard]] bool exited() const noexcept { return kind == Kind::kExited; }
  [[nodiscard]] bool signalled() const noexcept { return kind == Kind::kSignalled; }
  [[nodiscard]] bool succeeded() const noexcept { return exited() && exit_code == 0; }

  /// "exit code 3" or "signal 11 (SIGSEGV)"; ", core dumped" is appended when it did.
  [[nodiscard]] std::string describe() const;

  friend bool operator==(const ExitStatus&, const ExitStatus&) = default;
};

/// describe() of a waitpid() status word.
std::string describeExit(int wait_status);

/// "SIGSEGV" for 11, "SIGRTMIN+1" for real-time signals, "unknown signal" otherwise.
std::string signalName(int signal_number);

/// How to start a child. The defaults suit benchd-worker.
struct SpawnOptions {
  /// CPUs the child may run on, applied in the child before exec; empty inherits this
  /// process's affinity. A CPU this process may not use makes the spawn fail.
  std::vector<unsigned> cpu_affinity;
  /// Signal the kernel sends the child when the spawning thread exits (PR_SET_PDEATHSIG);
  /// 0 for none. SIGKILL because an orphan plugin host must never outlive benchd.
  /// benchd-worker installs its own (SIGTERM) at startup, which then applies.
  int parent_death_signal = SIGKILL;
  /// Variables set (or replaced) in the child's environment, on top of this process's.
  std::vector<std::pair<std::string, std::string>> environment;
  /// Puts the child in a process group of its own, so a terminal's Ctrl-C (sent to the
  /// foreground group) reaches only benchd, which then stops its children in order.
  bool own_process_group = false;
  /// An open, writable `cgroup.procs` of a cgroup the child joins before exec (so all it ever
  /// allocates is charged there, e.g. to a memory cap); -1 for none. The caller keeps it open
  /// until the constructor returns and closes it.
  int cgroup_procs_fd = -1;
};

/// A started child process with its stdout and stderr on pipes. Move-only; the destructor
/// SIGKILLs a child that has not been reaped, waits for it and closes the pipes.
///
/// Thread-safety: two sides, each driven by one thread at a time. The output side
/// (readStdoutLines, drainOutput, takeStdout, stderrText, stderrTail, the fd accessors) and the
/// process side (tryWait, waitExit, stop, kill, exitStatus) touch disjoint state, so a reader
/// thread may stream stdout while a supervising thread waits or stops. pid(), program() and
/// signal() may be called from any thread; signal() goes through a pidfd, so it can never hit
/// a recycled pid. Nothing may run concurrently with a move or the destructor.
class ChildProcess {
 public:
  /// stderr keeps this many of its most recent bytes (whole lines): enough for the lines that
  /// explain a death, bounded for a worker that warns once a second for hours.
  static constexpr std::size_t kStderrKeepBytes = std::size_t{64} * 1024;

  /// Starts `program` (a path; not searched in $PATH) with `arguments` after argv[0]. Throws
  /// std::runtime_error naming the program and the failing step (pipe, fork, affinity, exec).
  ChildProcess(const std::filesystem::path& program, const std::vector<std::string>& arguments,
               const SpawnOptions& options = {});
  ~ChildProcess();
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] const std::filesystem::path& program() const noexcept { return program_; }

  // --- output side ---------------------------------------------------------------------

  /// Read ends of the pipes (non-blocking), -1 once closed, for callers that multiplex many
  /// children with poll/epoll: when one is readable, call readStdoutLines(0ms) or
  /// drainOutput(0ms), which read it without waiting. Still owned by this object.
  [[nodiscard]] int stdoutFd() const noexcept { return stdout_fd_; }
  [[nodiscard]] int stderrFd() const noexcept { return stderr_fd_; }
  [[nodiscard]] bool stdoutClosed() const noexcept { return stdout_fd_ < 0; }
  [[nodiscard]] bool outputClosed() const noexcept { return stdout_fd_ < 0 && stderr_fd_ < 0; }

  /// Returns the complete stdout lines (without '\n') available now or arriving within
  /// `timeout`: returns as soon as there is at least one, or when the timeout passes (empty),
  /// or when stdout closes (its last unterminated line, if any, is returned as a line). stderr
  /// is read on the way. A line is held until its newline arrives.
  std::vector<std::string> readStdoutLines(std::chrono::milliseconds timeout);

  /// Reads both pipes until both are closed (the child and anything that inherited them have
  /// exited or closed them) or `timeout` passes. Returns true when both are closed.
  bool drainOutput(std::chrono::milliseconds timeout);

  /// stdout not yet returned as lines, including a partial last line; clears it.
  std::string takeStdout();
  /// The last kStderrKeepBytes of stderr (cut at a line start when trimmed).
  [[nodiscard]] const std::string& stderrText() const noexcept { return stderr_; }
  /// The last `max_lines` non-empty stderr lines, oldest first.
  [[nodiscard]] std::vector<std::string> stderrTail(std::size_t max_lines) const;

  // --- process side --------------------------------------------------------------------

  /// Reaps the child if it has exited; never blocks.
  std::optional<ExitStatus> tryWait();
  /// Waits up to `timeout` for the child to exit and reaps it; nullopt if still running.
  std::optional<ExitStatus> waitExit(std::chrono::milliseconds timeout);
  /// The status once reaped.
  [[nodiscard]] std::optional<ExitStatus> exitStatus() const noexcept { return status_; }
  /// SIGTERM, then SIGKILL if it has not exited after `grace`; waits and reaps. Returns how it
  /// ended (possibly on its own before the signal).
  ExitStatus stop(std::chrono::milliseconds grace);
  /// SIGKILL (unless already reaped), wait, reap.
  ExitStatus kill();

  /// Sends `signal_number`; false if the child is gone (exited, reaped) or the signal failed.
  /// Callers that wait for the exit next may ignore the result.
  // NOLINTNEXTLINE(modernize-use-nodiscard): sent for its effect; the result is advisory
  bool signal(int signal_number) const noexcept;

 private:
  /// One poll over the open pipes until something arrives or `deadline`; reads what came.
  void pollOnce(std::chrono::steady_clock::time_point deadline);
  void readFrom(int& fd, bool is_stdout);
  void appendStderr(const char* data, std::size_t size);
  ExitStatus waitBlocking();
  void release() noexcept;

  std::filesystem::path program_;
  pid_t pid_ = -1;
  int pidfd_ = -1;  ///< -1 where the kernel has no pidfd_open; then kill() by pid until reaped
  std::optional<ExitStatus> status_;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string stdout_pending_;
  std::string stderr_;
};

/// What a finished child printed and how it ended.
struct CompletedProcess {
  ExitStatus status;
  bool timed_out = false;  ///< killed with SIGKILL after the timeout
  std::string stdout_text;
  std::string stderr_text;  ///< its last ChildProcess::kStderrKeepBytes
};

/// Runs `program` to completion, capturing its output. A child still running (or still
/// holding its pipes open) at `timeout` is killed and reported with timed_out. Throws like
/// the ChildProcess constructor when it cannot start.
CompletedProcess runToCompletion(const std::filesystem::path& program,
                                 const std::vector<std::string>& arguments,
                                 std::chrono::milliseconds timeout,
                                 const SpawnOptions& options = {});

/// The second half of runToCompletion, for a caller that needs the child between its start and
/// its end (e.g. to signal it): reads its output until it exits or `timeout` passes (then kills
/// it). Uses both sides of `child`, so no other thread may use it meanwhile.
CompletedProcess waitForCompletion(ChildProcess& child, std::chrono::milliseconds timeout);

}  // namespace benchd::common
