#pragma once
// The tests' raw loopback client is the conformance library's
// (benchd/conformance/loopback_socket.hpp).

#include <benchd/conformance/loopback_socket.hpp>

namespace benchd::testing {

using conformance::LoopbackSocket;

}  // namespace benchd::testing
