// benchd-worker under the h2 and h2c profiles: every approach plugin that serves HTTP/2, with
// real HTTP/2 clients (curl, h2load from nghttp2-client) and, for what they cannot do (a stream
// reset on a connection that stays, broken frames), hand-made frames on a raw socket.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "loopback_socket.hpp"
#include "temp_dir.hpp"
#include "worker_process.hpp"

#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace benchd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

/// The approach plugins that list `h2` and `h2c`, among those this build has (fibers-asio is
/// not built under AddressSanitizer).
std::vector<std::string> http2Plugins() {
  std::vector<std::string> plugins;
  for (const std::string name : {"callbacks-asio", "coroutines-asio", "fibers-asio", "threads-asio",
                                 "threads-poco", "h2o"}) {
    const auto& built = approachPlugins();
    if (std::find(built.begin(), built.end(), name) != built.end())
      plugins.push_back(name);
  }
  return plugins;
}

struct Http2Case {
  std::string plugin;
  std::string profile;  ///< "h2" or "h2c"
};

std::vector<Http2Case> http2Cases() {
  std::vector<Http2Case> cases;
  for (const std::string& plugin : http2Plugins()) {
    cases.push_back({plugin, "h2"});
    cases.push_back({plugin, "h2c"});
  }
  return cases;
}

/// What h2load printed: its "requests:" counts and its wall time.
struct H2loadSummary {
  int total = -1;
  int succeeded = -1;
  int failed = -1;
  double seconds = -1;
};

std::optional<H2loadSummary> parseH2load(const std::string& out) {
  std::smatch counts;
  std::smatch finished;
  if (!std::regex_search(
          out, counts,
          std::regex(
              R"(requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed)")) ||
      !std::regex_search(out, finished, std::regex(R"(finished in ([0-9.]+)(ms|s|us),)")))
    return std::nullopt;
  H2loadSummary summary;
  summary.total = std::stoi(counts[1]);
  summary.succeeded = std::stoi(counts[2]);
  summary.failed = std::stoi(counts[3]);
  const double value = std::stod(finished[1]);
  const std::string unit = finished[2];
  summary.seconds = unit == "s" ? value : unit == "ms" ? value / 1e3 : value / 1e6;
  return summary;
}

/// One HTTP/2 frame (RFC 9113 section 4.1).
std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream_id,
                  const std::string& payload) {
  std::string bytes;
  const std::size_t size = payload.size();
  bytes += static_cast<char>((size >> 16) & 0xff);
  bytes += static_cast<char>((size >> 8) & 0xff);
  bytes += static_cast<char>(size & 0xff);
  bytes += static_cast<char>(type);
  bytes += static_cast<char>(flags);
  for (const int shift : {24, 16, 8, 0})
    bytes += static_cast<char>((stream_id >> shift) & 0xff);
  return bytes + payload;
}

constexpr std::uint8_t kHeadersFrame = 0x1;
constexpr std::uint8_t kRstStreamFrame = 0x3;
constexpr std::uint8_t kSettingsFrame = 0x4;
constexpr std::uint8_t kGoAwayFrame = 0x7;
constexpr std::uint8_t kEndStreamAndHeaders = 0x5;

/// A GET request's header block in HPACK without Huffman and without indexing: the static
/// table's :method GET (2) and :scheme http (6), then :path (4) and :authority (1) as literals.
std::string getHeaderBlock(const std::string& path) {
  std::string block = "\x82\x86";
  block += '\x04';
  block += static_cast<char>(path.size());  // below 127: one length byte, no Huffman
  block += path;
  block += "\x01\x09localhost";
  return block;
}

