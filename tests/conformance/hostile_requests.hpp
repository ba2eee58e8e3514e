#pragma once
// A seeded corpus of hostile HTTP requests and a way to send one and read the first answer's
// status. The same seed gives the same corpus on every machine, so the plugins' answers can be
// compared request by request, and a failure names the request that caused it.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace benchd::testing {

struct HostileRequest {
  std::string kind;   ///< the family it comes from, e.g. "bad-chunk-size"
  std::string bytes;  ///< what is written to a fresh connection
  /// Shut the sending side after the bytes, so a server waiting for more sees the end at once
  /// instead of waiting for a timeout.
  bool half_close = true;
};

/// `count` requests drawn from every family in turn, each varied by a generator seeded with
/// `seed`. Every request targets `/<plugin>/...` or `/health` of the given plugin.
std::vector<HostileRequest> hostileCorpus(const std::string& plugin, std::uint64_t seed,
                                          std::size_t count);

/// What came back on a fresh connection: the status of the first response, 0 when the server
/// closed without answering, -1 when nothing came within the timeout.
int firstStatus(std::uint16_t port, const HostileRequest& request,
                std::chrono::milliseconds timeout);

/// firstStatus for every request, `parallel` connections at a time; results in corpus order.
std::vector<int> firstStatuses(std::uint16_t port, const std::vector<HostileRequest>& corpus,
                               std::chrono::milliseconds timeout, unsigned parallel);

/// The bytes shown in a failure message: printable ASCII kept, the rest escaped, cut at 160.
std::string printable(const std::string& bytes);

}  // namespace benchd::testing
