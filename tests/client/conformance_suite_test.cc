// The conformance suite's reader and comparison rules (halmactl conformance,
// docs/conformance.md "Comparison"), on hand-written cases and answers.
#include "halmactl/conformance_suite.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace halma::halmactl::conformance {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

JsonValue Json(const std::string& text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

std::vector<std::string> Diff(const std::string& want, const std::string& got,
                              const std::set<std::string>& unordered = {}) {
  const JsonValue g = Json(got);
  return Differences(Json(want), &g, unordered);
}

constexpr char kAnswer[] =
    R"({"legal":true,"reason":"ILLEGAL_REASON_UNSPECIFIED","message":"",
        "path":"d1-e2","hops":0,"positionAfter":"x b 1,0",
        "status":{"state":"STATE_IN_PROGRESS","toMove":"SEAT_B",
                  "winners":[],"finished":["SEAT_W","SEAT_B"]},
        "continuations":[]})";

TEST(ConformanceCompare, KeysNotExpectedAreNotCompared) {
  EXPECT_THAT(Diff(R"({"legal":true,"path":"d1-e2"})", kAnswer), IsEmpty());
  EXPECT_THAT(Diff("{}", kAnswer), IsEmpty());
}

TEST(ConformanceCompare, ScalarsCompareByTypeAndValue) {
  EXPECT_THAT(Diff(R"({"hops":1})", kAnswer),
              ElementsAre("hops: expected 1, got 0"));
  EXPECT_THAT(Diff(R"({"legal":false})", kAnswer),
              ElementsAre("legal: expected false, got true"));
  // 0 is not false, "0" is not 0.
  EXPECT_THAT(Diff(R"({"hops":false})", kAnswer),
              ElementsAre(HasSubstr("(a number, not a bool)")));
  EXPECT_THAT(Diff(R"({"hops":"0"})", kAnswer), SizeIs(1));
  EXPECT_THAT(Diff(R"({"status":{"toMove":"SEAT_W"}})", kAnswer),
              ElementsAre("status.toMove: expected \"SEAT_W\", got "
                          "\"SEAT_B\""));
}

TEST(ConformanceCompare, NullMeansNotSet) {
  EXPECT_THAT(Diff(R"({"illegalMove":null})", kAnswer), IsEmpty());
  EXPECT_THAT(Diff(R"({"status":null})", kAnswer),
              ElementsAre(HasSubstr("status: expected absent (not set)")));
  EXPECT_THAT(Diff(R"({"illegalMove":{"ply":0}})", kAnswer),
              ElementsAre("illegalMove: expected {\"ply\":0}, got absent "
                          "(not set)"));
}

TEST(ConformanceCompare, ListsCompareInOrderUnlessUnordered) {
  EXPECT_THAT(Diff(R"({"status":{"finished":["SEAT_W","SEAT_B"]}})", kAnswer),
              IsEmpty());
  EXPECT_THAT(Diff(R"({"status":{"finished":["SEAT_B","SEAT_W"]}})", kAnswer),
              SizeIs(2));
  EXPECT_THAT(Diff(R"({"status":{"finished":["SEAT_B","SEAT_W"]}})", kAnswer,
                   {"status.finished"}),
              IsEmpty());
  // A multiset: the same element twice needs it twice.
  EXPECT_THAT(Diff(R"({"status":{"finished":["SEAT_W","SEAT_W"]}})", kAnswer,
                   {"status.finished"}),
              ElementsAre(HasSubstr("expected an element \"SEAT_W\"")));
  EXPECT_THAT(Diff(R"({"status":{"winners":["SEAT_W"]}})", kAnswer),
              ElementsAre(HasSubstr("expected 1 elements, got 0")));
}

