// The record text format (docs/record-format.md): parsing, formatting,
// round trips on every preset, custom variants and the public vectors,
// result tokens of every deciding rule, and every class of parse error.
#include "halma/record_text.h"

#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "nlohmann/json.hpp"
#include "tests/testdata.h"
#include "test_util.h"

namespace halma {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_util::Custom;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::Spec;

// The project's root, from this file's path (CMake compiles sources by
// their absolute paths).
std::string RootDir() {
  std::string file = __FILE__;
  const size_t at = file.rfind("/tests/engine/");
  return at == std::string::npos ? "." : file.substr(0, at);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

VariantSpec SpecOfVector(const json& v) {
  if (v.is_string()) {
    absl::StatusOr<Variant> preset = PresetVariant(v.get<std::string>());
    EXPECT_TRUE(preset.ok()) << preset.status();
    return preset.ok() ? preset->spec : VariantSpec{};
  }
  return Spec(v["n"], v["seats"], v["camp"].get<std::vector<int>>(),
              v["home_exit"], v["round_completion"], v["target_lock"],
              v["move_cap"]);
}

// The variant and start position a parsed record names.
Variant VariantOf(const TextRecord& r) {
  absl::StatusOr<Variant> v = r.variant.name.empty()
                                  ? MakeVariant(r.variant)
                                  : PresetVariant(r.variant.name);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : Variant{};
}

Position StartOf(const TextRecord& r, const Variant& v) {
  return r.start_position.empty() ? StartPosition(v)
                                  : Parse(r.start_position, v);
}

GameRecordResult Adjudicate(const TextRecord& r) {
  const Variant v = VariantOf(r);
  return testing_util::Replay(v, StartOf(r, v), r.moves);
}

// Parses one record and fails the test on an error.
TextRecord MustParse(const std::string& text) {
  absl::StatusOr<TextRecord> r = ParseTextRecord(text);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << text;
  return r.ok() ? *r : TextRecord{};
}

// parse(format(r)) == r and the formatted text is a fixed point.
void ExpectRoundTrip(const TextRecord& r) {
  const std::string text = FormatTextRecord(r);
  SCOPED_TRACE(text);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  absl::StatusOr<TextRecord> again = ParseTextRecord(text);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == r);
  EXPECT_EQ(again->moves, r.moves);
  EXPECT_EQ(again->comments, r.comments);
  EXPECT_EQ(again->result, r.result);
  EXPECT_EQ(FormatTextRecord(*again), text);
}

// The parse error of `text`: its message, or "" (and a failure) when the
// text parses.
std::string ErrorOf(const std::string& text) {
  absl::StatusOr<std::vector<TextRecord>> r = ParseTextRecords(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

// Plays `plies` legal moves (or until the game ends) from `start`, greedy
// towards the targets with probability `greedy`, and returns them as text
// (full paths, `pass` when forced).
std::vector<std::string> PlayOut(const Variant& variant, const Position& start,
                                 int plies, std::mt19937* rng, double greedy) {
  const std::vector<Position> positions =
      testing_util::RandomGame(variant, start, plies, rng, greedy);
  // RandomGame gives positions; the move between two is the legal move
  // from the square the mover left to the square it reached.
  std::vector<std::string> moves;
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  for (size_t i = 0; i + 1 < positions.size(); ++i) {
    const Position& pos = positions[i];
    const Position& next = positions[i + 1];
    const int mover = SeatIndex(pos.to_move);
    int origin = -1, destination = -1;
    for (int s = 0; s < kSquareCount; ++s) {
      const bool before = pos.pieces[mover].Test(static_cast<Square>(s));
      const bool after = next.pieces[mover].Test(static_cast<Square>(s));
      if (before && !after) origin = s;
      if (!before && after) destination = s;
    }
    if (origin < 0) {
      moves.push_back("pass");
      continue;
    }
    GenerateLegalMovesWithPaths(variant, pos, pos.to_move, list.get(),
                                paths.get());
    std::string found;
    for (int m = 0; m < list->size && found.empty(); ++m) {
      if (list->moves[m].origin == origin &&
          list->moves[m].destination == destination) {
        found = FormatPath(paths->Path(m), paths->Length(m));
      }
    }
    EXPECT_FALSE(found.empty());
    moves.push_back(found);
  }
  return moves;
}

// The words of a formatted move text (after the blank line) without
// comments, split at white space.
std::vector<std::string> MoveWords(const std::string& text) {
  const size_t blank = text.find("\n\n");
  if (blank == std::string::npos) return {};
  std::string body = text.substr(blank + 2);
  std::string plain;
  bool in_comment = false;
  for (char c : body) {
    if (c == '{') in_comment = true;
    if (!in_comment) plain += c;
    if (c == '}') in_comment = false;
  }
  return absl::StrSplit(plain, absl::ByAnyChar(" \n"), absl::SkipEmpty());
}

// The move numbers a record's text must show, worked out from the real
// replay (the positions of the game): ply i by the seat to move, numbered
// its count + 1; "N." when greater than the number before, "N..." for the
// first move otherwise, nothing else.
std::vector<std::string> ExpectedWords(const Variant& variant,
                                       const Position& start,
                                       const std::vector<std::string>& moves,
                                       const std::string& result) {
  std::vector<std::string> out;
  Position pos = start;
  int64_t last = -1;
  for (size_t i = 0; i < moves.size(); ++i) {
    const int64_t number = pos.move_count[SeatIndex(pos.to_move)] + 1;
    bool round = i == 0 ? true : number > last;
    if (i == 0) {
      for (int s = 0; s < variant.seat_count; ++s) {
        const Seat seat = variant.seats[s];
        if (SeatsStillPlaying(variant, pos).Has(seat) &&
            pos.move_count[SeatIndex(seat)] > number - 1) {
          round = false;
        }
      }
    }
    if (round) {
      out.push_back(absl::StrCat(number, "."));
    } else if (i == 0) {
      out.push_back(absl::StrCat(number, "..."));
    }
    out.push_back(moves[i]);
    last = number;
    const MoveCheck check =
        CheckMove(variant, pos, EvaluateStatus(variant, pos),
                  testing_util::Move(moves[i], variant.size));
    EXPECT_EQ(check.verdict, MoveVerdict::kLegal) << moves[i];
    pos = check.after;
  }
  if (!result.empty()) out.push_back(result);
  return out;
}

// The token the vectors' expectation describes, built from its fields.
std::string TokenOfExpectation(const json& e) {
  const std::string status = e["status"];
  if (status == "illegal") {
    return absl::StrCat("illegal:", e["ply"].get<int>(), ":",
                        e["reason"].get<std::string>());
  }
  if (status == "in_progress") return "*";
  std::string seats;
  for (const char* s : {"w", "r", "b", "g"}) {
    for (const auto& x : e["winners"]) {
      if (x == s) seats += s;
    }
  }
  std::string rule = e["rule"];
  if (rule == "all-passed") rule = "everyone-stuck";
  return absl::StrCat(status, ":", seats, ":", rule);
}

// ---------------------------------------------------------------------------
// The examples of docs/record-format.md.

struct DocBlock {
  std::string kind;  // "halma" or "halma-input".
  std::string text;
};

std::vector<DocBlock> DocExamples() {
  const std::string doc = ReadFile(RootDir() + "/docs/record-format.md");
  EXPECT_FALSE(doc.empty()) << RootDir();
  std::vector<DocBlock> out;
  size_t at = 0;
  while ((at = doc.find("```halma", at)) != std::string::npos) {
    const size_t eol = doc.find('\n', at);
    const size_t end = doc.find("\n```", eol);
    out.push_back(
        {doc.substr(at + 3, eol - at - 3), doc.substr(eol + 1, end - eol)});
    at = end + 4;
  }
  return out;
}

TEST(RecordTextDoc, ExamplesParseAreCanonicalAndAdjudicateAsClaimed) {
  const std::vector<DocBlock> blocks = DocExamples();
  ASSERT_GE(blocks.size(), 5u);
  int canonical = 0;
  for (const DocBlock& block : blocks) {
    SCOPED_TRACE(block.text);
    absl::StatusOr<std::vector<TextRecord>> records =
        ParseTextRecords(block.text);
    ASSERT_TRUE(records.ok()) << records.status();
    std::string formatted;
    for (const TextRecord& r : *records) {
      formatted += FormatTextRecord(r);
      if (!r.result.empty()) {
        EXPECT_EQ(ResultToken(VariantOf(r), Adjudicate(r)), r.result);
      }
      ExpectRoundTrip(r);
    }
    if (block.kind == "halma") {
      EXPECT_EQ(formatted, block.text);
      ++canonical;
    } else {
      EXPECT_EQ(block.kind, "halma-input");
      EXPECT_NE(formatted, block.text);
    }
  }
  EXPECT_GE(canonical, 4);
}

TEST(RecordTextDoc, ExamplesHoldWhatTheyShow) {
  const std::vector<DocBlock> blocks = DocExamples();
  ASSERT_GE(blocks.size(), 5u);
  // The first: tags and comments in their places.
  const TextRecord first = MustParse(blocks[0].text);
  EXPECT_EQ(first.variant.name, "brainking-8x8");
  EXPECT_EQ(first.variant.board_size, 8);
  EXPECT_EQ(first.date, "2026.12.01");
  EXPECT_EQ(first.players, (std::vector<std::string>{"Alice", "Bob"}));
  EXPECT_EQ(first.extra_tags, (std::vector<std::pair<std::string, std::string>>{
                                  {"Event", "Club night"}}));
  EXPECT_EQ(first.moves,
            (std::vector<std::string>{"b1-d3", "h7-f5", "a2-c4", "h8-f6-f4"}));
  EXPECT_EQ(first.comments,
            (std::vector<std::pair<int, std::string>>{
                {0, "A quiet opening."}, {3, "White's second jump."}}));
  EXPECT_EQ(first.result, "*");
  // The move-cap draw is the public vector's game.
  const TextRecord capped = MustParse(blocks[1].text);
  bool found = false;
  for (const json& c : testdata::ReadJsonLines("vectors/records.jsonl")) {
    if (c["expect"]["rule"] == "move-cap") {
      found = true;
      EXPECT_EQ(capped.moves, c["moves"].get<std::vector<std::string>>());
      EXPECT_TRUE(capped.variant.name.empty());
      EXPECT_EQ(capped.variant.move_cap, c["variant"]["move_cap"].get<int>());
      EXPECT_EQ(capped.result, TokenOfExpectation(c["expect"]));
    }
  }
  EXPECT_TRUE(found);
  // Two records; the first from b's turn, its position as written.
  absl::StatusOr<std::vector<TextRecord>> two =
      ParseTextRecords(blocks[3].text);
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].start_position,
            "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
  EXPECT_EQ((*two)[1].moves, (std::vector<std::string>{"b1-d3", "h8-h7"}));
  const GameRecordResult illegal = Adjudicate((*two)[1]);
  EXPECT_EQ(illegal.illegal_ply, 2);
  EXPECT_EQ(illegal.illegal_verdict, MoveVerdict::kDestinationOccupied);
  // The lenient input reads as the first example's game.
  const TextRecord input = MustParse(blocks.back().text);
  EXPECT_EQ(input.moves, first.moves);
  EXPECT_EQ(input.result, "*");
  EXPECT_EQ(input.comments,
            (std::vector<std::pair<int, std::string>>{
                {1, "a line comment"}, {3, "White's second jump."}}));
}

// ---------------------------------------------------------------------------
// Round trips.

TEST(RecordText, EveryPresetRoundTripsWithNumbersOfTheRealReplay) {
  std::mt19937 rng(12);
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    for (int game = 0; game < 3; ++game) {
      const Position start = StartPosition(v);
      const int plies = game == 2 ? 2000 : 40 + 30 * game;
      const std::vector<std::string> moves =
          PlayOut(v, start, plies, &rng, game == 2 ? 0.9 : 0.3);
      TextRecord r;
      r.variant = v.spec;
      r.moves = moves;
      r.date = "2026.12.02";
      for (int i = 0; i < v.seat_count; ++i) {
        r.players.push_back(absl::StrCat("Player \"", i, "\" \\ of ", name));
      }
      r.extra_tags = {{"Event", "Test"}, {"Round", "1"}, {"Event", "Again"}};
      r.comments = {{0, "start"},
                    {1, "after the first move"},
                    {static_cast<int>(moves.size() / 2), "mid\ngame"},
                    {static_cast<int>(moves.size() / 2), "a } brace"},
                    {static_cast<int>(moves.size()), "end"}};
      r.result = ResultToken(v, Adjudicate(r));
      ExpectRoundTrip(r);
      const std::string text = FormatTextRecord(r);
      EXPECT_THAT(text, StartsWith(absl::StrCat("[Variant \"", name, "\"]\n")));
      EXPECT_THAT(text, HasSubstr("[PlayerW \"Player \\\"0\\\" \\\\ of "));
      // The move numbers as the replay gives them, independently.
      TextRecord plain = r;
      plain.comments.clear();
      EXPECT_EQ(MoveWords(FormatTextRecord(plain)),
                ExpectedWords(v, start, moves, r.result));
      // After a comment inside a round, the number is restated.
      EXPECT_THAT(text, HasSubstr(absl::StrCat("{after the first move} 1... ",
                                               moves[1], " ")));
      for (absl::string_view line : absl::StrSplit(text, '\n')) {
        if (line.find('{') == std::string::npos) {
          EXPECT_LT(line.size(), 80u) << line;
        }
      }
    }
  }
}

TEST(RecordText, GamesPlayedToTheEndGiveTheirResultTokens) {
  // Greedy games of every preset reach a result; its token is the
  // adjudication's, and it names the winner and the rule.
  std::mt19937 rng(7);
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    const std::vector<std::string> moves =
        PlayOut(v, StartPosition(v), 3000, &rng, 0.97);
    TextRecord r;
    r.variant = v.spec;
    r.moves = moves;
    const GameRecordResult result = Adjudicate(r);
    r.result = ResultToken(v, result);
    if (result.status.over) {
      const std::string seats = testing_util::SeatsText(result.status.winners);
      EXPECT_EQ(r.result,
                absl::StrCat(result.status.IsDraw() ? "draw:" : "win:", seats,
                             ":", DecidingRuleName(result.status.rule)));
    } else {
      EXPECT_EQ(r.result, "*");
    }
    ExpectRoundTrip(r);
  }
}

