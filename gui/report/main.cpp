// benchd-report: renders a stored run's charts to PNG without a display.
//
//   benchd-report --store FILE --run ID --out DIR
//
// Exit codes: 0 written (some results may have had no chart: they are listed), 1 the store or
// an image failed, 2 usage error.

#include "report_writer.hpp"

#include <benchd/common/integer_option.hpp>

#include <QApplication>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace {

using benchd::common::kExitFailure;
using benchd::common::kExitUsage;

const char* const kUsage =
    "usage: benchd-report --store FILE --run ID --out DIR\n"
    "Renders the charts of run ID from the benchd store FILE into DIR: one\n"
    "<scenario>/<approach>.png per result with stored test seconds (the six-panel chart) and\n"
    "results.png (the winners grid). Needs no display.\n";

struct Arguments {
  std::string store;
  std::int64_t run = 0;
  std::string out;
};

/// The arguments; throws common::UsageError naming the option and what was expected.
Arguments parse(int argc, char** argv) {
  using benchd::common::UsageError;
  Arguments arguments;
  bool have_run = false;
  for (int index = 1; index < argc; ++index) {
    const std::string_view option = argv[index];
    if (option == "--help" || option == "-h") {
      std::cout << kUsage;
      std::exit(benchd::common::kExitOk);
    }
    if (index + 1 >= argc) {
      throw UsageError(std::string(option) + " needs a value");
    }
    const std::string_view value = argv[++index];
    if (option == "--store") {
      arguments.store = value;
    } else if (option == "--out") {
      arguments.out = value;
    } else if (option == "--run") {
      arguments.run = benchd::common::parseIntegerOption<std::int64_t>(
          option, value, 1, std::numeric_limits<std::int64_t>::max());
      have_run = true;
    } else {
      throw UsageError("unknown option " + std::string(option));
    }
  }
  if (arguments.store.empty() || arguments.out.empty() || !have_run) {
    throw UsageError("--store, --run and --out are required");
  }
  return arguments;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Arguments> arguments;
  try {
    arguments = parse(argc, argv);
  } catch (const benchd::common::UsageError& error) {
    std::cerr << "benchd-report: " << error.what() << "\n" << kUsage;
    return kExitUsage;
  }
  // A renderer never needs a screen; without this Qt would look for a display and abort.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  int qt_argc = 1;
  QApplication application(qt_argc, argv);
  try {
    if (!std::filesystem::is_regular_file(arguments->store)) {
      std::cerr << "benchd-report: no store file " << arguments->store << "\n";
      return kExitFailure;
    }
    const benchd::store::ResultStore store(arguments->store);
    benchd::report::ReportSettings settings;
    settings.out_dir = arguments->out;
    const benchd::report::ReportSummary summary = benchd::report::writeReport(
        store, arguments->run, settings,
        [](const std::string& line) { std::cerr << "benchd-report: " << line << "\n"; });
    std::cerr << "benchd-report: " << summary.charts << " charts"
              << (summary.grid ? " and the winners grid" : "") << " in " << arguments->out
              << (summary.skipped > 0 ? "; " + std::to_string(summary.skipped) + " without data"
                                      : std::string())
              << "\n";
    return 0;
  } catch (const std::exception& failure) {
    std::cerr << "benchd-report: " << failure.what() << "\n";
    return kExitFailure;
  }
}
