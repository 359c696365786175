// The arena (docs/bot.md, "Strength"): plays games between two agents and
// reports the score with its interval.
//
//   halma_arena --variant classic-16x16 --a level:8 --b greedy --games 200
//               [--jobs 2] [--seed 1] [--turn-cap 2000] [--opening-plies 4]
//               [--records games.txt] [--quiet] [--first-game 1]
//
// Two-player variants: games in pairs that share a seeded opening (the
// first --opening-plies plies, random moves that lose no distance), A
// with w in the first and b in the second. Four-player variants: A sits at
// one seat and B at the other three; groups of four games share an opening
// and A takes each seat once. Every game's record (the record text format)
// goes to --records, in game order, and is checked: it parses back and the
// engine's replay of it gives the result the arena reports. Everything but
// the time lines is the same for any --jobs. --first-game N plays the games
// numbered N to N + --games - 1 of the same run (the Game tag of a record),
// so one game of a long match can be played again on its own.

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "agents.h"
#include "halma/bot/eval_tables.h"
#include "halma/bot/levels.h"
#include "halma/bot/zobrist.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/record_replay.h"
#include "halma/record_text.h"
#include "halma/variant.h"

namespace halma::arena {
namespace {

using bot::SplitMix64;

struct Flags {
  std::string variant = "brainking-8x8";
  std::string a = "level:1";
  std::string b = "greedy";
  int games = 10;
  int first_game = 1;  // As the records' Game tag counts, from 1.
  int jobs = 1;
  std::uint64_t seed = 1;
  int turn_cap = 2000;
  int opening_plies = 4;
  std::string records;
  bool quiet = false;
  bool show_unfinished = false;
  int print_level = 0;
};

// How one game went, from A's point of view.
enum class Outcome { kWin, kDraw, kLoss, kUnfinished };

struct GameResult {
  Outcome outcome = Outcome::kUnfinished;
  int plies = 0;
  std::string record_text;
  std::string token;
  std::string error;  // A failure of the arena itself (illegal move ...).
  std::string final_position;
  std::vector<double> a_seconds;
  std::vector<double> b_seconds;
  std::int64_t a_nodes = 0;
  int a_moves = 0;
};

double ThreadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// The opening: a random move among those that lose no distance.
bot::BotMove OpeningMove(const Variant& variant, const Position& position,
                         const bot::EvalTables& tables, std::uint64_t seed,
                         MoveList* list) {
  GenerateLegalMoves(variant, position, position.to_move, list);
  SortMoves(list);
  std::vector<LegalMove> forward;
  const int seat = SeatIndex(position.to_move);
  for (const LegalMove& m : *list) {
    if (tables.distance[seat][m.origin] >=
        tables.distance[seat][m.destination]) {
      forward.push_back(m);
    }
  }
  if (forward.empty()) forward.assign(list->begin(), list->end());
  if (forward.empty()) return bot::BotMove::Pass();
  const LegalMove& m = forward[SplitMix64(seed) % forward.size()];
  bot::BotMove move;
  move.origin = m.origin;
  move.destination = m.destination;
  move.hops = m.hops;
  return move;
}

GameResult PlayGame(const Flags& flags, const Variant& variant, int game,
                    Agent* a, Agent* const b[kMaxSeats],
                    const bot::EvalTables& tables, MoveList* list) {
  GameResult result;
  const bool four = variant.seat_count == 4;
  const int group = four ? 4 : 2;
  const int a_turn_index = game % group;
  const Seat a_seat = variant.seats[four ? a_turn_index : a_turn_index];
  const std::uint64_t opening_seed =
      SplitMix64(flags.seed * 0x100000001B3ULL + game / group);
  Agent* seat_agent[kMaxSeats] = {};
  int b_index = 0;
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    seat_agent[SeatIndex(s)] = s == a_seat ? a : b[b_index++];
  }