TEST(RecordText, CustomVariantsRoundTrip) {
  std::mt19937 rng(3);
  const std::vector<VariantSpec> specs = {
      Spec(8, 4, {2, 1}, 2),                       // Eliminations.
      Spec(6, 4, {1}, 3, true, true, 20),          // Everything on.
      Spec(12, 2, {4, 4, 2}, 0, true, false, 60),  // Round completion, cap.
      Spec(5, 2, {2, 1}, 1, false, false, 3),      // Tiny.
      Spec(16, 4, {8, 7, 6, 5, 4, 3, 2, 1}),       // Big camps.
      Spec(4, 2, {4, 3}, 0, false, true),          // Full 4x4.
      Spec(10, 4, {3, 2, 1}, 4, false, false, 0),  // Eliminations, 10x10.
  };
  for (const VariantSpec& spec : specs) {
    const Variant v = Custom(spec);
    for (int game = 0; game < 4; ++game) {
      const Position start = StartPosition(v);
      const std::vector<std::string> moves =
          PlayOut(v, start, 400, &rng, 0.5 + 0.15 * game);
      TextRecord r;
      r.variant = v.spec;
      r.moves = moves;
      r.result = ResultToken(v, Adjudicate(r));
      SCOPED_TRACE(FormatTextRecord(r));
      ExpectRoundTrip(r);
      EXPECT_EQ(MoveWords(FormatTextRecord(r)),
                ExpectedWords(v, start, moves, r.result));
      const std::string text = FormatTextRecord(r);
      EXPECT_THAT(text, HasSubstr(absl::StrCat("[BoardSize \"", spec.board_size,
                                               "\"]\n")));
      EXPECT_EQ(text.find("[MoveCap") != std::string::npos, spec.move_cap != 0);
    }
  }
}

