// Throughput of MovieService::moviesByDirector when every call is a cache hit, on 1 and 2
// threads. A hit shares no written memory between threads, so the 2-thread rate should be
// close to twice the 1-thread rate on 2 idle cores, or at least as close as the machine lets
// purely thread-private work get: BM_ThreadPrivateBaseline does work of the same shape (clock
// read, map lookup, shared_ptr copy) on thread-local data only, and its 2/1 ratio is the
// ceiling to compare with (see cache-scaling.sh).

#include <benchd/microservice/movie_service.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace {

using benchd::microservice::MovieService;
using benchd::microservice::ServiceProfile;

constexpr std::array<std::string_view, 3> kDirectors = {"Allen", "Hitchcock", "Kubrick"};

/// Shared by every benchmark thread, like the worker's single service instance.
MovieService& movieService() {
  static MovieService service{ServiceProfile{}};
  return service;
}

/// libstdc++ skips the atomic instructions of shared_ptr reference counting until the process
/// starts its first thread. The worker is always multi-threaded, so make every run, including
/// the 1-thread ones, pay for atomic reference counts like the worker does.
void becomeMultiThreaded() {
  std::thread([] {}).join();
}

void warmUpCache() {
  for (const std::string_view director : kDirectors) {
    benchmark::DoNotOptimize(movieService().moviesByDirector(director));
  }
}

void BM_MoviesByDirectorCacheHit(benchmark::State& state) {
  MovieService& service = movieService();
  std::size_t next_director = static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) {
    auto answer = service.moviesByDirector(kDirectors[next_director % kDirectors.size()]);
    benchmark::DoNotOptimize(answer);
    ++next_director;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_MoviesByDirectorCacheHit)->Threads(1)->Threads(2)->UseRealTime();

void BM_ThreadPrivateBaseline(benchmark::State& state) {
  std::unordered_map<std::string_view, std::shared_ptr<const std::string>> answers;
  for (const std::string_view director : kDirectors) {
    answers.emplace(director, std::make_shared<const std::string>(1500, ' '));
  }
  std::size_t next_director = static_cast<std::size_t>(state.thread_index());
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::chrono::steady_clock::now());
    auto answer = answers.find(kDirectors[next_director % kDirectors.size()])->second;
    benchmark::DoNotOptimize(answer);
    ++next_director;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_ThreadPrivateBaseline)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  becomeMultiThreaded();
  warmUpCache();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
