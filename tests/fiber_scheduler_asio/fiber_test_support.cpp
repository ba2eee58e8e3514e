#include "fiber_test_support.hpp"

#include <benchd/fiber_scheduler_asio/asio_scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>

#include <exception>
#include <thread>

namespace benchd::testing {

void runInFiberThread(boost::asio::io_context& io, FiberThreadMode mode,
                      const std::function<void()>& body) {
  std::exception_ptr failure;
  const auto guarded_body = [&] {
    try {
      body();
    } catch (...) {
      failure = std::current_exception();
    }
  };
  std::thread thread([&] {
    auto work = boost::asio::make_work_guard(io);
    if (mode == FiberThreadMode::kMainFiberWaits) {
      boost::fibers::use_scheduling_algorithm<fiber_scheduler_asio::AsioScheduler>(io);
      boost::fibers::fiber worker(guarded_body);
      worker.join();
      return;
    }
    // The fiber is made inside io_context::run, once runFibers installed the scheduler.
    boost::asio::post(io, [&] {
      boost::fibers::fiber([&] {
        guarded_body();
        io.stop();
      }).detach();
    });
    fiber_scheduler_asio::runFibers(io);
  });
  thread.join();
  if (failure)
    std::rethrow_exception(failure);
}

std::string fiberThreadModeName(const ::testing::TestParamInfo<FiberThreadMode>& info) {
  return info.param == FiberThreadMode::kMainFiberWaits ? "MainFiberWaits" : "MainFiberRunsIo";
}

void PrintTo(FiberThreadMode mode, std::ostream* out) {
  *out << (mode == FiberThreadMode::kMainFiberWaits ? "main fiber waits" : "main fiber runs io");
}

}  // namespace benchd::testing