TEST(RecordText, EliminationsAreSkippedInTheNumbering) {
  // A four-seat game with home-exit limit 4 on 8x8 (three pieces each):
  // greedy play leaves home in time, random play gets seats eliminated;
  // games with an eliminated seat while others play on are numbered in
  // the real turn order (ExpectedWords replays the game).
  const Variant v = Custom(Spec(8, 4, {2, 1}, 4));
  std::mt19937 rng(5);
  int with_elimination = 0;
  for (int game = 0; game < 40 && with_elimination < 3; ++game) {
    const std::vector<std::string> moves =
        PlayOut(v, StartPosition(v), 200, &rng, 0.8 + 0.004 * game);
    TextRecord r;
    r.variant = v.spec;
    r.moves = moves;
    const GameRecordResult result = Adjudicate(r);
    r.result = ResultToken(v, result);
    // Eliminated seats that were passed over while the game went on.
    bool skipped = false;
    Position pos = StartPosition(v);
    for (const std::string& m : moves) {
      const GameStatus st = EvaluateStatus(v, pos);
      if (!st.eliminated.Empty() && !st.over) skipped = true;
      pos = CheckMove(v, pos, st, testing_util::Move(m, v.size)).after;
    }
    if (!skipped) continue;
    ++with_elimination;
    ExpectRoundTrip(r);
    const std::vector<std::string> words = MoveWords(FormatTextRecord(r));
    EXPECT_EQ(words, ExpectedWords(v, StartPosition(v), moves, r.result));
    // Some round has fewer moves than seats: the eliminated were skipped.
    int shortest = 4, in_round = -1;
    for (size_t i = 0; i + 1 < words.size(); ++i) {  // Not the result.
      if (words[i].back() == '.') {
        if (in_round >= 0) shortest = std::min(shortest, in_round);
        in_round = 0;
      } else {
        ++in_round;
      }
    }
    EXPECT_LT(shortest, 4) << FormatTextRecord(r);
  }
  EXPECT_EQ(with_elimination, 3);
}

