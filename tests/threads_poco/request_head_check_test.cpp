// threads_poco::RequestHeadChecker: each breach of the header syntax (CONTRACT.md section 7)
// is refused, the accepted forms are whole heads of the right length, and a breach is seen
// as soon as its bytes arrive.
#include "request_head_check.hpp"

#include <benchd/sdk/limits.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace benchd::threads_poco {
namespace {

using Verdict = HeadCheck::Verdict;

HeadCheck checkAtOnce(std::string_view bytes) {
  RequestHeadChecker checker;
  return checker.check(bytes);
}

/// Feeds `bytes` one byte more per call, as a client trickling them would; returns the first
/// verdict that is not kIncomplete and how many bytes had arrived then.
std::pair<HeadCheck, std::size_t> checkByteByByte(std::string_view bytes) {
  RequestHeadChecker checker;
  for (std::size_t arrived = 1; arrived <= bytes.size(); ++arrived) {
    HeadCheck check = checker.check(bytes.substr(0, arrived));
    if (check.verdict != Verdict::kIncomplete)
      return {check, arrived};
  }
  return {HeadCheck{}, bytes.size()};
}

std::string withField(std::string_view field_line) {
  return "GET /health HTTP/1.1\r\nHost: t\r\n" + std::string(field_line) + "\r\n";
}

TEST(RequestHeadCheck, AcceptedHeadsAreCompleteUpToTheirEmptyLine) {
  const std::string heads[] = {
      "GET /health HTTP/1.1\r\nHost: t\r\n\r\n",
      "GET /health HTTP/1.0\r\n\r\n",
      "POST /threads-poco/movies HTTP/1.1\r\nContent-Length: 2\r\nX-Empty:\r\n\r\n",
      "GET health HTTP/1.1\r\nX-Tab:\tv\t\r\nX-Obs-Text: caf\xc3\xa9\r\n\r\n",
      "GET /a?b=%20&c=\xff HTTP/1.1\r\nX-Folded: v\r\n continued\r\n\tand more\r\n\r\n",
      "FOO /x HTTP/1.1\r\n!#$%&'*+-.^_`|~09azAZ: odd but a token\r\n\r\n",
  };
  for (const std::string& head : heads) {
    const std::string bytes = head + "GET /next HTTP/1.1\r\n";  // pipelined bytes follow
    const HeadCheck check = checkAtOnce(bytes);
    EXPECT_EQ(check.verdict, Verdict::kComplete) << head << " -> " << check.problem;
    EXPECT_EQ(check.head_bytes, head.size()) << head;
    const auto [trickled, arrived] = checkByteByByte(bytes);
    EXPECT_EQ(trickled.verdict, Verdict::kComplete) << head << " -> " << trickled.problem;
    EXPECT_EQ(arrived, head.size()) << head;
  }
}

TEST(RequestHeadCheck, ManyFieldsAreAcceptedWithinTheSizeLimit) {
  std::string head = "GET /health HTTP/1.1\r\n";
  for (int index = 0; index < 1000; ++index)
    head += "X:" + std::to_string(index % 10) + "\r\n";  // 1,000 fields, 5 bytes each
  head += "\r\n";
  ASSERT_LE(head.size(), sdk::kMaxRequestHeaderBytes);
  const HeadCheck check = checkAtOnce(head);
  EXPECT_EQ(check.verdict, Verdict::kComplete) << check.problem;
  EXPECT_EQ(check.head_bytes, head.size());
}

TEST(RequestHeadCheck, HeadsOfExactlyTheLimitPassAndOneByteMoreIsRefused) {
  const std::string start = "GET /health HTTP/1.1\r\nX-Pad: ";
  const std::string end = "\r\n\r\n";
  const std::string at_limit =
      start + std::string(sdk::kMaxRequestHeaderBytes - start.size() - end.size(), 'a') + end;
  ASSERT_EQ(at_limit.size(), sdk::kMaxRequestHeaderBytes);
  EXPECT_EQ(checkAtOnce(at_limit).verdict, Verdict::kComplete);

  const std::string over =
      start + std::string(sdk::kMaxRequestHeaderBytes - start.size() - end.size() + 1, 'a') + end;
  const HeadCheck check = checkAtOnce(over);
  EXPECT_EQ(check.verdict, Verdict::kRefused);
  EXPECT_NE(check.problem.find("header section over 8192 bytes"), std::string::npos)
      << check.problem;
  // Refused once the limit is reached, without waiting for an end that would come too late.
  const auto [trickled, arrived] = checkByteByByte(over);
  EXPECT_EQ(trickled.verdict, Verdict::kRefused);
  EXPECT_EQ(arrived, sdk::kMaxRequestHeaderBytes);
}

TEST(RequestHeadCheck, EachBreachIsRefusedWith400Text) {
  struct Breach {
    std::string bytes;
    std::string_view problem;  ///< a part of the expected message
  };
  const Breach breaches[] = {
      // line ends
      {"GET /health HTTP/1.1\nHost: t\n\n", "bare LF"},
      {"GET /health HTTP/1.1\r\nHost: t\n\r\n", "bare LF"},
      {withField("X-A: v\rw"), "CR not followed by LF"},
      // the request line
      {"GET  /health HTTP/1.1\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {"GET /health  HTTP/1.1\r\n\r\n", "malformed HTTP version"},
      {"GET /health\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {"/health HTTP/1.1\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {"GET /health HTTP/1.1 extra\r\n\r\n", "malformed HTTP version"},
      {"G\x01T /health HTTP/1.1\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {" GET /health HTTP/1.1\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {"\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {"GET /hea\x7fth HTTP/1.1\r\n\r\n", "is not 'method SP target SP HTTP/1.x'"},
      {std::string("GET /hea\0lth HTTP/1.1\r\n\r\n", 25), "is not 'method SP target SP"},
      {"GET /health HTTP/1.2\r\n\r\n", "unsupported or malformed HTTP version 'HTTP/1.2'"},
      {"GET /health HTTP/2.0\r\n\r\n", "version 'HTTP/2.0'"},
      {"GET /health HTTP/1.10\r\n\r\n", "version 'HTTP/1.10'"},
      {"GET /health HTTP/1.\r\n\r\n", "version 'HTTP/1.'"},
      {"GET /health http/1.1\r\n\r\n", "version 'http/1.1'"},
      // field lines
      {withField("NoColon"), "has no ':'"},
      {withField("Bad Name: v"), "invalid header field name"},
      {withField("X-A : v"), "invalid header field name"},
      {withField(": empty-name"), "invalid header field name"},
      {withField("X-\x80: v"), "invalid header field name"},
      {withField("X-A: v\x01w"), "a control character in header field 'X-A'"},
      {withField("X-A: v\x7fw"), "a control character in header field 'X-A'"},
      {withField(std::string("X-A: v\0w", 8)), "a control character in header field 'X-A'"},
      {"GET /health HTTP/1.1\r\n folded: v\r\n\r\n", "must continue a field line"},
      {withField("X-A: v\r\n continued \x01"), "a control character"},
  };
  for (const Breach& breach : breaches) {
    const HeadCheck check = checkAtOnce(breach.bytes);
    EXPECT_EQ(check.verdict, Verdict::kRefused) << breach.bytes;
    EXPECT_EQ(check.problem.rfind("malformed HTTP request: ", 0), 0u) << check.problem;
    EXPECT_NE(check.problem.find(breach.problem), std::string::npos)
        << breach.bytes << " -> " << check.problem;
    EXPECT_EQ(checkByteByByte(breach.bytes).first.verdict, Verdict::kRefused) << breach.bytes;
  }
}

TEST(RequestHeadCheck, ABreachIsRefusedBeforeItsLineEnds) {
  // What arrived already breaks the syntax whatever follows: no need to wait for the line end.
  const std::string_view early[] = {"GET  /hea",
                                    "G\x01",
                                    "GET /health HTTP/1.1\r\nBad Na",
                                    "GET /health HTTP/1.1\r\nX: a\x01",
                                    "GET /health HTTP/1.9",
                                    "GET /health HTTP/1.1\r\nX: a\rb"};
  for (const std::string_view bytes : early)
    EXPECT_EQ(checkAtOnce(bytes).verdict, Verdict::kRefused) << bytes;
  // Prefixes of good heads, a CR still waiting for its LF among them, are only incomplete.
  const std::string_view waiting[] = {"",
                                      "GE",
                                      "GET /health HTTP/1.",
                                      "GET /health HTTP/1.1\r",
                                      "GET /health HTTP/1.1\r\nHost",
                                      "GET /health HTTP/1.1\r\nHost: t\r\n\r"};
  for (const std::string_view bytes : waiting)
    EXPECT_EQ(checkAtOnce(bytes).verdict, Verdict::kIncomplete) << bytes;
}

TEST(RequestHeadCheck, ProblemsQuoteClientTextBoundedAndWithoutControls) {
  const HeadCheck check = checkAtOnce(withField(std::string(300, 'x') + "\x01 :v"));
  ASSERT_EQ(check.verdict, Verdict::kRefused);
  EXPECT_LT(check.problem.size(), 200u) << check.problem;
  EXPECT_NE(check.problem.find("...'"), std::string::npos) << check.problem;
  const HeadCheck control = checkAtOnce("G\x01T /health HTTP/1.1\r\n\r\n");
  EXPECT_EQ(control.problem.find('\x01'), std::string::npos);
  EXPECT_NE(control.problem.find("'G?T /health HTTP/1.1'"), std::string::npos) << control.problem;
}

}  // namespace
}  // namespace benchd::threads_poco
