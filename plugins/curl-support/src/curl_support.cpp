#include <benchd/curl_support/curl_support.hpp>
#include <benchd/sdk/limits.hpp>

#include <mutex>
#include <new>
#include <stdexcept>

namespace benchd::curl_support {

namespace {

std::size_t keepAnswer(char* bytes, std::size_t size, std::size_t count, void* data) {
  auto* sink = static_cast<AnswerSink*>(data);
  const std::size_t length = size * count;
  if (sink->body.size() + length > kMaxAnswerBytes) {
    sink->too_large = true;
    return 0;  // fails the transfer (CURLE_WRITE_ERROR)
  }
  sink->body.append(bytes, length);
  return length;
}

}  // namespace

void initialiseCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw std::runtime_error("curl_global_init failed");
    }
  });
}

std::string baseUrlOf(const std::string& address, std::uint16_t port, bool tls) {
  const bool v6 = address.find(':') != std::string::npos;
  return std::string(tls ? "https://" : "http://") + (v6 ? "[" + address + "]" : address) + ":" +
         std::to_string(port);
}

void setTlsOptions(CURL* easy) {
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
  curl_easy_setopt(easy, CURLOPT_SSLVERSION, static_cast<long>(CURL_SSLVERSION_TLSv1_2));
}

curl_slist* nestedCallHeaders() {
  curl_slist* headers = nullptr;
  for (const char* header : {"Host: 127.0.0.1", "Accept:"}) {
    curl_slist* grown = curl_slist_append(headers, header);
    if (grown == nullptr) {
      curl_slist_free_all(headers);
      throw std::bad_alloc();
    }
    headers = grown;
  }
  return headers;
}

void setNestedCallOptions(CURL* easy, curl_slist* headers, AnswerSink& sink,
                          std::chrono::milliseconds idle_timeout) {
  curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy, CURLOPT_MAXAGE_CONN,
                   static_cast<long>((idle_timeout.count() + 999) / 1000));
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &keepAnswer);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
}

void setCallOptions(CURL* easy, const std::string& url,
                    std::chrono::milliseconds response_timeout) {
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::chrono::milliseconds(sdk::kConnectTimeout).count()));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(response_timeout.count()));
}

}  // namespace benchd::curl_support
