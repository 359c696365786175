#include "reference.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace halma_ref {
namespace {

constexpr int kDx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr char kAllSeats[] = "wrbg";

void SetWhy(std::string* why, const std::string& text) {
  if (why != nullptr) *why = text;
}

bool IsNeighbour(Sq a, Sq b) {
  const int dx = std::abs(a.x - b.x), dy = std::abs(a.y - b.y);
  return dx <= 1 && dy <= 1 && !(dx == 0 && dy == 0);
}

// Two squares apart along a rank, file or diagonal.
bool IsHopShape(Sq a, Sq b) {
  const int dx = b.x - a.x, dy = b.y - a.y;
  const bool ok_x = dx == 0 || dx == 2 || dx == -2;
  const bool ok_y = dy == 0 || dy == 2 || dy == -2;
  return ok_x && ok_y && !(dx == 0 && dy == 0);
}

// Breadth-first search of the jump chains of the piece on `from`.
//
// A state is (square, locked): `locked` says that the chain has stood in the
// seat's target camp (at its start or after some hop) with target lock on,
// so it may only land inside the camp from then on. The search finds, for
// every state, the fewest hops of a walk reaching it. A fewest-hop walk never
// repeats a state; it never repeats a square either, because a square inside
// the target camp is always reached locked and a square outside it always
// unlocked. So these walks are exactly the shortest legal chains (no square
// visited twice), and LegalMovesBruteForce checks that claim on small boards.
struct JumpSearch {
  int dist[2][kMaxN][kMaxN];
  Sq parent[2][kMaxN][kMaxN];
  bool parent_locked[2][kMaxN][kMaxN];

  void Run(const Rules& rules, const Board& board, Sq from, bool lock) {
    const char seat = board.At(from);
    // The moving piece's origin counts as empty once it has left.
    char cell[kMaxN][kMaxN];
    std::memcpy(cell, board.cell, sizeof(cell));
    cell[from.y][from.x] = kEmpty;
    for (int l = 0; l < 2; ++l) {
      for (int y = 0; y < kMaxN; ++y) {
        for (int x = 0; x < kMaxN; ++x) dist[l][y][x] = -1;
      }
    }
    struct Node {
      Sq s;
      int locked;
    };
    Node queue[2 * kMaxN * kMaxN];
    int head = 0, tail = 0;
    const int start_locked =
        (lock && rules.InTarget(seat, from.x, from.y)) ? 1 : 0;
    dist[start_locked][from.y][from.x] = 0;
    queue[tail++] = Node{from, start_locked};
    while (head < tail) {
      const Node at = queue[head++];
      for (int d = 0; d < 8; ++d) {
        const Sq over{at.s.x + kDx[d], at.s.y + kDy[d]};
        const Sq to{at.s.x + 2 * kDx[d], at.s.y + 2 * kDy[d]};
        if (!rules.OnBoard(to.x, to.y)) continue;
        if (cell[over.y][over.x] == kEmpty) continue;  // Nothing to jump.
        if (cell[to.y][to.x] != kEmpty) continue;      // Landing occupied.
        if (to == from) continue;  // The origin may not be visited again.
        const bool to_in_target = rules.InTarget(seat, to.x, to.y);
        if (at.locked && !to_in_target) continue;  // Target lock.
        const int locked = (at.locked || (lock && to_in_target)) ? 1 : 0;
        if (dist[locked][to.y][to.x] != -1) continue;
        dist[locked][to.y][to.x] = dist[at.locked][at.s.y][at.s.x] + 1;
        parent[locked][to.y][to.x] = at.s;
        parent_locked[locked][to.y][to.x] = at.locked != 0;
        queue[tail++] = Node{to, locked};
      }
    }
    dist[start_locked][from.y][from.x] = -1;  // Not a move.
  }

