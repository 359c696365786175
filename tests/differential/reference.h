// A deliberately simple reference implementation of the rules (docs/rules.md), written from
// the rule book alone so that the differential test can hold the engine
// against it. Nothing here calls the engine: the board is a plain 2D array
// of characters, moves are found by a plain breadth-first search over
// squares, and the game status is computed straight from sections 5 to 7.
// It favours obviousness over speed. Where the rules leave a choice open it
// follows the decisions of docs/rules.md: a seat owed a round-completion
// turn takes it (by passing if it must) rather than the game ending as
// everyone stuck, and illegal moves are explained in the order given there.
#ifndef HALMA_TESTS_DIFFERENTIAL_REFERENCE_H_
#define HALMA_TESTS_DIFFERENTIAL_REFERENCE_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace halma_ref {

inline constexpr int kMaxN = 16;
inline constexpr char kEmpty = '.';

// Corners, in the order of the seat letters w, r, b, g (each seat's home).
enum Corner { kSouthWest = 0, kNorthWest = 1, kNorthEast = 2, kSouthEast = 3 };

// A variant (docs/rules.md section 2) with its camps worked out on a plain grid.
struct Rules {
  std::string name;
  int n = 0;
  std::string seats;  // Seat letters in turn order: "wb" or "wrbg".
  std::vector<int> camp_rows;
  int home_exit_limit = 0;  // 0 = off.
  bool round_completion = false;
  bool target_lock = false;
  int move_cap = 0;  // 0 = off.

  // in_camp[corner][y][x].
  bool in_camp[4][kMaxN][kMaxN] = {};
  int pieces_per_seat = 0;

  int SeatCount() const { return static_cast<int>(seats.size()); }
  // Position of `seat` in the turn order, -1 when not in play.
  int TurnIndex(char seat) const;
  bool InHome(char seat, int x, int y) const;
  bool InTarget(char seat, int x, int y) const;
  bool OnBoard(int x, int y) const {
    return x >= 0 && y >= 0 && x < n && y < n;
  }
};

// Builds a custom variant; returns false (with a reason) when the fields are
// out of range or the camps in play overlap.
bool MakeRules(int n, int seat_count, const std::vector<int>& camp_rows,
               int home_exit_limit, bool round_completion, bool target_lock,
               int move_cap, Rules* out, std::string* why = nullptr);
// The named variants of the table in docs/rules.md section 2.
bool PresetRules(const std::string& name, Rules* out);
const std::vector<std::string>& PresetNamesFromRules();

// The corner a seat letter is named after, and the opposite corner.
int HomeCornerOf(char seat);
int TargetCornerOf(char seat);

struct Sq {
  int x = 0;
  int y = 0;
  friend bool operator==(const Sq& a, const Sq& b) {
    return a.x == b.x && a.y == b.y;
  }
  friend bool operator!=(const Sq& a, const Sq& b) { return !(a == b); }
  friend bool operator<(const Sq& a, const Sq& b) {
    return a.x != b.x ? a.x < b.x : a.y < b.y;
  }
};

// A position: cell[y][x] is a seat letter or kEmpty; moves[i] is the number
// of moves made by the i-th seat in turn order.
struct Board {
  char cell[kMaxN][kMaxN];
  char to_move = 'w';
  int moves[4] = {0, 0, 0, 0};

  char At(Sq s) const { return cell[s.y][s.x]; }
};

Board StartBoard(const Rules& rules);
// Position strings (docs/rules.md section 4). The parser checks the layout and
// letters and the piece counts; it does not judge the move counts.
bool ParseBoard(const Rules& rules, const std::string& text, Board* out,
                std::string* why = nullptr);
std::string FormatBoard(const Rules& rules, const Board& board);
std::string SquareName(Sq s);
bool ParseSquareName(const Rules& rules, const std::string& text, Sq* out);

// One legal move: a distinct (from, to) pair and its fewest hops (0 = step).
struct Move {
  Sq from;
  Sq to;
  int hops = 0;
  friend bool operator==(const Move& a, const Move& b) {
    return a.from == b.from && a.to == b.to && a.hops == b.hops;
  }
  friend bool operator<(const Move& a, const Move& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.hops < b.hops;
  }
};

