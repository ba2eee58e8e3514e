// Writes daemon/conformance/data/hostile-requests.txt: the planned corpus
// (hostile_corpus_plan.hpp) with the first answers the contract allows each request, as every
// approach plugin of this build gives them. Run by hand after the generator or the plugins changed
// what they answer:
//
//   build/ci/tests/conformance/benchd_hostile_corpus_writer
//   daemon/conformance/data/hostile-requests.txt
//
// A request is incomplete when its bytes hold no end of a header section (no empty line, by
// CRLF or by bare LF), or when no plugin answers it while the client keeps its side open (its
// body is short): the client ended it before it was whole. The contract allows "400 or closed"
// for it (CONTRACT.md section 7, "An incomplete request"), however early a plugin can tell the
// bytes are malformed, and the file says so. Any other request allows the one answer every
// in-tree plugin gives; a request the plugins answer differently, or leave unanswered, is left
// out and reported.
#include "approach_plugins.hpp"
#include "hostile_corpus_plan.hpp"
#include "worker_process.hpp"

#include <benchd/conformance/first_answer.hpp>
#include <benchd/conformance/http_client.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace {

using benchd::conformance::ClientEnding;
using benchd::conformance::HostileCase;

/// How long a client with its side open waits before it takes the request to be incomplete:
/// well within the header deadline (BENCHD_HEADER_DEADLINE_MILLIS), after which a plugin would
/// close, and well beyond what a complete request of the corpus takes to answer.
constexpr std::chrono::seconds kIncompleteAfter{3};

struct Answers {
  std::vector<int> first;    ///< with the corpus's own ending
  std::vector<bool> waited;  ///< no answer while the client kept its side open
};

Answers answersOf(const std::string& plugin, const std::vector<HostileCase>& corpus) {
  auto worker = benchd::testing::WorkerProcess::serve(plugin);
  Answers answers{std::vector<int>(corpus.size()), std::vector<bool>(corpus.size())};
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 16; ++thread) {
    threads.emplace_back([&] {
      for (std::size_t index = next++; index < corpus.size(); index = next++) {
        const HostileCase& hostile = corpus[index];
        const std::string bytes = hostile.bytesFor(plugin);
        answers.first[index] = benchd::conformance::firstStatus(
            worker->port(), bytes, hostile.ending, std::chrono::seconds(5));
        answers.waited[index] = hostile.ending == ClientEnding::kHalfClose &&
                                benchd::conformance::firstStatus(
                                    worker->port(), bytes, ClientEnding::kStayOpen,
                                    kIncompleteAfter) == benchd::conformance::kNoAnswerInTime;
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  return answers;
}

/// Whether `bytes` hold no end of a header section, read as leniently as any parser might.
bool lacksHeaderEnd(const std::string& bytes) {
  return bytes.find("\r\n\r\n") == std::string::npos && bytes.find("\n\n") == std::string::npos &&
         bytes.find("\n\r\n") == std::string::npos;
}

/// The answers the contract allows `hostile`, or none when the plugins disagree where they may
/// not.
std::vector<int> allowedAnswers(const std::map<std::string, Answers>& answers,
                                const HostileCase& hostile, std::size_t index) {
  bool waited = true;
  for (const auto& [plugin, each] : answers)
    waited = waited && each.waited[index];
  const bool incomplete = hostile.ending == ClientEnding::kHalfClose &&
                          (waited || lacksHeaderEnd(hostile.bytesFor("{a}")));
  if (incomplete) {
    const std::vector<int> allowed = {400, benchd::conformance::kClosedWithoutAnswer};
    for (const auto& [plugin, each] : answers) {
      if (std::find(allowed.begin(), allowed.end(), each.first[index]) == allowed.end())
        return {};
    }
    return allowed;
  }
  const int first = answers.begin()->second.first[index];
  for (const auto& [plugin, each] : answers) {
    if (first < 0 || each.first[index] != first)
      return {};
  }
  return {first};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: benchd_hostile_corpus_writer OUTPUT-FILE\n";
    return 2;
  }
  benchd::conformance::raiseOpenFileLimit();
  std::vector<HostileCase> corpus = benchd::testing::plannedHostileCorpus();
  std::map<std::string, Answers> answers;
  for (const std::string& plugin : benchd::testing::approachPlugins()) {
    std::cerr << "asking " << plugin << "\n";
    answers[plugin] = answersOf(plugin, corpus);
  }

  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << "# The hostile-request corpus of the plugin contract (CONTRACT.md section 7), read by\n"
         "# daemon/conformance/include/benchd/conformance/hostile_corpus.hpp, which describes the\n"
         "# format. Written by tests/conformance/hostile_corpus_writer.cpp: each request with the\n"
         "# first answer every in-tree approach plugin gives it. Do not edit by hand.\n";
  std::size_t left_out = 0;
  std::size_t incomplete = 0;
  for (std::size_t index = 0; index < corpus.size(); ++index) {
    corpus[index].allowed_answers = allowedAnswers(answers, corpus[index], index);
    if (corpus[index].allowed_answers.empty()) {
      ++left_out;
      std::cerr << "left out (" << corpus[index].family << "):";
      for (const auto& [plugin, each] : answers) {
        std::cerr << " " << plugin << "=" << each.first[index]
                  << (each.waited[index] ? " (waited with the side open)" : "");
      }
      std::cerr << "\n  " << benchd::conformance::printableBytes(corpus[index].bytesFor("{a}"))
                << "\n";
      continue;
    }
    if (corpus[index].allowed_answers.size() > 1)
      ++incomplete;
    out << benchd::conformance::formatHostileCase(corpus[index]) << "\n";
  }
  std::cerr << incomplete << " incomplete requests (400 or closed)\n";
  std::cerr << corpus.size() - left_out << " requests written to " << argv[1] << ", " << left_out
            << " left out\n";
  return out ? 0 : 1;
}
