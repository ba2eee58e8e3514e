// The one parser every benchd program uses for integer options: digits only, in range, and
// the same words for the same mistake.
#include <benchd/common/integer_option.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace benchd::common {
namespace {

std::string messageOf(std::string_view text) {
  try {
    (void)parseIntegerOption<std::uint16_t>("--port", text, 1, 65535);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(IntegerOption, DigitsWithinTheRangeAreAccepted) {
  EXPECT_EQ(parseIntegerOption<std::uint16_t>("--port", "8080", 1, 65535), 8080);
  EXPECT_EQ(parseIntegerOption<std::uint16_t>("--port", "65535", 1, 65535), 65535);
  EXPECT_EQ(parseIntegerOption<int>("--n", "-3", -5, 5), -3);
}

TEST(IntegerOption, AnythingElseIsAUsageErrorNamingTheOptionAndTheRange) {
  for (const std::string_view bad : {"", "0", "65536", "99999999999999999999", "+80", " 80", "80 ",
                                     "8o", "0x50", "-1", "80.0"}) {
    EXPECT_EQ(messageOf(bad),
              "--port: expected an integer from 1 to 65535, got '" + std::string(bad) + "'")
        << bad;
  }
}

TEST(IntegerOption, ExitCodesAreTheSameForEveryProgram) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitFailure, 1);
  EXPECT_EQ(kExitUsage, 2);
}

}  // namespace
}  // namespace benchd::common
