// Differential test: the engine against the reference implementation of
// the rules, docs/rules.md (reference.h), on every position of seeded playouts
// that mix progress-greedy and random moves.
//
// For each position it compares the position strings, the status (section
// 5 to 7), the legal (origin, destination) sets with their fewest-hop counts,
// the fewest-hop paths (checked hop by hop on the reference board), move
// checks of the move played (in several notations) and of random, mostly
// illegal, probe moves, and the position after the move.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "halma/flood_fill.h"
#include "halma/game_state.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "nlohmann/json.hpp"
#include "reference.h"
#include "tests/testdata.h"

namespace halma {
namespace {

namespace ref = halma_ref;

// ---------------------------------------------------------------------------
// Conversions between the engine's types and the reference's plain ones.

ref::Sq ToRef(Square s) { return ref::Sq{FileOf(s), RankOf(s)}; }
Square ToEngine(ref::Sq s) { return MakeSquare(s.x, s.y); }
Seat SeatOf(char letter) {
  Seat s = Seat::kW;
  SeatFromLetter(letter, &s);
  return s;
}
std::string Letters(SeatSet set) {
  std::string out;
  for (int i = 0; i < kMaxSeats; ++i) {
    if (set.Has(SeatAt(i))) out += SeatLetter(SeatAt(i));
  }
  return out;
}
std::string PathText(const std::vector<ref::Sq>& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += '-';
    out += ref::SquareName(path[i]);
  }
  return out;
}
std::string MoveStr(const ref::Move& m) {
  return ref::SquareName(m.from) + "-" + ref::SquareName(m.to) + "/" +
         std::to_string(m.hops);
}
halma::MoveText EngineMove(const std::vector<ref::Sq>& path) {
  halma::MoveText m;
  for (const ref::Sq& s : path) m.squares.push_back(ToEngine(s));
  return m;
}
halma::MoveText PassMove() {
  halma::MoveText m;
  m.is_pass = true;
  return m;
}

std::vector<ref::Move> FromEngine(const MoveList& list) {
  std::vector<ref::Move> out;
  out.reserve(list.size);
  for (const LegalMove& m : list) {
    out.push_back(ref::Move{ToRef(m.origin), ToRef(m.destination), m.hops});
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What differs between two sorted legal-move sets, briefly.
std::string Diff(const std::vector<ref::Move>& want,
                 const std::vector<ref::Move>& got) {
  std::vector<ref::Move> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  std::ostringstream out;
  out << "reference has " << want.size() << " moves, engine " << got.size()
      << ";";
  const auto list = [&](const char* what, const std::vector<ref::Move>& v) {
    if (v.empty()) return;
    out << " " << what << ":";
    for (size_t i = 0; i < v.size() && i < 12; ++i) out << " " << MoveStr(v[i]);
    if (v.size() > 12) out << " ...";
  };
  list("only in reference (origin-destination/hops)", missing);
  list("only in engine", extra);
  return out.str();
}

// ---------------------------------------------------------------------------
// Configurations.

struct Fields {
  int n = 0;
  int seats = 2;
  std::vector<int> rows;
  int home_exit = 0;
  bool round_completion = false;
  bool target_lock = false;
  int move_cap = 0;
};

struct Config {
  std::string label;  // A preset name, or a name for a custom variant.
  bool preset = true;
  Fields fields;  // Custom variants.
  long min_positions = 100000;
  int ply_cap = 1000;        // Plies per game before the playout stops.
  int lazy_percent = 0;      // Chance per seat and game to keep a piece home.
  bool brute_force = false;  // Also check the reference's search itself.
  std::uint32_t seed = 1;
  // Each seat plays greedy moves with a chance drawn per game from
  // greedy_min .. greedy_min + greedy_span - 1 percent.
  int greedy_min = 55;
  int greedy_span = 41;
};

Config Preset(const std::string& name, int ply_cap, int lazy_percent,
              std::uint32_t seed) {
  Config c;
  c.label = name;
  c.ply_cap = ply_cap;
  c.lazy_percent = lazy_percent;
  c.seed = seed;
  return c;
}

Config Custom(const std::string& label, Fields fields, long positions,
              int ply_cap, int lazy_percent, std::uint32_t seed,
              bool brute_force) {
  Config c;
  c.label = label;
  c.preset = false;
  c.fields = std::move(fields);
  c.min_positions = positions;
  c.ply_cap = ply_cap;
  c.lazy_percent = lazy_percent;
  c.seed = seed;
  c.brute_force = brute_force;
  return c;
}

// ---------------------------------------------------------------------------
// Statistics, printed once per configuration.

struct Stats {
  long positions = 0;
  long games = 0;
  long finished_games = 0;
  long capped_games = 0;
  long moves_compared = 0;
  long paths_checked = 0;
  long move_checks = 0;
  long probes = 0;
  long legal_probes = 0;
  long states_compared = 0;
  int max_hops = 0;
  std::map<std::string, long> status_kinds;
  std::map<std::string, long> results;
  std::map<std::string, long> probe_verdicts;
  long failures = 0;
  double seconds = 0;
};

std::string Summary(const std::string& label, const Stats& s) {
  std::ostringstream out;
  out << "[differential] " << label << ": " << s.positions
      << " positions compared in " << s.games << " games (" << s.seconds
      << " s); " << s.moves_compared << " legal moves and " << s.paths_checked
      << " paths compared, max fewest hops " << s.max_hops << "; "
      << s.move_checks << " move checks of played moves, " << s.probes
      << " probe moves (" << s.legal_probes << " legal); " << s.states_compared
      << " incremental states (GameState::Play, Undo) compared\n";
  out << "[differential] " << label << ": finished games " << s.finished_games
      << " {";
  bool first = true;
  for (const auto& [k, v] : s.results) {
    out << (first ? "" : ", ") << k << ": " << v;
    first = false;
  }
  out << "}, stopped at the ply cap " << s.capped_games << "\n";
  out << "[differential] " << label << ": statuses seen {";
  first = true;
  for (const auto& [k, v] : s.status_kinds) {
    out << (first ? "" : ", ") << k << ": " << v;
    first = false;
  }
  out << "}\n[differential] " << label << ": probe verdicts {";
  first = true;
  for (const auto& [k, v] : s.probe_verdicts) {
    out << (first ? "" : ", ") << k << ": " << v;
    first = false;
  }
  out << "}\n";
  return out.str();
}

// All summaries of this process, printed again at the end as one table.
std::vector<std::string>& AllSummaries() {
  static auto* v = new std::vector<std::string>;
  return *v;
}

// ---------------------------------------------------------------------------
// The comparison of one configuration.

class Runner {
 public:
  explicit Runner(Config config)
      : config_(std::move(config)),
        list_(std::make_unique<MoveList>()),
        list2_(std::make_unique<MoveList>()),
        paths_(std::make_unique<MovePaths>()),
        set_(std::make_unique<MoveSet>()) {}

  bool Init() {
    if (config_.preset) {
      absl::StatusOr<Variant> v = PresetVariant(config_.label);
      if (!v.ok()) {
        ADD_FAILURE() << v.status();
        return false;
      }
      variant_ = *v;
      if (!ref::PresetRules(config_.label, &rules_)) {
        ADD_FAILURE() << "reference has no preset " << config_.label;
        return false;
      }
    } else {
      const Fields& f = config_.fields;
      VariantSpec spec;
      spec.board_size = f.n;
      spec.seat_count = f.seats;
      spec.camp_rows = f.rows;
      spec.home_exit_limit = f.home_exit;
      spec.round_completion = f.round_completion;
      spec.target_lock = f.target_lock;
      spec.move_cap = f.move_cap;
      absl::StatusOr<Variant> v = MakeVariant(spec);
      if (!v.ok()) {
        ADD_FAILURE() << v.status();
        return false;
      }
      variant_ = *v;
      std::string why;
      if (!ref::MakeRules(f.n, f.seats, f.rows, f.home_exit, f.round_completion,
                          f.target_lock, f.move_cap, &rules_, &why)) {
        ADD_FAILURE() << "reference rejects " << config_.label << ": " << why;
        return false;
      }
      rules_.name = config_.label;
    }
    return true;
  }

  void Run() {
    if (!Init()) return;
    const auto start = std::chrono::steady_clock::now();
    for (long game = 0; stats_.positions < config_.min_positions; ++game) {
      PlayGame(game);
      if (stats_.failures > 200) break;  // Enough to go on.
    }
    stats_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const std::string summary = Summary(config_.label, stats_);
    std::fputs(summary.c_str(), stdout);
    std::fflush(stdout);
    AllSummaries().push_back(summary);
    EXPECT_EQ(stats_.failures, 0)
        << stats_.failures << " mismatches between engine and reference for "
        << config_.label << " (the first ones are reported above)";
  }

  const Stats& stats() const { return stats_; }

 private:
  static constexpr int kMaxReported = 12;

  void Fail(const std::string& what, const std::string& position,
            const std::string& detail) {
    ++stats_.failures;
    if (stats_.failures <= kMaxReported) {
      ADD_FAILURE() << config_.label << ": " << what
                    << "\n  position: " << position << "\n  " << detail;
    }
  }

  std::uint32_t Random(std::uint32_t n) { return rng_() % n; }

  void PlayGame(long game) {
    rng_.seed(config_.seed * 1000003u + static_cast<std::uint32_t>(game));
    ++stats_.games;
    // Per seat: how greedy it plays, and whether it keeps one piece at home.
    ref::PlayoutPolicy policy[4];
    for (int i = 0; i < rules_.SeatCount(); ++i) {
      policy[i].greedy_percent =
          config_.greedy_min +
          static_cast<int>(
              Random(static_cast<std::uint32_t>(config_.greedy_span)));
      if (static_cast<int>(Random(100)) < config_.lazy_percent) {
        const char seat = rules_.seats[i];
        std::vector<ref::Sq> home;
        for (int y = 0; y < rules_.n; ++y) {
          for (int x = 0; x < rules_.n; ++x) {
            if (rules_.InHome(seat, x, y)) home.push_back(ref::Sq{x, y});
          }
        }
        policy[i].has_lazy = true;
        policy[i].lazy = home[Random(static_cast<std::uint32_t>(home.size()))];
      }
    }
    PlayFrom(StartPosition(variant_), ref::StartBoard(rules_), config_.ply_cap,
             policy);
  }

  // Compares the position and plays on from it until the game is over or
  // `ply_cap` moves were played.
  //
  // A GameState plays the same moves alongside: after every move its
  // position, tallies and status must equal those of a state built from
  // the position afresh (EvaluateStatus's, compared with the reference
  // above), and Undo must give back the state before the move.
  void PlayFrom(Position pos, ref::Board board, int ply_cap,
                const ref::PlayoutPolicy* policy) {
    GameState state(variant_, pos);
    for (int ply = 0;; ++ply) {
      if (ply > 0) CompareState(&state, pos);
      ref::Status rs;
      GameStatus es;
      std::vector<ref::Move> moves;
      if (!ComparePosition(pos, board, &es, &rs, &moves)) return;
      if (rs.over) {
        ++stats_.finished_games;
        ++stats_.results[rs.rule + (rs.winners.size() == 1 ? " win" : " draw")];
        return;
      }
      if (ply >= ply_cap) {
        ++stats_.capped_games;
        return;
      }
      if (!PlayMove(pos, board, es, rs, moves, policy, &pos, &board)) return;
    }
  }

 public:
  // Random well-formed positions, reachable in play or not: pieces placed at
  // random, some seats packed (or nearly) into their target camp, move
  // counts that fit alternate play. Each one is compared, then played on for
  // a few plies. This reaches rare statuses (a round-completion turn that
  // must pass, everyone stuck, ...) that playouts seldom produce.
  void RunRandomPositions(long count, int plies_after) {
    if (!Init()) return;
    const auto start = std::chrono::steady_clock::now();
    long rejected = 0;
    for (long i = 0; i < count && stats_.failures <= 200; ++i) {
      rng_.seed(config_.seed * 7919u + static_cast<std::uint32_t>(i));
      ref::Board board;
      if (!RandomBoard(&board)) {
        ++rejected;
        continue;
      }
      const std::string text = ref::FormatBoard(rules_, board);
      absl::StatusOr<Position> pos = ParsePosition(text, variant_);
      if (!pos.ok()) {
        Fail("ParsePosition rejects a well-formed position", text,
             pos.status().ToString());
        continue;
      }
      ++stats_.games;
      ref::PlayoutPolicy policy[4];
      PlayFrom(*pos, board, plies_after, policy);
    }
    stats_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const std::string summary =
        Summary(config_.label + " (random positions)", stats_);
    std::fputs(summary.c_str(), stdout);
    std::fflush(stdout);
    AllSummaries().push_back(summary);
    EXPECT_EQ(stats_.failures, 0)
        << stats_.failures << " mismatches between engine and reference for "
        << config_.label << " (random positions; the first ones are above)";
  }

 private:
  // Plays on `state` the move that took it to `after` (a pass when the
  // mover's pieces did not change), then compares.
  void CompareState(GameState* state, const Position& after) {
    ++stats_.states_compared;
    const Position& before = state->position();
    const int mover = SeatIndex(before.to_move);
    const Bitboard left = before.pieces[mover] & ~after.pieces[mover];
    const Bitboard arrived = after.pieces[mover] & ~before.pieces[mover];
    const GameState copy = *state;
    const bool pass = !left.Any();
    Square origin = 0, destination = 0;
    ForEachSquare(left, [&](Square s) { origin = s; });
    ForEachSquare(arrived, [&](Square s) { destination = s; });
    const GameState::UndoRecord undo =
        pass ? state->PlayPass() : state->Play(origin, destination);
    const std::string text = FormatPosition(after, variant_);
    const GameState fresh(variant_, after);
    if (!(state->position() == after)) {
      Fail("GameState's position after Play differs from ApplyMove's", text,
           "GameState: " + FormatPosition(state->position(), variant_));
    } else if (!(*state == fresh)) {
      Fail("GameState after Play differs from one built from its position",
           text,
           std::string("incremental over/finished/eliminated/must_pass ") +
               (state->status().over ? "1" : "0") +
               Letters(state->status().finished) + "/" +
               Letters(state->status().eliminated) + "/" +
               (state->status().must_pass ? "1" : "0") + ", fresh " +
               (fresh.status().over ? "1" : "0") +
               Letters(fresh.status().finished) + "/" +
               Letters(fresh.status().eliminated) + "/" +
               (fresh.status().must_pass ? "1" : "0"));
    }
    GameState undone = *state;
    undone.Undo(undo);
    if (!(undone == copy)) {
      Fail("GameState::Undo does not restore the state before Play", text,
           "before: " + FormatPosition(copy.position(), variant_));
    }
  }

  bool RandomBoard(ref::Board* out) {
    ref::Board b;
    for (auto& row : b.cell) {
      for (char& c : row) c = ref::kEmpty;
    }
    const int k = rules_.SeatCount();
    // Seats in a random order, each placed in one of several ways.
    std::string order = rules_.seats;
    for (int i = k - 1; i > 0; --i) {
      std::swap(order[i], order[Random(static_cast<std::uint32_t>(i + 1))]);
    }
    for (char seat : order) {
      const int mode = static_cast<int>(Random(6));
      int left = rules_.pieces_per_seat;
      if (mode >= 3) {  // Into the target camp: all, or all but one or two.
        int keep_out = mode == 3 ? 0 : static_cast<int>(Random(3));
        std::vector<ref::Sq> free;
        for (int y = 0; y < rules_.n; ++y) {
          for (int x = 0; x < rules_.n; ++x) {
            if (rules_.InTarget(seat, x, y) && b.cell[y][x] == ref::kEmpty) {
              free.push_back(ref::Sq{x, y});
            }
          }
        }
        while (left > keep_out && !free.empty()) {
          const size_t j = Random(static_cast<std::uint32_t>(free.size()));
          b.cell[free[j].y][free[j].x] = seat;
          free.erase(free.begin() + static_cast<long>(j));
          --left;
        }
      }
      std::vector<ref::Sq> free;
      for (int y = 0; y < rules_.n; ++y) {
        for (int x = 0; x < rules_.n; ++x) {
          // Mode 1 keeps the seat at home or near it (home-exit cases).
          const bool ok =
              mode != 1 || rules_.InHome(seat, x, y) ||
              ref::DistanceToTarget(rules_, seat, ref::Sq{x, y}) > rules_.n;
          if (ok && b.cell[y][x] == ref::kEmpty) free.push_back(ref::Sq{x, y});
        }
      }
      if (static_cast<int>(free.size()) < left) {
        for (int y = 0; y < rules_.n; ++y) {
          for (int x = 0; x < rules_.n; ++x) {
            if (b.cell[y][x] == ref::kEmpty &&
                !(mode != 1 || rules_.InHome(seat, x, y) ||
                  ref::DistanceToTarget(rules_, seat, ref::Sq{x, y}) >
                      rules_.n)) {
              free.push_back(ref::Sq{x, y});
            }
          }
        }
      }
      if (static_cast<int>(free.size()) < left) return false;
      while (left > 0) {
        const size_t j = Random(static_cast<std::uint32_t>(free.size()));
        b.cell[free[j].y][free[j].x] = seat;
        free.erase(free.begin() + static_cast<long>(j));
        --left;
      }
    }
    // Move counts of alternate play, `to_move` after `base` moves.
    const int t = static_cast<int>(Random(static_cast<std::uint32_t>(k)));
    b.to_move = rules_.seats[t];
    int limit = 40;
    if (rules_.home_exit_limit > 0) limit = 2 * rules_.home_exit_limit + 4;
    if (rules_.move_cap > 0) limit = rules_.move_cap + 1;
    int base = static_cast<int>(Random(static_cast<std::uint32_t>(limit)));
    if (Random(8) == 0) base = 0;
    if (rules_.move_cap > 0 && t > 0)
      base = std::min(base, rules_.move_cap - 1);
    for (int i = 0; i < k; ++i) b.moves[i] = base + (i < t ? 1 : 0);
    // Four seats: an eliminated seat may have stopped earlier.
    if (k == 4) {
      for (int i = 0; i < k; ++i) {
        const char seat = rules_.seats[i];
        if (ref::BrokeHomeExit(rules_, b, seat)) {
          if (i == t) return false;  // The side to move is still playing.
          if (Random(2) == 0) {
            const int low = rules_.home_exit_limit + 1;
            b.moves[i] =
                low + static_cast<int>(Random(
                          static_cast<std::uint32_t>(b.moves[i] - low + 1)));
          }
        }
      }
    }
    *out = b;
    return true;
  }

 private:
  // Compares everything about one position; false when the game cannot go
  // on (the two sides disagree on the position itself).
  bool ComparePosition(const Position& pos, const ref::Board& board,
                       GameStatus* es_out, ref::Status* rs_out,
                       std::vector<ref::Move>* moves_out) {
    ++stats_.positions;
    const std::string text = ref::FormatBoard(rules_, board);
    const std::string e_text = FormatPosition(pos, variant_);
    if (text != e_text) {
      Fail("position strings differ", text, "engine: " + e_text);
      return false;
    }
    absl::StatusOr<Position> parsed = ParsePosition(text, variant_);
    if (!parsed.ok() || !(*parsed == pos)) {
      Fail("ParsePosition(FormatPosition(p)) != p", text,
           parsed.ok() ? "parsed differently" : parsed.status().ToString());
    }

    // Status.
    const GameStatus es = EvaluateStatus(variant_, pos);
    const ref::Status rs = ref::Evaluate(rules_, board);
    CompareStatus(es, rs, text);
    std::string kind = rs.over ? "over/" + rs.rule +
                                     (rs.winners.size() == 1 ? " win" : " draw")
                               : "in-progress";
    if (!rs.over && rs.must_pass) kind += "/must-pass";
    if (!rs.over && rs.round_completion_turn) kind += "/round-completion-turn";
    if (!rs.eliminated.empty()) kind += "/with-eliminated";
    ++stats_.status_kinds[kind];

    // Legal moves of the side to move, and every so often of every seat.
    ref::LegalMoves(rules_, board, board.to_move, moves_out);
    CompareLegalSet(pos, board, board.to_move, *moves_out, text);
    if (stats_.positions % 4 == 0) {
      std::vector<ref::Move> other;
      for (char seat : rules_.seats) {
        if (seat == board.to_move) continue;
        ref::LegalMoves(rules_, board, seat, &other);
        CompareLegalSet(pos, board, seat, other, text);
      }
    }
    if (config_.brute_force) CheckReferenceSearch(board, *moves_out, text);

    ComparePaths(pos, board, *moves_out, text);
    CompareFilteredAndFewestPaths(pos, board, *moves_out, text);
    *es_out = es;
    *rs_out = rs;
    return true;
  }

  void CompareStatus(const GameStatus& es, const ref::Status& rs,
                     const std::string& text) {
    std::ostringstream want, got;
    const auto print =
        [](std::ostringstream& o, bool over, const std::string& winners,
           const std::string& rule, char to_move, bool rc, bool must_pass,
           const std::string& eliminated, const std::string& finished) {
          o << (over ? "over" : "in progress") << " winners=" << winners
            << " rule=" << rule << " to_move=" << to_move << " rc_turn=" << rc
            << " must_pass=" << must_pass << " eliminated=" << eliminated
            << " finished=" << finished;
        };
    print(want, rs.over, rs.winners, rs.rule, rs.to_move,
          rs.round_completion_turn, rs.must_pass, rs.eliminated, rs.finished);
    print(got, es.over, Letters(es.winners), DecidingRuleName(es.rule),
          SeatLetter(es.to_move), es.round_completion_turn, es.must_pass,
          Letters(es.eliminated), Letters(es.finished));
    if (want.str() != got.str()) {
      Fail("EvaluateStatus differs", text,
           "reference: " + want.str() + "\n  engine:    " + got.str());
    }
  }

  void CompareLegalSet(const Position& pos, const ref::Board& board, char seat,
                       const std::vector<ref::Move>& want,
                       const std::string& text) {
    GenerateLegalMoves(variant_, pos, SeatOf(seat), list_.get());
    const std::vector<ref::Move> got = FromEngine(*list_);
    stats_.moves_compared += static_cast<long>(want.size());
    for (const ref::Move& m : want)
      stats_.max_hops = std::max(stats_.max_hops, m.hops);
    if (got != want) {
      Fail(std::string("GenerateLegalMoves differs for '") + seat + "'", text,
           Diff(want, got));
    }
    // The bitboard form the list is built from.
    GenerateMoveSet(variant_, pos, SeatOf(seat), set_.get());
    std::vector<ref::Move> from_set;
    set_->ForEach([&](Square origin, Square to, int hops) {
      from_set.push_back(ref::Move{ToRef(origin), ToRef(to), hops});
    });
    std::sort(from_set.begin(), from_set.end());
    if (from_set != want || set_->Count() != static_cast<int>(want.size())) {
      Fail(std::string("GenerateMoveSet differs for '") + seat + "'", text,
           Diff(want, from_set) + "; Count() " + std::to_string(set_->Count()));
    }
    const bool has = HasLegalMove(variant_, pos, SeatOf(seat));
    if (has != !want.empty()) {
      Fail(std::string("HasLegalMove differs for '") + seat + "'", text,
           std::string("reference: ") + (want.empty() ? "false" : "true"));
    }
    if (ref::HasAnyLegalMove(rules_, board, seat) != !want.empty()) {
      Fail("reference HasAnyLegalMove disagrees with its own move list", text,
           "");
    }
  }

  // The reference's breadth-first search against exhaustive enumeration of
  // simple jump chains (small boards only).
  void CheckReferenceSearch(const ref::Board& board,
                            const std::vector<ref::Move>& moves,
                            const std::string& text) {
    const std::vector<ref::Move> brute =
        ref::LegalMovesBruteForce(rules_, board, board.to_move);
    if (brute != moves) {
      Fail("reference search differs from brute force", text,
           Diff(brute, moves));
    }
  }

  // Every engine path checked hop by hop on the reference board.
  void ComparePaths(const Position& pos, const ref::Board& board,
                    const std::vector<ref::Move>& want,
                    const std::string& text) {
    GenerateLegalMovesWithPaths(variant_, pos, pos.to_move, list2_.get(),
                                paths_.get());
    const std::vector<ref::Move> got = FromEngine(*list2_);
    if (got != want) {
      Fail("GenerateLegalMovesWithPaths set differs", text, Diff(want, got));
      return;
    }
    ref::Sq path[kMaxPathSquares];
    for (int i = 0; i < list2_->size; ++i) {
      const LegalMove& m = list2_->moves[i];
      const int len = paths_->Length(i);
      const Square* p = paths_->Path(i);
      ++stats_.paths_checked;
      std::string problem;
      if (len < 2 || len > kMaxPathSquares) {
        problem = "bad length " + std::to_string(len);
      } else {
        for (int k = 0; k < len; ++k) path[k] = ToRef(p[k]);
        const ref::Move rm{ToRef(m.origin), ToRef(m.destination), m.hops};
        if (path[0] != rm.from || path[len - 1] != rm.to) {
          problem = "does not go from origin to destination";
        } else if (m.hops == 0) {
          const ref::Verdict v = ref::CheckPath(
              rules_, board, std::vector<ref::Sq>(path, path + len));
          if (len != 2 || v != ref::Verdict::kLegal) problem = "not a step";
        } else if (len != m.hops + 1) {
          problem = "length is not hops + 1";
        } else {
          const ref::Verdict v = ref::CheckChain(rules_, board, path, len);
          if (v != ref::Verdict::kLegal) {
            problem = std::string("illegal on the reference board: ") +
                      ref::VerdictName(v);
          }
        }
      }
      if (!problem.empty()) {
        std::vector<ref::Sq> shown;
        for (int k = 0; k < len && k < kMaxPathSquares; ++k) {
          shown.push_back(ToRef(p[k]));
        }
        Fail("bad path from GenerateLegalMovesWithPaths", text,
             PathText(shown) + " for " +
                 MoveStr(
                     ref::Move{ToRef(m.origin), ToRef(m.destination), m.hops}) +
                 ": " + problem);
      }
    }
  }

  // The origin filter, and FewestHopPath for a legal and a random square.
  void CompareFilteredAndFewestPaths(const Position& pos,
                                     const ref::Board& board,
                                     const std::vector<ref::Move>& want,
                                     const std::string& text) {
    std::vector<ref::Sq> own;
    for (int y = 0; y < rules_.n; ++y) {
      for (int x = 0; x < rules_.n; ++x) {
        if (board.cell[y][x] == board.to_move) own.push_back(ref::Sq{x, y});
      }
    }
    const ref::Sq origin = own[Random(static_cast<std::uint32_t>(own.size()))];
    MoveFilter filter;
    filter.only_origin = true;
    filter.origin = ToEngine(origin);
    GenerateLegalMoves(variant_, pos, pos.to_move, list_.get(), filter);
    std::vector<ref::Move> sub;
    for (const ref::Move& m : want) {
      if (m.from == origin) sub.push_back(m);
    }
    const std::vector<ref::Move> got = FromEngine(*list_);
    if (got != sub) {
      Fail("GenerateLegalMoves with origin filter " + ref::SquareName(origin) +
               " differs",
           text, Diff(sub, got));
    }

    Square path[kMaxPathSquares];
    if (!want.empty()) {
      const ref::Move& m =
          want[Random(static_cast<std::uint32_t>(want.size()))];
      const int len =
          FewestHopPath(variant_, pos, ToEngine(m.from), ToEngine(m.to), path);
      const int expected = m.hops == 0 ? 2 : m.hops + 1;
      std::vector<ref::Sq> rp;
      for (int k = 0; k < len; ++k) rp.push_back(ToRef(path[k]));
      if (len != expected ||
          ref::CheckPath(rules_, board, rp) != ref::Verdict::kLegal ||
          rp.front() != m.from || rp.back() != m.to) {
        Fail("FewestHopPath wrong for " + MoveStr(m), text,
             "engine path: " + PathText(rp));
      }
    }
    // A random destination: reachable exactly when the reference says so,
    // with target lock and (when the variant has it) without.
    const ref::Sq to{static_cast<int>(Random(rules_.n)),
                     static_cast<int>(Random(rules_.n))};
    for (int ignore = 0; ignore < (rules_.target_lock ? 2 : 1); ++ignore) {
      const std::vector<ref::Sq> rp =
          ref::FewestHopPath(rules_, board, origin, to, ignore != 0);
      const int len = FewestHopPath(variant_, pos, ToEngine(origin),
                                    ToEngine(to), path, ignore != 0);
      if (len != static_cast<int>(rp.size())) {
        Fail("FewestHopPath length differs for " + ref::SquareName(origin) +
                 "-" + ref::SquareName(to) +
                 (ignore ? " (ignoring target lock)" : ""),
             text,
             "reference: " + std::to_string(rp.size()) + " squares (" +
                 PathText(rp) + "), engine: " + std::to_string(len));
      }
    }
  }

  // A random legal jump chain from `from` (just `from` when it has none).
  std::vector<ref::Sq> RandomChain(const ref::Board& board, ref::Sq from) {
    std::vector<ref::Sq> path{from};
    for (;;) {
      std::vector<ref::Sq> next;
      const ref::Sq at = path.back();
      for (int dx = -2; dx <= 2; dx += 2) {
        for (int dy = -2; dy <= 2; dy += 2) {
          const ref::Sq to{at.x + dx, at.y + dy};
          if ((dx == 0 && dy == 0) || !rules_.OnBoard(to.x, to.y)) continue;
          path.push_back(to);
          if (ref::CheckChain(rules_, board, path.data(),
                              static_cast<int>(path.size())) ==
              ref::Verdict::kLegal) {
            next.push_back(to);
          }
          path.pop_back();
        }
      }
      if (next.empty()) break;
      path.push_back(next[Random(static_cast<std::uint32_t>(next.size()))]);
      if (Random(4) == 0) break;
    }
    return path;
  }

  ref::Sq RandomSquare() {
    return ref::Sq{static_cast<int>(Random(rules_.n)),
                   static_cast<int>(Random(rules_.n))};
  }

  // A random, mostly illegal, move path for the side to move.
  std::vector<ref::Sq> RandomProbe(const ref::Board& board) {
    std::vector<ref::Sq> own;
    for (int y = 0; y < rules_.n; ++y) {
      for (int x = 0; x < rules_.n; ++x) {
        if (board.cell[y][x] == board.to_move) own.push_back(ref::Sq{x, y});
      }
    }
    const ref::Sq origin =
        Random(10) < 8 ? own[Random(static_cast<std::uint32_t>(own.size()))]
                       : RandomSquare();
    std::vector<ref::Sq> path;
    switch (Random(6)) {
      case 0:  // Two squares: step, single hop or shorthand, by shape.
        path = {origin, RandomSquare()};
        break;
      case 1: {  // A neighbour or a square two away.
        const int reach = 1 + static_cast<int>(Random(2));
        const ref::Sq to{origin.x + reach * (static_cast<int>(Random(3)) - 1),
                         origin.y + reach * (static_cast<int>(Random(3)) - 1)};
        path = {origin, rules_.OnBoard(to.x, to.y) ? to : RandomSquare()};
        break;
      }
      case 2: {  // A legal chain with one landing replaced.
        path = RandomChain(board, origin);
        if (path.size() < 2) path.push_back(RandomSquare());
        path[1 + Random(static_cast<std::uint32_t>(path.size() - 1))] =
            RandomSquare();
        break;
      }
      case 3: {  // A legal chain that comes back to a square or the origin.
        path = RandomChain(board, origin);
        path.push_back(path[Random(static_cast<std::uint32_t>(path.size()))]);
        break;
      }
      case 4: {  // A legal chain continued by a step or a random square.
        path = RandomChain(board, origin);
        const ref::Sq at = path.back();
        const ref::Sq step{at.x + static_cast<int>(Random(3)) - 1,
                           at.y + static_cast<int>(Random(3)) - 1};
        path.push_back(Random(2) == 0 && rules_.OnBoard(step.x, step.y)
                           ? step
                           : RandomSquare());
        break;
      }
      default: {  // A legal chain as it is (legal unless it has no hop).
        path = RandomChain(board, origin);
        if (path.size() < 2) path.push_back(RandomSquare());
        break;
      }
    }
    return path;
  }

  // The reference's verdict for a move in a position with status `rs`.
  ref::Verdict Expected(const ref::Board& board, const ref::Status& rs,
                        const std::vector<ref::Sq>& path, bool pass) {
    if (rs.over) return ref::Verdict::kGameOver;
    if (pass) {
      return rs.must_pass ? ref::Verdict::kLegal
                          : ref::Verdict::kPassNotAllowed;
    }
    return ref::CheckPath(rules_, board, path);
  }

  int ReferenceHops(const std::vector<ref::Move>& moves, ref::Sq from,
                    ref::Sq to) {
    for (const ref::Move& m : moves) {
      if (m.from == from && m.to == to) return m.hops;
    }
    return -1;
  }

  // Checks one move with CheckMove against the reference; returns the
  // engine's answer.
  MoveCheck CheckOne(const Position& pos, const ref::Board& board,
                     const GameStatus& es, const ref::Status& rs,
                     const std::vector<ref::Move>& moves,
                     const std::vector<ref::Sq>& path, bool pass,
                     const std::string& text, const char* what) {
    const halma::MoveText mt = pass ? PassMove() : EngineMove(path);
    MoveCheck check = CheckMove(variant_, pos, es, mt);
    const ref::Verdict want = Expected(board, rs, path, pass);
    const std::string move_text = pass ? "pass" : PathText(path);
    if (std::string(MoveVerdictName(check.verdict)) != ref::VerdictName(want)) {
      Fail(std::string("CheckMove verdict differs for ") + what + " " +
               move_text,
           text,
           std::string("reference: ") + ref::VerdictName(want) + ", engine: " +
               MoveVerdictName(check.verdict) + " (" + check.message + ")");
      return check;
    }
    if (want != ref::Verdict::kLegal || pass) return check;
    const int hops = ReferenceHops(moves, path.front(), path.back());
    std::vector<ref::Sq> normal;
    for (Square s : check.path.squares) normal.push_back(ToRef(s));
    const int expected_len = hops == 0 ? 2 : hops + 1;
    if (check.hops != hops || static_cast<int>(normal.size()) != expected_len ||
        normal.front() != path.front() || normal.back() != path.back() ||
        ref::CheckPath(rules_, board, normal) != ref::Verdict::kLegal) {
      Fail(std::string("CheckMove normalised path wrong for ") + what + " " +
               move_text,
           text,
           "reference fewest hops " + std::to_string(hops) + ", engine " +
               std::to_string(check.hops) + " with path " + PathText(normal));
    }
    return check;
  }

  bool PlayMove(const Position& pos, const ref::Board& board,
                const GameStatus& es, const ref::Status& rs,
                const std::vector<ref::Move>& moves,
                const ref::PlayoutPolicy* policy, Position* pos_out,
                ref::Board* board_out) {
    const std::string text = ref::FormatBoard(rules_, board);
    // Probes first: a pass, and two random moves.
    for (int i = 0; i < 2; ++i) {
      const std::vector<ref::Sq> probe = RandomProbe(board);
      const MoveCheck c =
          CheckOne(pos, board, es, rs, moves, probe, false, text, "probe");
      ++stats_.probes;
      ++stats_.probe_verdicts[MoveVerdictName(c.verdict)];
      if (c.verdict == MoveVerdict::kLegal) ++stats_.legal_probes;
    }
    if (!rs.must_pass) {
      CheckOne(pos, board, es, rs, moves, {}, true, text, "pass");
      ++stats_.probes;
    }

    ref::Board next_board;
    MoveCheck played;
    ++stats_.move_checks;
    if (moves.empty()) {
      played = CheckOne(pos, board, es, rs, moves, {}, true, text, "pass");
      next_board = ref::ApplyPass(rules_, board);
    } else {
      const char seat = board.to_move;
      const int chosen = ref::ChooseMove(rules_, board, seat, moves,
                                         policy[rules_.TurnIndex(seat)], &rng_);
      const ref::Move& m = moves[chosen];
      std::vector<ref::Sq> path;
      const int form = static_cast<int>(Random(10));
      if (m.hops >= 1 && form < 2) {
        // A random legal chain of the same piece, possibly longer than the
        // fewest hops and ending elsewhere.
        path = RandomChain(board, m.from);
        if (path.size() < 2)
          path = ref::FewestHopPath(rules_, board, m.from, m.to);
      } else if (form < 6 || (m.hops > 1 && std::abs(m.to.x - m.from.x) <= 2 &&
                              std::abs(m.to.y - m.from.y) <= 2)) {
        path = ref::FewestHopPath(rules_, board, m.from, m.to);
      } else {
        path = {m.from, m.to};  // Shorthand (or a step or a single hop).
      }
      played =
          CheckOne(pos, board, es, rs, moves, path, false, text, "played move");
      next_board = ref::ApplyMove(rules_, board, path.front(), path.back());
    }
    if (played.verdict != MoveVerdict::kLegal) return false;
    const Position applied = ApplyMove(
        variant_, pos, played.path.is_pass ? PassMove() : played.path);
    if (!(applied == played.after)) {
      Fail("CheckMove's position after differs from ApplyMove's", text, "");
    }
    *pos_out = played.after;
    *board_out = next_board;
    return true;
  }

  Config config_;
  Variant variant_;
  ref::Rules rules_;
  std::mt19937 rng_;
  Stats stats_;
  std::unique_ptr<MoveList> list_;
  std::unique_ptr<MoveList> list2_;
  std::unique_ptr<MovePaths> paths_;
  std::unique_ptr<MoveSet> set_;
};

// HALMA_DIFFERENTIAL_SCALE (a fraction, default 1) shrinks every run: the
// sanitizer presets set it (CMakePresets.json), where the point is memory
// and undefined behaviour on every code path, not another 100,000 positions
// each, which the plain build already compares.
double Scale() {
  const char* text = std::getenv("HALMA_DIFFERENTIAL_SCALE");
  if (text == nullptr) return 1.0;
  const double scale = std::atof(text);
  return scale > 0 && scale <= 1 ? scale : 1.0;
}

long Scaled(long count) {
  return std::max<long>(1, static_cast<long>(count * Scale()));
}

void RunConfig(Config config) {
  config.min_positions = Scaled(config.min_positions);
  Runner runner(config);
  runner.Run();
}

// ---------------------------------------------------------------------------
// Presets: at least 100,000 positions each.

TEST(Differential, Brainking8x8) {
  RunConfig(Preset("brainking-8x8", 400, 12, 8081));
}

TEST(Differential, Brainking10x10) {
  RunConfig(Preset("brainking-10x10", 500, 10, 10101));
}

TEST(Differential, Iggamecenter10x10) {
  RunConfig(Preset("iggamecenter-10x10", 500, 0, 10102));
}

TEST(Differential, Classic16x16) {
  RunConfig(Preset("classic-16x16", 900, 0, 16161));
}

TEST(Differential, Classic16x16FourPlayer) {
  RunConfig(Preset("classic-16x16-4p", 1600, 0, 16164));
}

// The engine picks its flood-fill kernel at start-up (AVX2 where the CPU
// has it, see flood_fill.h), so the tests above run that one; these run the
// same presets with the baseline kernel pinned, 25,000 positions each.
TEST(Differential, PresetsWithTheBaselineKernel) {
  const FloodFillKernel saved = ActiveFloodFillKernel();
  ASSERT_TRUE(SetFloodFillKernel(FloodFillKernel::kBaseline));
  const std::pair<const char*, std::uint32_t> presets[] = {
      {"brainking-8x8", 8082},
      {"brainking-10x10", 10103},
      {"iggamecenter-10x10", 10104},
      {"classic-16x16", 16162},
      {"classic-16x16-4p", 16165}};
  for (const auto& [name, seed] : presets) {
    Config c = Preset(name, 600, 0, seed);
    c.min_positions = 25000;
    RunConfig(c);
  }
  SetFloodFillKernel(saved);
}

// ---------------------------------------------------------------------------
// Custom variants: small boards (checked against brute force too), four
// seats with the home-exit limit (elimination), move caps, and round
// completion with target lock.

TEST(Differential, CustomSmallBoards) {
  // Tiny boards are crowded: stuck seats, passes and everyone-stuck draws.
  RunConfig(Custom("4x4 2p lock cap40", {4, 2, {2, 1}, 0, false, true, 40},
                   15000, 200, 0, 401, true));
  Config crowded =
      Custom("4x4 2p camp[4,3] lock", {4, 2, {4, 3}, 0, false, true, 0}, 30000,
             60, 0, 402, true);
  crowded.greedy_min = 0;  // Mostly random: the seats get stuck.
  crowded.greedy_span = 60;
  RunConfig(crowded);
  RunConfig(Custom("4x4 4p he3 rc lock cap30", {4, 4, {1}, 3, true, true, 30},
                   10000, 200, 20, 403, true));
  RunConfig(Custom("5x5 2p rc lock cap60", {5, 2, {3, 2, 1}, 0, true, true, 60},
                   15000, 200, 0, 501, true));
  Config crowded5 =
      Custom("5x5 2p camp[3,3,1] rc lock", {5, 2, {3, 3, 1}, 0, true, true, 0},
             10000, 100, 0, 502, true);
  crowded5.greedy_min = 0;
  crowded5.greedy_span = 60;
  RunConfig(crowded5);
  Config four =
      Custom("4x4 4p camp[2,1] he8 rc lock", {4, 4, {2, 1}, 8, true, true, 0},
             10000, 120, 10, 404, true);
  four.greedy_min = 0;
  four.greedy_span = 60;
  RunConfig(four);
  Config five =
      Custom("5x5 4p camp[2,2] he10 lock cap50",
             {5, 4, {2, 2}, 10, false, true, 50}, 10000, 250, 10, 503, true);
  five.greedy_min = 10;
  five.greedy_span = 60;
  RunConfig(five);
  RunConfig(Custom("6x6 4p he6 rc cap60", {6, 4, {2, 1}, 6, true, false, 60},
                   15000, 300, 25, 601, true));
  RunConfig(Custom("6x6 2p he14 rc lock cap80",
                   {6, 2, {3, 2, 1}, 14, true, true, 80}, 15000, 300, 15, 602,
                   true));
  RunConfig(Custom("7x7 2p camp[4,4,2] he20 rc lock",
                   {7, 2, {4, 4, 2}, 20, true, true, 0}, 15000, 300, 15, 701,
                   true));
}

TEST(Differential, CustomFourSeats) {
  RunConfig(Custom("10x10 4p he15 lock cap150",
                   {10, 4, {3, 2, 1}, 15, false, true, 150}, 25000, 800, 30,
                   1001, false));
  RunConfig(Custom("12x12 4p he30 rc lock cap200",
                   {12, 4, {4, 3, 2, 1}, 30, true, true, 200}, 25000, 1000, 20,
                   1201, false));
  RunConfig(Custom("15x15 4p rc", {15, 4, {5, 4, 3, 2, 1}, 0, true, false, 0},
                   20000, 1200, 0, 1501, false));
  // Crowded four-seat board: a cross of 17 empty squares.
  Config cross = Custom("9x9 4p camp[4,4,4,4] he40 rc lock",
                        {9, 4, {4, 4, 4, 4}, 40, true, true, 0}, 10000, 300, 20,
                        901, false);
  cross.greedy_min = 0;
  cross.greedy_span = 80;
  RunConfig(cross);
}

TEST(Differential, CustomCapsAndLocks) {
  RunConfig(Custom("8x8 2p cap20", {8, 2, {4, 3, 2, 1}, 0, false, false, 20},
                   15000, 100, 0, 801, false));
  RunConfig(Custom("9x9 2p he35 lock", {9, 2, {4, 3, 2, 1}, 35, false, true, 0},
                   20000, 400, 15, 902, false));
  RunConfig(Custom("16x16 2p camp[6..1] he90 rc lock cap200",
                   {16, 2, {6, 5, 4, 3, 2, 1}, 90, true, true, 200}, 20000, 500,
                   10, 1601, false));
  RunConfig(Custom("11x11 2p rc lock", {11, 2, {4, 3, 2, 1}, 0, true, true, 0},
                   20000, 500, 0, 1101, false));
}

TEST(Differential, CustomExtremes) {
  // Full boards: everyone is stuck before the first move.
  RunConfig(Custom("4x4 2p camp[4,4] (full)", {4, 2, {4, 4}, 0, false, true, 0},
                   1, 10, 0, 1, false));
  RunConfig(Custom("8x8 4p camp[4,4,4,4] (full)",
                   {8, 4, {4, 4, 4, 4}, 0, true, true, 0}, 1, 10, 0, 2, false));
  // The largest camps: 64 pieces a seat on 16x16 (two 8x8 camps), and 49 a
  // seat with four seats; long move lists and deep chains.
  RunConfig(Custom("16x16 2p camp[8x8]",
                   {16, 2, {8, 8, 8, 8, 8, 8, 8, 8}, 0, false, false, 0}, 8000,
                   400, 0, 1602, false));
  RunConfig(Custom("16x16 4p camp[7x7] lock",
                   {16, 4, {7, 7, 7, 7, 7, 7, 7}, 0, false, true, 0}, 8000, 400,
                   0, 1603, false));
  // Sparse: one piece a seat.
  RunConfig(Custom("16x16 4p camp[1] he5 rc lock",
                   {16, 4, {1}, 5, true, true, 0}, 10000, 400, 30, 1604,
                   false));
}

// ---------------------------------------------------------------------------
// Random well-formed positions (not only reachable ones), each compared and
// then played on for a few plies.

void RunRandom(Config config, long count, int plies_after) {
  Runner runner(std::move(config));
  runner.RunRandomPositions(Scaled(count), plies_after);
}

TEST(Differential, RandomPositions) {
  for (const std::string& name : ref::PresetNamesFromRules()) {
    Config c = Preset(name, 0, 0, 77);
    RunRandom(c, 4000, 3);
  }
  RunRandom(Custom("4x4 2p camp[4,3] rc lock", {4, 2, {4, 3}, 0, true, true, 0},
                   0, 0, 0, 78, true),
            10000, 4);
  RunRandom(Custom("4x4 2p camp[2,1] rc", {4, 2, {2, 1}, 0, true, false, 0}, 0,
                   0, 0, 79, true),
            5000, 4);
  RunRandom(Custom("5x5 2p camp[3,3,1] rc lock he6",
                   {5, 2, {3, 3, 1}, 6, true, true, 0}, 0, 0, 0, 80, true),
            10000, 4);
  RunRandom(Custom("5x5 4p camp[2,2] rc lock he5",
                   {5, 4, {2, 2}, 5, true, true, 0}, 0, 0, 0, 81, true),
            10000, 6);
  RunRandom(Custom("6x6 4p camp[3,2] he8 cap30",
                   {6, 4, {3, 2}, 8, false, true, 30}, 0, 0, 0, 82, true),
            10000, 6);
  RunRandom(
      Custom("8x8 2p he20 rc cap50", {8, 2, {4, 3, 2, 1}, 20, true, false, 50},
             0, 0, 0, 83, false),
      5000, 4);
  RunRandom(Custom("9x9 4p camp[4,4,4,4] rc lock he10",
                   {9, 4, {4, 4, 4, 4}, 10, true, true, 0}, 0, 0, 0, 84, false),
            5000, 6);
}

// ---------------------------------------------------------------------------
// The reference itself against the rule book's examples and the public
// vectors (computed by another independent implementation).

bool RulesOf(const nlohmann::json& v, ref::Rules* rules) {
  if (v.is_string()) return ref::PresetRules(v.get<std::string>(), rules);
  return ref::MakeRules(v["n"], v["seats"], v["camp"].get<std::vector<int>>(),
                        v["home_exit"], v["round_completion"], v["target_lock"],
                        v["move_cap"], rules);
}

TEST(Reference, StartPositionOfRuleBook) {
  ref::Rules rules;
  ASSERT_TRUE(ref::PresetRules("brainking-8x8", &rules));
  EXPECT_EQ(ref::FormatBoard(rules, ref::StartBoard(rules)),
            "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
  for (const std::string& name : ref::PresetNamesFromRules()) {
    ASSERT_TRUE(ref::PresetRules(name, &rules)) << name;
    absl::StatusOr<Variant> v = PresetVariant(name);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(rules.pieces_per_seat, v->pieces_per_seat) << name;
  }
}

TEST(Reference, MatchesPublicPositionVectors) {
  const auto cases = testdata::ReadJsonLines("vectors/positions.jsonl");
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    const std::string text = c["position"];
    SCOPED_TRACE(text);
    ref::Rules rules;
    ASSERT_TRUE(RulesOf(c["variant"], &rules));
    ref::Board board;
    std::string why;
    ASSERT_TRUE(ref::ParseBoard(rules, text, &board, &why)) << why;
    EXPECT_EQ(ref::FormatBoard(rules, board), text);
    std::vector<std::string> got, want;
    for (const ref::Move& m : ref::LegalMoves(rules, board, board.to_move)) {
      got.push_back(MoveStr(m));
    }
    if (got.empty()) got.push_back("pass");
    for (const auto& m : c["legal"]) {
      if (m[0] == "pass") {
        want.push_back("pass");
      } else {
        want.push_back(m[0].get<std::string>() + "-" + m[1].get<std::string>() +
                       "/" + std::to_string(m[2].get<int>()));
      }
    }
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
}

TEST(Reference, MatchesPublicRecordVectors) {
  const auto cases = testdata::ReadJsonLines("vectors/records.jsonl");
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    const auto& e = c["expect"];
    SCOPED_TRACE(e.dump());
    ref::Rules rules;
    ASSERT_TRUE(RulesOf(c["variant"], &rules));
    ref::Board board = ref::StartBoard(rules);
    if (c.contains("from")) {
      ASSERT_TRUE(ref::ParseBoard(rules, c["from"], &board));
    }
    ref::Status status = ref::Evaluate(rules, board);
    int deciding_ply = 0, illegal_ply = 0;
    std::string reason;
    const auto moves = c["moves"].get<std::vector<std::string>>();
    for (size_t i = 0; i < moves.size(); ++i) {
      const std::string& mv = moves[i];
      ref::Verdict verdict;
      std::vector<ref::Sq> path;
      if (mv == "pass") {
        verdict = status.over        ? ref::Verdict::kGameOver
                  : status.must_pass ? ref::Verdict::kLegal
                                     : ref::Verdict::kPassNotAllowed;
      } else {
        std::stringstream in(mv);
        std::string part;
        while (std::getline(in, part, '-')) {
          ref::Sq s;
          ASSERT_TRUE(ref::ParseSquareName(rules, part, &s)) << mv;
          path.push_back(s);
        }
        verdict = status.over ? ref::Verdict::kGameOver
                              : ref::CheckPath(rules, board, path);
      }
      if (verdict != ref::Verdict::kLegal) {
        illegal_ply = static_cast<int>(i) + 1;
        reason = ref::VerdictName(verdict);
        break;
      }
      board = path.empty()
                  ? ref::ApplyPass(rules, board)
                  : ref::ApplyMove(rules, board, path.front(), path.back());
      status = ref::Evaluate(rules, board);
      if (status.over) deciding_ply = static_cast<int>(i) + 1;
    }
    const std::string kind = e["status"];
    const auto winners = [](const nlohmann::json& list) {
      std::string s;
      for (const auto& w : list) s += w.get<std::string>();
      std::string out;
      for (char c : std::string("wrbg")) {
        if (s.find(c) != std::string::npos) out += c;
      }
      return out;
    };
    const auto rule_name = [](const std::string& r) {
      return r == "everyone-stuck" ? std::string("all-passed") : r;
    };
    if (kind == "illegal") {
      EXPECT_EQ(illegal_ply, e["ply"].get<int>());
      EXPECT_EQ(reason, e["reason"].get<std::string>());
      if (e.contains("result")) {
        EXPECT_TRUE(status.over);
        EXPECT_EQ(deciding_ply, e["result"]["ply"].get<int>());
        EXPECT_EQ(status.winners, winners(e["result"]["winners"]));
      }
      continue;
    }
    EXPECT_EQ(illegal_ply, 0) << reason;
    if (kind == "in_progress") {
      EXPECT_FALSE(status.over);
      EXPECT_EQ(std::string(1, status.to_move),
                e["to_move"].get<std::string>());
      EXPECT_EQ(status.round_completion_turn, e["rc_turn"].get<bool>());
    } else {
      EXPECT_TRUE(status.over);
      EXPECT_EQ(status.winners.size() > 1, kind == "draw");
      EXPECT_EQ(status.winners, winners(e["winners"]));
      EXPECT_EQ(rule_name(status.rule), e["rule"].get<std::string>());
      EXPECT_EQ(deciding_ply, e["ply"].get<int>());
    }
  }
}

class SummaryPrinter : public testing::Environment {
 public:
  void TearDown() override {
    if (AllSummaries().size() < 2) return;
    std::printf("\n[differential] summary of this run:\n");
    for (const std::string& s : AllSummaries()) std::fputs(s.c_str(), stdout);
  }
};
const testing::Environment* const kSummary =
    testing::AddGlobalTestEnvironment(new SummaryPrinter);

}  // namespace
}  // namespace halma
