// The percent-decoding and query splitting that the plugins' request classification and the
// daemon's HTTP layer share (benchd/sdk/query_string.hpp), tested on their own, without sockets:
// the conformance and HTTP suites only see them through whole requests.
#include <benchd/sdk/query_string.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::sdk {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

std::vector<RawQueryPair> allPairs(std::string_view query) {
  std::vector<RawQueryPair> pairs;
  QueryPairReader reader(query);
  while (const auto pair = reader.next())
    pairs.push_back(*pair);
  return pairs;
}

/// "name=value" of each pair, to compare the whole split at once.
std::vector<std::string> describe(const std::vector<RawQueryPair>& pairs) {
  std::vector<std::string> described;
  for (const RawQueryPair& pair : pairs)
    described.push_back(std::string(pair.name) + "=" + std::string(pair.value));
  return described;
}

TEST(HexDigitValue, AcceptsDigitsAndLettersInEitherCaseOnly) {
  EXPECT_EQ(hexDigitValue('0'), 0);
  EXPECT_EQ(hexDigitValue('9'), 9);
  EXPECT_EQ(hexDigitValue('a'), 10);
  EXPECT_EQ(hexDigitValue('f'), 15);
  EXPECT_EQ(hexDigitValue('A'), 10);
  EXPECT_EQ(hexDigitValue('F'), 15);
  // The neighbours of each range in ASCII.
  for (const char outside : {'/', ':', '@', 'G', '`', 'g', ' ', '%', '\0'})
    EXPECT_EQ(hexDigitValue(outside), -1) << "character code " << int{outside};
}

TEST(PercentDecode, DecodesEscapesInEitherCase) {
  EXPECT_EQ(percentDecode("a%20b%2Fc%2f", PlusSign::kLiteral), "a b/c/");
  EXPECT_EQ(percentDecode("%C3%A9", PlusSign::kLiteral), "\xC3\xA9");
  EXPECT_EQ(percentDecode("%41%62", PlusSign::kLiteral), "Ab");
  EXPECT_EQ(percentDecode("end%21", PlusSign::kLiteral), "end!") << "an escape at the very end";
}

TEST(PercentDecode, TextWithoutEscapesIsItself) {
  EXPECT_EQ(percentDecode("", PlusSign::kSpace), "");
  EXPECT_EQ(percentDecode("Van-Sant_1.~", PlusSign::kSpace), "Van-Sant_1.~");
  EXPECT_EQ(percentDecode("\xC3\xA9;=&", PlusSign::kSpace), "\xC3\xA9;=&");
}

TEST(PercentDecode, DecodesEveryByteIncludingNulAndControlCharacters) {
  // Refusing them is the caller's policy (the REST API refuses them, the microservice does not).
  EXPECT_EQ(percentDecode("a%00b", PlusSign::kLiteral), "a\0b"s);
  EXPECT_EQ(percentDecode("%0D%0a", PlusSign::kLiteral), "\r\n");
  EXPECT_EQ(percentDecode("%FF%fe", PlusSign::kLiteral), "\xFF\xFE");
}

TEST(PercentDecode, PlusIsASpaceOnlyInFormEncoding) {
  EXPECT_EQ(percentDecode("Van+Sant", PlusSign::kSpace), "Van Sant");
  EXPECT_EQ(percentDecode("Van+Sant", PlusSign::kLiteral), "Van+Sant");
  EXPECT_EQ(percentDecode("Van%2BSant", PlusSign::kSpace), "Van+Sant");
  EXPECT_EQ(percentDecode("Van%2bSant", PlusSign::kLiteral), "Van+Sant");
  EXPECT_EQ(percentDecode("++", PlusSign::kSpace), "  ");
}

TEST(PercentDecode, DecodesOnceOnly) {
  EXPECT_EQ(percentDecode("%2541", PlusSign::kLiteral), "%41");
  EXPECT_EQ(percentDecode("%252e%252e", PlusSign::kLiteral), "%2e%2e");
}

TEST(PercentDecode, RefusesMalformedEscapes) {
  for (const std::string_view malformed :
       {"%"sv, "%4"sv, "abc%4"sv, "abc%"sv, "%zz"sv, "%g0"sv, "%0g"sv, "%G1"sv, "% 20"sv, "%%41"sv,
        "%+1"sv, "%-1"sv, "ok%41%4"sv}) {
    EXPECT_EQ(percentDecode(malformed, PlusSign::kSpace), std::nullopt) << malformed;
    EXPECT_EQ(percentDecode(malformed, PlusSign::kLiteral), std::nullopt) << malformed;
  }
}

TEST(PercentDecode, LooksOnlyInsideTheTextItIsGiven) {
  // Views into a larger buffer: the escape is cut off by the view's end, not by a NUL.
  constexpr std::string_view buffer = "ab%41%4142";
  EXPECT_EQ(percentDecode(buffer.substr(0, 4), PlusSign::kLiteral), std::nullopt);
  EXPECT_EQ(percentDecode(buffer.substr(0, 3), PlusSign::kLiteral), std::nullopt);
  EXPECT_EQ(percentDecode(buffer.substr(0, 5), PlusSign::kLiteral), "abA");
  EXPECT_EQ(percentDecode(buffer.substr(5, 2), PlusSign::kLiteral), std::nullopt);
}

TEST(QueryPairReader, SplitsAtAmpersandsAndTheFirstEquals) {
  EXPECT_EQ(describe(allPairs("a=1&b=2&c=x=y")), (std::vector<std::string>{"a=1", "b=2", "c=x=y"}));
  const auto pairs = allPairs("c=x=y");
  ASSERT_EQ(pairs.size(), 1U);
  EXPECT_EQ(pairs[0].name, "c");
  EXPECT_EQ(pairs[0].value, "x=y");
}