  // Fewest hops to `to` in either lock state, -1 when unreachable.
  int Best(Sq to, int* which) const {
    int best = -1;
    for (int l = 0; l < 2; ++l) {
      const int d = dist[l][to.y][to.x];
      if (d >= 1 && (best == -1 || d < best)) {
        best = d;
        *which = l;
      }
    }
    return best;
  }
};

bool StepAllowed(const Rules& rules, const Board& board, Sq from, Sq to,
                 bool lock) {
  if (!rules.OnBoard(to.x, to.y)) return false;
  if (board.At(to) != kEmpty) return false;
  const char seat = board.At(from);
  if (lock && rules.InTarget(seat, from.x, from.y) &&
      !rules.InTarget(seat, to.x, to.y)) {
    return false;
  }
  return true;
}

int TurnIndexOrDie(const Rules& rules, char seat) {
  const int i = rules.TurnIndex(seat);
  if (i < 0) std::abort();
  return i;
}

// In four-player games a seat that broke the home-exit rule is eliminated.
bool Eliminated(const Rules& rules, const Board& board, char seat) {
  return rules.SeatCount() == 4 && BrokeHomeExit(rules, board, seat);
}

// Seat letters in the order w, r, b, g.
std::string Ordered(const std::string& letters) {
  std::string out;
  for (const char* c = kAllSeats; *c != 0; ++c) {
    if (letters.find(*c) != std::string::npos) out += *c;
  }
  return out;
}

void BruteForceFrom(const Rules& rules, const char (&cell)[kMaxN][kMaxN],
                    char seat, Sq from, Sq at, bool locked, bool lock,
                    int depth, bool (&visited)[kMaxN][kMaxN],
                    int (&best)[kMaxN][kMaxN]) {
  for (int d = 0; d < 8; ++d) {
    const Sq over{at.x + kDx[d], at.y + kDy[d]};
    const Sq to{at.x + 2 * kDx[d], at.y + 2 * kDy[d]};
    if (!rules.OnBoard(to.x, to.y)) continue;
    if (cell[over.y][over.x] == kEmpty) continue;
    if (cell[to.y][to.x] != kEmpty) continue;
    if (visited[to.y][to.x]) continue;
    const bool in_target = rules.InTarget(seat, to.x, to.y);
    if (locked && !in_target) continue;
    if (best[to.y][to.x] == -1 || depth + 1 < best[to.y][to.x]) {
      best[to.y][to.x] = depth + 1;
    }
    visited[to.y][to.x] = true;
    BruteForceFrom(rules, cell, seat, from, to, locked || (lock && in_target),
                   lock, depth + 1, visited, best);
    visited[to.y][to.x] = false;
  }
}

}  // namespace

int Rules::TurnIndex(char seat) const {
  const size_t i = seats.find(seat);
  return i == std::string::npos ? -1 : static_cast<int>(i);
}

int HomeCornerOf(char seat) {
  switch (seat) {
    case 'w':
      return kSouthWest;
    case 'r':
      return kNorthWest;
    case 'b':
      return kNorthEast;
    case 'g':
      return kSouthEast;
  }
  std::abort();
}

int TargetCornerOf(char seat) {
  switch (seat) {
    case 'w':
      return kNorthEast;
    case 'r':
      return kSouthEast;
    case 'b':
      return kSouthWest;
    case 'g':
      return kNorthWest;
  }
  std::abort();
}

bool Rules::InHome(char seat, int x, int y) const {
  return in_camp[HomeCornerOf(seat)][y][x];
}

bool Rules::InTarget(char seat, int x, int y) const {
  return in_camp[TargetCornerOf(seat)][y][x];
}

