// The server over TLS (ServerOptions::tls) on loopback: a verifying client (curl) gets every
// answer, keep-alive included; the error answers that close their connection end with
// close_notify; event streams flow over TLS and end with close_notify; the handshake counts
// against the header
// deadline; plain HTTP to the TLS port is refused without harm; files that cannot serve are
// refused by name.
#include "command_runner.hpp"
#include "http_test_support.hpp"
#include "temp_dir.hpp"
#include "tls_client.hpp"

#include <benchd/http/event_stream.hpp>
#include <benchd/http/server.hpp>
#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::http {
namespace {

using benchd::testing::CommandResult;
using benchd::testing::runCommand;
using benchd::testing::TempDir;
using namespace testing;
namespace fs = std::filesystem;

tls::IdentityFiles identityIn(const fs::path& folder, const std::string& name) {
  tls::IdentityRequest request;
  request.common_name = name;
  request.addresses = {"127.0.0.1"};
  return tls::writeIdentity(tls::makeSelfSignedIdentity(request), folder);
}

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override { files_ = identityIn(dir_.path(), "benchd http tls test"); }

  void start(ServerOptions options = {}) {
    options.tls = TlsFiles{files_.certificate, files_.private_key};
    Router router;
    router.add("GET", "/hello", [](const Request&) { return Response::text(200, "hello"); });
    router.add("POST", "/echo",
               [](const Request& request) { return Response::text(200, request.body); });
    router.add("GET", "/events", [this](const Request&) {
      return Response::eventStream({[this](EventSink sink) {
                                      const std::lock_guard lock(mutex_);
                                      sinks_.push_back(std::move(sink));
                                    },
                                    [](StreamEnd) {}});
    });
    server_ = std::make_unique<HttpServer>(std::move(router), options);
  }

  [[nodiscard]] std::string url(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(server_->port()) + path;
  }

  /// curl verifying the server against the test's certificate.
  [[nodiscard]] CommandResult curl(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), {"-sS", "--cacert", files_.certificate.string()});
    return runCommand("/usr/bin/curl", arguments, std::chrono::seconds(30));
  }

  std::size_t sinkCount() {
    const std::lock_guard lock(mutex_);
    return sinks_.size();
  }
  EventSink sink(std::size_t index) {
    const std::lock_guard lock(mutex_);
    return sinks_.at(index);
  }

  TempDir dir_;
  tls::IdentityFiles files_;
  std::unique_ptr<HttpServer> server_;
  std::mutex mutex_;
  std::vector<EventSink> sinks_;
};

TEST_F(TlsServerTest, AVerifyingClientGetsItsAnswersOnOneKeptAliveConnection) {
  start();
  // One curl, two URLs: the second reuses the first's connection (num_connects 0).
  const auto answered =
      curl({"-w", " %{http_code} %{num_connects}\\n", url("/hello"), url("/hello")});
  ASSERT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_EQ(answered.out, "hello 200 1\nhello 200 0\n");
  const auto posted =
      curl({"--data-binary", "a body over TLS", "-H", "Content-Type: text/plain", url("/echo")});
  EXPECT_EQ(posted.out, "a body over TLS") << posted.err;
  EXPECT_EQ(server_->stats().requests, 3U);
}

TEST_F(TlsServerTest, AClientThatOffersH2IsAnsweredInHttp11) {
  start();
  const auto answered =
      curl({"--http2", "-o", "/dev/null", "-w", "%{http_version}", url("/hello")});
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_EQ(answered.out, "1.1");
}

TEST_F(TlsServerTest, AnAnswerThatClosesItsConnectionEndsWithCloseNotify) {
  ServerOptions options;
  options.max_body_bytes = 1024;
  start(options);
  TlsClient client(server_->port());
  ASSERT_TRUE(client.handshake()) << client.error();
  EXPECT_FALSE(client.peerFingerprint().empty());
  ASSERT_TRUE(
      client.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n"
                  "Content-Type: text/plain\r\n\r\n"));
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 413U) << *response;
  EXPECT_EQ(client.readToEnd(), TlsClient::End::kCloseNotify) << client.error();

  TlsClient closing(server_->port());
  ASSERT_TRUE(closing.handshake()) << closing.error();
  ASSERT_TRUE(closing.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  const auto hello = closing.readResponse();
  ASSERT_TRUE(hello);
  EXPECT_EQ(statusOf(*hello), 200U);
  EXPECT_EQ(closing.readToEnd(), TlsClient::End::kCloseNotify) << closing.error();
}

