#include "checked_request.hpp"

#include <Poco/MemoryStream.h>

namespace benchd::threads_poco {

CheckedRequest::CheckedRequest(std::string_view head, BufferedServerSession& session,
                               Poco::Net::HTTPServerResponse& response,
                               const Poco::Net::HTTPServerParams& params,
                               const Poco::Net::SocketAddress& client,
                               const Poco::Net::SocketAddress& server)
    : session_(session), response_(response), params_(params), client_(client), server_(server) {
  // The check bounds the head's size, which bounds the number of fields.
  setFieldLimit(0);
  Poco::MemoryInputStream head_stream(head.data(), static_cast<std::streamsize>(head.size()));
  read(head_stream);
}

std::istream& CheckedRequest::stream() {
  if (!no_body_)
    no_body_ = std::make_unique<Poco::MemoryInputStream>(nullptr, 0);
  return *no_body_;
}

}  // namespace benchd::threads_poco