TEST(RecordText, PublicVectorsRoundTripAndGiveTheirResultTokens) {
  const std::vector<json> cases = testdata::ReadJsonLines("vectors/records.jsonl");
  ASSERT_FALSE(cases.empty());
  std::set<std::string> rules;
  for (const json& c : cases) {
    TextRecord r;
    r.variant = SpecOfVector(c["variant"]);
    const Variant v = Custom(r.variant);
    if (c.contains("from")) r.start_position = c["from"];
    r.moves = c["moves"].get<std::vector<std::string>>();
    r.players = std::vector<std::string>(v.seat_count, "");
    r.players[0] = "first";
    const std::string want = TokenOfExpectation(c["expect"]);
    SCOPED_TRACE(want);
    r.result = ResultToken(v, Adjudicate(r));
    EXPECT_EQ(r.result, want);
    rules.insert(want);
    // Text and back; the record adjudicates to the same result.
    const std::string text = FormatTextRecord(r);
    const TextRecord back = MustParse(text);
    EXPECT_TRUE(back == r) << text;
    EXPECT_EQ(ResultToken(VariantOf(back), Adjudicate(back)), want);
    EXPECT_EQ(FormatTextRecord(back), text);
  }
  // Every deciding rule appears among the vectors.
  std::string all;
  for (const std::string& s : rules) all += s + " ";
  for (const char* rule :
       {"win:b:target-filled", "win:b:home-exit", "draw:wb:target-filled",
        "draw:wb:move-cap", "draw:wb:everyone-stuck"}) {
    EXPECT_THAT(all, HasSubstr(rule));
  }
}

TEST(RecordText, ClaimedResultMismatchIsDetectable) {
  for (const json& c : testdata::ReadJsonLines("vectors/records.jsonl")) {
    if (c["expect"]["status"] != "win") continue;
    const std::string truth = TokenOfExpectation(c["expect"]);
    const std::string loser = truth.substr(4, 1) == "w" ? "b" : "w";
    TextRecord r;
    r.variant = SpecOfVector(c["variant"]);
    r.moves = c["moves"].get<std::vector<std::string>>();
    for (const std::string& claim :
         {absl::StrCat("win:", loser, ":target-filled"),
          std::string("draw:wb:move-cap"), std::string("*"),
          std::string("illegal:1:not-your-piece")}) {
      r.result = claim;
      const TextRecord parsed = MustParse(FormatTextRecord(r));
      EXPECT_EQ(parsed.result, claim);
      EXPECT_NE(parsed.result,
                ResultToken(VariantOf(parsed), Adjudicate(parsed)));
    }
    r.result = truth;
    const TextRecord parsed = MustParse(FormatTextRecord(r));
    EXPECT_EQ(parsed.result,
              ResultToken(VariantOf(parsed), Adjudicate(parsed)));
  }
}

