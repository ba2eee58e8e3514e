#include <benchd/http/target.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace benchd::http {
namespace {

TEST(ParseTarget, SplitsAndDecodesSegments) {
  const auto target = parseTarget("/api/v1/scenario-files/my%20file.csv?x=1");
  ASSERT_TRUE(target.ok) << target.detail;
  EXPECT_EQ(target.path, "/api/v1/scenario-files/my%20file.csv");
  EXPECT_EQ(target.segments,
            (std::vector<std::string>{"api", "v1", "scenario-files", "my file.csv"}));
  EXPECT_FALSE(target.trailing_slash);
  ASSERT_EQ(target.query.size(), 1U);
  EXPECT_EQ(target.query[0], (QueryParam{"x", "1"}));
}

/// The decoding itself is the SDK's (tests/sdk/query_string_test.cpp); here, that the target's
/// query reaches the handler decoded and whole.
TEST(ParseTarget, DecodesTheQueryInOrderKeepingRepeatedNames) {
  const auto target = parseTarget("/runs?status=done&name=a%20b+c&flag&&status=failed");
  ASSERT_TRUE(target.ok) << target.detail;
  const std::vector<QueryParam> expected = {
      {"status", "done"}, {"name", "a b c"}, {"flag", ""}, {"status", "failed"}};
  EXPECT_EQ(target.query, expected);
  EXPECT_EQ(target.path, "/runs");
}

TEST(ParseTarget, PlusIsASpaceInTheQueryOnly) {
  const auto target = parseTarget("/files/a+b%2B?x=a+b%2B");
  ASSERT_TRUE(target.ok) << target.detail;
  EXPECT_EQ(target.segments, (std::vector<std::string>{"files", "a+b+"}));
  EXPECT_EQ(target.query, (std::vector<QueryParam>{{"x", "a b+"}}));
}

TEST(ParseTarget, RootAndTrailingSlash) {
  const auto root = parseTarget("/");
  ASSERT_TRUE(root.ok);
  EXPECT_TRUE(root.segments.empty());
  EXPECT_FALSE(root.trailing_slash);
  const auto trailing = parseTarget("/a/b/");
  ASSERT_TRUE(trailing.ok);
  EXPECT_EQ(trailing.segments, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(trailing.trailing_slash);
}

struct Rejection {
  const char* target;
  const char* reason;
};

/// gtest prints an unknown parameter as its bytes, pointers included, so the test names would
/// change from build to build (scripts/test.sh matches the names of two builds).
void PrintTo(const Rejection& rejection, std::ostream* out) {
  *out << '"' << rejection.target << "\" -> " << rejection.reason;
}

class ParseTargetRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(ParseTargetRejects, WithItsReason) {
  const auto result = parseTarget(GetParam().target);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.reason, GetParam().reason) << GetParam().target;
  EXPECT_FALSE(result.detail.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Traversal, ParseTargetRejects,
    ::testing::Values(
        Rejection{"/files/../etc/passwd", "path-traversal"},
        Rejection{"/files/..", "path-traversal"}, Rejection{"/files/./x", "path-traversal"},
        Rejection{"/files/%2e%2e/x", "path-traversal"},
        Rejection{"/files/%2E%2E", "path-traversal"}, Rejection{"/files/.%2e/x", "path-traversal"},
        Rejection{"/files/%2e./x", "path-traversal"}, Rejection{"/files/%2e", "path-traversal"},
        Rejection{"/files/..%2fetc", "encoded-separator"},
        Rejection{"/files/%2Fetc%2Fpasswd", "encoded-separator"},
        Rejection{"/files/a%5c..%5cb", "encoded-separator"},
        Rejection{"/files/a%00b", "control-character"},
        Rejection{"/files/a%0d%0aX: y", "control-character"},
        Rejection{"//etc/passwd", "empty-segment"}, Rejection{"/files//x", "empty-segment"},
        Rejection{"/files/x?name=%00", "control-character"},
        Rejection{"/files/x?na%0Ame=1", "control-character"},
        Rejection{"/files/x?name=%7F", "control-character"},
        Rejection{"/files/%zz", "bad-encoding"}, Rejection{"/files/x?name=%", "bad-encoding"},
        Rejection{"/files/x?name=%G1", "bad-encoding"},
        Rejection{"/files/x?ok=1&na%zzme=1", "bad-encoding"},
        Rejection{"http://evil.example/files", "bad-target"}, Rejection{"*", "bad-target"},
        Rejection{"", "bad-target"}, Rejection{"files/x", "bad-target"},
        Rejection{"/files/x#frag", "bad-target"}),
    [](const ::testing::TestParamInfo<Rejection>& param_info) {
      std::string name = std::to_string(param_info.index) + "_" + param_info.param.reason;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(ParseTarget, DotsInsideANameAreFine) {
  const auto target = parseTarget("/files/results..v2.csv/.hidden/..x");
  ASSERT_TRUE(target.ok) << target.detail;
  EXPECT_EQ(target.segments,
            (std::vector<std::string>{"files", "results..v2.csv", ".hidden", "..x"}));
}

}  // namespace
}  // namespace benchd::http
