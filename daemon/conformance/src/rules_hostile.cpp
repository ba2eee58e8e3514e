// CONTRACT.md section 7: the hostile-request corpus (hostile_corpus.hpp). Every request gets one
// of the first answers recorded beside it, those the contract allows (one answer to one request,
// whatever the plugin; "400 or closed" where the client ended an incomplete request), and the
// whole corpus leaves the plugin serving, with nothing stuck and no descriptor kept.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

namespace benchd::conformance {
namespace {

constexpr std::chrono::seconds kAnswerTimeout{5};
/// A few mismatches say enough; the count says the rest.
constexpr std::size_t kShownMismatches = 5;

const std::vector<HostileCase>& corpusOf(const RuleContext& context) {
  const PluginUnderTest& plugin = context.plugin();
  require(!plugin.corpus.empty(),
          "no hostile-request corpus to send: " +
              (plugin.corpus_problem.empty() ? std::string("none given") : plugin.corpus_problem));
  return plugin.corpus;
}

/// firstStatus of every case, `parallel` connections at a time; in corpus order.
std::vector<int> firstStatuses(std::uint16_t port, const std::vector<HostileCase>& corpus,
                               const std::string& name, unsigned parallel) {
  std::vector<int> statuses(corpus.size(), kCouldNotConnect);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(parallel);
  for (unsigned thread = 0; thread < parallel; ++thread) {
    threads.emplace_back([&] {
      for (std::size_t index = next++; index < corpus.size(); index = next++) {
        statuses[index] =
            firstStatus(port, corpus[index].bytesFor(name), corpus[index].ending, kAnswerTimeout);
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  return statuses;
}

std::string statusText(int status) {
  const std::string_view word = firstStatusWord(status);
  return word.empty() ? std::to_string(status) : std::string(word);
}

std::string caseText(const HostileCase& hostile, const std::string& name) {
  return "line " + std::to_string(hostile.line) + " (" + hostile.family + ") '" +
         printableBytes(hostile.bytesFor(name), 120) + "'";
}

void everyRequestGetsItsFirstAnswer(RuleContext& context) {
  const std::vector<HostileCase>& corpus = corpusOf(context);
  raiseOpenFileLimit();
  auto worker = context.serve();
  const std::string& name = context.plugin().name;
  const std::vector<int> statuses = firstStatuses(worker->port(), corpus, name, 16);
  std::size_t mismatches = 0;
  std::string shown_mismatches;
  for (std::size_t index = 0; index < corpus.size(); ++index) {
    if (corpus[index].allows(statuses[index]))
      continue;
    if (++mismatches <= kShownMismatches) {
      shown_mismatches += "\n" + caseText(corpus[index], name) + ": expected " +
                          corpus[index].allowedText() + ", got " + statusText(statuses[index]);
    }
  }
  require(mismatches == 0, std::to_string(mismatches) + " of " + std::to_string(corpus.size()) +
                               " hostile requests got a first answer the contract does not "
                               "allow them:" +
                               shown_mismatches);
}

std::size_t openDescriptors(pid_t pid) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++count;
  }
  return count;
}

void corpusLeavesItServing(RuleContext& context) {
  const std::vector<HostileCase>& corpus = corpusOf(context);
  raiseOpenFileLimit();
  // Some corpus requests are valid nested calls ("007" is a depth the contract accepts), so the
  // worker opens connections to itself; a chain that completes before the plugin notices the
  // client left returns its connections to the pool, which holds them until they idle out. A
  // short idle limit empties the pool in time for the wait below.
  auto worker = context.serve({"--option", "upstream_idle_ms=500"});
  quietStats(*worker);
  const std::size_t descriptors_before = openDescriptors(worker->pid());
  const std::string& name = context.plugin().name;
  const std::vector<int> statuses = firstStatuses(worker->port(), corpus, name, 32);
  std::size_t stuck = 0;
  std::size_t server_errors = 0;
  std::string examples;
  for (std::size_t index = 0; index < statuses.size(); ++index) {
    const bool hung = statuses[index] == kNoAnswerInTime;
    const bool failed = statuses[index] >= 500;
    stuck += hung ? 1 : 0;
    server_errors += failed ? 1 : 0;
    if ((hung || failed) && stuck + server_errors <= kShownMismatches)
      examples += "\n" + caseText(corpus[index], name) + ": " + statusText(statuses[index]);
  }
  const std::string outcome = "of " + std::to_string(corpus.size()) + " hostile requests, " +
                              std::to_string(stuck) + " got no answer within " +
                              std::to_string(kAnswerTimeout.count()) + " s and " +
                              std::to_string(server_errors) + " a 5xx answer:" + examples;
  // A stack that frames requests itself may answer one with its own 5xx (MHD's 505 to another
  // HTTP version); nothing lets it hang, die or keep connections.
  strictly([&] {
    require(stuck == 0, outcome);
    require(::kill(worker->pid(), 0) == 0,
            "the worker died under the hostile corpus: " + worker->stderrText());
  });
  strictly([&] {
    {
      HttpConnection client(worker->port(), std::chrono::seconds(10));
      expectOk(ask(client, "GET", "/health"), "GET /health after the hostile corpus");
      const std::string movies =
          context.path("/movies?directorLastName=Allen&delayCallDepth=0&delayInMillis=0");
      expectOk(ask(client, "GET", movies), "GET " + movies + " after the hostile corpus");
    }  // closed: the wait below counts no connection open
    waitForStats(
        *worker,
        [](const WorkerStats& stats) {
          const auto upstream = stats.counters.find("upstream_connections_open");
          return counter(stats, "requests_in_flight") == 0 &&
                 counter(stats, "connections_open") == 0 &&
                 (upstream == stats.counters.end() || upstream->second == 0);
        },
        "after the hostile corpus: no request in flight and no connection open",
        std::chrono::seconds(20));
    const std::size_t descriptors_after = openDescriptors(worker->pid());
    require(descriptors_after <= descriptors_before + 4,
            "after the hostile corpus the worker holds " + std::to_string(descriptors_after) +
                " descriptors, " + std::to_string(descriptors_before) + " before it");
  });
  require(server_errors == 0, outcome);
}

}  // namespace

std::vector<Rule> hostileRules() {
  return {
      {"hostile.first-answers",
       "every request of the hostile corpus gets a first answer the contract allows it (one, "
       "or 400 or closed for an incomplete request)",
       "7", everyRequestGetsItsFirstAnswer},
      {"hostile.survives",
       "the hostile corpus leaves the plugin serving: no request stuck, no 5xx, no connection or "
       "descriptor kept",
       "7", corpusLeavesItServing},
  };
}

}  // namespace benchd::conformance
