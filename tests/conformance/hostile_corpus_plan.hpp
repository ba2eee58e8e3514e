#pragma once
// The requests of the plugins' hostile corpus (daemon/conformance/data/hostile-requests.txt),
// drawn from the one generator every suite shares (tests/support/hostile_requests.hpp) and aimed
// at a plugin whose name is left as the placeholder {a}. hostile_corpus_writer records each
// one's first answer beside it; HostileCorpusFile checks that the file still holds these
// requests.

#include <benchd/conformance/hostile_corpus.hpp>

#include <vector>

namespace benchd::testing {

/// The corpus's requests in file order, with no allowed answers yet (the writer records them).
/// Requests whose head comes so near the header limit that the length of the plugin's name could
/// change their answer are left out, and so are the longest (see hostile_corpus_plan.cpp).
std::vector<conformance::HostileCase> plannedHostileCorpus();

}  // namespace benchd::testing
