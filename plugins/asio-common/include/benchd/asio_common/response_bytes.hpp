#pragma once

#include <benchd/sdk/service_request.hpp>

#include <string>
#include <string_view>

namespace benchd::asio_common {

/// The complete HTTP/1.1 response for a reply, head and body in one buffer, ready for a single
/// write. Written by hand rather than through Beast's serializer: the head has at most five
/// fixed fields, and one contiguous buffer is one send per response. `server` names the plugin
/// in the Server header.
std::string responseBytes(const sdk::Reply& reply, bool keep_alive, std::string_view server);

}  // namespace benchd::asio_common
