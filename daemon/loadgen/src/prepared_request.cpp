#include "prepared_request.hpp"

#include <benchd/scenario/path_template.hpp>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace benchd::loadgen {
namespace {

namespace http = boost::beast::http;

std::string hostHeader(const RequestTarget& target) {
  const bool ipv6 = target.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + target.host + "]" : target.host) + ":" + std::to_string(target.port);
}

PreparedRequest prepare(const scenario::RequestTemplate& request_template,
                        const RequestTarget& target) {
  const std::string path =
      scenario::renderPath(request_template.path_template,
                           {target.approach, target.delay_call_depth, target.delay_millis});
  http::request<http::string_body> request;
  request.version(11);
  request.method_string(request_template.method);
  request.target(path);
  request.set(http::field::host, hostHeader(target));
  request.set(http::field::user_agent, "benchd-load");
  for (const scenario::HttpHeader& header : request_template.headers) {
    request.set(header.name, header.value);
  }
  request.body() = request_template.body;
  if (!request_template.body.empty()) {
    request.prepare_payload();
  }
  std::ostringstream bytes;
  bytes << request;
  const http::verb method = request.method();
  const bool idempotent = method == http::verb::get || method == http::verb::head ||
                          method == http::verb::options || method == http::verb::trace ||
                          method == http::verb::put || method == http::verb::delete_;
  PreparedRequest prepared{bytes.str(), method == http::verb::head, idempotent, {}, {}};
  prepared.h2_fields = {{":method", request_template.method},
                        {":scheme", target.tls ? "https" : "http"},
                        {":authority", hostHeader(target)},
                        {":path", path},
                        {"user-agent", "benchd-load"}};
  for (const scenario::HttpHeader& header : request_template.headers) {
    std::string name = header.name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name == "host" || name == "connection" || name == "keep-alive" ||
        name == "transfer-encoding" || name == "upgrade" || name == "proxy-connection" ||
        name == "content-length")
      continue;
    if (name == "user-agent") {
      prepared.h2_fields[4].second = header.value;  // as Beast's set() replaces it for HTTP/1.1
      continue;
    }
    prepared.h2_fields.emplace_back(std::move(name), header.value);
  }
  if (!request_template.body.empty())
    prepared.h2_fields.emplace_back("content-length", std::to_string(request_template.body.size()));
  prepared.body = request_template.body;
  return prepared;
}

}  // namespace

RequestMix::RequestMix(const std::vector<scenario::RequestTemplate>& templates,
                       const RequestTarget& target) {
  if (templates.empty()) {
    throw std::invalid_argument("a request mix needs at least one request");
  }
  double total_weight = 0.0;
  for (const scenario::RequestTemplate& request_template : templates) {
    total_weight += std::max(0.0, request_template.weight);
  }
  double running = 0.0;
  for (const scenario::RequestTemplate& request_template : templates) {
    requests_.push_back(prepare(request_template, target));
    running += std::max(0.0, request_template.weight);
    cumulative_share_.push_back(total_weight > 0.0 ? running / total_weight : 1.0);
  }
  cumulative_share_.back() = 1.0;
}

const PreparedRequest& RequestMix::pick(double uniform) const noexcept {
  if (requests_.size() == 1) {
    return requests_.front();
  }
  const auto found = std::upper_bound(cumulative_share_.begin(), cumulative_share_.end(), uniform);
  const auto index = static_cast<std::size_t>(std::min<std::ptrdiff_t>(
      found - cumulative_share_.begin(), static_cast<std::ptrdiff_t>(requests_.size()) - 1));
  return requests_[index];
}

}  // namespace benchd::loadgen