TEST(RecordText, ResultTokenOfEliminationWinAndAnIllegalMoveAfterTheEnd) {
  // A four-seat game played until one seat is left: win by home-exit.
  const Variant v = Custom(Spec(8, 4, {2, 1}, 2));
  std::mt19937 rng(11);
  bool seen = false;
  for (int game = 0; game < 100 && !seen; ++game) {
    TextRecord r;
    r.variant = v.spec;
    r.moves = PlayOut(v, StartPosition(v), 400, &rng, 0.2);
    const GameRecordResult result = Adjudicate(r);
    if (!result.status.over || result.status.rule != DecidingRule::kHomeExit) {
      continue;
    }
    seen = true;
    const std::string seat = testing_util::SeatsText(result.status.winners);
    ASSERT_EQ(seat.size(), 1u);
    EXPECT_EQ(ResultToken(v, result), "win:" + seat + ":home-exit");
    // One more move after the end is illegal: game over.
    r.moves.push_back("pass");
    const GameRecordResult after = Adjudicate(r);
    EXPECT_EQ(ResultToken(v, after),
              absl::StrCat("illegal:", r.moves.size(), ":game-over"));
    r.result = ResultToken(v, after);
    ExpectRoundTrip(r);
  }
  EXPECT_TRUE(seen);
}

TEST(RecordText, PositionTagIsCanonicalAndDroppedAtTheStart) {
  const Variant v = Preset("brainking-8x8");
  const TextRecord at_start = MustParse(
      "[Variant \"brainking-8x8\"]\n"
      "[Position \"4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0\"]\n"
      "1. b1-d3 *\n");
  EXPECT_EQ(at_start.start_position, "");
  EXPECT_EQ(FormatTextRecord(at_start).find("Position"), std::string::npos);
  const TextRecord leading_zeros = MustParse(
      "[Variant \"brainking-8x8\"]\n"
      "[Position \"04bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 01,0\"]\n"
      "1... h7-f5\n");
  EXPECT_EQ(leading_zeros.start_position,
            "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
  // A formatter given a non-canonical start writes the canonical one.
  TextRecord r;
  r.variant = v.spec;
  r.start_position = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";
  r.moves = {"b1-d3"};
  EXPECT_EQ(FormatTextRecord(r), "[Variant \"brainking-8x8\"]\n\n1. b1-d3\n");
  // Four seats, b to move in round 3.
  const Variant four = Preset("classic-16x16-4p");
  std::mt19937 rng(1);
  const std::vector<Position> game =
      testing_util::RandomGame(four, StartPosition(four), 10, &rng);
  ASSERT_EQ(game.size(), 11u);
  TextRecord mid;
  mid.variant = four.spec;
  mid.start_position = FormatPosition(game[10], four);  // b, round 3.
  mid.moves = PlayOut(four, game[10], 6, &rng, 0.5);
  const std::string text = FormatTextRecord(mid);
  EXPECT_THAT(
      text, HasSubstr(absl::StrCat("\n\n3... ", mid.moves[0], " ", mid.moves[1],
                                   " 4. ", mid.moves[2])));
  ExpectRoundTrip(mid);
}

TEST(RecordText, SeveralRecordsAndBareRecords) {
  const Variant v = Preset("brainking-10x10");
  std::mt19937 rng(2);
  std::vector<TextRecord> records(4);
  for (TextRecord& r : records) r.variant = v.spec;
  records[0].moves = PlayOut(v, StartPosition(v), 30, &rng, 0.5);
  records[0].result = "*";
  // records[1]: no moves, no result: nothing but its tag.
  records[2].moves = PlayOut(v, StartPosition(v), 7, &rng, 0.5);  // No result.
  records[3].comments = {{0, "only a comment"}};
  std::string text;
  for (const TextRecord& r : records) text += FormatTextRecord(r);
  EXPECT_THAT(text, HasSubstr("[Variant \"brainking-10x10\"]\n"
                              "[Variant \"brainking-10x10\"]\n"));
  absl::StatusOr<std::vector<TextRecord>> parsed = ParseTextRecords(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_TRUE((*parsed)[i] == records[i]) << i;
  }
  // With CRLF line ends and blank lines between.
  const std::string crlf =
      "\r\n" + absl::StrReplaceAll(text, {{"\n", "\r\n\r\n"}}) + "\r\n";
  absl::StatusOr<std::vector<TextRecord>> again = ParseTextRecords(crlf);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_TRUE((*again)[i] == records[i]) << i;
  }
  const std::string first = FormatTextRecord(records[0]);
  EXPECT_THAT(std::string(ParseTextRecord(text).status().message()),
              StartsWith(absl::StrCat(
                  "line ", std::count(first.begin(), first.end(), '\n') + 1,
                  ", column 1: found a second record")));
}

