#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::runner {

/// An approach as a run names it: a plugin, optionally with settings of its own and a label, so
/// one plugin can take part in a run more than once (docs/run.md#approach-variants):
///
///   callbacks-asio                        the plugin as installed
///   callbacks-asio#2                      the same plugin again under another name (an A/A check)
///   threads-asio[max_threads=200]         the plugin with an option (its worker's --option)
///   threads-asio[max_threads=200,stack_kib=128]#small   both
///
/// A variant is an approach everywhere: the winners grid, the charts, the store, the API. Its
/// name() is the canonical spelling of what was parsed (options in the order given), and is
/// what every output shows.
struct ApproachVariant {
  std::string plugin;                                        ///< the plugin's name
  std::vector<std::pair<std::string, std::string>> options;  ///< key, value; in the order given
  std::string label;                                         ///< after '#'; empty for none

  /// plugin, then "[k=v,...]" when there are options, then "#label" when labelled.
  [[nodiscard]] std::string name() const;
  /// The worker's `--option` arguments: "k=v" each.
  [[nodiscard]] std::vector<std::string> optionArguments() const;
};

/// A variant that cannot be read. what() is one line: the text, the 1-based character position
/// and the reason, e.g. "approach 'x[a]': at character 4: expected KEY=VALUE in the options".
class ApproachVariantError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Parses `NAME[KEY=VALUE,...]#LABEL` (brackets and label optional). NAME and LABEL are letters,
/// digits, '-', '_' and '.'; KEY likewise; VALUE is any text without ',', ']', '[', '#', '/',
/// '\\' or a control character (the name becomes a file name), possibly empty. A key may not
/// repeat. Throws ApproachVariantError.
[[nodiscard]] ApproachVariant parseApproachVariant(std::string_view text);

/// The variant key of the worker's thread count (`callbacks-asio[threads=1]`,
/// `threads-asio[threads=8]`): the worker's `--threads`, which each model reads as its own thread
/// knob (event loops, or the pool threads started up front; docs/run.md#approach-variants). The
/// runner reads it and never passes it to the plugin as an option. Without it the worker takes
/// its default, the machine's hardware concurrency.
inline constexpr std::string_view kThreadsVariantKey = "threads";
/// The most threads a variant may ask for: the worker's own bound on --threads.
inline constexpr unsigned kMaxWorkerThreads = 1024;

/// The value of a `threads` key: an integer from 1 to kMaxWorkerThreads. Throws
/// std::invalid_argument saying what was expected and what was given.
[[nodiscard]] unsigned parseWorkerThreads(std::string_view text);

/// The partner of an A/A check (`benchd run --aa A`): the same plugin and options under the
/// label "2" (or the given label with "-2" appended), so the two differ only in name.
[[nodiscard]] ApproachVariant aaPartner(const ApproachVariant& variant);

}  // namespace benchd::runner