bool MakeRules(int n, int seat_count, const std::vector<int>& camp_rows,
               int home_exit_limit, bool round_completion, bool target_lock,
               int move_cap, Rules* out, std::string* why) {
  if (n < 4 || n > kMaxN) {
    SetWhy(why, "board size out of 4..16");
    return false;
  }
  if (seat_count != 2 && seat_count != 4) {
    SetWhy(why, "seat count must be 2 or 4");
    return false;
  }
  if (camp_rows.empty() || static_cast<int>(camp_rows.size()) > n) {
    SetWhy(why, "camp rows: wrong number of rows");
    return false;
  }
  for (size_t i = 0; i < camp_rows.size(); ++i) {
    if (camp_rows[i] < 1 || camp_rows[i] > n) {
      SetWhy(why, "camp row length out of range");
      return false;
    }
    if (i > 0 && camp_rows[i] > camp_rows[i - 1]) {
      SetWhy(why, "camp rows must not increase");
      return false;
    }
  }
  if (home_exit_limit < 0 || move_cap < 0) {
    SetWhy(why, "negative limit");
    return false;
  }
  Rules r;
  r.n = n;
  r.seats = seat_count == 2 ? "wb" : "wrbg";
  r.camp_rows = camp_rows;
  r.home_exit_limit = home_exit_limit;
  r.round_completion = round_completion;
  r.target_lock = target_lock;
  r.move_cap = move_cap;
  // Section 2: the south-west camp has x = 0 .. len[i]-1 on row y = i; the
  // other corners are its mirror images.
  for (int i = 0; i < static_cast<int>(camp_rows.size()); ++i) {
    for (int x = 0; x < camp_rows[i]; ++x) {
      const int y = i;
      r.in_camp[kSouthWest][y][x] = true;
      r.in_camp[kNorthWest][n - 1 - y][x] = true;
      r.in_camp[kNorthEast][n - 1 - y][n - 1 - x] = true;
      r.in_camp[kSouthEast][y][n - 1 - x] = true;
      ++r.pieces_per_seat;
    }
  }
  // The camps in play (the seats' homes; their targets are homes too) must
  // not overlap.
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      int owners = 0;
      for (char s : r.seats) owners += r.InHome(s, x, y) ? 1 : 0;
      if (owners > 1) {
        SetWhy(why, "camps overlap");
        return false;
      }
    }
  }
  *out = std::move(r);
  return true;
}

bool PresetRules(const std::string& name, Rules* out) {
  // The table of docs/rules.md section 2.
  bool ok = false;
  if (name == "brainking-8x8") {
    ok = MakeRules(8, 2, {4, 3, 2, 1}, 30, false, false, 0, out);
  } else if (name == "brainking-10x10") {
    ok = MakeRules(10, 2, {5, 4, 3, 2, 1}, 50, false, false, 0, out);
  } else if (name == "iggamecenter-10x10") {
    ok = MakeRules(10, 2, {5, 4, 3, 2, 1}, 0, true, false, 0, out);
  } else if (name == "classic-16x16") {
    ok = MakeRules(16, 2, {5, 5, 4, 3, 2}, 0, false, true, 0, out);
  } else if (name == "classic-16x16-4p") {
    ok = MakeRules(16, 4, {4, 4, 3, 2}, 0, false, true, 0, out);
  }
  if (ok) out->name = name;
  return ok;
}

const std::vector<std::string>& PresetNamesFromRules() {
  static const auto* names = new std::vector<std::string>{
      "brainking-8x8", "brainking-10x10", "iggamecenter-10x10", "classic-16x16",
      "classic-16x16-4p"};
  return *names;
}

Board StartBoard(const Rules& rules) {
  Board b;
  for (int y = 0; y < kMaxN; ++y) {
    for (int x = 0; x < kMaxN; ++x) b.cell[y][x] = kEmpty;
  }
  for (char s : rules.seats) {
    for (int y = 0; y < rules.n; ++y) {
      for (int x = 0; x < rules.n; ++x) {
        if (rules.InHome(s, x, y)) b.cell[y][x] = s;
      }
    }
  }
  b.to_move = rules.seats[0];
  return b;
}

std::string SquareName(Sq s) {
  return std::string(1, static_cast<char>('a' + s.x)) + std::to_string(s.y + 1);
}

