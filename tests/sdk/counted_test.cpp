// sdk::Counted, the thread plugins' guard of requests_in_flight and connections_open: every
// way out of a handler takes its one off exactly once, so the counters stats() reports return
// to zero when the server is idle (CONTRACT.md section 9).
#include <benchd/sdk/counted.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace benchd::sdk {
namespace {

TEST(Counted, TakesItsOneOffOnceAtReleaseOrAtTheEndOfItsScope) {
  std::atomic<std::int64_t> in_flight{0};
  {
    Counted first(in_flight);
    Counted second(in_flight);
    EXPECT_EQ(in_flight.load(), 2);
    first.release();
    EXPECT_EQ(in_flight.load(), 1);
    first.release();  // the answer written, then the scope left: still one off in all
    EXPECT_EQ(in_flight.load(), 1);
  }
  EXPECT_EQ(in_flight.load(), 0);
}

TEST(Counted, AnExceptionLeavingTheHandlerLeavesNoCountBehind) {
  std::atomic<std::int64_t> in_flight{0};
  EXPECT_THROW(
      {
        const Counted guard(in_flight);
        throw std::runtime_error("the client left");
      },
      std::runtime_error);
  EXPECT_EQ(in_flight.load(), 0);
}

}  // namespace
}  // namespace benchd::sdk
