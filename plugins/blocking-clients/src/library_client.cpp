#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/curl_support/blocking_curl_client.hpp>
#include <benchd/httplib_support/blocking_httplib_client.hpp>
#include <benchd/poco_client_support/poco_session_client.hpp>

#include <string>
#include <string_view>

namespace benchd::blocking_clients {

static_assert(std::string_view(kLibraryClientProfiles[0]) == curl_support::kCurlClientProfile);
static_assert(std::string_view(kLibraryClientProfiles[1]) ==
              httplib_support::kHttplibClientProfile);
static_assert(std::string_view(kLibraryClientProfiles[2]) ==
              poco_client_support::kPocoClientProfile);

std::unique_ptr<sdk::BlockingNestedClient> makeLibraryClient(
    const sdk::ServerSettings& settings, std::chrono::milliseconds response_margin,
    std::chrono::milliseconds idle_timeout, int stop_fd, SSL_CTX* tls_client) {
  if (tls_client != nullptr) {
    for (const char* plain_only :
         {curl_support::kCurlClientProfile, httplib_support::kHttplibClientProfile}) {
      if (settings.hasProfile(plain_only))
        throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                               std::string("tls with ") + plain_only +
                                   " is not implemented: the nested call's library client "
                                   "speaks plain HTTP (use client-poco or no client profile)");
    }
  }
  if (settings.hasProfile(curl_support::kCurlClientProfile)) {
    return std::make_unique<curl_support::BlockingCurlClient>(response_margin, idle_timeout,
                                                              stop_fd);
  }
  if (settings.hasProfile(httplib_support::kHttplibClientProfile)) {
    return std::make_unique<httplib_support::BlockingHttplibClient>(response_margin, idle_timeout,
                                                                    stop_fd);
  }
  if (settings.hasProfile(poco_client_support::kPocoClientProfile)) {
    return std::make_unique<poco_client_support::PocoSessionClient>(response_margin, idle_timeout,
                                                                    stop_fd, tls_client);
  }
  return nullptr;
}

}  // namespace benchd::blocking_clients
