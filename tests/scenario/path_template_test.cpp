#include <benchd/scenario/path_template.hpp>

#include <gtest/gtest.h>

namespace benchd::scenario {
namespace {

TEST(PathTemplate, RendersEveryPlaceholder) {
  const PathValues values{"callbacks-asio", 2, 100};
  EXPECT_EQ(renderPath("/{approach}/movies?directorLastName=Allen&delayCallDepth={delayCallDepth}"
                       "&delayInMillis={delayInMillis}",
                       values),
            "/callbacks-asio/movies?directorLastName=Allen&delayCallDepth=2&delayInMillis=100");
  EXPECT_EQ(renderPath("/health", values), "/health");
  EXPECT_EQ(renderPath("/{approach}{approach}", values), "/callbacks-asiocallbacks-asio");
}

TEST(PathTemplate, FindsProblems) {
  EXPECT_EQ(findPathTemplateProblem("/{approach}/x?d={delayCallDepth}&m={delayInMillis}"),
            std::nullopt);
  EXPECT_EQ(findPathTemplateProblem(""), "expected a path starting with '/'");
  EXPECT_EQ(findPathTemplateProblem("http://host/"), "expected a path starting with '/'");
  EXPECT_EQ(findPathTemplateProblem("/a b"), "a path may not contain blanks or control characters");
  EXPECT_EQ(findPathTemplateProblem("/a\r\nHost: x"),
            "a path may not contain blanks or control characters");
  EXPECT_EQ(findPathTemplateProblem("/{approach"), "'{' without a matching '}'");
  EXPECT_EQ(findPathTemplateProblem("/approach}"), "'}' without a matching '{'");
  EXPECT_EQ(findPathTemplateProblem("/{Approach}"),
            "unknown placeholder {Approach} (known: {approach}, {delayCallDepth}, "
            "{delayInMillis})");
}

}  // namespace
}  // namespace benchd::scenario
