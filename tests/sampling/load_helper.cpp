// A process of a chosen shape for the ProcessSampler tests:
//   benchd_sampling_load_helper <extra threads> <extra fds>
// starts the threads (blocked, small stacks), opens the fds (/dev/null), then prints
// "ready <open fds>\n" on stdout, <open fds> being its exact descriptor count, and exits when
// its stdin reaches end of file. The tests spawn it with pipes on stdin and stdout.
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>

namespace {

void* blockForever(void* /*unused*/) {
  for (;;) {
    ::pause();
  }
  return nullptr;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "load_helper: %s\n", what.c_str());
  std::_Exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fail("usage: benchd_sampling_load_helper <threads> <fds>");
  }
  const long threads = std::strtol(argv[1], nullptr, 10);
  const long fds = std::strtol(argv[2], nullptr, 10);

  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
  for (long i = 0; i < fds; ++i) {
    if (::open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
      fail("open failed after " + std::to_string(i) + " fds");
    }
  }

  pthread_attr_t attributes;
  ::pthread_attr_init(&attributes);
  ::pthread_attr_setstacksize(&attributes, std::size_t{64} * 1024);
  for (long i = 0; i < threads; ++i) {
    pthread_t thread;
    if (::pthread_create(&thread, &attributes, blockForever, nullptr) != 0) {
      fail("pthread_create failed after " + std::to_string(i) + " threads");
    }
  }

  // Count the descriptors the way a reader of /proc would, less the listing's own.
  std::size_t open_fds = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++open_fds;
  }
  std::printf("ready %zu\n", open_fds - 1);
  std::fflush(stdout);

  char byte = 0;
  while (::read(STDIN_FILENO, &byte, 1) > 0) {
  }
  std::_Exit(0);  // without joining (or unwinding past) the blocked threads
}