TEST(RecordText, LenientInputAndCanonicalForms) {
  const TextRecord r = MustParse(
      "\xEF\xBB\xBF[ Variant  \"brainking-8x8\" ]\n"
      "[PlayerB \"Bob\"][PlayerW \"\"][Date \"\"]\n"
      "[Result \"draw:bw:everyone-stuck\"]\n"
      "1.b1-d3 {  two\r\nlines\r  } h7-f5;tail \r\n"
      "2. a2-c4 2... h8-f6-f4 draw:bw:everyone-stuck");
  EXPECT_EQ(r.players, (std::vector<std::string>{"", "Bob"}));
  EXPECT_EQ(r.date, "");
  EXPECT_EQ(r.result, "draw:wb:everyone-stuck");
  EXPECT_EQ(r.comments, (std::vector<std::pair<int, std::string>>{
                            {1, "two\nlines"}, {2, "tail"}}));
  EXPECT_EQ(FormatTextRecord(r),
            "[Variant \"brainking-8x8\"]\n[PlayerB \"Bob\"]\n"
            "[Result \"draw:wb:everyone-stuck\"]\n\n"
            "1. b1-d3 {two\nlines} 1... h7-f5 {tail} 2. a2-c4 h8-f6-f4 "
            "draw:wb:everyone-stuck\n");
  ExpectRoundTrip(r);
  // A comment with a brace is written as a ; comment.
  TextRecord brace;
  brace.variant = r.variant;
  brace.moves = {"b1-d3"};
  brace.comments = {{1, "a } b"}};
  brace.result = "*";
  EXPECT_EQ(FormatTextRecord(brace),
            "[Variant \"brainking-8x8\"]\n[Result \"*\"]\n\n"
            "1. b1-d3 ; a } b\n*\n");
  ExpectRoundTrip(brace);
  // Only a Result tag: the record's result.
  EXPECT_EQ(
      MustParse("[Variant \"brainking-8x8\"][Result \"*\"] 1. b1-d3").result,
      "*");
  // A preset's record holds the preset's full specification.
  const TextRecord preset = MustParse("[Variant \"classic-16x16-4p\"]");
  EXPECT_EQ(preset.variant.seat_count, 4);
  EXPECT_EQ(preset.variant.camp_rows, (std::vector<int>{4, 4, 3, 2}));
  EXPECT_TRUE(preset.variant.target_lock);
}

// ---------------------------------------------------------------------------
// Parse errors: line, column, what was found and what was expected.

constexpr char kHead[] = "[Variant \"brainking-8x8\"]\n";

TEST(RecordTextErrors, Structure) {
  EXPECT_EQ(ErrorOf(""),
            "line 1, column 1: found the end of the text, expected a record, "
            "beginning with its tag [Variant \"...\"]");
  EXPECT_EQ(ErrorOf("\n  \n"),
            "line 3, column 1: found the end of the text, expected a record, "
            "beginning with its tag [Variant \"...\"]");
  EXPECT_EQ(ErrorOf("1. b1-d3"),
            "line 1, column 1: found \"1.\", expected a record, beginning with "
            "its tag [Variant \"...\"]");
  EXPECT_EQ(ErrorOf("[Event \"x\"]\n[Variant \"brainking-8x8\"]"),
            "line 1, column 1: found tag \"Event\", expected [Variant "
            "\"...\"], the tag every record begins with");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "1. b1-d3 * 2. c1-e3"),
            "line 2, column 12: found \"2.\", expected the end of the text or "
            "the next record, beginning with its tag [Variant \"...\"]");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "1. b1-d3\n[Date \"x\"]"),
            "line 3, column 1: found tag Date in the move text, expected tags "
            "before the moves, or [Variant \"...\"] to begin the next record");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "{x} [Date \"x\"]"),
            "line 2, column 5: found tag Date in the move text, expected tags "
            "before the moves, or [Variant \"...\"] to begin the next record");
  // Lines end at LF, CRLF or CR.
  EXPECT_THAT(ErrorOf("[Variant \"brainking-8x8\"]\r\n\r\n1. b1-d3\r\r c1-z3"),
              StartsWith("line 5, column 2: move \"c1-z3\": "));
  EXPECT_EQ(ErrorOf(std::string(kHead) + "1. b1-d3 {open"),
            "line 2, column 10: found a comment \"{\" that is never closed, "
            "expected } to end the comment");
}

