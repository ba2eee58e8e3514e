// The profile names the core knows: which choose the nested call's client, and what a row
// naming one nobody implements is told.
#include <benchd/microservice/service_profile.hpp>
#include <benchd/scenario/scenario_row.hpp>

#include <gtest/gtest.h>

namespace benchd::microservice {
namespace {

TEST(ServiceProfileNames, ClientProfilesAreTheOnesTheScenarioFileCountsAsClients) {
  for (const std::string_view client : kClientProfiles) {
    EXPECT_TRUE(client.starts_with(scenario::kClientProfilePrefix)) << client;
    EXPECT_TRUE(isClientProfile(client)) << client;
  }
  EXPECT_FALSE(isClientProfile("postgres"));
  EXPECT_FALSE(isClientProfile("client-"));
  EXPECT_FALSE(isClientProfile("rest-client-jdk"));
}

TEST(ServiceProfileNames, TheOriginalsJavaClientsPointToTheCppClientsFile) {
  for (const std::string_view java : kOriginalJavaClientProfiles) {
    const std::string reason = unsupportedProfileReason(java);
    EXPECT_NE(reason.find("'" + std::string(java) + "' is a Java HTTP client of the original"),
              std::string::npos)
        << reason;
    EXPECT_NE(reason.find("client-beast, client-curl, client-poco and client-httplib: run "
                          "scenarios/scenarios-cpp-clients.csv"),
              std::string::npos)
        << reason;
  }
  EXPECT_EQ(unsupportedProfileReason("gzip"),
            "server profile 'gzip' is implemented by no installed plugin nor the core "
            "(implemented: no-cache, no-keep-alive, read-write, postgres, tls, h2, h2c, "
            "client-beast, client-curl, client-poco, client-httplib)");
}

TEST(ServiceProfileNames, WhatARunCanDriveIsWhatIsImplemented) {
  EXPECT_TRUE(runnable("postgres"));
  EXPECT_TRUE(runnable("client-curl"));
  EXPECT_TRUE(runnable("tls"));
  EXPECT_FALSE(runnable("gzip"));
  EXPECT_FALSE(runnable("rest-client-jdk"));
}

TEST(ServiceProfileNames, Http2ProfilesAreRunnableAndH2NeedsACertificate) {
  for (const std::string_view profile : kHttp2Profiles) {
    EXPECT_TRUE(runnable(profile)) << profile;
    EXPECT_TRUE(isHttp2Profile(profile)) << profile;
  }
  EXPECT_FALSE(isHttp2Profile("tls"));
  EXPECT_FALSE(runnable("h3"));
  EXPECT_TRUE(needsCertificate("tls"));
  EXPECT_TRUE(needsCertificate("h2"));
  EXPECT_FALSE(needsCertificate("h2c"));
}

TEST(ServiceProfileNames, ClientProfilesLeaveTheCoreAsItIs) {
  const std::vector<std::string> names = {"client-curl", "no-cache"};
  const ServiceProfile profile = ServiceProfile::fromNames(names);
  EXPECT_FALSE(profile.cache_enabled);
  EXPECT_TRUE(profile.read_only);
}

}  // namespace
}  // namespace benchd::microservice