  const Position start = StartPosition(variant);
  Position position = start;
  GameStatus status = EvaluateStatus(variant, position);
  std::vector<std::string> moves;
  int ply = 0;
  for (; ply < flags.turn_cap && !status.over; ++ply) {
    const Seat mover = position.to_move;
    bot::BotMove move;
    if (ply < flags.opening_plies) {
      move = OpeningMove(
          variant, position, tables,
          SplitMix64(opening_seed ^ static_cast<std::uint64_t>(ply)), list);
    } else {
      const double t0 = ThreadSeconds();
      absl::StatusOr<AgentMove> chosen =
          seat_agent[SeatIndex(mover)]->ChooseMove(
              variant, position, MoveSeed(flags.seed, game, ply));
      const double seconds = ThreadSeconds() - t0;
      if (!chosen.ok()) {
        result.error = absl::StrCat("game ", game, " ply ", ply + 1, ": ",
                                    chosen.status().ToString());
        return result;
      }
      move = chosen->move;
      if (mover == a_seat) {
        result.a_seconds.push_back(seconds);
        result.a_nodes += chosen->nodes;
        ++result.a_moves;
      } else {
        result.b_seconds.push_back(seconds);
      }
    }
    MoveText text;
    if (move.is_pass) {
      text.is_pass = true;
    } else {
      // The full path: a two-square text two apart on a line is a hop.
      Square path[kMaxPathSquares];
      const int length =
          FewestHopPath(variant, position, move.origin, move.destination, path);
      if (length == 0) {
        text.squares = {move.origin, move.destination};
      } else {
        text.squares.assign(path, path + length);
      }
    }
    const MoveCheck check = CheckMove(variant, position, status, text);
    if (check.verdict != MoveVerdict::kLegal) {
      result.error =
          absl::StrCat("game ", game, " ply ", ply + 1, ": '",
                       std::string(1, SeatLetter(mover)), "' chose ",
                       FormatMove(text), ", which is illegal: ", check.message);
      return result;
    }
    moves.push_back(FormatMove(check.path));
    position = check.after;
    status = EvaluateStatus(variant, position);
  }
  result.plies = ply;
  result.final_position = FormatPosition(position, variant);

  GameRecordResult adjudication;
  adjudication.status = status;
  result.token = status.over ? ResultToken(variant, adjudication) : "*";
  if (!status.over) {
    result.outcome = Outcome::kUnfinished;
  } else if (status.winners.Has(a_seat)) {
    result.outcome =
        status.winners.Count() == 1 ? Outcome::kWin : Outcome::kDraw;
  } else {
    result.outcome = Outcome::kLoss;
  }

  TextRecord record;
  record.variant = variant.spec;
  record.extra_tags = {
      {"Event", "halma_arena"},
      {"Game", absl::StrCat(game + 1)},
      {"Seed", absl::StrCat(flags.seed)},
      {"OpeningPlies", absl::StrCat(std::min(flags.opening_plies, ply))},
      {"TurnCap", absl::StrCat(flags.turn_cap)}};
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    record.players.push_back(s == a_seat ? flags.a : flags.b);
  }
  record.moves = moves;
  record.result = result.token;
  result.record_text = FormatTextRecord(record);

  // The record must say what happened: parse it back and replay it.
  absl::StatusOr<TextRecord> parsed = ParseTextRecord(result.record_text);
  if (!parsed.ok()) {
    result.error = absl::StrCat(
        "game ", game + 1,
        ": its record does not parse: ", parsed.status().ToString());
    return result;
  }
  absl::StatusOr<Variant> replay_variant = MakeVariant(parsed->variant);
  absl::StatusOr<GameRecordResult> replay =
      replay_variant.ok()
          ? AdjudicateRecord(*replay_variant, StartPosition(*replay_variant),
                             parsed->moves)
          : absl::StatusOr<GameRecordResult>(replay_variant.status());
  if (!replay.ok()) {
    result.error = absl::StrCat(
        "game ", game + 1, ": replay failed: ", replay.status().ToString());
    return result;
  }
  const std::string replayed = ResultToken(*replay_variant, *replay);
  if (replayed != result.token || parsed->result != result.token) {
    result.error =
        absl::StrCat("game ", game + 1, ": the arena says ", result.token,
                     ", the replay of its record ", replayed);
  }
  return result;
}