bool ParseSquareName(const Rules& rules, const std::string& text, Sq* out) {
  if (text.size() < 2 || text.size() > 3) return false;
  if (text[0] < 'a' || text[0] >= 'a' + rules.n) return false;
  if (text[1] < '1' || text[1] > '9') return false;
  int rank = 0;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    rank = rank * 10 + (text[i] - '0');
  }
  if (rank > rules.n) return false;
  *out = Sq{text[0] - 'a', rank - 1};
  return true;
}

bool ParseBoard(const Rules& rules, const std::string& text, Board* out,
                std::string* why) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t space = text.find(' ', start);
    fields.push_back(text.substr(start, space - start));
    if (space == std::string::npos) break;
    start = space + 1;
  }
  if (fields.size() != 3) {
    SetWhy(why, "expected three fields");
    return false;
  }
  Board b;
  for (int y = 0; y < kMaxN; ++y) {
    for (int x = 0; x < kMaxN; ++x) b.cell[y][x] = kEmpty;
  }
  // Ranks from N down to 1.
  int y = rules.n - 1, x = 0, run = 0;
  int ranks = 1;
  const std::string& field = fields[0];
  for (size_t i = 0; i <= field.size(); ++i) {
    const char c = i < field.size() ? field[i] : '/';
    if (c >= '0' && c <= '9') {
      run = run * 10 + (c - '0');
      continue;
    }
    x += run;
    run = 0;
    if (c == '/') {
      if (x != rules.n) {
        SetWhy(why, "a rank does not hold N squares");
        return false;
      }
      if (i == field.size()) break;
      --y;
      x = 0;
      ++ranks;
      if (y < 0) {
        SetWhy(why, "too many ranks");
        return false;
      }
      continue;
    }
    if (rules.TurnIndex(c) < 0) {
      SetWhy(why, "not a seat in play");
      return false;
    }
    if (x >= rules.n) {
      SetWhy(why, "rank too long");
      return false;
    }
    b.cell[y][x++] = c;
  }
  if (ranks != rules.n) {
    SetWhy(why, "wrong number of ranks");
    return false;
  }
  for (char s : rules.seats) {
    int count = 0;
    for (int yy = 0; yy < rules.n; ++yy) {
      for (int xx = 0; xx < rules.n; ++xx) count += b.cell[yy][xx] == s;
    }
    if (count != rules.pieces_per_seat) {
      SetWhy(why, "wrong piece count");
      return false;
    }
  }
  if (fields[1].size() != 1 || rules.TurnIndex(fields[1][0]) < 0) {
    SetWhy(why, "bad side to move");
    return false;
  }
  b.to_move = fields[1][0];
  int seat = 0;
  std::string number;
  for (size_t i = 0; i <= fields[2].size(); ++i) {
    const char c = i < fields[2].size() ? fields[2][i] : ',';
    if (c == ',') {
      if (number.empty() || seat >= rules.SeatCount()) {
        SetWhy(why, "bad move counts");
        return false;
      }
      b.moves[seat++] = std::stoi(number);
      number.clear();
    } else if (c >= '0' && c <= '9' && number.size() < 9) {
      number += c;
    } else {
      SetWhy(why, "bad move counts");
      return false;
    }
  }
  if (seat != rules.SeatCount()) {
    SetWhy(why, "bad number of move counts");
    return false;
  }
  *out = b;
  return true;
}

std::string FormatBoard(const Rules& rules, const Board& board) {
  std::string out;
  for (int y = rules.n - 1; y >= 0; --y) {
    int run = 0;
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] == kEmpty) {
        ++run;
        continue;
      }
      if (run > 0) out += std::to_string(run);
      run = 0;
      out += board.cell[y][x];
    }
    if (run > 0) out += std::to_string(run);
    if (y > 0) out += '/';
  }
  out += ' ';
  out += board.to_move;
  out += ' ';
  for (int i = 0; i < rules.SeatCount(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(board.moves[i]);
  }
  return out;
}

