#include "engine_test_support.hpp"

#include "worker_process.hpp"

#include <unistd.h>

#include <memory>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>

namespace benchd::loadgen::testing {

std::uint16_t sharedWorkerPort() {
  static const std::unique_ptr<benchd::testing::WorkerProcess> worker =
      benchd::testing::WorkerProcess::serve("callbacks-asio", {"--threads", "2"});
  return worker->port();
}

std::uint16_t closedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

scenario::SubScenario subScenario(scenario::ExecutorKind executor, std::string path) {
  scenario::SubScenario sub;
  sub.name = "test";
  sub.executor = executor;
  sub.graceful_stop = std::chrono::seconds(5);
  sub.graceful_ramp_down = std::chrono::seconds(5);
  scenario::RequestTemplate request;
  request.method = "GET";
  request.path_template = std::move(path);
  sub.requests.push_back(request);
  return sub;
}

scenario::Workload workloadOf(std::vector<scenario::SubScenario> sub_scenarios,
                              scenario::RateCapSource cap) {
  scenario::Workload workload;
  workload.name = "test-workload";
  workload.global_rate_cap = cap;
  workload.sub_scenarios = std::move(sub_scenarios);
  return workload;
}

RequestTarget targetOf(std::uint32_t delay_millis, std::optional<std::uint16_t> port) {
  RequestTarget target;
  target.host = "127.0.0.1";
  target.port = port ? *port : sharedWorkerPort();
  target.approach = "callbacks-asio";
  target.delay_millis = delay_millis;
  return target;
}

EngineOptions testOptions(std::chrono::milliseconds request_timeout, unsigned threads) {
  EngineOptions options;
  options.threads = threads;
  options.request_timeout = request_timeout;
  options.connect_timeout = std::chrono::seconds(5);
  return options;
}

CapturedPhase runWorkload(const scenario::Workload& workload, std::uint32_t connections,
                          std::optional<std::uint32_t> rate, std::uint32_t seconds,
                          const RequestTarget& target, const EngineOptions& options) {
  const scenario::StagePlan plan =
      scenario::planStages(workload, {connections, rate, std::chrono::seconds(seconds)});
  LoadEngine engine(options);
  CapturedPhase captured;
  captured.result = engine.runPhase(plan, target, measurement::PhaseKind::kTest,
                                    [&captured](const measurement::LoadSnapshot& snapshot) {
                                      captured.snapshots.push_back(snapshot);
                                    });
  return captured;
}

measurement::LoadCounters sumOf(const std::vector<measurement::LoadSnapshot>& snapshots) {
  measurement::LoadCounters sum;
  for (const measurement::LoadSnapshot& snapshot : snapshots) {
    sum += snapshot.counters;
  }
  return sum;
}

}  // namespace benchd::loadgen::testing
