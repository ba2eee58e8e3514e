// benchd-worker under the tls profile: every approach plugin that serves it, serving HTTP/1.1
// over TLS with a certificate made by benchd's own TLS identity code, and curl as the client,
// verifying the certificate against that same file.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "temp_dir.hpp"
#include "worker_process.hpp"

#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

/// The approach plugins that list `tls`, among those this build has (fibers-asio is not built
/// under AddressSanitizer).
std::vector<std::string> tlsPlugins() {
  std::vector<std::string> plugins;
  for (const std::string name : {"callbacks-asio", "coroutines-asio", "fibers-asio", "threads-asio",
                                 "threads-poco", "libmicrohttpd", "h2o"}) {
    const auto& built = approachPlugins();
    if (std::find(built.begin(), built.end(), name) != built.end())
      plugins.push_back(name);
  }
  return plugins;
}

/// A fresh identity for 127.0.0.1 in `folder`.
tls::IdentityFiles loopbackIdentity(const fs::path& folder) {
  tls::IdentityRequest request;
  request.common_name = "benchd worker test";
  request.addresses = {"127.0.0.1"};
  return tls::writeIdentity(tls::makeSelfSignedIdentity(request), folder);
}

class WorkerTls : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    files_ = loopbackIdentity(dir_.path());
    worker_ = WorkerProcess::serve(
        GetParam(), {"--profile", "tls", "--tls-cert", files_.certificate.string(), "--tls-key",
                     files_.private_key.string()});
    ASSERT_TRUE(worker_->waitReady()) << worker_->stderrText();
  }

  /// https://127.0.0.1:PORT/PLUGIN/`endpoint` (`endpoint` with its query).
  [[nodiscard]] std::string url(const std::string& endpoint) const {
    std::string text = "https://127.0.0.1:";
    text += std::to_string(worker_->port());
    text += '/';
    if (endpoint != "health") {
      text += GetParam();
      text += '/';
    }
    text += endpoint;
    return text;
  }

  /// curl verifying the server against the identity's certificate; prints "BODY STATUS".
  [[nodiscard]] CommandResult curl(const std::string& target,
                                   std::vector<std::string> extra = {}) const {
    std::vector<std::string> arguments = {"-sS", "--cacert",      files_.certificate.string(),
                                          "-w",  " %{http_code}", url(target)};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return runCommand("/usr/bin/curl", arguments, std::chrono::seconds(30));
  }

  TempDir dir_;
  tls::IdentityFiles files_;
  std::unique_ptr<WorkerProcess> worker_;
};

TEST_P(WorkerTls, AVerifyingClientGetsEveryAnswerNestedCallsIncluded) {
  const auto health = curl("health");
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_EQ(health.out, R"({"status":"UP"} 200)");

  // Depth 2: the plugin calls itself twice, over TLS to its own port.
  const auto nested = curl("epoch-millis?delayCallDepth=2&delayInMillis=20");
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  ASSERT_GE(nested.out.size(), 4U);
  EXPECT_EQ(nested.out.substr(nested.out.size() - 4), " 200") << nested.out;
  const auto stats =
      worker_->waitStats([](const WorkerStats& s) { return s.counter("upstream_calls") >= 2; },
                         std::chrono::seconds(10));
  ASSERT_TRUE(stats) << "the nested calls were not counted";

  const auto movies = curl("movies?directorLastName=Allen&delayCallDepth=0&delayInMillis=0");
  EXPECT_EQ(movies.exit_code, 0) << movies.err;
  EXPECT_NE(movies.out.find(R"("title":"Annie Hall")"), std::string::npos) << movies.out;
  EXPECT_EQ(movies.out.substr(movies.out.size() - 4), " 200");
}

