// The games the top level did not win in the strength tables of
// docs/bot.md, kept in testdata/bot_games/ (its README names each file's
// match): each is a legal game that ends as its record says, without the
// top level among the winners, and the top level's moves in them are what
// it answers today, so any of them can be studied move by move.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "agents.h"
#include "gtest/gtest.h"
#include "halma/bot/levels.h"
#include "halma/bot/search.h"
#include "halma/move_check.h"
#include "halma/notation.h"
#include "halma/record_replay.h"
#include "halma/record_text.h"
#include "halma/seat.h"
#include "halma/variant.h"

namespace halma {
namespace {

// The arena's name of the top level, as its Player tags write it.
const std::string kTopLevelAgent = absl::StrCat("level:", bot::kTopLevel);

struct KeptGame {
  std::string file;  // Under testdata/bot_games/.
  TextRecord record;
};

std::vector<KeptGame> ReadKeptGames() {
  std::vector<KeptGame> games;
  // Joined as a path: TestDataPath's string concatenation trips a false
  // -Warray-bounds of GCC 12 here.
  const std::filesystem::path dir =
      std::filesystem::path(HALMA_TESTDATA_DIR) / "bot_games";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<TextRecord>> records =
        ParseTextRecords(text.str());
    if (!records.ok()) {
      ADD_FAILURE() << path << ": " << records.status();
      continue;
    }
    for (TextRecord& record : *records) {
      games.push_back({path.filename().string(), std::move(record)});
    }
  }
  return games;
}

// The value of the record's tag `name` ("" when absent).
std::string Tag(const TextRecord& record, absl::string_view name) {
  for (const auto& [tag, value] : record.extra_tags) {
    if (tag == name) return value;
  }
  return "";
}

std::string Describe(const KeptGame& game) {
  return absl::StrCat(game.file, ", game ", Tag(game.record, "Game"));
}

// The top level's seats (in turn order) in `record` of `variant`.
std::vector<Seat> TopLevelSeats(const Variant& variant,
                                const TextRecord& record) {
  std::vector<Seat> seats;
  for (size_t i = 0; i < record.players.size(); ++i) {
    if (record.players[i] == kTopLevelAgent) seats.push_back(variant.seats[i]);
  }
  return seats;
}

TEST(KeptGamesTest, EveryGameEndsAsItsRecordSaysWithoutTheTopLevelWinning) {
  const std::vector<KeptGame> games = ReadKeptGames();
  ASSERT_FALSE(games.empty()) << "no records in testdata/bot_games";
  for (const KeptGame& game : games) {
    SCOPED_TRACE(Describe(game));
    absl::StatusOr<Variant> variant = MakeVariant(game.record.variant);
    ASSERT_TRUE(variant.ok()) << variant.status();
    ASSERT_TRUE(game.record.start_position.empty());
    absl::StatusOr<GameRecordResult> result =
        AdjudicateRecord(*variant, StartPosition(*variant), game.record.moves);
    ASSERT_TRUE(result.ok()) << result.status();
    const std::string token = ResultToken(*variant, *result);
    EXPECT_EQ(token, game.record.result);
    // Legal to its end: an unfinished game ("*") or a decided one.
    EXPECT_EQ(result->illegal_ply, 0) << token;
    const std::vector<Seat> top = TopLevelSeats(*variant, game.record);
    ASSERT_EQ(top.size(), 1u) << "one seat of " << kTopLevelAgent;
    // "win:<seats>:<rule>": the top level is not among the winners.
    if (token.rfind("win:", 0) == 0) {
      const std::string winners = token.substr(4, token.find(':', 4) - 4);
      EXPECT_EQ(winners.find(SeatLetter(top[0])), std::string::npos) << token;
    }
  }
}

// The answer is a function of the request (docs/bot.md, "Determinism"),
// at the top level's full budget too: asked again, on this machine, in a
// fresh workspace (the arena reuses one per game thread), with the seed
// the arena gave it, the top level answers each position of the first
// kept game on the smallest board (brainking-8x8's against greedy while
// it loses one, about 30 searches in 6 s; else brainking-10x10's) with
// the move the record says it played.
TEST(KeptGamesTest, TheTopLevelAnswersAsItPlayed) {
  const std::vector<KeptGame> games = ReadKeptGames();
  const auto game = std::min_element(
      games.begin(), games.end(), [](const KeptGame& a, const KeptGame& b) {
        return a.record.variant.board_size < b.record.variant.board_size;
      });
  ASSERT_NE(game, games.end()) << "no game kept";
  const TextRecord& record = game->record;
  SCOPED_TRACE(Describe(*game));
  absl::StatusOr<Variant> variant = MakeVariant(record.variant);
  ASSERT_TRUE(variant.ok()) << variant.status();
  const std::vector<Seat> top = TopLevelSeats(*variant, record);
  ASSERT_EQ(top.size(), 1u);
  std::uint64_t match_seed = 0;
  int game_tag = 0;
  int opening_plies = 0;
  ASSERT_TRUE(absl::SimpleAtoi(Tag(record, "Seed"), &match_seed));
  ASSERT_TRUE(absl::SimpleAtoi(Tag(record, "Game"), &game_tag));
  ASSERT_TRUE(absl::SimpleAtoi(Tag(record, "OpeningPlies"), &opening_plies));
  bot::SearchWorkspace workspace;
  int checked = 0;
  Position position = StartPosition(*variant);
  for (int ply = 0; ply < static_cast<int>(record.moves.size()); ++ply) {
    absl::StatusOr<MoveText> move = ParseMove(record.moves[ply], variant->size);
    ASSERT_TRUE(move.ok()) << move.status();
    // The arena's seeded opening comes first, not the agents' moves.
    if (ply >= opening_plies && position.to_move == top[0] && !move->is_pass) {
      bot::SearchOptions options;
      options.level = bot::kTopLevel;
      options.seed = arena::MoveSeed(match_seed, game_tag - 1, ply);
      absl::StatusOr<bot::SearchResult> answer =
          bot::SuggestMove(*variant, position, options, &workspace);
      ASSERT_TRUE(answer.ok()) << answer.status();
      EXPECT_EQ(answer->move().move.origin, move->squares.front())
          << "ply " << ply + 1 << ": " << record.moves[ply];
      EXPECT_EQ(answer->move().move.destination, move->squares.back())
          << "ply " << ply + 1 << ": " << record.moves[ply];
      ++checked;
    }
    position = ApplyMove(*variant, position, *move);
  }
  EXPECT_GT(checked, 10);
}

}  // namespace
}  // namespace halma