/// The frames a server sent, as (type, stream id) pairs, as far as they are whole.
std::vector<std::pair<std::uint8_t, std::uint32_t>> framesIn(const std::string& bytes) {
  std::vector<std::pair<std::uint8_t, std::uint32_t>> frames;
  std::size_t at = 0;
  const auto byte = [&bytes](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
  while (at + 9 <= bytes.size()) {
    const std::size_t size = (std::size_t{byte(at)} << 16) | (std::size_t{byte(at + 1)} << 8) |
                             std::size_t{byte(at + 2)};
    const std::uint32_t stream_id =
        ((std::uint32_t{byte(at + 5)} & 0x7f) << 24) | (std::uint32_t{byte(at + 6)} << 16) |
        (std::uint32_t{byte(at + 7)} << 8) | std::uint32_t{byte(at + 8)};
    if (at + 9 + size > bytes.size())
      break;
    frames.emplace_back(byte(at + 3), stream_id);
    at += 9 + size;
  }
  return frames;
}

bool hasFrame(const std::string& bytes, std::uint8_t type, std::uint32_t stream_id) {
  const auto frames = framesIn(bytes);
  return std::find(frames.begin(), frames.end(), std::make_pair(type, stream_id)) != frames.end();
}

class WorkerHttp2 : public ::testing::TestWithParam<Http2Case> {
 protected:
  void SetUp() override {
    std::vector<std::string> arguments = {"--threads", "1", "--profile", GetParam().profile};
    if (tls()) {
      tls::IdentityRequest request;
      request.common_name = "benchd worker h2 test";
      request.addresses = {"127.0.0.1"};
      files_ = tls::writeIdentity(tls::makeSelfSignedIdentity(request), dir_.path());
      arguments.insert(arguments.end(), {"--tls-cert", files_.certificate.string(), "--tls-key",
                                         files_.private_key.string()});
    }
    worker_ = WorkerProcess::serve(GetParam().plugin, arguments);
    ASSERT_TRUE(worker_->waitReady()) << worker_->stderrText();
  }

  [[nodiscard]] bool tls() const { return GetParam().profile == "h2"; }

  /// The URL of `endpoint` (with its query) on the worker.
  [[nodiscard]] std::string url(const std::string& endpoint) const {
    std::string text = tls() ? "https://127.0.0.1:" : "http://127.0.0.1:";
    text += std::to_string(worker_->port());
    text += '/';
    if (endpoint != "health") {
      text += GetParam().plugin;
      text += '/';
    }
    return text + endpoint;
  }

  /// curl speaking HTTP/2 (ALPN under h2, verifying the certificate; prior knowledge under
  /// h2c); prints "BODY STATUS VERSION".
  [[nodiscard]] CommandResult curl(const std::string& target,
                                   std::vector<std::string> extra = {}) const {
    std::vector<std::string> arguments = {"-sS", "-w", " %{http_code} %{http_version}"};
    if (tls()) {
      arguments.insert(arguments.end(), {"--http2", "--cacert", files_.certificate.string()});
    } else {
      arguments.emplace_back("--http2-prior-knowledge");
    }
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    arguments.push_back(url(target));
    return runCommand("/usr/bin/curl", arguments, seconds(30));
  }

  /// h2load: `requests` requests over `connections` connections of `streams` streams each.
  [[nodiscard]] CommandResult h2load(const std::string& target, int requests, int connections,
                                     int streams) const {
    return runCommand("/usr/bin/h2load",
                      {"-n", std::to_string(requests), "-c", std::to_string(connections), "-m",
                       std::to_string(streams), url(target)},
                      seconds(60));
  }

  TempDir dir_;
  tls::IdentityFiles files_;
  std::unique_ptr<WorkerProcess> worker_;
};

TEST_P(WorkerHttp2, EveryAnswerComesOverHttp2NestedCallsIncluded) {
  const auto health = curl("health");
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_EQ(health.out, R"({"status":"UP"} 200 2)");

  // Depth 2: the plugin calls itself twice, over HTTP/1.1 (TLS under h2) to its own port.
  const auto nested = curl("epoch-millis?delayCallDepth=2&delayInMillis=20");
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_TRUE(std::regex_match(nested.out, std::regex(R"(\d+ 200 2)"))) << nested.out;
  EXPECT_TRUE(worker_->waitStats(
      [](const WorkerStats& s) { return s.counter("upstream_calls") >= 2; }, seconds(10)))
      << "the nested calls were not counted";

  const auto movies = curl("movies?directorLastName=Allen&delayCallDepth=0&delayInMillis=0");
  EXPECT_EQ(movies.exit_code, 0) << movies.err;
  EXPECT_NE(movies.out.find(R"("title":"Annie Hall")"), std::string::npos) << movies.out;
  EXPECT_EQ(movies.out.substr(movies.out.size() - 6), " 200 2") << movies.out;

  const auto refused = curl("epoch-millis?delayCallDepth=x");
  EXPECT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_EQ(refused.out.substr(refused.out.size() - 6), " 400 2") << refused.out;
}

TEST_P(WorkerHttp2, OversizedRequestsAreRefusedAndTheServerGoesOn) {
  // A body one byte over BENCHD_MAX_REQUEST_BODY_BYTES (1 MiB) is answered 413.
  dir_.write("big-body.json", std::string(std::size_t{1024} * 1024 + 1, 'x'));
  const auto big_body =
      curl("movies", {"-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                      "@" + (dir_.path() / "big-body.json").string()});
  EXPECT_EQ(big_body.exit_code, 0) << big_body.err;
  ASSERT_GE(big_body.out.size(), 6U) << big_body.out;
  EXPECT_EQ(big_body.out.substr(big_body.out.size() - 6), " 413 2") << big_body.out;

  // Header fields over BENCHD_MAX_REQUEST_HEADER_BYTES (8 KiB) reset the stream: no answer.
  // h2o's HTTP/2 reads them (its stack-framing contract exception, CONTRACT.md section 1), so
  // for h2o only the server's going on is checked.
  const auto big_header = curl("health", {"-H", "X-Padding: " + std::string(9000, 'y')});
  if (GetParam().plugin != "h2o") {
    EXPECT_NE(big_header.exit_code, 0) << big_header.out;
    EXPECT_EQ(big_header.out.find(" 200 "), std::string::npos) << big_header.out;
  }

  const auto health = curl("health");
  EXPECT_EQ(health.out, R"({"status":"UP"} 200 2)") << health.err;
}

TEST_P(WorkerHttp2, AnHttp11ClientIsStillServedOnTheSamePort) {
  // h2c sniffs the preface; h2's ALPN falls back to HTTP/1.1 for a client that offers only it.
  std::vector<std::string> arguments = {"-sS", "--http1.1", "-w", " %{http_code} %{http_version}"};
  if (tls())
    arguments.insert(arguments.end(), {"--cacert", files_.certificate.string()});
  arguments.push_back(url("health"));
  const auto answered = runCommand("/usr/bin/curl", arguments, seconds(30));
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_EQ(answered.out, R"({"status":"UP"} 200 1.1)");
}

TEST_P(WorkerHttp2, ConcurrentStreamsOfOneConnectionWaitTogether) {
  // 50 streams of 200 ms on one connection: one after the other they would take 10 s; waiting
  // side by side they take about one delay. The bound is generous, far below the serial time.
  const auto run = h2load("epoch-millis?delayCallDepth=0&delayInMillis=200", 50, 1, 50);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto summary = parseH2load(run.out);
  ASSERT_TRUE(summary) << run.out;
  EXPECT_EQ(summary->succeeded, 50) << run.out;
  EXPECT_LT(summary->seconds, 5.0) << "the streams were served one at a time: " << run.out;
}

TEST_P(WorkerHttp2, ManyConnectionsOfManyStreamsAllSucceed) {
  const auto run = h2load("epoch-millis?delayCallDepth=1&delayInMillis=10", 2000, 4, 20);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto summary = parseH2load(run.out);
  ASSERT_TRUE(summary) << run.out;
  EXPECT_EQ(summary->succeeded, 2000) << run.out;
  EXPECT_EQ(summary->failed, 0) << run.out;
}

// Under a steady load (h2load's closed loop of 50 connections x 20 streams for 2 s) a writer
// never stops, so an answer that waited for it to stop was never done: every stream's answer,
// its coroutine or fiber, piled up for as long as the load went on (coroutines-asio reached
// 600 MiB over TLS). An answer is done once its reply is written; the worker's requests in
// flight stay within what the client can have open (1,000 streams, plus one written batch's
// worth counted just after the client saw it).
TEST_P(WorkerHttp2, UnderSteadyLoadTheAnswersInFlightStayWithinTheStreams) {
  constexpr std::int64_t kStreams = std::int64_t{50} * 20;
  CommandResult run;
  std::thread client([&] {
    run = runCommand(
        "/usr/bin/h2load",
        {"-D", "2", "-c", "50", "-m", "20", url("epoch-millis?delayCallDepth=0&delayInMillis=0")},
        seconds(60));
  });
  std::int64_t most_in_flight = 0;
  std::int64_t stats_seen = 0;
  (void)worker_->waitStats(
      [&](const WorkerStats& stats) {
        most_in_flight = std::max(most_in_flight, stats.counter("requests_in_flight"));
        ++stats_seen;
        return false;  // watch every line until the load ends
      },
      milliseconds(2500));
  client.join();
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto summary = parseH2load(run.out);
  ASSERT_TRUE(summary) << run.out;
  EXPECT_GT(summary->succeeded, 2 * kStreams) << run.out;
  EXPECT_EQ(summary->failed, 0) << run.out;
  EXPECT_GT(stats_seen, 10);
  EXPECT_LE(most_in_flight, 2 * kStreams)
      << "answers stayed in flight after their replies went out";
}

TEST_P(WorkerHttp2, AClientThatLeavesEndsItsWait) {
  const auto started = std::chrono::steady_clock::now();
  const auto left = curl("epoch-millis?delayCallDepth=1&delayInMillis=5000", {"-m", "0.5"});
  EXPECT_NE(left.exit_code, 0);
  EXPECT_TRUE(worker_->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 0; }, seconds(3)));
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(4000));
}

