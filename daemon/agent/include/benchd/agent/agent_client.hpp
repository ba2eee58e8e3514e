#pragma once

#include <benchd/agent/known_agents.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace benchd::agent {

/// Why a call to an agent failed. what() names the agent, its URL and what to do.
class AgentError : public std::runtime_error {
 public:
  enum class Kind {
    kUnreachable,          ///< no connection, no TLS handshake, or no answer in time
    kCertificateMismatch,  ///< the agent showed another certificate than the pinned one
    kRefusedToken,         ///< the agent answered 401
  };
  AgentError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  [[nodiscard]] Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

/// An agent's answer: its status and body (any status but 401, which is an AgentError).
struct AgentReply {
  unsigned status = 0;
  std::string body;
};

/// What a client needs to reach one agent: a known agent and its token.
struct AgentEndpoint {
  KnownAgent agent;
  std::string token;
};

/// A client of one agent's API over TLS, on one kept-alive connection. The agent's certificate
/// is checked against the pinned fingerprint right after each handshake, before any byte of a
/// request (and so the token) is written; no CA is consulted. Every call has a deadline. Not
/// thread-safe: one caller at a time.
class AgentClient {
 public:
  /// `deadline` bounds each step of a call: connecting with its handshake, and the request
  /// with its answer (a call that connects, or retries, may take two or four times as long).
  explicit AgentClient(AgentEndpoint endpoint,
                       std::chrono::milliseconds deadline = std::chrono::seconds(5));
  ~AgentClient();
  AgentClient(const AgentClient&) = delete;
  AgentClient& operator=(const AgentClient&) = delete;

  /// One request with the token (a body is sent as application/json). Connects when there is
  /// no open connection; a kept-alive connection that turns out closed is replaced once, for a
  /// GET, HEAD or DELETE (a POST is never sent twice).
  /// Throws AgentError.
  AgentReply call(const std::string& method, const std::string& target,
                  const std::string& body = {});

  /// Connects to `agent` (its pinned fingerprint ignored), completes the TLS handshake and
  /// returns the fingerprint of the certificate it showed; sends nothing, no token. For trust on
  /// first use: a person compares it with what the agent printed. Throws AgentError
  /// (kUnreachable).
  [[nodiscard]] static std::string certificateOf(const KnownAgent& agent,
                                                 std::chrono::milliseconds deadline);

  [[nodiscard]] const KnownAgent& agent() const noexcept { return endpoint_.agent; }
  /// Connections made so far (a kept-alive connection counts once).
  [[nodiscard]] std::size_t connectionsMade() const noexcept { return connections_made_; }

 private:
  struct Connection;
  /// A connection with its handshake done and nothing sent; its certificate's fingerprint.
  static std::unique_ptr<Connection> open(const KnownAgent& agent,
                                          std::chrono::milliseconds deadline,
                                          std::string& fingerprint);
  void connect();

  AgentEndpoint endpoint_;
  std::chrono::milliseconds deadline_;
  std::unique_ptr<Connection> connection_;
  std::size_t connections_made_ = 0;
};

}  // namespace benchd::agent