void LegalMoves(const Rules& rules, const Board& board, char seat,
                std::vector<Move>* out, bool ignore_lock) {
  out->clear();
  const bool lock = rules.target_lock && !ignore_lock;
  static thread_local JumpSearch search;
  for (int y = 0; y < rules.n; ++y) {
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] != seat) continue;
      const Sq from{x, y};
      // Fewest hops to every square for this piece; 0 marks a step.
      int best[kMaxN][kMaxN];
      for (auto& row : best) {
        for (int& v : row) v = -1;
      }
      search.Run(rules, board, from, lock);
      for (int ty = 0; ty < rules.n; ++ty) {
        for (int tx = 0; tx < rules.n; ++tx) {
          int which = 0;
          best[ty][tx] = search.Best(Sq{tx, ty}, &which);
        }
      }
      for (int d = 0; d < 8; ++d) {
        const Sq to{x + kDx[d], y + kDy[d]};
        if (StepAllowed(rules, board, from, to, lock)) best[to.y][to.x] = 0;
      }
      for (int tx = 0; tx < rules.n; ++tx) {
        for (int ty = 0; ty < rules.n; ++ty) {
          if (best[ty][tx] >= 0)
            out->push_back(Move{from, {tx, ty}, best[ty][tx]});
        }
      }
    }
  }
  std::sort(out->begin(), out->end());
}

std::vector<Move> LegalMoves(const Rules& rules, const Board& board, char seat,
                             bool ignore_lock) {
  std::vector<Move> out;
  LegalMoves(rules, board, seat, &out, ignore_lock);
  return out;
}

std::vector<Move> LegalMovesBruteForce(const Rules& rules, const Board& board,
                                       char seat) {
  std::vector<Move> out;
  for (int y = 0; y < rules.n; ++y) {
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] != seat) continue;
      const Sq from{x, y};
      char cell[kMaxN][kMaxN];
      std::memcpy(cell, board.cell, sizeof(cell));
      cell[y][x] = kEmpty;
      bool visited[kMaxN][kMaxN] = {};
      int best[kMaxN][kMaxN];
      for (auto& row : best) {
        for (int& v : row) v = -1;
      }
      visited[y][x] = true;
      const bool locked =
          rules.target_lock && rules.InTarget(seat, from.x, from.y);
      BruteForceFrom(rules, cell, seat, from, from, locked, rules.target_lock,
                     0, visited, best);
      for (int d = 0; d < 8; ++d) {
        const Sq to{x + kDx[d], y + kDy[d]};
        if (StepAllowed(rules, board, from, to, rules.target_lock)) {
          best[to.y][to.x] = 0;
        }
      }
      for (int tx = 0; tx < rules.n; ++tx) {
        for (int ty = 0; ty < rules.n; ++ty) {
          if (best[ty][tx] >= 0)
            out.push_back(Move{from, {tx, ty}, best[ty][tx]});
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool HasAnyLegalMove(const Rules& rules, const Board& board, char seat) {
  // A chain may stop after any hop, so a seat has a jump exactly when some
  // piece has a legal single hop.
  for (int y = 0; y < rules.n; ++y) {
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] != seat) continue;
      const Sq from{x, y};
      const bool locked = rules.target_lock && rules.InTarget(seat, x, y);
      for (int d = 0; d < 8; ++d) {
        const Sq step{x + kDx[d], y + kDy[d]};
        if (StepAllowed(rules, board, from, step, rules.target_lock)) {
          return true;
        }
        const Sq to{x + 2 * kDx[d], y + 2 * kDy[d]};
        if (!rules.OnBoard(to.x, to.y)) continue;
        if (board.At(step) == kEmpty || board.At(to) != kEmpty) continue;
        if (locked && !rules.InTarget(seat, to.x, to.y)) continue;
        return true;
      }
    }
  }
  return false;
}