TEST_P(WorkerHttp2, AGracefulStopAnswersTheStreamsInFlight) {
  CommandResult run;
  std::thread client(
      [&] { run = h2load("epoch-millis?delayCallDepth=0&delayInMillis=700", 20, 1, 20); });
  ASSERT_TRUE(worker_->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 20; }, seconds(10)));
  worker_->signal(SIGTERM);
  client.join();
  const auto summary = parseH2load(run.out);
  ASSERT_TRUE(summary) << run.out << run.err;
  EXPECT_EQ(summary->succeeded, 20) << run.out;
  EXPECT_EQ(worker_->waitExit(), 0) << worker_->stderrText();
}

INSTANTIATE_TEST_SUITE_P(Http2Plugins, WorkerHttp2, ::testing::ValuesIn(http2Cases()),
                         [](const ::testing::TestParamInfo<Http2Case>& param) {
                           return testNameOf(param.param.plugin) + "_" + param.param.profile;
                         });

/// h2c on a raw socket, for what HTTP/2 clients do not do on purpose.
class WorkerH2cFrames : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    worker_ = WorkerProcess::serve(GetParam(), {"--threads", "1", "--profile", "h2c"});
    ASSERT_TRUE(worker_->waitReady()) << worker_->stderrText();
  }

  /// The client's preface and an empty SETTINGS.
  static std::string opening() {
    return std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + frame(kSettingsFrame, 0, 0, "");
  }

  std::unique_ptr<WorkerProcess> worker_;
};

