#include "cluster_options_check.hpp"
#include "cluster_settings.hpp"
#include "server_account.hpp"
#include "text_tail.hpp"

#include <benchd/common/child_process.hpp>
#include <benchd/postgres/cluster_error.hpp>
#include <benchd/postgres/conninfo.hpp>
#include <benchd/postgres/private_cluster.hpp>

#include <unistd.h>

#include <cerrno>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace benchd::postgres {

namespace fs = std::filesystem;

struct PrivateCluster::State {
  ClusterOptions options;  ///< normalised and checked
  ServerAccount account;
  bool running = true;
};

namespace {

/// Lines quoted from a failed command's stderr and from the server's log.
constexpr std::size_t kQuotedLines = 8;
/// Beyond pg_ctl's own -t wait, so that pg_ctl's message ("server did not start in time")
/// arrives before benchd kills it.
constexpr std::chrono::seconds kPgCtlMargin{10};

fs::path dataDirectoryOf(const ClusterOptions& options) {
  return options.folder / "data";
}

fs::path logFileOf(const ClusterOptions& options) {
  return options.folder / "postgresql.log";
}

std::string indented(const std::string& heading, const std::vector<std::string>& lines) {
  std::string text;
  if (lines.empty())
    return text;
  text += "\n  " + heading;
  for (const std::string& line : lines)
    text.append("\n    ").append(line);
  return text;
}

/// "exit code 1", then what the command wrote: its stderr's last lines, or its stdout's when
/// it wrote nothing to stderr (pg_ctl prints some failures there).
std::string outcomeOf(const common::CompletedProcess& done) {
  std::string text = done.timed_out ? std::string("did not finish in time and was killed")
                                    : done.status.describe();
  std::vector<std::string> said = lastLines(done.stderr_text, kQuotedLines);
  if (said.empty())
    said = lastLines(done.stdout_text, kQuotedLines);
  return text + indented("it said:", said);
}

std::string logTailOf(const ClusterOptions& options) {
  return indented("the end of " + logFileOf(options).string() + ":",
                  lastLinesOfFile(logFileOf(options), kQuotedLines));
}

void requireTool(ClusterStep step, const ClusterOptions& options, const fs::path& tool) {
  if (::access(tool.c_str(), X_OK) == 0)
    return;
  const std::error_code error(errno, std::generic_category());
  throw ClusterError(step, options.folder,
                     tool.string() + " is missing or not executable (" + error.message() +
                         "); set ClusterOptions::bin_dir to PostgreSQL 15's program folder "
                         "(the Debian package postgresql-15 installs /usr/lib/postgresql/15/bin)");
}

/// Runs one PostgreSQL program as the cluster's account in its folder and waits for it.
/// A program that cannot be started at all becomes a ClusterError of `step`.
common::CompletedProcess runTool(ClusterStep step, const ClusterOptions& options,
                                 const ServerAccount& account, const char* tool,
                                 const std::vector<std::string>& arguments,
                                 std::chrono::seconds timeout) {
  const CommandLine line = account.command(options.bin_dir / tool, arguments, options.folder);
  try {
    return common::runToCompletion(line.program, line.arguments, timeout);
  } catch (const std::runtime_error& error) {
    throw ClusterError(step, options.folder, error.what());
  }
}

std::vector<std::string> pgCtlStopArguments(const ClusterOptions& options, const char* mode) {
  return {"stop",
          "-D",
          dataDirectoryOf(options).string(),
          "-m",
          mode,
          "-w",
          "-t",
          std::to_string(options.step_timeout.count()),
          "-s"};
}

void initdb(const ClusterOptions& options, const ServerAccount& account) {
  const fs::path tool = options.bin_dir / "initdb";
  requireTool(ClusterStep::kInitdb, options, tool);
  // -E UTF8 with the C locale: text compares byte by byte, as in the core's SQLite database.
  const common::CompletedProcess done =
      runTool(ClusterStep::kInitdb, options, account, "initdb",
              {"-D", dataDirectoryOf(options).string(), "-U", PrivateCluster::kSuperuser, "-A",
               "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"},
              options.step_timeout);
  if (done.status.succeeded() && !done.timed_out)
    return;
  std::string detail = tool.string() + " as " + account.describe() + ": " + outcomeOf(done);
  if (const std::optional<fs::path> parent = account.unreachableParent(options.folder)) {
    detail += "\n  hint: " + account.describe() + " cannot enter " + parent->string() +
              "; every folder above the cluster's folder must be searchable by that user";
  }
  throw ClusterError(ClusterStep::kInitdb, options.folder, detail);
}

void configure(const ClusterOptions& options) {
  try {
    appendSettings(dataDirectoryOf(options) / "postgresql.conf", privateClusterSettings(options));
  } catch (const std::runtime_error& error) {
    throw ClusterError(ClusterStep::kConfigure, options.folder, error.what());
  }
}

void startServer(const ClusterOptions& options, const ServerAccount& account) {
  const fs::path tool = options.bin_dir / "pg_ctl";
  requireTool(ClusterStep::kStart, options, tool);
  const common::CompletedProcess done =
      runTool(ClusterStep::kStart, options, account, "pg_ctl",
              {"start", "-D", dataDirectoryOf(options).string(), "-l", logFileOf(options).string(),
               "-w", "-t", std::to_string(options.step_timeout.count()), "-s"},
              options.step_timeout + kPgCtlMargin);
  if (done.status.succeeded() && !done.timed_out)
    return;
  std::string detail = tool.string() + " start as " + account.describe() + ": " + outcomeOf(done) +
                       logTailOf(options);
  // A server that is still coming up (pg_ctl gave up waiting) would outlive the throw.
  std::error_code ignored;
  if (fs::exists(dataDirectoryOf(options) / "postmaster.pid", ignored)) {
    try {
      runTool(ClusterStep::kStart, options, account, "pg_ctl",
              pgCtlStopArguments(options, "immediate"), options.step_timeout + kPgCtlMargin);
    } catch (const ClusterError&) {
      // The start failure is the error to report.
    }
  }
  throw ClusterError(ClusterStep::kStart, options.folder, detail);
}

}  // namespace

