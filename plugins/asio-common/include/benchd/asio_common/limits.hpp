#pragma once
// The limits the Asio plugins use, under the names they had before the limits moved to the
// SDK (benchd/sdk/limits.hpp, where each is defined once with its reason). Kept so code
// written against these names keeps compiling; new code should name the sdk:: constants.

#include <benchd/sdk/limits.hpp>

namespace benchd::asio_common {

using sdk::kAcceptBackoff;
using sdk::kConnectTimeout;
using sdk::kDiscardTimeout;
using sdk::kIoTimeout;
using sdk::kUpstreamPoolCapacity;

}  // namespace benchd::asio_common