TEST_P(WorkerTls, NestedCallsGoThroughUnderACertificateNamedByDnsOverTls12) {
  // The identity `benchd run` gives its workers: a CN that names no host, then "localhost" and
  // 127.0.0.1 as subject names. A plugin's client must not refuse its own server's certificate
  // for its name, under TLS 1.2 (where a client checks the name after the server's last
  // flight) as under 1.3. OpenSSL's configuration caps the worker at TLS 1.2.
  TempDir dns_dir;
  tls::IdentityRequest request;
  request.common_name = "benchd run worker";
  request.addresses = {"127.0.0.1"};
  request.dns_names = {"localhost"};
  const tls::IdentityFiles dns_files =
      tls::writeIdentity(tls::makeSelfSignedIdentity(request), dns_dir.path());
  const fs::path openssl_conf = dns_dir.path() / "openssl.cnf";
  std::ofstream(openssl_conf) << "openssl_conf = init\n[init]\nssl_conf = ssl\n[ssl]\n"
                                 "system_default = tls12\n[tls12]\nMaxProtocol = TLSv1.2\n";
  ::setenv("OPENSSL_CONF", openssl_conf.c_str(), 1);  // the worker inherits it
  const auto worker = WorkerProcess::serve(
      GetParam(), {"--profile", "tls", "--tls-cert", dns_files.certificate.string(), "--tls-key",
                   dns_files.private_key.string()});
  ::unsetenv("OPENSSL_CONF");
  ASSERT_TRUE(worker->waitReady()) << worker->stderrText();
  const std::string target = "https://localhost:" + std::to_string(worker->port()) + "/" +
                             GetParam() + "/epoch-millis?delayCallDepth=2&delayInMillis=0";
  const auto tls13 = runCommand(
      "/usr/bin/curl", {"-sS", "--tlsv1.3", "--cacert", dns_files.certificate.string(), target},
      std::chrono::seconds(30));
  if (GetParam() != "libmicrohttpd") {  // MHD serves with GnuTLS, which the file leaves be
    EXPECT_NE(tls13.exit_code, 0) << "the worker was not capped at TLS 1.2: " << tls13.out;
  }
  const auto nested =
      runCommand("/usr/bin/curl",
                 {"-sS", "--cacert", dns_files.certificate.string(), "-w", " %{http_code}", target},
                 std::chrono::seconds(30));
  EXPECT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_TRUE(nested.out.ends_with(" 200")) << nested.out << "\n" << worker->stderrText();
}

TEST_P(WorkerTls, AlpnChoosesHttp11EvenWhenTheClientOffersH2) {
  // curl --http2 offers "h2" and "http/1.1"; the server speaks HTTP/1.1 only and must say so.
  const auto answered = curl("health", {"--http2", "-o", "/dev/null", "-w", "%{http_version}"});
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_EQ(answered.out, "1.1") << "the last -w wins: the HTTP version only";
}

TEST_P(WorkerTls, PlainHttpToTheTlsPortFailsAndTheServerGoesOn) {
  const auto plain = runCommand(
      "/usr/bin/curl",
      {"-sS", "-m", "5", "http://127.0.0.1:" + std::to_string(worker_->port()) + "/health"});
  EXPECT_NE(plain.exit_code, 0) << "plain HTTP was answered on the TLS port: " << plain.out;
  const auto health = curl("health");
  EXPECT_EQ(health.out, R"({"status":"UP"} 200)") << health.err;
}

TEST_P(WorkerTls, AClientThatLeavesEndsItsWait) {
  // The client gives up after 0.5 s of a 5 s delay; its close reaches the ClientWatch through
  // TLS, and the request leaves the in-flight count long before the delay is over.
  const auto started = std::chrono::steady_clock::now();
  const auto left = curl("epoch-millis?delayCallDepth=1&delayInMillis=5000", {"-m", "0.5"});
  EXPECT_NE(left.exit_code, 0);
  const auto quiet =
      worker_->waitStats([](const WorkerStats& s) { return s.counter("requests_in_flight") == 0; },
                         std::chrono::seconds(3));
  ASSERT_TRUE(quiet);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(4000));
}

