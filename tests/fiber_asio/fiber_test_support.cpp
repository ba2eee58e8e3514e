#include "fiber_test_support.hpp"

#include <benchd/fiber_asio/asio_scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>

#include <exception>
#include <thread>

namespace benchd::testing {

void runInFiberThread(boost::asio::io_context& io, const std::function<void()>& body) {
  std::exception_ptr failure;
  std::thread thread([&] {
    boost::fibers::use_scheduling_algorithm<fiber_asio::AsioScheduler>(io);
    auto work = boost::asio::make_work_guard(io);
    boost::fibers::fiber worker([&] {
      try {
        body();
      } catch (...) {
        failure = std::current_exception();
      }
    });
    worker.join();
  });
  thread.join();
  if (failure)
    std::rethrow_exception(failure);
}

}  // namespace benchd::testing