TEST(QueryPairReader, LeavesNamesAndValuesEncoded) {
  const auto pairs = allPairs("a%3D=b%26c+d");
  ASSERT_EQ(pairs.size(), 1U);
  EXPECT_EQ(pairs[0].name, "a%3D");
  EXPECT_EQ(pairs[0].value, "b%26c+d");
}

TEST(QueryPairReader, BareNamesAndEmptyValuesHaveAnEmptyValue) {
  const auto pairs = allPairs("flag&empty=&=nameless");
  ASSERT_EQ(pairs.size(), 3U);
  EXPECT_EQ(pairs[0].name, "flag");
  EXPECT_TRUE(pairs[0].value.empty());
  EXPECT_EQ(pairs[1].name, "empty");
  EXPECT_TRUE(pairs[1].value.empty());
  EXPECT_TRUE(pairs[2].name.empty());
  EXPECT_EQ(pairs[2].value, "nameless");
}

TEST(QueryPairReader, SkipsEmptyPairs) {
  EXPECT_TRUE(allPairs("").empty());
  EXPECT_TRUE(allPairs("&").empty());
  EXPECT_TRUE(allPairs("&&&").empty());
  EXPECT_EQ(describe(allPairs("&a=1&&b=2&")), (std::vector<std::string>{"a=1", "b=2"}));
}

TEST(QueryPairReader, SemicolonIsPartOfAValue) {
  EXPECT_EQ(describe(allPairs("a=1;b=2&c=3")), (std::vector<std::string>{"a=1;b=2", "c=3"}));
}

TEST(QueryPairReader, StaysEndedAfterTheLastPair) {
  QueryPairReader reader("a=1");
  EXPECT_TRUE(reader.next());
  EXPECT_FALSE(reader.next());
  EXPECT_FALSE(reader.next());
}

TEST(FirstRawQueryValue, FirstPairWithTheNameWins) {
  EXPECT_EQ(firstRawQueryValue("a=1&b=2&a=3", "a"), "1");
  EXPECT_EQ(firstRawQueryValue("a=1&b=2&a=3", "b"), "2");
  EXPECT_EQ(firstRawQueryValue("a&a=3", "a"), "") << "a bare name is present, with no value";
}

TEST(FirstRawQueryValue, NamesAreComparedExactlyAndNotDecoded) {
  constexpr std::string_view query = "delay%43allDepth=1&DelayCallDepth=2&delayCallDepthX=3";
  EXPECT_EQ(firstRawQueryValue(query, "delayCallDepth"), std::nullopt);
  EXPECT_EQ(firstRawQueryValue(std::string(query) + "&delayCallDepth=4", "delayCallDepth"), "4");
  EXPECT_EQ(firstRawQueryValue("a+b=1", "a b"), std::nullopt);
  EXPECT_EQ(firstRawQueryValue("a+b=1", "a+b"), "1");
}

TEST(FirstRawQueryValue, ReturnsTheValueStillEncoded) {
  EXPECT_EQ(firstRawQueryValue("n=Van+Sant%21&m=%zz", "n"), "Van+Sant%21");
  EXPECT_EQ(firstRawQueryValue("n=Van+Sant%21&m=%zz", "m"), "%zz")
      << "a malformed escape is the caller's to judge, and only if it decodes that value";
}

TEST(FirstRawQueryValue, AbsentNameIsNothing) {
  EXPECT_EQ(firstRawQueryValue("", "a"), std::nullopt);
  EXPECT_EQ(firstRawQueryValue("b=1&&c", "a"), std::nullopt);
  static_assert(firstRawQueryValue("a=1&b=2", "b") == "2", "usable in constant expressions");
}

TEST(DecodeQuery, DecodesNamesAndValuesInOrderKeepingRepeatedNames) {
  const auto params = decodeQuery("status=done&page%5Fsize=10&name=a%20b+c&flag&status=failed");
  ASSERT_TRUE(params);
  const std::vector<QueryParam> expected = {{"status", "done"},
                                            {"page_size", "10"},
                                            {"name", "a b c"},
                                            {"flag", ""},
                                            {"status", "failed"}};
  EXPECT_EQ(*params, expected);
}

TEST(DecodeQuery, EmptyQueryAndEmptyPairsGiveNothingToDecode) {
  ASSERT_TRUE(decodeQuery(""));
  EXPECT_TRUE(decodeQuery("")->empty());
  EXPECT_EQ(decodeQuery("a=1&&b=2&"), (std::vector<QueryParam>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(decodeQuery("a=&=b"), (std::vector<QueryParam>{{"a", ""}, {"", "b"}}));
}

TEST(DecodeQuery, EscapedSeparatorsStayInsideTheirPart) {
  EXPECT_EQ(decodeQuery("a%3Db=c%26d%2Be"), (std::vector<QueryParam>{{"a=b", "c&d+e"}}));
}

TEST(DecodeQuery, AnyMalformedEscapeRefusesTheWholeQuery) {
  EXPECT_EQ(decodeQuery("a=1&b=%G1"), std::nullopt);
  EXPECT_EQ(decodeQuery("a=1&b%zz=2"), std::nullopt);
  EXPECT_EQ(decodeQuery("a=1&b=%"), std::nullopt);
  EXPECT_EQ(decodeQuery("a%4=1"), std::nullopt);
}

TEST(DecodeQuery, KeepsControlCharactersForTheCallerToJudge) {
  EXPECT_EQ(decodeQuery("a=%00&%0A=1"), (std::vector<QueryParam>{{"a", "\0"s}, {"\n", "1"}}));
}

}  // namespace
}  // namespace benchd::sdk
