// halma_callgrind_driver: fixed, repeatable engine work for callgrind
// (bench/callgrind.sh runs it), one function per measured part so that
// --toggle-collect counts exactly that part:
//
//   halma_callgrind_driver replay <records file> <preset>
//       ReplayRecords: AdjudicateRecord over every record of the file
//       (bench/data/records), as the service calls it (moves as string
//       views through a FunctionRef, a checkpoint that says OK).
//   halma_callgrind_driver legal <positions file> <preset> <count>
//       LegalMovesAnswer: what the LegalMoves answer needs of the engine
//       for `count` positions spread over the file (bench/data): parse the
//       position, its status, format it, and the legal moves with their
//       paths in answer order (with an engine older than
//       GenerateLegalMovesInAnswerOrder, unordered: its callers sorted them).
//   halma_callgrind_driver playout <records file> <preset>
//       PlayUndo: every record played on a GameState and taken back.
//   halma_callgrind_driver count <positions file> <preset> <count>
//       MoveSet::Count of the move set of `count` positions spread over the
//       file (the popcount of every step and jump layer word).
//   halma_callgrind_driver sorted <positions file> <preset> <count>
//       Only when compiled against an engine older than
//       GenerateLegalMovesInAnswerOrder with its service's headers on the
//       include path and its service library linked (commit f13f5fc):
//       LegalMovesAnswerSorted, what `legal` counts plus the service's sort
//       into answer order (AnswerOrder, called through SortAnswer), the
//       engine work of a LegalMoves answer before the sort moved into the
//       engine.
//
// The functions are never inlined; their names are the toggle patterns.
// The driver prints the counts to divide by (plies, positions, moves).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"
#if __has_include("halma/record_replay.h")
#include "halma/game_state.h"
#include "halma/game_status.h"
#include "halma/record_replay.h"
#define HALMA_HAVE_GAME_STATE 1
#else
// The engine before GameState (commit f13f5fc and earlier), for the
// "before" counts.
#include "halma/game.h"
#include "halma/status.h"
#if __has_include("service/legal_moves_encoding.h")
#include "service/legal_moves_encoding.h"
#define HALMA_HAVE_SERVICE_SORT 1
#endif
#endif

