#include <benchd/common/child_process.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

// glibc 2.36's <sys/pidfd.h> lacks the extern "C" guards of its other headers, so in C++ its
// functions would be looked up under mangled names (undefined at link time).
extern "C" {
#include <sys/pidfd.h>
}

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>

extern char** environ;

namespace benchd::common {

namespace {

using Clock = std::chrono::steady_clock;

/// What the child writes to the report pipe when it cannot get to exec: the step and errno.
struct SpawnFailure {
  int step = 0;
  int error = 0;
};

enum SpawnStep : int {
  kStepStdio = 1,
  kStepParentGone = 2,
  kStepAffinity = 3,
  kStepExec = 4,
  kStepCgroup = 5,
};

const char* stepName(int step) {
  switch (step) {
    case kStepStdio:
      return "redirecting stdin/stdout/stderr";
    case kStepParentGone:
      return "the parent exited before the child started";
    case kStepAffinity:
      return "setting the CPU affinity";
    case kStepExec:
      return "exec";
    case kStepCgroup:
      return "joining the cgroup";
    default:
      return "starting";
  }
}

[[noreturn]] void failInChild(int report_fd, int step) noexcept {
  const SpawnFailure failure{step, errno};
  // Nothing to do if the parent cannot hear it: it then sees exit code 127 without a report.
  [[maybe_unused]] const ssize_t ignored = ::write(report_fd, &failure, sizeof(failure));
  ::_exit(127);
}

/// dup2 that also works when `from` already is `to` (then only close-on-exec is cleared).
bool moveTo(int from, int to) noexcept {
  if (from == to)
    return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

/// Runs in the forked child: only async-signal-safe calls, no allocation.
[[noreturn]] void execInChild(const char* program, char* const* argv, char* const* envp,
                              int stdin_fd, int stdout_fd, int stderr_fd, int report_fd,
                              const cpu_set_t* affinity, int death_signal, pid_t parent,
                              bool own_process_group, int cgroup_procs_fd) noexcept {
  if (!moveTo(stdin_fd, STDIN_FILENO) || !moveTo(stdout_fd, STDOUT_FILENO) ||
      !moveTo(stderr_fd, STDERR_FILENO)) {
    failInChild(report_fd, kStepStdio);
  }
  // Descriptors some library opened without O_CLOEXEC must not leak into the plugin host.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);

  // The parent may block signals (stop-signal handling threads) or ignore SIGPIPE; both would
  // be inherited through exec and change how the child reacts to SIGTERM or a closed pipe.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int number = 1; number < NSIG; ++number) {
    if (number != SIGKILL && number != SIGSTOP)
      sigaction(number, &defaults, nullptr);
  }

  if (death_signal != 0) {
    ::prctl(PR_SET_PDEATHSIG, death_signal);
    if (::getppid() != parent) {  // the parent died before prctl: no signal will ever come
      errno = 0;
      failInChild(report_fd, kStepParentGone);
    }
  }
  if (own_process_group) {
    ::setpgid(0, 0);  // cannot fail for a fresh child that is not a session leader
  }
  if (affinity != nullptr && ::sched_setaffinity(0, sizeof(cpu_set_t), affinity) != 0) {
    failInChild(report_fd, kStepAffinity);
  }
  // "0" is "the writing process" to cgroup.procs: everything the program allocates from its
  // first instruction on is charged to the group.
  if (cgroup_procs_fd >= 0 && ::write(cgroup_procs_fd, "0", 1) != 1) {
    failInChild(report_fd, kStepCgroup);
  }
  ::execve(program, argv, envp);
  failInChild(report_fd, kStepExec);
}

void closeFd(int& fd) noexcept {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

/// A pair of close-on-exec pipe ends, closed on scope exit unless released.
struct Pipe {
  std::array<int, 2> ends{-1, -1};
  Pipe() {
    if (::pipe2(ends.data(), O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    closeFd(ends[0]);
    closeFd(ends[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int releaseRead() noexcept { return std::exchange(ends[0], -1); }
};

std::vector<std::string> environmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(overrides.begin(), overrides.end(),
                                      [&](const auto& pair) { return pair.first == name; });
    if (!replaced)
      result.emplace_back(text);
  }
  for (const auto& [name, value] : overrides)
    result.emplace_back(name).append("=").append(value);
  return result;
}

std::vector<char*> pointersTo(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings)
    pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

int millisUntil(Clock::time_point deadline) {
  constexpr std::chrono::milliseconds kLongestPoll = std::chrono::hours(1);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  // Rounded up by one so a poll never returns a hair before the deadline and spins.
  return static_cast<int>(
      std::clamp<std::chrono::milliseconds::rep>(left.count() + 1, 0, kLongestPoll.count()));
}

Clock::time_point deadlineAfter(std::chrono::milliseconds timeout) {
  return Clock::now() + std::max(timeout, std::chrono::milliseconds(0));
}

}  // namespace

ExitStatus ExitStatus::fromWaitStatus(int wait_status) {
  ExitStatus status;
  if (WIFSIGNALED(wait_status)) {
    status.kind = Kind::kSignalled;
    status.signal_number = WTERMSIG(wait_status);
    status.core_dumped = WCOREDUMP(wait_status);
  } else {
    status.kind = Kind::kExited;
    status.exit_code = WEXITSTATUS(wait_status);
  }
  return status;
}

std::string ExitStatus::describe() const {
  if (exited())
    return "exit code " + std::to_string(exit_code);
  std::string text =
      "signal " + std::to_string(signal_number) + " (" + signalName(signal_number) + ")";
  if (core_dumped)
    text += ", core dumped";
  return text;
}

std::string describeExit(int wait_status) {
  return ExitStatus::fromWaitStatus(wait_status).describe();
}

std::string signalName(int signal_number) {
  if (signal_number >= SIGRTMIN && signal_number <= SIGRTMAX) {
    return signal_number == SIGRTMIN ? "SIGRTMIN"
                                     : "SIGRTMIN+" + std::to_string(signal_number - SIGRTMIN);
  }
  const char* abbreviation = ::sigabbrev_np(signal_number);
  if (abbreviation == nullptr)
    return "unknown signal";
  return std::string("SIG") + abbreviation;
}

ChildProcess::ChildProcess(const std::filesystem::path& program,
                           const std::vector<std::string>& arguments, const SpawnOptions& options)
    : program_(program) {
  // Everything the child needs is prepared here: after fork it may not allocate.
  std::vector<std::string> command;
  command.reserve(arguments.size() + 1);
  command.push_back(program.string());
  for (const std::string& argument : arguments)
    command.push_back(argument);
  std::vector<char*> argv = pointersTo(command);
  std::vector<std::string> environment = environmentWith(options.environment);
  std::vector<char*> envp = pointersTo(environment);

  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  for (const unsigned cpu : options.cpu_affinity) {
    if (cpu >= CPU_SETSIZE) {
      throw std::runtime_error("cannot start " + program.string() + ": CPU " + std::to_string(cpu) +
                               " is beyond the " + std::to_string(CPU_SETSIZE) +
                               " CPUs a cpu_set_t can name");
    }
    CPU_SET(cpu, &affinity);
  }

  // Owned by a Pipe-like guard so an exception from the pipes below cannot leak it.
  struct DevNull {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ~DevNull() { closeFd(fd); }
  } dev_null;
  const int stdin_fd = dev_null.fd;
  if (stdin_fd < 0)
    throw std::runtime_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
  Pipe out;
  Pipe err;
  Pipe report;
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    execInChild(command.front().c_str(), argv.data(), envp.data(), stdin_fd, out.ends[1],
                err.ends[1], report.ends[1], options.cpu_affinity.empty() ? nullptr : &affinity,
                options.parent_death_signal, parent, options.own_process_group,
                options.cgroup_procs_fd);
  }
  const int fork_error = errno;
  if (child < 0) {
    throw std::runtime_error("cannot start " + program.string() +
                             ": fork: " + std::strerror(fork_error));
  }
  pid_ = child;
  closeFd(out.ends[1]);
  closeFd(err.ends[1]);
  closeFd(report.ends[1]);

  // Blocks until exec closes the report pipe (success) or the child writes why it could not.
  SpawnFailure failure{};
  ssize_t got = 0;
  do {
    got = ::read(report.ends[0], &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    int ignored = 0;
    while (::waitpid(child, &ignored, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    std::string message = "cannot start " + program.string() + ": " + stepName(failure.step);
    if (failure.error != 0)
      message += std::string(": ") + std::strerror(failure.error);
    throw std::runtime_error(message);
  }

  stdout_fd_ = out.releaseRead();
  stderr_fd_ = err.releaseRead();
  ::fcntl(stdout_fd_, F_SETFL, O_NONBLOCK);
  ::fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
  // The child is ours and not yet reaped, so its pid cannot have been reused: the pidfd is
  // for this very process. Without pidfd support, signal() falls back to kill(pid).
  pidfd_ = ::pidfd_open(pid_, 0);
}

ChildProcess::~ChildProcess() {
  release();
}

void ChildProcess::release() noexcept {
  if (pid_ > 0 && !status_) {
    signal(SIGKILL);
    try {
      waitBlocking();
    } catch (...) {
      // Destructors do not throw; the only failure (SIGCHLD ignored) leaves nothing to reap.
    }
  }
  closeFd(stdout_fd_);
  closeFd(stderr_fd_);
  closeFd(pidfd_);
  pid_ = -1;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : program_(std::move(other.program_)),
      pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::exchange(other.pidfd_, -1)),
      status_(other.status_),
      stdout_fd_(std::exchange(other.stdout_fd_, -1)),
      stderr_fd_(std::exchange(other.stderr_fd_, -1)),
      stdout_pending_(std::move(other.stdout_pending_)),
      stderr_(std::move(other.stderr_)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    release();
    program_ = std::move(other.program_);
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::exchange(other.pidfd_, -1);
    status_ = other.status_;
    stdout_fd_ = std::exchange(other.stdout_fd_, -1);
    stderr_fd_ = std::exchange(other.stderr_fd_, -1);
    stdout_pending_ = std::move(other.stdout_pending_);
    stderr_ = std::move(other.stderr_);
  }
  return *this;
}

// --- output side ---------------------------------------------------------------------------

void ChildProcess::appendStderr(const char* data, std::size_t size) {
  stderr_.append(data, size);
  if (stderr_.size() > kStderrKeepBytes) {
    std::size_t cut = stderr_.size() - kStderrKeepBytes;
    const std::size_t line_start = stderr_.find('\n', cut);
    cut = line_start == std::string::npos ? cut : line_start + 1;
    stderr_.erase(0, cut);
  }
}

void ChildProcess::readFrom(int& fd, bool is_stdout) {
  std::array<char, std::size_t{16} * 1024> chunk{};
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got > 0) {
      const auto size = static_cast<std::size_t>(got);
      if (is_stdout)
        stdout_pending_.append(chunk.data(), size);
      else
        appendStderr(chunk.data(), size);
      continue;  // until EAGAIN or end of file, so a finished child's EOF is seen at once
    }
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    closeFd(fd);  // end of file, or an error that will not go away
    return;
  }
}

void ChildProcess::pollOnce(Clock::time_point deadline) {
  std::array<pollfd, 2> fds{{{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}}};
  const int ready = ::poll(fds.data(), fds.size(), millisUntil(deadline));
  if (ready <= 0)
    return;  // timeout, or EINTR: the caller's loop checks its deadline
  if (stdout_fd_ >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
    readFrom(stdout_fd_, true);
  if (stderr_fd_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
    readFrom(stderr_fd_, false);
}

std::vector<std::string> ChildProcess::readStdoutLines(std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  for (;;) {
    // Whatever is already in the pipe counts as "available now", even with a zero timeout.
    if (stdout_fd_ >= 0)
      readFrom(stdout_fd_, true);
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end = stdout_pending_.find('\n'); end != std::string::npos;
         end = stdout_pending_.find('\n', start)) {
      lines.push_back(stdout_pending_.substr(start, end - start));
      start = end + 1;
    }
    stdout_pending_.erase(0, start);
    if (!lines.empty())
      return lines;
    if (stdout_fd_ < 0) {
      if (!stdout_pending_.empty())
        lines.push_back(std::exchange(stdout_pending_, {}));
      return lines;
    }
    if (Clock::now() >= deadline)
      return lines;
    pollOnce(deadline);
  }
}

bool ChildProcess::drainOutput(std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  for (;;) {
    if (stdout_fd_ >= 0)
      readFrom(stdout_fd_, true);
    if (stderr_fd_ >= 0)
      readFrom(stderr_fd_, false);
    if (outputClosed())
      return true;
    if (Clock::now() >= deadline)
      return false;
    pollOnce(deadline);
  }
}

std::string ChildProcess::takeStdout() {
  return std::exchange(stdout_pending_, {});
}

std::vector<std::string> ChildProcess::stderrTail(std::size_t max_lines) const {
  std::vector<std::string> lines;
  std::size_t end = stderr_.size();
  while (end > 0 && lines.size() < max_lines) {
    const std::size_t newline = stderr_.rfind('\n', end - 1);
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    if (end > start)
      lines.push_back(stderr_.substr(start, end - start));
    end = newline == std::string::npos ? 0 : newline;
  }
  std::reverse(lines.begin(), lines.end());
  return lines;
}

// --- process side --------------------------------------------------------------------------

std::optional<ExitStatus> ChildProcess::tryWait() {
  if (status_ || pid_ <= 0)
    return status_;
  int wait_status = 0;
  pid_t reaped = 0;
  do {
    reaped = ::waitpid(pid_, &wait_status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped < 0) {
    throw std::runtime_error("waitpid for " + program_.string() + " (pid " + std::to_string(pid_) +
                             "): " + std::strerror(errno) +
                             " (is SIGCHLD ignored in this process?)");
  }
  if (reaped == pid_ && (WIFEXITED(wait_status) || WIFSIGNALED(wait_status)))
    status_ = ExitStatus::fromWaitStatus(wait_status);
  return status_;
}

std::optional<ExitStatus> ChildProcess::waitExit(std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  for (;;) {
    if (tryWait())
      return status_;
    if (Clock::now() >= deadline)
      return std::nullopt;
    if (pidfd_ >= 0) {
      pollfd exited{pidfd_, POLLIN, 0};  // readable once the process has terminated
      ::poll(&exited, 1, millisUntil(deadline));
    } else {
      std::this_thread::sleep_for(
          std::min(std::chrono::milliseconds(10),
                   std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())));
    }
  }
}

ExitStatus ChildProcess::waitBlocking() {
  for (;;) {
    // An hour per round only bounds each poll; SIGKILLed processes are reaped in milliseconds.
    if (const auto status = waitExit(std::chrono::hours(1)))
      return *status;
  }
}

ExitStatus ChildProcess::stop(std::chrono::milliseconds grace) {
  if (tryWait())
    return *status_;
  signal(SIGTERM);
  if (const auto status = waitExit(grace))
    return *status;
  return kill();
}

ExitStatus ChildProcess::kill() {
  if (tryWait())
    return *status_;
  signal(SIGKILL);
  return waitBlocking();
}

bool ChildProcess::signal(int signal_number) const noexcept {
  if (pid_ <= 0)
    return false;
  if (pidfd_ >= 0)
    return ::pidfd_send_signal(pidfd_, signal_number, nullptr, 0) == 0;
  if (status_)
    return false;  // reaped: the pid may belong to someone else by now
  return ::kill(pid_, signal_number) == 0;
}

// --- run to completion ---------------------------------------------------------------------

CompletedProcess runToCompletion(const std::filesystem::path& program,
                                 const std::vector<std::string>& arguments,
                                 std::chrono::milliseconds timeout, const SpawnOptions& options) {
  ChildProcess child(program, arguments, options);
  return waitForCompletion(child, timeout);
}

CompletedProcess waitForCompletion(ChildProcess& child, std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  CompletedProcess result;
  std::optional<ExitStatus> status;
  if (child.drainOutput(timeout)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    status = child.waitExit(std::max(left, std::chrono::milliseconds(0)));
  }
  if (!status) {
    result.timed_out = true;
    status = child.kill();
    child.drainOutput(std::chrono::milliseconds(0));  // what it wrote before it was killed
  }
  result.status = *status;
  result.stdout_text = child.takeStdout();
  result.stderr_text = child.stderrText();
  return result;
}

}  // namespace benchd::common