TEST_P(WorkerTls, AGracefulStopDrains) {
  // A request in flight at the stop is answered, with close_notify after it.
  CommandResult delayed;
  std::thread client([&] { delayed = curl("epoch-millis?delayCallDepth=0&delayInMillis=500"); });
  ASSERT_TRUE(
      worker_->waitStats([](const WorkerStats& s) { return s.counter("requests_in_flight") == 1; },
                         std::chrono::seconds(5)));
  worker_->signal(SIGTERM);
  client.join();
  EXPECT_EQ(delayed.exit_code, 0) << delayed.err;
  ASSERT_GE(delayed.out.size(), 4U);
  EXPECT_EQ(delayed.out.substr(delayed.out.size() - 4), " 200") << delayed.out;
  EXPECT_EQ(worker_->waitExit(), 0) << worker_->stderrText();
}

INSTANTIATE_TEST_SUITE_P(TlsPlugins, WorkerTls, ::testing::ValuesIn(tlsPlugins()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return testNameOf(param.param);
                         });

/// Poco's HTTPClientSession (client-poco) makes the thread plugins' nested calls over TLS too:
/// threads-poco's native client, threads-asio's under the profile. A depth-2 call is answered;
/// a client that leaves during a depth-1 call's 5 s wait ends it at once, on the session's first
/// use, when TLS 1.3's session tickets make its socket readable before any answer comes.
TEST(WorkerTlsPocoClient, TheThreadPluginsCallThemselvesOverTlsWithIt) {
  const TempDir dir;
  const auto files = loopbackIdentity(dir.path());
  for (const std::string plugin : {"threads-asio", "threads-poco"}) {
    auto worker = WorkerProcess::serve(
        plugin, {"--profile", "tls", "--profile", "client-poco", "--tls-cert",
                 files.certificate.string(), "--tls-key", files.private_key.string()});
    ASSERT_TRUE(worker->waitReady()) << plugin << worker->stderrText();
    const std::string base = "https://127.0.0.1:" + std::to_string(worker->port()) + "/" + plugin;
    const auto curl = [&files](const std::string& url, const std::string& max_time) {
      return runCommand("/usr/bin/curl",
                        {"-sS", "--cacert", files.certificate.string(), "-m", max_time, "-w",
                         " %{http_code}", url},
                        std::chrono::seconds(30));
    };
    const auto nested = curl(base + "/epoch-millis?delayCallDepth=2&delayInMillis=20", "20");
    EXPECT_EQ(nested.exit_code, 0) << plugin << nested.err;
    ASSERT_GE(nested.out.size(), 4U) << plugin;
    EXPECT_EQ(nested.out.substr(nested.out.size() - 4), " 200") << plugin << nested.out;
    ASSERT_TRUE(
        worker->waitStats([](const WorkerStats& s) { return s.counter("upstream_calls") >= 2; },
                          std::chrono::seconds(10)))
        << plugin << ": the nested calls were not counted";

    // A fresh worker: its client has no pooled session, so the call below opens one.
    worker = WorkerProcess::serve(
        plugin, {"--profile", "tls", "--profile", "client-poco", "--tls-cert",
                 files.certificate.string(), "--tls-key", files.private_key.string()});
    ASSERT_TRUE(worker->waitReady()) << plugin << worker->stderrText();
    const std::string fresh = "https://127.0.0.1:" + std::to_string(worker->port()) + "/" + plugin;
    const auto started = std::chrono::steady_clock::now();
    const auto left = curl(fresh + "/epoch-millis?delayCallDepth=1&delayInMillis=5000", "0.5");
    EXPECT_NE(left.exit_code, 0) << plugin;
    EXPECT_TRUE(worker->waitStats(
        [](const WorkerStats& s) {
          return s.counter("upstream_calls") == 1 && s.counter("requests_in_flight") == 0;
        },
        std::chrono::seconds(3)))
        << plugin << ": the request and its nested call stayed in flight after the client left";
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(4000))
        << plugin;
  }
}

