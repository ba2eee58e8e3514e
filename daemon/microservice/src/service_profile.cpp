#include <benchd/microservice/service_profile.hpp>

#include <algorithm>

namespace benchd::microservice {

bool isClientProfile(std::string_view profile) {
  return std::find(kClientProfiles.begin(), kClientProfiles.end(), profile) !=
         kClientProfiles.end();
}

bool runnable(std::string_view profile) {
  return std::find(kImplementedProfiles.begin(), kImplementedProfiles.end(), profile) !=
         kImplementedProfiles.end();
}

std::string unsupportedProfileReason(std::string_view profile) {
  const std::string quoted = "server profile '" + std::string(profile) + "'";

  if (std::find(kOriginalJavaClientProfiles.begin(), kOriginalJavaClientProfiles.end(), profile) !=
      kOriginalJavaClientProfiles.end()) {
    std::string clients;
    for (std::size_t i = 0; i < kClientProfiles.size(); ++i) {
      clients += (i == 0                            ? ""
                  : i + 1 == kClientProfiles.size() ? " and "
                                                    : ", ") +
                 std::string(kClientProfiles[i]);
    }
    return quoted + " is a Java HTTP client of the original study; benchd compares C++ clients " +
           "as the profiles " + clients + ": run scenarios/scenarios-cpp-clients.csv";
  }
  std::string known;
  for (const std::string_view name : kImplementedProfiles) {
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  return quoted + " is implemented by no installed plugin nor the core (implemented: " + known +
         ")";
}

ServiceProfile ServiceProfile::fromNames(std::span<const std::string> names) {
  ServiceProfile profile;
  for (const std::string& name : names) {
    if (name == "no-cache") {
      profile.cache_enabled = false;
    } else if (name == "read-write") {
      profile.read_only = false;
    }
  }
  return profile;
}

}  // namespace benchd::microservice
