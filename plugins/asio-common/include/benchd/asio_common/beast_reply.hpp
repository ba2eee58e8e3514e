#pragma once

#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string_view>

namespace benchd::asio_common {

/// The HTTP/1.1 response for a reply; `server` names the plugin in the Server header.
boost::beast::http::response<boost::beast::http::string_body> beastResponse(sdk::Reply reply,
                                                                           bool keep_alive,
                                                                           std::string_view server);

}  // namespace benchd::asio_common
