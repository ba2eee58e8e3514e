#pragma once

#include <boost/asio/io_context.hpp>

#include <functional>

namespace benchd::testing {

/// Runs `body` as a fiber on a new OS thread whose fibers are scheduled by AsioScheduler over
/// `io`, and returns when the fiber has finished. The thread's main fiber keeps a work guard
/// on `io` while it waits.
void runInFiberThread(boost::asio::io_context& io, const std::function<void()>& body);

}  // namespace benchd::testing