PrivateCluster PrivateCluster::start(ClusterOptions options) {
  std::optional<ServerAccount> account;
  try {
    options = normalizedClusterOptions(std::move(options));
    checkClusterOptions(options);
    account = ServerAccount::forThisProcess(options.server_user);
    account->takeOwnership(options.folder);
  } catch (const std::exception& error) {  // invalid_argument, runtime_error
    throw ClusterError(ClusterStep::kSetup, options.folder, error.what());
  }
  initdb(options, *account);
  configure(options);
  startServer(options, *account);
  return PrivateCluster(std::make_unique<State>(State{std::move(options), *account, true}));
}

PrivateCluster::PrivateCluster(std::unique_ptr<State> state) : state_(std::move(state)) {}

PrivateCluster::~PrivateCluster() {
  try {
    stop();
  } catch (...) {
    // Destructors do not throw; stop() has already tried the immediate shutdown.
  }
}

PrivateCluster::PrivateCluster(PrivateCluster&& other) noexcept = default;

PrivateCluster& PrivateCluster::operator=(PrivateCluster&& other) noexcept {
  if (this != &other) {
    try {
      stop();
    } catch (...) {
      // As in the destructor: the cluster this object managed is given up either way.
    }
    state_ = std::move(other.state_);
  }
  return *this;
}

std::string PrivateCluster::connectionString(const std::string& database) const {
  return "host=" + conninfoValue(state_->options.folder.string()) +
         " port=" + std::to_string(state_->options.port) + " dbname=" + conninfoValue(database) +
         " user=" + conninfoValue(kSuperuser);
}

const fs::path& PrivateCluster::folder() const {
  return state_->options.folder;
}

fs::path PrivateCluster::dataDirectory() const {
  return dataDirectoryOf(state_->options);
}

fs::path PrivateCluster::logFile() const {
  return logFileOf(state_->options);
}

fs::path PrivateCluster::socketFile() const {
  return state_->options.folder / (".s.PGSQL." + std::to_string(state_->options.port));
}

bool PrivateCluster::running() const noexcept {
  return state_ != nullptr && state_->running;
}

void PrivateCluster::stop() {
  if (!running())
    return;
  state_->running = false;  // whatever happens below, this object's part is over
  const ClusterOptions& options = state_->options;
  const common::CompletedProcess fast =
      runTool(ClusterStep::kStop, options, state_->account, "pg_ctl",
              pgCtlStopArguments(options, "fast"), options.step_timeout + kPgCtlMargin);
  if (fast.status.succeeded() && !fast.timed_out)
    return;
  std::string detail =
      "pg_ctl stop -m fast as " + state_->account.describe() + ": " + outcomeOf(fast);
  try {
    const common::CompletedProcess immediate =
        runTool(ClusterStep::kStop, options, state_->account, "pg_ctl",
                pgCtlStopArguments(options, "immediate"), options.step_timeout + kPgCtlMargin);
    detail += "\n  then pg_ctl stop -m immediate: " + outcomeOf(immediate);
  } catch (const ClusterError& error) {
    detail += "\n  then pg_ctl stop -m immediate could not run: " + std::string(error.what());
  }
  throw ClusterError(ClusterStep::kStop, options.folder, detail + logTailOf(options));
}

void PrivateCluster::startAgain() {
  if (running())
    return;
  startServer(state_->options, state_->account);
  state_->running = true;
}

}  // namespace benchd::postgres