TEST(RecordTextErrors, Tags) {
  EXPECT_EQ(
      ErrorOf("[\"brainking-8x8\"]"),
      "line 1, column 2: found \"\\\"brainking-8x8\\\"]\", expected a tag "
      "name (a letter, then letters, digits or _)");
  EXPECT_EQ(ErrorOf("[Variant brainking-8x8]"),
            "line 1, column 10: found \"brainking-8x8]\", expected the value "
            "of tag Variant in double quotes");
  EXPECT_EQ(ErrorOf("[Variant \"brainking-8x8\"\n"),
            "line 2, column 1: found the end of the text, expected ] to close "
            "tag Variant");
  EXPECT_EQ(ErrorOf("[Variant \"brainking-8x8"),
            "line 1, column 24: found the end of the text, expected \" to end "
            "the value of tag Variant");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[Event \"a\r\nb\"]"),
            "line 2, column 10: found a line break, expected \" to end the "
            "value of tag Event on its line");
  EXPECT_EQ(
      ErrorOf(std::string(kHead) + "[Event \"a\\n\"]"),
      "line 2, column 10: found \"\\\\n\", expected \\\" or \\\\, the only "
      "escapes in a tag value");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[Event \"a\tb\"]"),
            "line 2, column 10: found \"\\t\", expected a printable character "
            "or \" to end the value of tag Event");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[Date \"1\"]\n[Date \"2\"]"),
            "line 3, column 1: found a second Date tag, expected each of the "
            "format's tags at most once (Date was given at line 2, column 1)");
  EXPECT_EQ(ErrorOf("[Variant \"brainking-9x9\"]"),
            "line 1, column 11: tag Variant: found \"brainking-9x9\", expected "
            "a preset (brainking-8x8, brainking-10x10, iggamecenter-10x10, "
            "classic-16x16, classic-16x16-4p) or custom");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[MoveCap \"20\"]"),
            "line 2, column 1: found tag MoveCap with the preset variant "
            "\"brainking-8x8\", expected the variant's field tags only with "
            "[Variant \"custom\"]");
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[PlayerR \"Rita\"]"),
            "line 2, column 1: found tag PlayerR, expected player tags of the "
            "seats in play: PlayerW, PlayerB");
  EXPECT_THAT(ErrorOf(std::string(kHead) + "[Position \"8/8 w 0,0\"]"),
              StartsWith("line 2, column 12: tag Position: position "
                         "\"8/8 w 0,0\": "));
  EXPECT_EQ(ErrorOf(std::string(kHead) + "[Result \"1-0\"]"),
            "line 2, column 10: tag Result: found result \"1-0\", expected a "
            "result token: *, win:<seat>:<rule>, draw:<seats>:<rule> or "
            "illegal:<ply>:<reason>");
}

TEST(RecordTextErrors, CustomVariants) {
  const std::string head =
      "[Variant \"custom\"]\n[BoardSize \"8\"]\n[Seats \"2\"]\n"
      "[CampRows \"4,3,2,1\"]\n[HomeExit \"0\"]\n[RoundCompletion \"off\"]\n";
  EXPECT_EQ(ErrorOf(head),
            "line 1, column 1: found [Variant \"custom\"] without a TargetLock "
            "tag, expected the tags BoardSize, Seats, CampRows, HomeExit, "
            "RoundCompletion and TargetLock (and optionally MoveCap) in a "
            "record of a custom variant");
  const TextRecord ok = MustParse(head + "[TargetLock \"on\"]");
  EXPECT_EQ(ok.variant.board_size, 8);
  EXPECT_EQ(ok.variant.camp_rows, (std::vector<int>{4, 3, 2, 1}));
  EXPECT_TRUE(ok.variant.target_lock);
  EXPECT_EQ(ok.variant.move_cap, 0);
  EXPECT_EQ(ErrorOf(head + "[TargetLock \"yes\"]"),
            "line 7, column 14: tag TargetLock: found \"yes\", expected on or "
            "off");
  EXPECT_EQ(ErrorOf(head + "[TargetLock \"on\"][MoveCap \"-1\"]"),
            "line 7, column 28: tag MoveCap: found \"-1\", expected a decimal "
            "number (digits, no sign, no leading zeros)");
  EXPECT_EQ(ErrorOf(absl::StrReplaceAll(head, {{"4,3,2,1", "4,,2"}}) +
                    "[TargetLock \"on\"]"),
            "line 4, column 12: tag CampRows: found \"4,,2\", expected row "
            "lengths from the corner's edge, decimal numbers separated by "
            "commas, like \"4,3,2,1\"");
  // MakeVariant's checks, at the tag of the field.
  EXPECT_EQ(ErrorOf(absl::StrReplaceAll(head, {{"\"8\"", "\"3\""}}) +
                    "[TargetLock \"on\"]"),
            "line 2, column 13: tag BoardSize: variant board_size 3: expected "
            "4 to 16");
  EXPECT_THAT(ErrorOf(absl::StrReplaceAll(head, {{"4,3,2,1", "5,5,5,5,5"}}) +
                      "[TargetLock \"on\"]"),
              StartsWith("line 4, column 12: tag CampRows: variant camp_rows "
                         "[5,5,5,5,5]: "));
  EXPECT_EQ(ErrorOf(absl::StrReplaceAll(head, {{"\"2\"", "\"3\""}}) +
                    "[TargetLock \"on\"]"),
            "line 3, column 9: tag Seats: variant seat_count 3: expected 2 "
            "(w, b) or 4 (w, r, b, g)");
}

