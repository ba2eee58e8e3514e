#pragma once
// What every libcurl client of the nested call shares (the `client-curl` profile): the
// library's setup, the request it sends, the bound on an answer, and its error texts.

#include <benchd/sdk/service_request.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <curl/curl.h>
#include <string>

namespace benchd::curl_support {

/// The profile that chooses libcurl as the nested call's client.
inline constexpr const char* kCurlClientProfile = "client-curl";

/// The most bytes of an answer a nested call keeps (the bound every client puts on it).
inline constexpr std::size_t kMaxAnswerBytes = sdk::kMaxUpstreamAnswerBytes;

/// Sets libcurl's global state up, once per process, before the first handle: thread-safe
/// from any thread (libcurl 7.84+ is, and a once-flag guards it besides). Never cleaned up:
/// plugins are never unloaded. Throws std::runtime_error when libcurl cannot start.
void initialiseCurlOnce();

/// "http://127.0.0.1:8080" or "http://[::1]:8080": where the server calls itself ("https://"
/// when `tls`).
[[nodiscard]] std::string baseUrlOf(const std::string& address, std::uint16_t port,
                                    bool tls = false);

/// Sets a nested call over TLS to the server's own port: TLS 1.2 at least, and no verification
/// of the certificate or its name (the call goes to this same server, as with the other
/// clients under `tls`).
void setTlsOptions(CURL* easy);

/// The header list of a nested call, as Beast's client sends it: Host is the server's own
/// loopback address, and none that libcurl adds by itself (Accept: */*). Owned by the caller
/// (curl_slist_free_all). Throws std::bad_alloc.
[[nodiscard]] curl_slist* nestedCallHeaders();

/// Sets the options every nested-call transfer of `easy` has whatever its target: HTTP/1.1
/// GET, no signals, TCP_NODELAY, `headers` (outlives the handle), answers kept in the string
/// `body` (a larger answer fails the transfer with CURLE_WRITE_ERROR and sets `too_large`),
/// and libcurl's own reuse limit of an idle connection at `idle_timeout` (in whole seconds,
/// rounded up; the clients sweep at their own resolution besides).
struct AnswerSink {
  std::string body;
  bool too_large = false;
};
void setNestedCallOptions(CURL* easy, curl_slist* headers, AnswerSink& sink,
                          std::chrono::milliseconds idle_timeout);

/// Sets the options of one call: the URL, the connect timeout (sdk::kConnectTimeout) and the
/// whole transfer's timeout `response_timeout` (libcurl counts it from the transfer's start,
/// the connect included; on loopback that is microseconds).
void setCallOptions(CURL* easy, const std::string& url, std::chrono::milliseconds response_timeout);

}  // namespace benchd::curl_support
