#include "serve_command.hpp"

#include "workload_source.hpp"

#include <benchd/agent/agent_routes.hpp>
#include <benchd/agent/agent_workers.hpp>
#include <benchd/common/epoch_time.hpp>
#include <benchd/common/usage_error.hpp>
#include <benchd/control/control_api.hpp>
#include <benchd/control/daemon_config.hpp>
#include <benchd/control/daemon_log.hpp>
#include <benchd/control/run_queue.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/server.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/store/result_store.hpp>
#include <benchd/tls/server_identity.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <iostream>
#include <optional>
#include <thread>

namespace benchd::cli {
namespace {

std::string serveUsage() {
  return "usage: benchd serve [--config FILE]\n"
         "\n"
         "Runs the benchd daemon: benchmarks run one at a time from a queue, driven through the\n"
         "REST API under /api/v1 (every endpoint but /api/v1/health needs\n"
         "'Authorization: Bearer <token>', the token being in the token file, made at first\n"
         "start). Prints 'benchd serve: listening on http://ADDRESS:PORT' when ready, or\n"
         "'https://ADDRESS:PORT (certificate sha256:FINGERPRINT, ...)' over TLS (tls = auto: any\n"
         "bind but loopback); SIGTERM or SIGINT stops the running benchmark cleanly and exits 0.\n"
         "\n"
         "  --config FILE   settings, 'key = value' lines (the file may be absent); keys and\n"
         "                  defaults:\n" +
         control::describeDaemonConfig() + "  --help          this text\n";
}

std::string hostName() {
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  return host.data();
}

/// The API's TLS identity: the configured files, else the one made at the first start in
/// state_dir/tls, naming this host, the bind address (unless it is a wildcard) and host_names.
http::TlsFiles serverTlsFiles(const control::DaemonConfig& config) {
  if (config.tls_cert)
    return {*config.tls_cert, *config.tls_key};
  const std::string host = hostName();
  tls::IdentityRequest request;
  request.common_name = "benchd " + host;
  request.dns_names = config.host_names;
  if (std::find(request.dns_names.begin(), request.dns_names.end(), host) ==
      request.dns_names.end())
    request.dns_names.push_back(host);
  if (config.bind != "0.0.0.0" && config.bind != "::")
    request.addresses = {config.bind};
  request.valid_days = 20 * 365;
  const tls::IdentityFiles files = tls::loadOrCreateIdentity(config.state_dir / "tls", request);
  return {files.certificate, files.private_key};
}

int serve(std::span<const std::string_view> arguments) {
  control::DaemonConfig config = control::defaultDaemonConfig();
  config.token_file = config.state_dir / "token";
  for (std::size_t index = 0; index < arguments.size(); ++index) {
    if (arguments[index] == "--config" && index + 1 < arguments.size()) {
      const std::filesystem::path file(arguments[++index]);
      config = std::filesystem::exists(file) ? control::loadDaemonConfig(file)
                                             : control::parseDaemonConfig("", file.string());
    } else {
      throw common::UsageError("unexpected argument '" + std::string(arguments[index]) + "'");
    }
  }
  const std::string token = control::loadOrCreateToken(config.token_file);

  // Stop signals are taken by sigwait below, never by a handler: blocked before any thread
  // starts, so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  store::ResultStore store(config.state_dir / "benchd.sqlite");
  if (const std::size_t interrupted = store.claimWriter(common::epochMillisNow());
      interrupted > 0) {
    control::logLine(
        control::LogLevel::kWarning,
        std::to_string(interrupted) +
            " run(s) ended with their process (an earlier daemon, or a benchd run on this "
            "store) before they finished; marked interrupted");
  }
  runner::RunEnvironment environment;
  environment.scenarios_dir =
      config.scenarios_dir ? *config.scenarios_dir : scenariosDirectory(std::nullopt);
  environment.plugin_folders = runner::pluginFolders(config.plugin_dirs);
  environment.worker = runner::workerPath();
  environment.report_tool = runner::reportPath();
  environment.output_dir = config.state_dir / "results";
  environment.uploaded_scenarios_dir = config.state_dir / "scenario-files";
  environment.database.url = config.postgres_url;
  environment.database.pool_size = config.db_pool;

  control::RunQueue::Options queue_options;
  queue_options.environment = environment;
  queue_options.max_queued = config.max_queued;
  control::RunQueue queue(queue_options, store);
  control::ControlApi api(queue, store, environment, BENCHD_VERSION);

  http::ServerOptions options;
  options.address = config.bind;
  options.port = config.port;
  options.max_body_bytes = config.max_body_bytes;
  options.streams.max_streams = config.max_streams;
  options.streams.max_queued_bytes = control::kEventStreamQueueBytes;
  options.policies = {http::hostCheckPolicy(config.host_names),
                      http::bearerTokenPolicy(token, "benchd")};
  options.on_handler_error = [](const http::Request& request, const std::string& what) {
    control::logLine(control::LogLevel::kError,
                     request.method + " " + request.path + " failed (500): " + what);
  };
  std::string certificate_note;
  if (config.servesTls()) {
    options.tls = serverTlsFiles(config);
    certificate_note = "certificate sha256:" +
                       tls::certificateFingerprint(tls::readPemFile(options.tls->certificate)) +
                       ", ";
  }
  http::Router router = api.router();
  agent::addAgentRoutes(
      router, {BENCHD_VERSION, hostName(), std::max(1U, std::thread::hardware_concurrency()),
               config.agent_roles});
  // Declared before the server, so its workers are stopped after the server's last handler.
  std::optional<agent::AgentWorkers> workers;
  if (std::find(config.agent_roles.begin(), config.agent_roles.end(), "server") !=
      config.agent_roles.end()) {
    workers.emplace(agent::AgentWorkers::Options{[&api] { return api.catalog(); },
                                                 environment.worker, config.bind});
    workers->addRoutes(router);
  }
  http::HttpServer server(std::move(router), options);
  const std::string url = std::string(options.tls ? "https://" : "http://") + config.bind + ":" +
                          std::to_string(server.port());
  std::cout << "benchd serve: listening on " << url << " (" << certificate_note << "token in "
            << config.token_file.string() << ", state in " << config.state_dir.string() << ")"
            << std::endl;

  control::logLine(control::LogLevel::kInfo,
                   "listening on " + url + ", state in " + config.state_dir.string());

  int signal_number = 0;
  ::sigwait(&stop_signals, &signal_number);
  control::logLine(control::LogLevel::kInfo,
                   "signal " + std::to_string(signal_number) + ", stopping the running run");
  queue.shutdown();
  server.stop();
  return 0;
}

}  // namespace

Subcommand serveSubcommand() {
  return {"serve", "run the daemon with its REST control API", serveUsage(), serve};
}

}  // namespace benchd::cli