TEST(RecordTextErrors, MovesAndNumbers) {
  const std::string h = kHead;
  EXPECT_THAT(ErrorOf(h + "1. b1-z3"),
              StartsWith("line 2, column 4: move \"b1-z3\": "));
  EXPECT_EQ(ErrorOf(h + "b1-d3"),
            "line 2, column 1: found \"b1-d3\", expected the move number "
            "\"1.\" before it: w's move begins round 1");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 h7-f5\nc1-e3"),
            "line 3, column 1: found \"c1-e3\", expected the move number "
            "\"2.\" before it: w's move begins round 2");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 h7-f5\n   3. c1-e3"),
            "line 3, column 4: found \"3.\", expected \"2.\": w's move begins "
            "round 2");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 h7-f5 2... c1-e3"),
            "line 2, column 16: found \"2...\", expected \"2.\": w's move "
            "begins round 2");
  EXPECT_EQ(
      ErrorOf(h + "1. b1-d3 2. h7-f5"),
      "line 2, column 10: found \"2.\", expected a move, or \"1...\": b's "
      "move is a later move of round 1");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 01... h7-f5"),
            "line 2, column 10: found \"01...\", expected a move, or \"1...\": "
            "b's move is a later move of round 1");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 12 h7-f5"),
            "line 2, column 10: found \"12\", expected a move number like "
            "\"12.\" (a round's first move) or \"12...\" (a later move of the "
            "round)");
  EXPECT_EQ(ErrorOf(h + "1. 1... b1-d3"),
            "line 2, column 4: found \"1...\", expected a move after \"1.\"");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 1..."),
            "line 2, column 14: found the end of the text, expected a move "
            "after \"1...\"");
  EXPECT_EQ(ErrorOf(h + "1. *"),
            "line 2, column 4: found \"*\", expected a move after \"1.\"");
  const std::string b_to_move =
      "[Variant \"brainking-8x8\"]\n"
      "[Position \"4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0\"]\n";
  EXPECT_EQ(ErrorOf(b_to_move + "h7-f5"),
            "line 3, column 1: found \"h7-f5\", expected the move number "
            "\"1...\" before the record's first move: b moves first, later in "
            "round 1");
  EXPECT_EQ(ErrorOf(b_to_move + "1. h7-f5"),
            "line 3, column 1: found \"1.\", expected a move, or \"1...\": b's "
            "move is a later move of round 1");
  // Numbers of a start position late in the game; a number too large for
  // any count is just a wrong number.
  const std::string late =
      "[Variant \"brainking-8x8\"]\n"
      "[Position \"4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 9223372036854775807,"
      "9223372036854775807\"]\n";
  EXPECT_TRUE(ParseTextRecord(late + "9223372036854775808. b1-d3").ok());
  EXPECT_EQ(ErrorOf(late + "99999999999999999999999. b1-d3"),
            "line 3, column 1: found \"99999999999999999999999.\", expected "
            "\"9223372036854775808.\": w's move begins round "
            "9223372036854775808");
}

TEST(RecordTextErrors, ResultTokens) {
  const std::string h = kHead;
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 win:x:target-filled"),
            "line 2, column 10: found result \"win:x:target-filled\", expected "
            "win:<seat>:<rule> with one seat in play (w, b)");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 win:r:target-filled"),
            "line 2, column 10: found result \"win:r:target-filled\", expected "
            "win:<seat>:<rule> with one seat in play (w, b)");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 draw:ww:move-cap"),
            "line 2, column 10: found result \"draw:ww:move-cap\", expected "
            "draw:<seats>:<rule> with two or more different seats in play (w, "
            "b)");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 win:w:move-cap"),
            "line 2, column 10: found result \"win:w:move-cap\", expected the "
            "rule of a win: target-filled or home-exit");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 draw:wb:home-exit"),
            "line 2, column 10: found result \"draw:wb:home-exit\", expected "
            "the rule of a draw: target-filled, move-cap or everyone-stuck");
  EXPECT_THAT(ErrorOf(h + "1. b1-d3 illegal:1:bad"),
              StartsWith("line 2, column 10: found result \"illegal:1:bad\", "
                         "expected the reason of an illegal move: one of "
                         "game-over, pass-not-allowed, "));
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 illegal:0:game-over"),
            "line 2, column 10: found result \"illegal:0:game-over\", expected "
            "illegal:<ply>:<reason> with the ply a number from 1 (no leading "
            "zeros)");
  EXPECT_EQ(ErrorOf(h + "1. b1-d3 illegal:2:game-over"),
            "line 2, column 10: found \"illegal:2:game-over\", expected "
            "illegal:<ply> with a ply from 1 to 1, the record's moves");
  EXPECT_EQ(ErrorOf(h + "[Result \"illegal:1:game-over\"]"),
            "line 2, column 10: found \"illegal:1:game-over\", expected no "
            "illegal:<ply> result in a record without moves");
  EXPECT_EQ(ErrorOf(h + "[Result \"*\"]\n1. b1-d3 win:w:target-filled"),
            "line 3, column 10: found \"win:w:target-filled\", expected \"*\", "
            "the result the Result tag gives at line 2, column 1");
  EXPECT_TRUE(ParseTextRecord(h + "1. b1-d3 illegal:1:not-your-piece").ok());
}

TEST(RecordTextErrors, MessagesAreBounded) {
  const std::string long_move(100000, 'a');
  const std::string message = ErrorOf(std::string(kHead) + "1. " + long_move);
  EXPECT_THAT(message, StartsWith("line 2, column 4: move \""));
  EXPECT_LT(message.size(), 600u);
  const std::string tag = ErrorOf("[Variant \"" + long_move + "\"]");
  EXPECT_LT(tag.size(), 600u);
  // Deep nesting of brackets costs no recursion: an error at the first.
  EXPECT_THAT(ErrorOf(std::string(kHead) + std::string(100000, '{')),
              StartsWith("line 2, column 1: found a comment"));
}

}  // namespace
}  // namespace halma
