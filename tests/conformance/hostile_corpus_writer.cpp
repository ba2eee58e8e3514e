// Writes daemon/conformance/data/hostile-requests.txt: the planned corpus
// (hostile_corpus_plan.hpp) with the first answer every approach plugin of this build gives each
// request. Run by hand after the generator or the plugins changed what they answer:
//
//   build/ci/tests/conformance/benchd_hostile_corpus_writer
//   daemon/conformance/data/hostile-requests.txt
//
// A request the plugins answer differently, or that one of them leaves unanswered, is left out
// and reported: the file only holds answers every in-tree plugin agrees on.
#include "approach_plugins.hpp"
#include "hostile_corpus_plan.hpp"
#include "worker_process.hpp"

#include <benchd/conformance/first_answer.hpp>
#include <benchd/conformance/http_client.hpp>

#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace {

using benchd::conformance::HostileCase;

std::vector<int> answersOf(const std::string& plugin, const std::vector<HostileCase>& corpus) {
  auto worker = benchd::testing::WorkerProcess::serve(plugin);
  std::vector<int> statuses(corpus.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 16; ++thread) {
    threads.emplace_back([&] {
      for (std::size_t index = next++; index < corpus.size(); index = next++) {
        statuses[index] =
            benchd::conformance::firstStatus(worker->port(), corpus[index].bytesFor(plugin),
                                             corpus[index].ending, std::chrono::seconds(5));
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  return statuses;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: benchd_hostile_corpus_writer OUTPUT-FILE\n";
    return 2;
  }
  benchd::conformance::raiseOpenFileLimit();
  std::vector<HostileCase> corpus = benchd::testing::plannedHostileCorpus();
  std::map<std::string, std::vector<int>> answers;
  for (const std::string& plugin : benchd::testing::approachPlugins())
    answers[plugin] = answersOf(plugin, corpus);

  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << "# The hostile-request corpus of the plugin contract (CONTRACT.md section 7), read by\n"
         "# daemon/conformance/include/benchd/conformance/hostile_corpus.hpp, which describes the\n"
         "# format. Written by tests/conformance/hostile_corpus_writer.cpp: each request with the\n"
         "# first answer every in-tree approach plugin gives it. Do not edit by hand.\n";
  std::size_t left_out = 0;
  for (std::size_t index = 0; index < corpus.size(); ++index) {
    const int first = answers.begin()->second[index];
    bool agreed = first >= 0;
    for (const auto& [plugin, statuses] : answers)
      agreed = agreed && statuses[index] == first;
    if (!agreed) {
      ++left_out;
      std::cerr << "left out (" << corpus[index].family << "):";
      for (const auto& [plugin, statuses] : answers)
        std::cerr << " " << plugin << "=" << statuses[index];
      std::cerr << "\n  " << benchd::conformance::printableBytes(corpus[index].bytesFor("{a}"))
                << "\n";
      continue;
    }
    corpus[index].expected_status = first;
    out << benchd::conformance::formatHostileCase(corpus[index]) << "\n";
  }
  std::cerr << corpus.size() - left_out << " requests written to " << argv[1] << ", " << left_out
            << " left out\n";
  return out ? 0 : 1;
}