TEST(ConformanceCompare, ElementsOfListsAreSubsetsToo) {
  const std::string moves =
      R"({"moves":[{"origin":"a1","destination":"c3","path":"a1-b2-c3",
                    "hops":1},
                   {"origin":"a1","destination":"b1","path":"a1-b1",
                    "hops":0}]})";
  EXPECT_THAT(Diff(R"({"moves":[{"origin":"a1","hops":1},{"hops":0}]})", moves),
              IsEmpty());
  EXPECT_THAT(Diff(R"({"moves":[{"hops":1},{"hops":1}]})", moves),
              ElementsAre("moves[1].hops: expected 1, got 0"));
  EXPECT_THAT(Diff(R"({"moves":[{"hops":0},{"hops":1}]})", moves, {"moves"}),
              IsEmpty());
}

TEST(ConformanceCompare, ValuesAtPaths) {
  const JsonValue v =
      Json(R"({"moves":[{"destination":"c3"},{"destination":"b1"}],"n":2})");
  std::vector<std::string> got;
  for (const JsonValue* item : ValuesAt(v, "moves[].destination")) {
    got.push_back(JsonText(*item));
  }
  EXPECT_THAT(got, ElementsAre("\"c3\"", "\"b1\""));
  EXPECT_THAT(ValuesAt(v, "n"), SizeIs(1));
  EXPECT_THAT(ValuesAt(v, "nothing[].here"), IsEmpty());
}

TEST(ConformanceCompare, FieldNamedAtTheStartOfTheMessage) {
  EXPECT_TRUE(NamesField("position: position \"x\": ...", "position"));
  EXPECT_TRUE(NamesField("moves[2] (ply 3): move \"zz\"", "moves[2]"));
  EXPECT_FALSE(NamesField("start_position: ...", "position"));
  EXPECT_FALSE(NamesField("variant.preset: no such preset", "variant"));
  EXPECT_FALSE(NamesField("position", "position"));
}

TEST(ConformanceCompare, JsonTextIsSortedAndCut) {
  EXPECT_EQ(JsonText(Json(R"({"b":1,"a":[true,null,"x\"y"],"c":2.5})")),
            R"({"a":[true,null,"x\"y"],"b":1,"c":2.5})");
  EXPECT_EQ(JsonText(Json(R"("abcdefgh")"), 4), "\"abc...");
}

constexpr char kCase[] =
    R"({"id":"legal_moves/start","rpc":"halma.v1.HalmaRules/LegalMoves",)"
    R"("areas":["presets"],"request":{"variant":{"preset":"brainking-8x8"}},)"
    R"("expect":{"kind":"answer","fields":{"count":24},)"
    R"("unordered":["status.winners"]}})";

TEST(ConformanceCase, ReadsEveryKind) {
  absl::StatusOr<Case> c = ParseCase(kCase);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->method->name(), "LegalMoves");
  EXPECT_EQ(c->kind, ExpectKind::kAnswer);
  EXPECT_THAT(c->unordered, ElementsAre("status.winners"));
  absl::StatusOr<Case> error = ParseCase(
      R"({"id":"e","rpc":"halma.v1.HalmaRules/Perft","request":{"depth":-1},)"
      R"("expect":{"kind":"error","code":"INVALID_ARGUMENT","field":"depth",)"
      R"("contains":["-1"]},"protocols":["grpc"]})");
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_EQ(error->field, "depth");
  EXPECT_THAT(error->contains, ElementsAre("-1"));
  EXPECT_THAT(error->protocols, ElementsAre("grpc"));
  absl::StatusOr<Case> twice = ParseCase(
      R"({"id":"d","rpc":"halma.v1.HalmaRules/ListVariants","request":{},)"
      R"("expect":{"kind":"deterministic","calls":3}})");
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->calls, 3);
  absl::StatusOr<Case> member = ParseCase(
      R"({"id":"m","rpc":"halma.v1.HalmaRules/LegalMoves","request":{},)"
      R"("expect":{"kind":"member","path":"moves[].origin","in":{)"
      R"("rpc":"halma.v1.HalmaRules/LegalMoves","request":{},)"
      R"("path":"moves[].origin"}}})");
  ASSERT_TRUE(member.ok()) << member.status();
  EXPECT_EQ(member->in_method->name(), "LegalMoves");
}