TEST(WorkerTlsPlugins, ThePluginsThatListTlsAreTheOnesTestedHere) {
  const std::vector<std::string> tested = tlsPlugins();
  for (const std::string& plugin : approachPlugins()) {
    WorkerProcess inspected({"--inspect", pluginPath(plugin)});
    ASSERT_EQ(inspected.waitExit(), 0) << inspected.stderrText();
    const auto lines = inspected.stdoutLines();
    ASSERT_FALSE(lines.empty());
    const bool lists_tls = lines.front().find(R"("tls")") != std::string::npos;
    const bool is_tested = std::find(tested.begin(), tested.end(), plugin) != tested.end();
    EXPECT_EQ(lists_tls, is_tested) << plugin << ": " << lines.front();
  }
}

TEST(WorkerTlsRefusal, AKeyThatIsNotTheCertificatesIsRefusedNamingIt) {
  const TempDir first;
  const TempDir second;
  const auto mine = loopbackIdentity(first.path());
  const auto other = loopbackIdentity(second.path());
  WorkerProcess worker({"--plugin", pluginPath("coroutines-asio"), "--port", "0", "--profile",
                        "tls", "--tls-cert", mine.certificate.string(), "--tls-key",
                        other.private_key.string()});
  EXPECT_EQ(worker.waitExit(std::chrono::seconds(20)), 2) << worker.stderrText();
  EXPECT_NE(worker.stderrText().find("cannot load the private key " + other.private_key.string() +
                                     ": key values mismatch"),
            std::string::npos)
      << worker.stderrText();

  WorkerProcess missing({"--plugin", pluginPath("coroutines-asio"), "--port", "0", "--profile",
                         "tls", "--tls-cert", (first.path() / "absent.pem").string(), "--tls-key",
                         mine.private_key.string()});
  EXPECT_EQ(missing.waitExit(std::chrono::seconds(20)), 2) << missing.stderrText();
  EXPECT_NE(missing.stderrText().find("cannot load the certificate"), std::string::npos)
      << missing.stderrText();
}

TEST(WorkerTlsRefusal, TlsWithTheCurlClientIsRefusedSayingWhy) {
  const TempDir dir;
  const auto files = loopbackIdentity(dir.path());
  for (const std::string plugin : {"coroutines-asio", "threads-asio", "threads-poco"}) {
    WorkerProcess worker({"--plugin", pluginPath(plugin), "--port", "0", "--profile", "tls",
                          "--profile", "client-curl", "--tls-cert", files.certificate.string(),
                          "--tls-key", files.private_key.string()});
    EXPECT_EQ(worker.waitExit(std::chrono::seconds(20)), 2) << plugin << worker.stderrText();
    EXPECT_NE(worker.stderrText().find("tls with client-curl is not implemented"),
              std::string::npos)
        << plugin << worker.stderrText();
  }
}

TEST(WorkerTlsRefusal, APluginThatDoesNotListTlsIsRefused) {
  const TempDir dir;
  const auto files = loopbackIdentity(dir.path());
  // Every approach plugin serves tls; this test plugin lists no profile but no-keep-alive.
  WorkerProcess worker({"--plugin", testPluginDir() + "/wrong-answers/wrong-answers.so", "--port",
                        "0", "--profile", "tls", "--tls-cert", files.certificate.string(),
                        "--tls-key", files.private_key.string()});
  EXPECT_EQ(worker.waitExit(std::chrono::seconds(20)), 3) << worker.stderrText();
  EXPECT_NE(worker.stderrText().find("plugin wrong-answers does not implement tls"),
            std::string::npos)
      << worker.stderrText();
}

}  // namespace
}  // namespace benchd::testing
