#pragma once

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>

namespace benchd::testing {

/// The two ways AsioScheduler lets a thread run (see asio_scheduler.hpp).
enum class FiberThreadMode {
  kMainFiberWaits,   ///< the main fiber joins; the dispatcher drives the io_context
  kMainFiberRunsIo,  ///< the main fiber runs the io_context (fiber_scheduler_asio::runFibers)
};

/// Runs `body` as a fiber on a new OS thread whose fibers are scheduled by AsioScheduler over
/// `io`, in `mode`, and returns when the fiber has finished; rethrows what `body` threw. The
/// thread keeps a work guard on `io` while the fiber runs.
void runInFiberThread(boost::asio::io_context& io, FiberThreadMode mode,
                      const std::function<void()>& body);

/// Names the mode in gtest's messages.
void PrintTo(FiberThreadMode mode, std::ostream* out);

/// For tests that run in both modes: TEST_P(FiberThreadTest, ...) with GetParam().
class FiberThreadTest : public ::testing::TestWithParam<FiberThreadMode> {};

/// The suffix of a test's name for its mode.
std::string fiberThreadModeName(const ::testing::TestParamInfo<FiberThreadMode>& info);

}  // namespace benchd::testing