namespace {

std::vector<std::string> ReadLines(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

std::vector<std::vector<std::string>> ReadRecords(const char* path) {
  std::vector<std::vector<std::string>> records;
  for (const std::string& line : ReadLines(path)) {
    std::istringstream words(line);
    std::vector<std::string> moves;
    for (std::string move; words >> move;) moves.push_back(move);
    records.push_back(std::move(moves));
  }
  return records;
}

// Returns the plies replayed.
[[gnu::noinline]] long ReplayRecords(
    const halma::Variant& variant, const halma::Position& start,
    const std::vector<std::vector<absl::string_view>>& records) {
  long plies = 0;
  for (const auto& moves : records) {
    absl::StatusOr<halma::GameRecordResult> result = halma::AdjudicateRecord(
        variant, start, static_cast<int>(moves.size()),
        [&moves](int i) { return moves[i]; }, [] { return absl::OkStatus(); });
    if (!result.ok() || result->illegal_ply != 0) std::abort();
    plies += result->legal_moves_played;
  }
  return plies;
}

struct LegalScratch {
  halma::MoveList list;
  halma::MovePaths paths;
#ifdef HALMA_HAVE_SERVICE_SORT
  std::uint16_t order[halma::kMaxLegalMoves];
#endif
};

// Returns the moves listed.
[[gnu::noinline]] long LegalMovesAnswer(const halma::Variant& variant,
                                        const std::vector<std::string>& texts,
                                        LegalScratch* scratch) {
  long moves = 0;
  for (const std::string& text : texts) {
    absl::StatusOr<halma::Position> position =
        halma::ParsePosition(text, variant);
    if (!position.ok()) std::abort();
    const halma::GameStatus status = halma::EvaluateStatus(variant, *position);
    const std::string formatted = halma::FormatPosition(*position, variant);
    if (formatted.size() != text.size()) std::abort();
    if (!status.over && !status.must_pass) {
#ifdef HALMA_HAVE_GAME_STATE
      // In the answer's order: no sort left for the caller.
      halma::GenerateLegalMovesInAnswerOrder(variant, *position,
                                             position->to_move, &scratch->list,
                                             &scratch->paths);
#else
      // Unordered: the service sorted them (AnswerOrder) after this.
      halma::GenerateLegalMovesWithPaths(variant, *position, position->to_move,
                                         &scratch->list, &scratch->paths);
#endif
      moves += scratch->list.size;
    }
  }
  return moves;
}

#ifdef HALMA_HAVE_SERVICE_SORT
// The service's sort of the moves into answer order (before the engine
// listed them in that order).
[[gnu::noinline]] void SortAnswer(const halma::MoveList& list,
                                  std::uint16_t* order) {
  halma::service::AnswerOrder(list, order);
}

// LegalMovesAnswer and the sort. Returns the moves listed.
[[gnu::noinline]] long LegalMovesAnswerSorted(
    const halma::Variant& variant, const std::vector<std::string>& texts,
    LegalScratch* scratch) {
  long moves = 0;
  for (const std::string& text : texts) {
    absl::StatusOr<halma::Position> position =
        halma::ParsePosition(text, variant);
    if (!position.ok()) std::abort();
    const halma::GameStatus status = halma::EvaluateStatus(variant, *position);
    const std::string formatted = halma::FormatPosition(*position, variant);
    if (formatted.size() != text.size()) std::abort();
    if (!status.over && !status.must_pass) {
      halma::GenerateLegalMovesWithPaths(variant, *position, position->to_move,
                                         &scratch->list, &scratch->paths);
      SortAnswer(scratch->list, scratch->order);
      moves += scratch->list.size;
    }
  }
  return moves;
}
#endif

#ifdef HALMA_HAVE_GAME_STATE
// Plays every record's moves on a GameState, then takes them all back.
[[gnu::noinline]] long PlayUndo(
    const halma::Variant& variant, const halma::Position& start,
    const std::vector<std::vector<std::pair<halma::Square, halma::Square>>>&
        records,
    std::vector<halma::GameState::UndoRecord>* undo) {
  long plies = 0;
  for (const auto& moves : records) {
    halma::GameState state(variant, start);
    undo->clear();
    for (const auto& [origin, destination] : moves) {
      // (0, 0) stands for pass.
      undo->push_back(origin == destination ? state.PlayPass()
                                            : state.Play(origin, destination));
    }
    for (auto it = undo->rbegin(); it != undo->rend(); ++it) state.Undo(*it);
    plies += static_cast<long>(moves.size());
  }
  return plies;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s replay|playout <records> <preset>\n"
                 "       %s legal <positions> <preset> <count>\n",
                 argv[0], argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  absl::StatusOr<halma::Variant> variant = halma::PresetVariant(argv[3]);
  if (!variant.ok()) {
    std::fprintf(stderr, "%s\n", variant.status().ToString().c_str());
    return 2;
  }
  const halma::Position start = halma::StartPosition(*variant);
  if (mode == "replay") {
    const auto records = ReadRecords(argv[2]);
    std::vector<std::vector<absl::string_view>> views;
    for (const auto& moves : records) {
      views.emplace_back(moves.begin(), moves.end());
    }
    std::printf("records %zu plies %ld\n", records.size(),
                ReplayRecords(*variant, start, views));
    return 0;
  }
  if ((mode == "legal" || mode == "sorted") && argc == 5) {
    const std::vector<std::string> all = ReadLines(argv[2]);
    const int count = std::atoi(argv[4]);
    std::vector<std::string> texts;
    for (int i = 0; i < count; ++i) {
      texts.push_back(all[static_cast<size_t>(i) * all.size() / count]);
    }
    auto scratch = std::make_unique<LegalScratch>();
    if (mode == "legal") {
      std::printf("positions %d moves %ld\n", count,
                  LegalMovesAnswer(*variant, texts, scratch.get()));
      return 0;
    }
#ifdef HALMA_HAVE_SERVICE_SORT
    std::printf("positions %d moves %ld\n", count,
                LegalMovesAnswerSorted(*variant, texts, scratch.get()));
    return 0;
#endif
  }
  if (mode == "count" && argc == 5) {
    const std::vector<std::string> all = ReadLines(argv[2]);
    const int count = std::atoi(argv[4]);
    auto set = std::make_unique<halma::MoveSet>();
    long moves = 0;
    for (int i = 0; i < count; ++i) {
      const halma::Position p = *halma::ParsePosition(
          all[static_cast<size_t>(i) * all.size() / count], *variant);
      halma::GenerateMoveSet(*variant, p, p.to_move, set.get());
      moves += set->Count();
    }
    std::printf("positions %d moves %ld\n", count, moves);
    return 0;
  }
#ifdef HALMA_HAVE_GAME_STATE
  if (mode == "playout") {
    std::vector<std::vector<std::pair<halma::Square, halma::Square>>> records;
    for (const auto& moves : ReadRecords(argv[2])) {
      auto& out = records.emplace_back();
      for (const std::string& text : moves) {
        absl::StatusOr<halma::MoveText> move =
            halma::ParseMove(text, variant->size);
        if (!move.ok()) std::abort();
        if (move->is_pass) {
          out.emplace_back(0, 0);
        } else {
          out.emplace_back(move->squares.front(), move->squares.back());
        }
      }
    }
    std::vector<halma::GameState::UndoRecord> undo;
    undo.reserve(1024);
    std::printf("records %zu plies %ld\n", records.size(),
                PlayUndo(*variant, start, records, &undo));
    return 0;
  }
#endif
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
