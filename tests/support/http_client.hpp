#pragma once
// The tests' HTTP client is the conformance library's (benchd/conformance/http_client.hpp).

#include <benchd/conformance/http_client.hpp>

namespace benchd::testing {

using conformance::BatchResult;
using conformance::concurrentGets;
using conformance::HttpConnection;
using conformance::httpRequest;
using conformance::HttpResponse;
using conformance::raiseOpenFileLimit;

}  // namespace benchd::testing