// --variant: a preset name, or
// custom:<size>:<seats>:<rows>[:exit=N][:cap=N][:round][:lock], e.g.
// custom:16:2:5,5,4,3,2:lock:cap=200 (classic-16x16 with a move cap).
absl::StatusOr<Variant> ParseVariantFlag(const std::string& text) {
  if (!absl::StartsWith(text, "custom:")) return PresetVariant(text);
  const std::vector<std::string> parts = absl::StrSplit(text, ':');
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--variant \"", text, "\": ", why,
        "; expected custom:<size>:<seats>:<rows>[:exit=N][:cap=N][:round]"
        "[:lock]"));
  };
  if (parts.size() < 4) return bad("too few fields");
  VariantSpec spec;
  if (!absl::SimpleAtoi(parts[1], &spec.board_size) ||
      !absl::SimpleAtoi(parts[2], &spec.seat_count)) {
    return bad("size and seats must be numbers");
  }
  for (absl::string_view row : absl::StrSplit(parts[3], ',')) {
    int n;
    if (!absl::SimpleAtoi(row, &n)) return bad("rows must be numbers");
    spec.camp_rows.push_back(n);
  }
  for (size_t i = 4; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "round") {
      spec.round_completion = true;
    } else if (p == "lock") {
      spec.target_lock = true;
    } else if (absl::StartsWith(p, "exit=")) {
      if (!absl::SimpleAtoi(p.substr(5), &spec.home_exit_limit)) {
        return bad("exit=N needs a number");
      }
    } else if (absl::StartsWith(p, "cap=")) {
      if (!absl::SimpleAtoi(p.substr(4), &spec.move_cap)) {
        return bad("cap=N needs a number");
      }
    } else {
      return bad(absl::StrCat("unknown field \"", p, "\""));
    }
  }
  return MakeVariant(spec);
}

// Wilson score interval (95%).
void Wilson(double p, int n, double* lo, double* hi) {
  const double z = 1.959963984540054;
  const double z2 = z * z;
  const double denominator = 1 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denominator;
  const double half =
      z * std::sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denominator;
  *lo = std::max(0.0, centre - half);
  *hi = std::min(1.0, centre + half);
}

std::string Elo(double p) {
  if (p <= 0) return "-inf";
  if (p >= 1) return "+inf";
  return absl::StrFormat("%+.0f", -400.0 * std::log10(1.0 / p - 1.0));
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i =
      std::min(v.size() - 1, static_cast<size_t>(std::ceil(q * v.size())) - 1);
  return v[i];
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}

absl::Status ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> absl::StatusOr<std::string> {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg, ": expected a value"));
      }
      return std::string(argv[++i]);
    };
    const auto integer = [&](std::int64_t lo, std::int64_t hi,
                             std::int64_t* out) -> absl::Status {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, out) || *out < lo || *out > hi) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg, " \"", *v, "\": expected ", lo, " to ", hi));
      }
      return absl::OkStatus();
    };
    std::int64_t n;
    if (arg == "--variant" || arg == "--a" || arg == "--b" ||
        arg == "--records") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (arg == "--variant") flags->variant = *v;
      if (arg == "--a") flags->a = *v;
      if (arg == "--b") flags->b = *v;
      if (arg == "--records") flags->records = *v;
    } else if (arg == "--games") {
      if (absl::Status s = integer(1, 100000, &n); !s.ok()) return s;
      flags->games = static_cast<int>(n);
    } else if (arg == "--first-game") {
      if (absl::Status s = integer(1, 100000, &n); !s.ok()) return s;
      flags->first_game = static_cast<int>(n);
    } else if (arg == "--jobs") {
      if (absl::Status s = integer(1, 256, &n); !s.ok()) return s;
      flags->jobs = static_cast<int>(n);
    } else if (arg == "--seed") {
      if (absl::Status s = integer(0, INT64_MAX, &n); !s.ok()) return s;
      flags->seed = static_cast<std::uint64_t>(n);
    } else if (arg == "--turn-cap") {
      if (absl::Status s = integer(1, 1000000, &n); !s.ok()) return s;
      flags->turn_cap = static_cast<int>(n);
    } else if (arg == "--opening-plies") {
      if (absl::Status s = integer(0, 1000, &n); !s.ok()) return s;
      flags->opening_plies = static_cast<int>(n);
    } else if (arg == "--quiet") {
      flags->quiet = true;
    } else if (arg == "--show-unfinished") {
      flags->show_unfinished = true;
    } else if (arg == "--print-level") {
      if (absl::Status s = integer(bot::kMinLevel, bot::kTopLevel, &n);
          !s.ok()) {
        return s;
      }
      flags->print_level = static_cast<int>(n);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown flag \"", arg,
          "\"; expected --variant, --a, --b, --games, --jobs, --seed, "
          "--turn-cap, --opening-plies, --records, --quiet, "
          "--show-unfinished, --first-game"));
    }
  }
  if (absl::Status s = CheckAgentSpec(flags->a); !s.ok()) return s;
  if (absl::Status s = CheckAgentSpec(flags->b); !s.ok()) return s;
  return absl::OkStatus();
}