std::vector<Sq> FewestHopPath(const Rules& rules, const Board& board, Sq from,
                              Sq to, bool ignore_lock) {
  if (!rules.OnBoard(from.x, from.y) || !rules.OnBoard(to.x, to.y)) return {};
  if (board.At(from) == kEmpty || board.At(to) != kEmpty) return {};
  const bool lock = rules.target_lock && !ignore_lock;
  if (IsNeighbour(from, to)) {
    if (StepAllowed(rules, board, from, to, lock)) return {from, to};
    return {};
  }
  static thread_local JumpSearch search;
  search.Run(rules, board, from, lock);
  int which = 0;
  const int hops = search.Best(to, &which);
  if (hops < 1) return {};
  std::vector<Sq> path(hops + 1);
  Sq at = to;
  int locked = which;
  for (int k = hops; k >= 1; --k) {
    path[k] = at;
    const Sq prev = search.parent[locked][at.y][at.x];
    locked = search.parent_locked[locked][at.y][at.x] ? 1 : 0;
    at = prev;
  }
  path[0] = at;
  return path;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kLegal:
      return "legal";
    case Verdict::kGameOver:
      return "game-over";
    case Verdict::kPassNotAllowed:
      return "pass-not-allowed";
    case Verdict::kEmptyOrigin:
      return "empty-origin";
    case Verdict::kNotYourPiece:
      return "not-your-piece";
    case Verdict::kDestinationOccupied:
      return "destination-occupied";
    case Verdict::kNothingToJump:
      return "nothing-to-jump";
    case Verdict::kNotAHop:
      return "not-a-hop";
    case Verdict::kSquareVisitedTwice:
      return "square-visited-twice";
    case Verdict::kLeavesTarget:
      return "leaves-target";
    case Verdict::kUnreachable:
      return "unreachable";
  }
  return "?";
}

Verdict CheckChain(const Rules& rules, const Board& board, const Sq* path,
                   int count) {
  if (count < 2) return Verdict::kNotAHop;
  const Sq origin = path[0];
  if (!rules.OnBoard(origin.x, origin.y) || board.At(origin) == kEmpty) {
    return Verdict::kEmptyOrigin;
  }
  const char seat = board.to_move;
  if (board.At(origin) != seat) return Verdict::kNotYourPiece;
  char cell[kMaxN][kMaxN];
  std::memcpy(cell, board.cell, sizeof(cell));
  cell[origin.y][origin.x] = kEmpty;  // The origin is empty once left.
  bool visited[kMaxN][kMaxN] = {};
  visited[origin.y][origin.x] = true;
  const bool lock = rules.target_lock;
  bool locked = lock && rules.InTarget(seat, origin.x, origin.y);
  Sq at = origin;
  for (int i = 1; i < count; ++i) {
    const Sq to = path[i];
    if (!rules.OnBoard(to.x, to.y)) return Verdict::kNotAHop;
    if (visited[to.y][to.x]) return Verdict::kSquareVisitedTwice;
    if (!IsHopShape(at, to)) return Verdict::kNotAHop;
    const Sq over{(at.x + to.x) / 2, (at.y + to.y) / 2};
    if (cell[over.y][over.x] == kEmpty) return Verdict::kNothingToJump;
    if (cell[to.y][to.x] != kEmpty) return Verdict::kDestinationOccupied;
    const bool in_target = rules.InTarget(seat, to.x, to.y);
    if (locked && !in_target) return Verdict::kLeavesTarget;
    if (lock && in_target) locked = true;
    visited[to.y][to.x] = true;
    at = to;
  }
  return Verdict::kLegal;
}

