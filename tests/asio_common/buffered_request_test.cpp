// parseBufferedRequest: a request that arrived whole is parsed without a read operation, what
// follows it stays buffered, and partial or malformed input is left to the read operations or
// refused with the parser's own error.
#include <benchd/asio_common/buffered_request.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace benchd::testing {
namespace {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio_common::BufferedRequest;
using asio_common::parseBufferedRequest;

beast::flat_buffer bufferWith(std::string_view bytes) {
  beast::flat_buffer buffer;
  const auto space = buffer.prepare(bytes.size());
  boost::asio::buffer_copy(space, boost::asio::buffer(bytes.data(), bytes.size()));
  buffer.commit(bytes.size());
  return buffer;
}

std::string unread(const beast::flat_buffer& buffer) {
  return beast::buffers_to_string(buffer.data());
}

TEST(BufferedRequest, AWholeRequestNeedsNoReadAndLeavesWhatFollows) {
  const std::string second = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
  auto buffer = bufferWith("GET /a HTTP/1.1\r\nHost: x\r\n\r\n" + second);
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kComplete);
  EXPECT_FALSE(error);
  EXPECT_EQ(parser.get().target(), "/a");
  EXPECT_EQ(unread(buffer), second);
}

TEST(BufferedRequest, AWholeBodyIsParsedToo) {
  auto buffer = bufferWith("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kComplete);
  EXPECT_EQ(parser.get().body(), "hello");
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(BufferedRequest, APartialHeaderIsLeftToTheHeaderRead) {
  auto buffer = bufferWith("GET /a HTTP/1.1\r\nHo");
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kNeedHeader);
  EXPECT_FALSE(error) << error.message();
  EXPECT_FALSE(parser.is_header_done());
}

TEST(BufferedRequest, APartialBodyIsLeftToTheBodyRead) {
  auto buffer = bufferWith("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhe");
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kNeedBody);
  EXPECT_FALSE(error) << error.message();
  EXPECT_TRUE(parser.is_header_done());
}

TEST(BufferedRequest, AnEmptyBufferNeedsTheHeader) {
  beast::flat_buffer buffer;
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kNeedHeader);
}

TEST(BufferedRequest, MalformedInputFailsWithTheParsersError) {
  auto buffer = bufferWith("GET /a HTTP/1.1\r\nContent-Length: x\r\n\r\n");
  http::request_parser<http::string_body> parser;
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kFailed);
  EXPECT_EQ(error, http::error::bad_content_length);
}

TEST(BufferedRequest, ABodyOverTheLimitFails) {
  auto buffer = bufferWith("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789");
  http::request_parser<http::string_body> parser;
  parser.body_limit(4);
  boost::system::error_code error;
  EXPECT_EQ(parseBufferedRequest(parser, buffer, error), BufferedRequest::kFailed);
  EXPECT_EQ(error, http::error::body_limit);
}

}  // namespace
}  // namespace benchd::testing