// Every legal move of `seat` (not counting pass), sorted. The search is a
// breadth-first search per piece over (square, "has stood in the target")
// states; `ignore_lock` searches as if target lock were off.
std::vector<Move> LegalMoves(const Rules& rules, const Board& board, char seat,
                             bool ignore_lock = false);
void LegalMoves(const Rules& rules, const Board& board, char seat,
                std::vector<Move>* out, bool ignore_lock = false);
// The same by exhaustive depth-first enumeration of every simple jump chain:
// exponential, only for small boards, to check the search above.
std::vector<Move> LegalMovesBruteForce(const Rules& rules, const Board& board,
                                       char seat);
bool HasAnyLegalMove(const Rules& rules, const Board& board, char seat);
// A fewest-hop path from `from` to `to` (origin first; a step gives two
// squares), or an empty vector when no legal move goes there.
std::vector<Sq> FewestHopPath(const Rules& rules, const Board& board, Sq from,
                              Sq to, bool ignore_lock = false);

// Why a move is illegal; the spellings follow the public vectors.
enum class Verdict {
  kLegal,
  kGameOver,
  kPassNotAllowed,
  kEmptyOrigin,
  kNotYourPiece,
  kDestinationOccupied,
  kNothingToJump,
  kNotAHop,
  kSquareVisitedTwice,
  kLeavesTarget,
  kUnreachable,
};
const char* VerdictName(Verdict v);

// Checks a move path (two or more squares, docs/rules.md sections 3 and 4) for the
// side to move, ignoring whether the game is over. A path of three or more
// squares is checked hop by hop; a two-square path is a step, a single hop or
// the shorthand "any chain", by its shape.
Verdict CheckPath(const Rules& rules, const Board& board,
                  const std::vector<Sq>& path);
// Checks one explicit chain hop by hop (every leg a hop) from the side to
// move's piece on path[0]: the test's validator for engine paths.
Verdict CheckChain(const Rules& rules, const Board& board, const Sq* path,
                   int count);

// The position after the side to move plays from -> to (or passes).
Board ApplyMove(const Rules& rules, const Board& board, Sq from, Sq to);
Board ApplyPass(const Rules& rules, const Board& board);

// The status of a position (docs/rules.md sections 5 and 6). Seat sets are strings
// of letters in the order w, r, b, g.
struct Status {
  bool over = false;
  char to_move = 'w';
  bool round_completion_turn = false;
  bool must_pass = false;
  std::string winners;  // One seat wins; several draw.
  std::string rule;     // "none", "target-filled", "home-exit", "move-cap",
                        // "everyone-stuck".
  std::string finished;
  std::string eliminated;
  // The seat that made the last counted move, 0 when none.
  char last_mover = 0;
};
Status Evaluate(const Rules& rules, const Board& board);

// Whether `seat` broke the home-exit rule: more than L moves made and a piece
// still (or again) at home.
bool BrokeHomeExit(const Rules& rules, const Board& board, char seat);
bool AllInTarget(const Rules& rules, const Board& board, char seat);

// Playout policy shared by the differential test and the benchmark data
// generator: the move that most advances a piece toward its target corner
// (ties broken at random), or a uniformly random move. A "lazy" piece is
// never moved while another move exists (to provoke the home-exit rule).
struct PlayoutPolicy {
  int greedy_percent = 70;
  bool has_lazy = false;
  Sq lazy;  // Square of the piece a lazy seat keeps at home.
};
// Picks an index into `moves` (non-empty). Uses only rng() % k, so the
// choice is the same with every standard library.
int ChooseMove(const Rules& rules, const Board& board, char seat,
               const std::vector<Move>& moves, const PlayoutPolicy& policy,
               std::mt19937* rng);
// How far a square is from the seat's target corner (Manhattan distance).
int DistanceToTarget(const Rules& rules, char seat, Sq s);

}  // namespace halma_ref

#endif  // HALMA_TESTS_DIFFERENTIAL_REFERENCE_H_