Verdict CheckPath(const Rules& rules, const Board& board,
                  const std::vector<Sq>& path) {
  if (path.size() < 2) return Verdict::kNotAHop;
  const Sq from = path[0];
  if (board.At(from) == kEmpty) return Verdict::kEmptyOrigin;
  if (board.At(from) != board.to_move) return Verdict::kNotYourPiece;
  if (path.size() >= 3) {
    return CheckChain(rules, board, path.data(), static_cast<int>(path.size()));
  }
  const Sq to = path[1];
  if (to == from) return Verdict::kSquareVisitedTwice;
  if (IsNeighbour(from, to)) {  // A step.
    if (board.At(to) != kEmpty) return Verdict::kDestinationOccupied;
    if (!StepAllowed(rules, board, from, to, rules.target_lock)) {
      return Verdict::kLeavesTarget;
    }
    return Verdict::kLegal;
  }
  if (IsHopShape(from, to)) return CheckChain(rules, board, path.data(), 2);
  // Shorthand: any legal chain.
  if (board.At(to) != kEmpty) return Verdict::kDestinationOccupied;
  if (!FewestHopPath(rules, board, from, to).empty()) return Verdict::kLegal;
  if (!FewestHopPath(rules, board, from, to, /*ignore_lock=*/true).empty()) {
    return Verdict::kLeavesTarget;
  }
  return Verdict::kUnreachable;
}

bool BrokeHomeExit(const Rules& rules, const Board& board, char seat) {
  const int limit = rules.home_exit_limit;
  if (limit == 0) return false;
  if (board.moves[TurnIndexOrDie(rules, seat)] <= limit) return false;
  for (int y = 0; y < rules.n; ++y) {
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] == seat && rules.InHome(seat, x, y)) return true;
    }
  }
  return false;
}

bool AllInTarget(const Rules& rules, const Board& board, char seat) {
  for (int y = 0; y < rules.n; ++y) {
    for (int x = 0; x < rules.n; ++x) {
      if (board.cell[y][x] == seat && !rules.InTarget(seat, x, y)) return false;
    }
  }
  return true;
}

namespace {

// The next seat to move after `mover`: the following seat in turn order that
// is still playing (eliminated seats take no further turns).
char NextToMove(const Rules& rules, const Board& after, char mover) {
  const int k = rules.SeatCount();
  const int i = TurnIndexOrDie(rules, mover);
  for (int step = 1; step <= k; ++step) {
    const char s = rules.seats[(i + step) % k];
    if (!Eliminated(rules, after, s)) return s;
  }
  return mover;
}

}  // namespace

Board ApplyMove(const Rules& rules, const Board& board, Sq from, Sq to) {
  Board b = board;
  const char mover = board.to_move;
  b.cell[to.y][to.x] = b.cell[from.y][from.x];
  b.cell[from.y][from.x] = kEmpty;
  ++b.moves[TurnIndexOrDie(rules, mover)];
  b.to_move = NextToMove(rules, b, mover);
  return b;
}

Board ApplyPass(const Rules& rules, const Board& board) {
  Board b = board;
  const char mover = board.to_move;
  ++b.moves[TurnIndexOrDie(rules, mover)];
  b.to_move = NextToMove(rules, b, mover);
  return b;
}