TEST_F(TlsServerTest, EventsFlowOverTlsAndTheStopEndsTheStream) {
  start();
  TlsClient client(server_->port());
  ASSERT_TRUE(client.handshake()) << client.error();
  ASSERT_TRUE(client.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(waitFor([&] { return sinkCount() == 1; }));
  ASSERT_TRUE(sink(0).push({"e1", "second", "{\"n\":1}", std::nullopt}));
  EXPECT_TRUE(client.readUntil([](const std::string& text) {
    return text.find("id: e1\nevent: second\ndata: {\"n\":1}\n\n") != std::string::npos;
  })) << client.received();
  server_->stop();
  client.readToEnd();
  EXPECT_NE(client.received().find("0\r\n\r\n"), std::string::npos)
      << "the stream's last chunk: " << client.received();
}

TEST_F(TlsServerTest, AStreamTheApplicationEndsIsFollowedByCloseNotify) {
  start();
  TlsClient client(server_->port());
  ASSERT_TRUE(client.handshake()) << client.error();
  ASSERT_TRUE(client.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_TRUE(waitFor([&] { return sinkCount() == 1; }));
  sink(0).close();
  EXPECT_EQ(client.readToEnd(), TlsClient::End::kCloseNotify) << client.error();
  EXPECT_NE(client.received().find("0\r\n\r\n"), std::string::npos) << client.received();
}

TEST_F(TlsServerTest, ATrickledHandshakeIsCutOffByTheHeaderTimeout) {
  ServerOptions options;
  options.header_timeout = std::chrono::milliseconds(300);
  start(options);
  RawClient raw(server_->port());
  // The first bytes of a TLS record holding a ClientHello, and nothing more.
  ASSERT_TRUE(raw.send(std::string("\x16\x03\x01\x00\xc8\x01", 6)));
  EXPECT_TRUE(raw.waitClosed(std::chrono::seconds(5)))
      << "a handshake that never ends kept its connection";
  TlsClient client(server_->port());
  EXPECT_TRUE(client.handshake()) << client.error();
}

TEST_F(TlsServerTest, PlainHttpToTheTlsPortGetsNoAnswerAndTheServerGoesOn) {
  start();
  RawClient raw(server_->port());
  ASSERT_TRUE(raw.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  EXPECT_TRUE(raw.waitClosed(std::chrono::seconds(5)));
  EXPECT_EQ(raw.received().find("HTTP/1.1"), std::string::npos)
      << "answered in clear: " << raw.received();
  const auto answered = curl({url("/hello")});
  EXPECT_EQ(answered.out, "hello") << answered.err;
  EXPECT_TRUE(waitFor([&] { return server_->stats().open_connections == 0; }));
}

TEST(TlsServerFiles, FilesThatCannotServeAreRefusedByName) {
  TempDir dir;
  const auto files = identityIn(dir.path(), "first");
  TempDir other_dir;
  const auto other = identityIn(other_dir.path(), "second");
  const auto refusal = [](const TlsFiles& tls) -> std::string {
    ServerOptions options;
    options.tls = tls;
    try {
      HttpServer server(Router{}, options);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "accepted";
  };
  const fs::path missing = dir.path() / "missing.pem";
  EXPECT_NE(refusal(TlsFiles{missing, files.private_key}).find("certificate " + missing.string()),
            std::string::npos);
  EXPECT_NE(refusal(TlsFiles{files.certificate, missing}).find("key " + missing.string()),
            std::string::npos);
  const std::string mismatch = refusal(TlsFiles{files.certificate, other.private_key});
  EXPECT_NE(mismatch.find("is not the key of the certificate " + files.certificate.string()),
            std::string::npos)
      << mismatch;
}

}  // namespace
}  // namespace benchd::http
