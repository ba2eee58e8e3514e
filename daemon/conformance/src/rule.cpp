#include <benchd/conformance/rule.hpp>

#include <algorithm>
#include <exception>
#include <ranges>

namespace benchd::conformance {

std::string RuleContext::path(std::string_view resource) const {
  std::string path = "/" + plugin_.name;
  path += resource;
  return path;
}

std::string RuleContext::epoch(std::string_view query) const {
  return path("/epoch-millis?" + std::string(query));
}

std::unique_ptr<WorkerProcess> RuleContext::serve(std::vector<std::string> extra_args) const {
  if (!plugin_.client_profile.empty())
    extra_args.insert(extra_args.begin(), {"--profile", plugin_.client_profile});
  std::vector<std::string> options;
  for (const std::string& option : plugin_.options)
    options.insert(options.end(), {"--option", option});
  extra_args.insert(extra_args.begin(), options.begin(), options.end());
  if (plugin_.threads)
    extra_args.insert(extra_args.begin(), {"--threads", std::to_string(*plugin_.threads)});
  try {
    return WorkerProcess::serve(plugin_.worker, plugin_.plugin, std::move(extra_args));
  } catch (const std::runtime_error& error) {
    fail(error.what());
  }
}

std::unique_ptr<WorkerProcess> RuleContext::start(std::vector<std::string> args) const {
  args.insert(args.begin(), {"--plugin", plugin_.plugin.string()});
  return std::make_unique<WorkerProcess>(plugin_.worker, args);
}

void fail(const std::string& reason) {
  throw RuleFailure(reason);
}

void require(bool holds, const std::string& reason) {
  if (!holds)
    fail(reason);
}

void strictly(const std::function<void()>& part) {
  try {
    part();
  } catch (const StrictRuleFailure&) {
    throw;
  } catch (const RuleFailure& failure) {
    throw StrictRuleFailure(failure.what());
  }
}

RuleOutcome checkRule(const Rule& rule, const PluginUnderTest& plugin) {
  RuleOutcome outcome;
  if (!rule.profile.empty() &&
      std::find(plugin.implemented_profiles.begin(), plugin.implemented_profiles.end(),
                rule.profile) == plugin.implemented_profiles.end()) {
    outcome.skipped = true;
    outcome.reason = "the plugin does not implement the optional profile " + rule.profile +
                     " (its descriptor does not list it), so a worker refuses rows with it";
    return outcome;
  }
  const auto started = std::chrono::steady_clock::now();
  try {
    RuleContext context(plugin);
    rule.check(context);
    outcome.passed = true;
  } catch (const StrictRuleFailure& failure) {
    outcome.reason = failure.what();
  } catch (const RuleFailure& failure) {
    outcome.reason = failure.what();
    outcome.deviated =
        !rule.exception.empty() &&
        std::find(plugin.contract_exceptions.begin(), plugin.contract_exceptions.end(),
                  rule.exception) != plugin.contract_exceptions.end();
  } catch (const std::exception& error) {
    outcome.reason = std::string("could not complete the check: ") + error.what();
  } catch (...) {
    outcome.reason = "could not complete the check: an unknown exception";
  }
  outcome.took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  return outcome;
}

}  // namespace benchd::conformance