TEST_P(WorkerH2cFrames, AResetStreamEndsItsWaitAndTheConnectionGoesOn) {
  LoopbackSocket socket(worker_->port());
  const std::string path = "/" + GetParam() + "/epoch-millis?delayCallDepth=0&delayInMillis=";
  ASSERT_TRUE(socket.send(
      opening() + frame(kHeadersFrame, kEndStreamAndHeaders, 1, getHeaderBlock(path + "10000"))));
  ASSERT_TRUE(worker_->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 1; }, seconds(5)));
  // RST_STREAM(CANCEL) for stream 1: its 10 s wait ends at once.
  ASSERT_TRUE(socket.send(frame(kRstStreamFrame, 0, 1, std::string("\0\0\0\x08", 4))));
  EXPECT_TRUE(worker_->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 0; }, seconds(3)));

  // The connection stays: stream 3 is answered on it.
  ASSERT_TRUE(
      socket.send(frame(kHeadersFrame, kEndStreamAndHeaders, 3, getHeaderBlock(path + "0"))));
  std::string received;
  socket.readUntil(
      received, [](const std::string& bytes) { return hasFrame(bytes, kHeadersFrame, 3); },
      std::chrono::steady_clock::now() + seconds(10));
  EXPECT_TRUE(hasFrame(received, kHeadersFrame, 3)) << "no reply on stream 3";
  EXPECT_FALSE(hasFrame(received, kHeadersFrame, 1)) << "the reset stream was answered";
}

TEST_P(WorkerH2cFrames, ABrokenFrameGetsAGoAwayAndTheServerGoesOn) {
  {
    LoopbackSocket socket(worker_->port());
    // DATA on stream 0 is a connection error (RFC 9113 section 6.1).
    ASSERT_TRUE(socket.send(opening() + frame(0x0, 0, 0, "junk")));
    std::string received;
    const auto end = socket.readToEnd(received, std::chrono::steady_clock::now() + seconds(10));
    EXPECT_NE(end, LoopbackSocket::ReadEnd::kTimeout);
    EXPECT_TRUE(hasFrame(received, kGoAwayFrame, 0)) << "no GOAWAY before the close";
  }
  const auto health =
      runCommand("/usr/bin/curl",
                 {"-sS", "--http2-prior-knowledge",
                  "http://127.0.0.1:" + std::to_string(worker_->port()) + "/health"},
                 seconds(30));
  EXPECT_EQ(health.out, R"({"status":"UP"})") << health.err;
}

