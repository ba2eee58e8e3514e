#include <benchd/microservice/service_profile.hpp>

namespace benchd::microservice {

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