Status Evaluate(const Rules& rules, const Board& board) {
  Status st;
  st.to_move = board.to_move;
  st.rule = "none";
  const int k = rules.SeatCount();
  std::string playing;
  for (char s : rules.seats) {
    if (Eliminated(rules, board, s)) {
      st.eliminated += s;
    } else {
      playing += s;
    }
    if (AllInTarget(rules, board, s)) st.finished += s;
  }
  st.eliminated = Ordered(st.eliminated);
  st.finished = Ordered(st.finished);
  const auto over = [&](const std::string& winners, const char* rule) {
    st.over = true;
    st.winners = Ordered(winners);
    st.rule = rule;
    return st;
  };

  // The last counted move: play goes round by round in turn order, so the
  // latest move is the one of the highest (round, turn index), where a
  // seat's round is its move count.
  int total = 0;
  int last = -1;
  for (int i = 0; i < k; ++i) {
    total += board.moves[i];
    if (board.moves[i] > 0 &&
        (last < 0 || board.moves[i] >= board.moves[last])) {
      last = i;
    }
  }
  bool round_pending = false;
  if (total > 0) {
    const char s = rules.seats[last];
    st.last_mover = s;
    const int round = board.moves[last];
    // 1. Target filled.
    if (!rules.round_completion) {
      if (AllInTarget(rules, board, s))
        return over(std::string(1, s), "target-filled");
    } else {
      // Every seat that moved in this round (it is at or before S in turn
      // order and its count has reached the round) and has finished.
      std::string finishers;
      for (int i = 0; i <= last; ++i) {
        const char t = rules.seats[i];
        if (board.moves[i] == round && AllInTarget(rules, board, t)) {
          finishers += t;
        }
      }
      // The round is played out when no seat after S still takes turns.
      bool round_done = true;
      for (int i = last + 1; i < k; ++i) {
        if (!Eliminated(rules, board, rules.seats[i])) round_done = false;
      }
      if (!finishers.empty()) {
        if (round_done) return over(finishers, "target-filled");
        round_pending = true;
      }
    }
    // 2. Home-exit rule.
    if (BrokeHomeExit(rules, board, s)) {
      if (k == 2) {
        return over(std::string(1, rules.seats[1 - last]), "home-exit");
      }
    }
    if (k == 4 && playing.size() == 1) return over(playing, "home-exit");
    // 3. Move cap.
    if (rules.move_cap > 0) {
      bool all_capped = true;
      for (char t : playing) {
        if (board.moves[rules.TurnIndex(t)] < rules.move_cap) {
          all_capped = false;
        }
      }
      if (all_capped) return over(playing, "move-cap");
    }
  }
  // 4. Everyone stuck. A seat owed its round-completion turn still takes it
  // (by passing), since rule 1 has already settled how the game ends.
  bool anyone_can_move = false;
  for (char t : playing) {
    if (HasAnyLegalMove(rules, board, t)) anyone_can_move = true;
  }
  if (!anyone_can_move && !round_pending) {
    return over(playing, "everyone-stuck");
  }
  st.round_completion_turn = round_pending;
  st.must_pass = !HasAnyLegalMove(rules, board, board.to_move);
  return st;
}

int DistanceToTarget(const Rules& rules, char seat, Sq s) {
  const int corner = TargetCornerOf(seat);
  const int cx =
      (corner == kNorthEast || corner == kSouthEast) ? rules.n - 1 : 0;
  const int cy =
      (corner == kNorthEast || corner == kNorthWest) ? rules.n - 1 : 0;
  return std::abs(s.x - cx) + std::abs(s.y - cy);
}

int ChooseMove(const Rules& rules, const Board& board, char seat,
               const std::vector<Move>& moves, const PlayoutPolicy& policy,
               std::mt19937* rng) {
  std::vector<int> candidates;
  for (int i = 0; i < static_cast<int>(moves.size()); ++i) {
    if (policy.has_lazy && moves[i].from == policy.lazy) continue;
    candidates.push_back(i);
  }
  if (candidates.empty()) {
    for (int i = 0; i < static_cast<int>(moves.size()); ++i) {
      candidates.push_back(i);
    }
  }
  (void)board;
  if (static_cast<int>((*rng)() % 100) >= policy.greedy_percent) {
    return candidates[(*rng)() % candidates.size()];
  }
  // Greedy: the largest advance toward the target corner, with a bonus for
  // entering the target camp and a penalty for leaving it.
  int best_score = -1000000;
  std::vector<int> best;
  for (int i : candidates) {
    const Move& m = moves[i];
    int score = 4 * (DistanceToTarget(rules, seat, m.from) -
                     DistanceToTarget(rules, seat, m.to));
    const bool from_in = rules.InTarget(seat, m.from.x, m.from.y);
    const bool to_in = rules.InTarget(seat, m.to.x, m.to.y);
    if (to_in && !from_in) score += 10;
    if (from_in && !to_in) score -= 10;
    if (score > best_score) {
      best_score = score;
      best.clear();
    }
    if (score == best_score) best.push_back(i);
  }
  return best[(*rng)() % best.size()];
}

}  // namespace halma_ref