INSTANTIATE_TEST_SUITE_P(Http2Plugins, WorkerH2cFrames, ::testing::ValuesIn(http2Plugins()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return testNameOf(param.param);
                         });

/// A thread plugin at its max_threads: 2 threads, one of them pumping the h2c connection, so
/// of 10 streams of 200 ms at once only one at a time gets a thread of its own and the others
/// run on the pump's thread, one after another. Every stream is still answered (no stream waits
/// for a thread that never comes), and they take longer than one delay (they did wait on each
/// other).
TEST(WorkerHttp2ThreadPlugins, AtMaxThreadsStreamsRunOnThePumpsThreadAndAreAllAnswered) {
  for (const std::string plugin : {"threads-asio", "threads-poco"}) {
    auto worker = WorkerProcess::serve(
        plugin, {"--profile", "h2c", "--threads", "1", "--option", "max_threads=2"});
    ASSERT_TRUE(worker->waitReady()) << plugin << worker->stderrText();
    const auto run = runCommand("/usr/bin/h2load",
                                {"-n", "10", "-c", "1", "-m", "10",
                                 "http://127.0.0.1:" + std::to_string(worker->port()) + "/" +
                                     plugin + "/epoch-millis?delayCallDepth=0&delayInMillis=200"},
                                seconds(60));
    ASSERT_EQ(run.exit_code, 0) << plugin << run.out << run.err;
    const auto summary = parseH2load(run.out);
    ASSERT_TRUE(summary) << plugin << run.out;
    EXPECT_EQ(summary->succeeded, 10) << plugin << run.out;
    EXPECT_EQ(summary->failed, 0) << plugin << run.out;
    EXPECT_GT(summary->seconds, 0.39)
        << plugin << ": 10 streams on 2 threads ran at once: " << run.out;
  }
}

TEST(WorkerHttp2Plugins, ThePluginsThatListH2AreTheOnesTestedHere) {
  const std::vector<std::string> tested = http2Plugins();
  for (const std::string& plugin : approachPlugins()) {
    WorkerProcess inspected({"--inspect", pluginPath(plugin)});
    ASSERT_EQ(inspected.waitExit(), 0) << inspected.stderrText();
    const auto lines = inspected.stdoutLines();
    ASSERT_FALSE(lines.empty());
    const bool lists_h2 = lines.front().find(R"("h2")") != std::string::npos;
    const bool lists_h2c = lines.front().find(R"("h2c")") != std::string::npos;
    const bool is_tested = std::find(tested.begin(), tested.end(), plugin) != tested.end();
    EXPECT_EQ(lists_h2, is_tested) << plugin << ": " << lines.front();
    EXPECT_EQ(lists_h2c, is_tested) << plugin << ": " << lines.front();
  }
}

TEST(WorkerHttp2Refusal, EachRefusalSaysWhy) {
  const TempDir dir;
  const auto expectRefusal = [](const std::vector<std::string>& arguments, int code,
                                const std::string& reason) {
    WorkerProcess worker(arguments);
    EXPECT_EQ(worker.waitExit(seconds(20)), code) << worker.stderrText();
    EXPECT_NE(worker.stderrText().find(reason), std::string::npos) << worker.stderrText();
  };
  const std::string plugin = pluginPath("coroutines-asio");
  expectRefusal({"--plugin", plugin, "--port", "0", "--profile", "h2"}, 2,
                "--profile h2 needs --tls-cert FILE and --tls-key FILE");
  for (const std::string& with : {plugin, pluginPath("threads-poco")}) {
    expectRefusal(
        {"--plugin", with, "--port", "0", "--profile", "h2c", "--profile", "no-keep-alive"}, 2,
        "no-keep-alive with h2 or h2c is not implemented");
  }
  // This test plugin lists no profile but no-keep-alive.
  expectRefusal({"--plugin", testPluginDir() + "/wrong-answers/wrong-answers.so", "--port", "0",
                 "--profile", "h2c"},
                3, "plugin wrong-answers does not implement h2c");
  expectRefusal({"--plugin", plugin, "--port", "0", "--profile", "h3"}, 2,
                "--profile: unknown profile 'h3'");
}

}  // namespace
}  // namespace benchd::testing
