// Only this file is compiled with the corpus's paths: an absolute path on the compile line of
// every file would change their ccache hashes in each fresh clone.
#include <benchd/conformance/hostile_corpus.hpp>

namespace benchd::conformance {

std::filesystem::path hostileCorpusPath(bool build_tree, const std::filesystem::path& executable) {
  if (build_tree)
    return BENCHD_SOURCE_HOSTILE_CORPUS;
  return (executable.parent_path() / BENCHD_BIN_TO_HOSTILE_CORPUS).lexically_normal();
}

}  // namespace benchd::conformance