TEST(ConformanceCase, RejectsWhatItCannotRun) {
  const std::pair<const char*, const char*> bad[] = {
      {"not json", "not JSON"},
      {R"({"rpc":"halma.v1.HalmaRules/LegalMoves"})", "\"id\": missing"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/ResignForMe","request":{},)"
       R"("expect":{"kind":"answer","fields":{}}})",
       "not a method of the halma.v1 API"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/AdjudicateStream",)"
       R"("request":{},"expect":{"kind":"answer","fields":{}}})",
       "streaming"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/LegalMoves",)"
       R"("request":{"colour":"red"},"expect":{"kind":"answer","fields":{}}})",
       "\"request\": not a halma.v1.LegalMovesRequest"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/LegalMoves","request":{},)"
       R"("expect":{"kind":"guess"}})",
       "\"guess\" is not a kind"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/LegalMoves","request":{},)"
       R"("expect":{"kind":"error","code":"WRONG"}})",
       "not a gRPC error code name"},
      {R"({"id":"x","rpc":"halma.v1.HalmaRules/LegalMoves","request":{},)"
       R"("protocols":["smoke"],"expect":{"kind":"answer","fields":{}}})",
       "\"protocols\""},
  };
  for (const auto& [line, message] : bad) {
    absl::StatusOr<Case> c = ParseCase(line);
    ASSERT_FALSE(c.ok()) << line;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(c.status().message()), HasSubstr(message)) << line;
  }
}

TEST(ConformanceCase, FilterTerms) {
  Case c = *ParseCase(kCase);
  auto selects = [&](const std::string& text) {
    absl::StatusOr<Filter> filter = Filter::Parse(text);
    EXPECT_TRUE(filter.ok()) << filter.status();
    return filter.ok() && filter->Selects(c);
  };
  EXPECT_TRUE(selects(""));
  EXPECT_TRUE(selects("rpc:LegalMoves"));
  EXPECT_TRUE(selects("rpc:halma.v1.HalmaRules/LegalMoves"));
  EXPECT_FALSE(selects("rpc:Perft"));
  EXPECT_TRUE(selects("rpc:Perft,area:presets"));
  EXPECT_FALSE(selects("area:presets,-id:legal_moves/"));
  EXPECT_TRUE(selects("start"));
  EXPECT_FALSE(selects("-start"));
  EXPECT_FALSE(Filter::Parse("colour:red").ok());
  EXPECT_FALSE(Filter::Parse("area:").ok());
}

TEST(ConformanceCase, SuiteFolderReadInNameOrder) {
  const std::string dir = ::testing::TempDir() + "conformance_suite_test";
  std::remove((dir + "/b.jsonl").c_str());
  std::remove((dir + "/a.jsonl").c_str());
  std::remove(dir.c_str());
  EXPECT_EQ(LoadSuite(dir).status().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(LoadSuite(dir).status().code(), absl::StatusCode::kNotFound);
  std::string second = kCase;
  second.replace(second.find("legal_moves/start"), 17, "legal_moves/other");
  std::ofstream(dir + "/b.jsonl") << kCase << "\n";
  std::ofstream(dir + "/a.jsonl") << "\n" << second << "\n";
  absl::StatusOr<std::vector<Case>> cases = LoadSuite(dir);
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_THAT(*cases, SizeIs(2));
  EXPECT_EQ((*cases)[0].id, "legal_moves/other");
  EXPECT_EQ((*cases)[0].source, "a.jsonl:2");
  EXPECT_EQ((*cases)[1].source, "b.jsonl:1");
  std::ofstream(dir + "/a.jsonl") << kCase << "\n";
  cases = LoadSuite(dir);
  ASSERT_FALSE(cases.ok());
  EXPECT_THAT(std::string(cases.status().message()),
              HasSubstr("b.jsonl:1: id \"legal_moves/start\" is also the id "
                        "of a.jsonl:1"));
}

}  // namespace
}  // namespace halma::halmactl::conformance