// How an error about the records file starts: the flag and its path, cut
// short (a path is the user's text, and may be long).
std::string RecordsFlagInError(const std::string& path) {
  return absl::StrCat("halma_arena: --records \"", path.substr(0, 200), "\"");
}

int Main(int argc, char** argv) {
  Flags flags;
  if (absl::Status s = ParseFlags(argc, argv, &flags); !s.ok()) {
    std::cerr << "halma_arena: " << s.message() << "\n";
    return 2;
  }
  if (flags.print_level > 0) {
    const bot::LevelSpec& l = bot::LevelSpecOf(flags.print_level);
    std::cout << absl::StrFormat(
        "level %d: node_budget=%d depth_limit=%d beam=%d choice_pool=%d "
        "temperature=%d\n",
        l.level, l.node_budget, l.depth_limit, l.beam, l.choice_pool,
        l.temperature);
    return 0;
  }
  absl::StatusOr<Variant> variant = ParseVariantFlag(flags.variant);
  if (!variant.ok()) {
    std::cerr << "halma_arena: " << variant.status().message() << "\n";
    return 2;
  }
  bot::EvalTables tables;
  bot::BuildEvalTables(*variant, bot::EvalWeights(), &tables);
  // Opened before the first game, so that a path that cannot be written
  // (a directory, a missing folder) stops the run now, not after hours of
  // play whose records would be lost.
  std::ofstream records_out;
  if (!flags.records.empty()) {
    records_out.open(flags.records, std::ios::binary | std::ios::trunc);
    if (!records_out) {
      std::cerr << RecordsFlagInError(flags.records)
                << ": cannot be opened for writing; expected the path of a "
                   "file to write the games' records to\n";
      return 2;
    }
  }

  std::vector<GameResult> results(flags.games);
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::atomic<bool> failed{false};
  const auto worker = [&]() {
    absl::StatusOr<std::unique_ptr<Agent>> a = MakeAgent(flags.a);
    std::unique_ptr<Agent> b[kMaxSeats];
    Agent* b_raw[kMaxSeats] = {};
    for (int i = 0; i < kMaxSeats; ++i) {
      absl::StatusOr<std::unique_ptr<Agent>> made = MakeAgent(flags.b);
      if (!made.ok() || !a.ok()) {
        failed = true;
        return;
      }
      b[i] = std::move(*made);
      b_raw[i] = b[i].get();
    }
    auto list = std::make_unique<MoveList>();
    for (int game = next++; game < flags.games && !failed; game = next++) {
      results[game] = PlayGame(flags, *variant, flags.first_game - 1 + game,
                               a->get(), b_raw, tables, list.get());
      if (!results[game].error.empty()) failed = true;
      const int finished = ++done;
      if (!flags.quiet) {
        std::cerr << "\rhalma_arena: " << finished << "/" << flags.games
                  << " games" << std::flush;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::min(flags.jobs, flags.games); ++j) {
    threads.emplace_back(worker);
  }
  for (auto& t : threads) t.join();
  if (!flags.quiet) std::cerr << "\n";

  int wins = 0, draws = 0, losses = 0, unfinished = 0;
  long plies = 0;
  std::int64_t a_nodes = 0;
  int a_moves = 0;
  std::vector<double> a_seconds, b_seconds;
  std::string text;
  for (const GameResult& r : results) {
    if (!r.error.empty()) {
      std::cerr << "halma_arena: " << r.error << "\n";
      return 1;
    }
    switch (r.outcome) {
      case Outcome::kWin:
        ++wins;
        break;
      case Outcome::kDraw:
        ++draws;
        break;
      case Outcome::kLoss:
        ++losses;
        break;
      case Outcome::kUnfinished:
        ++unfinished;
        if (flags.show_unfinished) {
          std::cerr << "unfinished: " << r.final_position << "\n";
        }
        break;
    }
    plies += r.plies;
    a_nodes += r.a_nodes;
    a_moves += r.a_moves;
    a_seconds.insert(a_seconds.end(), r.a_seconds.begin(), r.a_seconds.end());
    b_seconds.insert(b_seconds.end(), r.b_seconds.begin(), r.b_seconds.end());
    text += r.record_text;
  }
  if (failed) {
    std::cerr << "halma_arena: an agent could not be built\n";
    return 1;
  }
  if (records_out.is_open()) {
    records_out << text;
    records_out.flush();
    if (!records_out) {
      std::cerr << RecordsFlagInError(flags.records)
                << ": the games' records could not be written (a full "
                   "disk?)\n";
      return 1;
    }
  }

  const int n = flags.games;
  // Unfinished games count as draws in the score.
  const double score = (wins + 0.5 * (draws + unfinished)) / n;
  double lo, hi;
  Wilson(score, n, &lo, &hi);
  const bool four = variant->seat_count == 4;
  std::cout << absl::StrFormat(
      "arena: %s, A = %s, B = %s%s, %d games, seed %d, turn cap %d plies, "
      "opening %d plies\n",
      flags.variant, flags.a, flags.b, four ? " (three seats)" : "", n,
      flags.seed, flags.turn_cap, flags.opening_plies);
  std::cout << absl::StrFormat(
      "A %s %d, draws %d, %s %d, unfinished (turn cap) %d\n",
      four ? "finished first" : "wins", wins, draws,
      four ? "another seat first" : "losses", losses, unfinished);
  std::cout << absl::StrFormat(
      "A score %.1f%% (95%% CI %.1f%%..%.1f%%, Wilson), Elo %s (%s..%s)\n",
      100 * score, 100 * lo, 100 * hi, Elo(score), Elo(lo), Elo(hi));
  std::cout << absl::StrFormat(
      "average game length %.1f plies; A %.0f nodes per move\n",
      static_cast<double>(plies) / n,
      a_moves > 0 ? static_cast<double>(a_nodes) / a_moves : 0.0);
  std::cout << absl::StrFormat(
      "time per move (CPU): A mean %.2f ms, p99 %.2f ms, max %.2f ms; B mean "
      "%.2f ms, p99 %.2f ms\n",
      1e3 * Mean(a_seconds), 1e3 * Percentile(a_seconds, 0.99),
      a_seconds.empty()
          ? 0.0
          : 1e3 * *std::max_element(a_seconds.begin(), a_seconds.end()),
      1e3 * Mean(b_seconds), 1e3 * Percentile(b_seconds, 0.99));
  std::cout << absl::StrFormat(
      "records: %s (each parsed back and replayed by the engine: %d of %d "
      "give the reported result)\n",
      flags.records.empty() ? "(not kept)" : flags.records, n, n);
  std::cout << absl::StrFormat(
      "RESULT variant=%s a=%s b=%s games=%d wins=%d draws=%d losses=%d "
      "unfinished=%d score=%.4f lo=%.4f hi=%.4f elo=%s elo_lo=%s elo_hi=%s "
      "plies=%.1f a_ms=%.3f a_p99_ms=%.3f a_max_ms=%.3f b_ms=%.3f "
      "a_nodes=%.0f\n",
      flags.variant, flags.a, flags.b, n, wins, draws, losses, unfinished,
      score, lo, hi, Elo(score), Elo(lo), Elo(hi),
      static_cast<double>(plies) / n, 1e3 * Mean(a_seconds),
      1e3 * Percentile(a_seconds, 0.99),
      a_seconds.empty()
          ? 0.0
          : 1e3 * *std::max_element(a_seconds.begin(), a_seconds.end()),
      1e3 * Mean(b_seconds),
      a_moves > 0 ? static_cast<double>(a_nodes) / a_moves : 0.0);
  return 0;
}

}  // namespace
}  // namespace halma::arena

int main(int argc, char** argv) { return halma::arena::Main(argc, argv); }
