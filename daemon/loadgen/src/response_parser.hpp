#pragma once

#include <boost/beast/http/basic_parser.hpp>

#include <cstdint>

namespace benchd::loadgen {

/// An HTTP/1.1 response parser that keeps only the status and discards the body while counting
/// it, so reading a response never allocates. Beast's basic_parser does the framing
/// (Content-Length, chunked, read-until-close, keep-alive). One parser per response: construct
/// a fresh one (cheap) for the next.
class ResponseParser final : public boost::beast::http::basic_parser<false> {
 public:
  ResponseParser() {
    eager(true);
    body_limit(boost::none);
  }

  [[nodiscard]] unsigned status() const noexcept { return status_; }
  [[nodiscard]] std::uint64_t bodyBytes() const noexcept { return body_bytes_; }

 private:
  using error_code = boost::beast::error_code;
  using string_view = boost::beast::string_view;

  void on_request_impl(boost::beast::http::verb /*method*/, string_view /*method_str*/,
                       string_view /*target*/, int /*version*/, error_code& /*ec*/) override {}
  void on_response_impl(int code, string_view /*reason*/, int /*version*/,
                        error_code& /*ec*/) override {
    status_ = static_cast<unsigned>(code);
  }
  void on_field_impl(boost::beast::http::field /*name*/, string_view /*name_string*/,
                     string_view /*value*/, error_code& /*ec*/) override {}
  void on_header_impl(error_code& /*ec*/) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>& /*content_length*/,
                         error_code& /*ec*/) override {}
  std::size_t on_body_impl(string_view body, error_code& /*ec*/) override {
    body_bytes_ += body.size();
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t /*size*/, string_view /*extensions*/,
                            error_code& /*ec*/) override {}
  std::size_t on_chunk_body_impl(std::uint64_t /*remain*/, string_view body,
                                 error_code& /*ec*/) override {
    body_bytes_ += body.size();
    return body.size();
  }
  void on_finish_impl(error_code& /*ec*/) override {}

  unsigned status_ = 0;
  std::uint64_t body_bytes_ = 0;
};

}  // namespace benchd::loadgen
