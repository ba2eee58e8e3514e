#include "stop_on_signal.hpp"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <ctime>

namespace benchd::cli {
namespace {

sigset_t stopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

StopOnSignal::StopOnSignal(std::function<void()> on_stop) : on_stop_(std::move(on_stop)) {
  const sigset_t signals = stopSignals();
  ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  watcher_ = std::thread([this] { watch(); });
}

StopOnSignal::~StopOnSignal() {
  done_.store(true);
  watcher_.join();
  const sigset_t signals = stopSignals();
  ::pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
}

void StopOnSignal::watch() {
  const sigset_t signals = stopSignals();
  const timespec poll_period{0, 200'000'000};
  bool stopping = false;
  while (!done_.load()) {
    const int signal_number = ::sigtimedwait(&signals, nullptr, &poll_period);
    if (signal_number <= 0) {
      continue;
    }
    if (stopping) {
      ::_exit(128 + signal_number);
    }
    stopping = true;
    on_stop_();
  }
}

}  // namespace benchd::cli
