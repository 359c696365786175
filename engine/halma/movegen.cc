#include "halma/movegen.h"

#include <algorithm>
#include <array>
#include <utility>

#include "halma/flood_fill.h"

namespace halma {
namespace {

// Every uint8_t is a square of the 16x16 frame, so "none" needs a wider type.
constexpr std::int16_t kNoSquare = -1;

// kNeighbour[s][d]: the square next to s in direction d, or kNoSquare off
// the 16x16 frame. Smaller boards are cut by their on-board mask.
constexpr std::array<std::array<std::int16_t, kDirectionCount>, kSquareCount>
MakeNeighbourTable() {
  std::array<std::array<std::int16_t, kDirectionCount>, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const Square square = static_cast<Square>(s);
    for (int d = 0; d < kDirectionCount; ++d) {
      const int nx = FileOf(square) + kDirX[d], ny = RankOf(square) + kDirY[d];
      const bool inside =
          nx >= 0 && ny >= 0 && nx < kMaxBoardSize && ny < kMaxBoardSize;
      t[s][d] = inside ? Neighbour(square, d) : kNoSquare;
    }
  }
  return t;
}
constexpr auto kNeighbour = MakeNeighbourTable();

// kStepMask[s]: the squares one step from s on the 16x16 frame.
constexpr std::array<Bitboard, kSquareCount> MakeStepMasks() {
  std::array<Bitboard, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    for (int d = 0; d < kDirectionCount; ++d) {
      if (kNeighbour[s][d] != kNoSquare) {
        t[s].Set(static_cast<Square>(kNeighbour[s][d]));
      }
    }
  }
  return t;
}
constexpr auto kStepMask = MakeStepMasks();

// Per-position data that every piece's jump closure reuses: for each parity
// class c and direction d, landing[c][d] holds the empty squares that a hop
// in direction d can land on, because it has a piece to jump over (see
// flood_fill.h). Target lock is part of the masks (move_masks.h), so the
// flood fill needs no special case for it.
struct JumpBoard {
  std::uint64_t landing[4][kDirectionCount];
  Bitboard empty_squares;

  JumpBoard(const Variant& variant, const Position& position,
            const MoveMasks& masks) {
    const Bitboard occupied = position.Occupied();
    empty_squares = variant.on_board & ~occupied;
    constexpr auto kDirs = std::make_index_sequence<kDirectionCount>{};
    Fill<0>(occupied, masks, kDirs);
    Fill<1>(occupied, masks, kDirs);
    Fill<2>(occupied, masks, kDirs);
    Fill<3>(occupied, masks, kDirs);
  }

 private:
  template <int kCls, std::size_t... kDirs>
  void Fill(const Bitboard& occupied, const MoveMasks& masks,
            std::index_sequence<kDirs...>) {
    const std::uint64_t empty = empty_squares.word[kCls];
    ((landing[kCls][kDirs] =
          ShiftBits<kLandingRules[kCls][kDirs].shift>(
              occupied.word[kLandingRules[kCls][kDirs].over]) &
          empty & masks.landing[kCls][kDirs]),
     ...);
  }
};

// The squares from which one hop lands on one of `to`.
inline std::uint64_t HopSources(const std::uint64_t* landing,
                                std::uint64_t to) {
  return ShiftBits<-GridShift(0)>(to & landing[0]) |
         ShiftBits<-GridShift(1)>(to & landing[1]) |
         ShiftBits<-GridShift(2)>(to & landing[2]) |
         ShiftBits<-GridShift(3)>(to & landing[3]) |
         ShiftBits<-GridShift(4)>(to & landing[4]) |
         ShiftBits<-GridShift(5)>(to & landing[5]) |
         ShiftBits<-GridShift(6)>(to & landing[6]) |
         ShiftBits<-GridShift(7)>(to & landing[7]);
}

// The squares of a class from which some first hop exists.
inline std::uint64_t Jumpers(const std::uint64_t* landing) {
  return HopSources(landing, ~0ULL);
}

// The steps of all of `movers` at once: steps[c][d] holds the movers of
// class c whose neighbour in direction d is empty (and, under target lock,
// allowed).
template <int kCls, std::size_t... kDirs>
inline void ClassSteps(const Bitboard& empty, const MoveMasks& masks,
                       std::uint64_t mine, std::uint64_t* steps,
                       std::index_sequence<kDirs...>) {
  ((steps[kDirs] = mine & masks.step[kCls][kDirs] &
                   ShiftBits<-kStepRules[kCls][kDirs].shift>(
                       empty.word[kStepRules[kCls][kDirs].to])),
   ...);
}
inline void StepsOfAll(const Bitboard& empty, const MoveMasks& masks,
                       const Bitboard& movers,
                       std::uint64_t steps[4][kDirectionCount]) {
  constexpr auto kDirs = std::make_index_sequence<kDirectionCount>{};
  ClassSteps<0>(empty, masks, movers.word[0], steps[0], kDirs);
  ClassSteps<1>(empty, masks, movers.word[1], steps[1], kDirs);
  ClassSteps<2>(empty, masks, movers.word[2], steps[2], kDirs);
  ClassSteps<3>(empty, masks, movers.word[3], steps[3], kDirs);
}

// The pieces of `seat` that generation covers.
inline Bitboard Movers(const Position& position, Seat seat,
                       const MoveFilter& filter) {
  Bitboard movers = position.pieces[SeatIndex(seat)];
  if (!filter.only_origin) return movers;
  Bitboard one;
  if (movers.Test(filter.origin)) one.Set(filter.origin);
  return one;
}

inline Bitboard TargetCampIfLocked(const Variant& variant, Seat seat) {
  return variant.spec.target_lock ? variant.TargetCamp(seat) : Bitboard{};
}

// Scratch for the functions built on a MoveSet.
MoveSet& ScratchSet() {
  thread_local MoveSet set;
  return set;
}

// Writes a fewest-hop path of `jumper` to the square `dest_index` of its
// layer `hops`, origin first (hops + 1 squares), walking back one layer at a
// time to a square that hops onto the current one.
inline void WritePath(const MoveSet& set, const JumpBoard& board,
                      const MoveSet::Jumper& jumper, int dest_index, int hops,
                      Square* path) {
  const int cls = ClassOf(jumper.origin);
  const std::uint64_t* landing = board.landing[cls];
  std::uint64_t at = std::uint64_t{1} << dest_index;
  path[hops] = FromClass(cls, dest_index);
  for (int k = hops - 1; k >= 1; --k) {
    const std::uint64_t sources =
        HopSources(landing, at) & set.Layer(jumper, k);
    at = sources & (0 - sources);
    path[k] = FromClass(cls, std::countr_zero(at));
  }
  path[0] = jumper.origin;
}

// GenerateMoveSet on a JumpBoard the caller keeps (for the paths).
//
// Nothing here branches on how the pieces lie (a mispredicted branch costs
// as much as a few flood-fill layers), except the loop over groups of four
// jumpers and the flood fill's own loop over layers.
void FillMoveSet(const JumpBoard& board, const MoveMasks& masks,
                 const Bitboard& movers, MoveSet* set) {
  StepsOfAll(board.empty_squares, masks, movers, set->steps);

  // The pieces with a first hop, in class order.
  std::uint64_t jumping[4];
  int start[4];
  int count = 0;
  for (int c = 0; c < 4; ++c) {
    jumping[c] = movers.word[c] & Jumpers(board.landing[c]);
    start[c] = count;
    count += std::popcount(jumping[c]);
  }
  std::uint64_t origins[kMaxPiecesPerSeat + kMaxFloodFillLanes];
  std::uint8_t classes[kMaxPiecesPerSeat + kMaxFloodFillLanes];
  // One flat loop over all of them; the class of the j-th comes from the
  // counts, so a class boundary is not a branch.
  int cls = 0;
  std::uint64_t rest = jumping[0];
  for (int j = 0; j < count; ++j) {
    const int c = (j >= start[1]) + (j >= start[2]) + (j >= start[3]);
    const std::uint64_t fresh = 0 - std::uint64_t(c != cls);
    rest = (jumping[c] & fresh) | (rest & ~fresh);
    cls = c;
    const std::uint64_t bit = rest & (0 - rest);
    rest ^= bit;
    origins[j] = bit;
    classes[j] = static_cast<std::uint8_t>(c);
    set->jumpers[j].origin = FromClass(c, std::countr_zero(bit));
  }
  for (int j = count; j < count + kMaxFloodFillLanes - 1; ++j) {
    origins[j] = 0;
    classes[j] = 0;
  }
  int used = 0;
  for (int g = 0; g < count;) {
    const int lanes = FloodFillGroupLanes(count - g);
    const int layers = FloodFillGroup(board.landing, origins + g, classes + g,
                                      lanes, set->layers + used);
    for (int i = 0; i < lanes; ++i) {
      MoveSet::Jumper& jumper = set->jumpers[g + i];
      jumper.depth = static_cast<std::uint8_t>(layers);
      jumper.stride = static_cast<std::uint8_t>(lanes);
      jumper.first = static_cast<std::uint16_t>(used + i);
    }
    used += lanes * layers;
    g += lanes;
  }
  set->jumper_count = count;
}

}  // namespace

int MoveSet::Count() const {
  int count = 0;
  for (int c = 0; c < 4; ++c) {
    for (int d = 0; d < kDirectionCount; ++d)
      count += std::popcount(steps[c][d]);
  }
  for (int j = 0; j < jumper_count; ++j) {
    for (int k = 1; k <= jumpers[j].depth; ++k) {
      count += std::popcount(Layer(jumpers[j], k));
    }
  }
  return count;
}

void GenerateMoveSet(const Variant& variant, const Position& position,
                     Seat seat, MoveSet* set, MoveFilter filter) {
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const JumpBoard board(variant, position, masks);
  FillMoveSet(board, masks, Movers(position, seat, filter), set);
}

// kStepOrSelf[s][d]: the square next to s in direction d, or s itself off
// the frame (s is never among its own steps), so that the eight candidate
// steps of a piece can be written without a branch.
constexpr std::array<std::array<Square, kDirectionCount>, kSquareCount>
MakeStepOrSelf() {
  std::array<std::array<Square, kDirectionCount>, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    for (int d = 0; d < kDirectionCount; ++d) {
      t[s][d] = kNeighbour[s][d] == kNoSquare
                    ? static_cast<Square>(s)
                    : static_cast<Square>(kNeighbour[s][d]);
    }
  }
  return t;
}
constexpr auto kStepOrSelf = MakeStepOrSelf();

void GenerateLegalMoves(const Variant& variant, const Position& position,
                        Seat seat, MoveList* list, MoveFilter filter) {
  MoveSet& set = ScratchSet();
  GenerateMoveSet(variant, position, seat, &set, filter);
  LegalMove* out = list->moves;
  // Steps: per piece, all eight candidates written and the legal ones kept
  // (no branch per square, so no mispredicted loop exits).
  const Bitboard movers = Movers(position, seat, filter);
  for (int c = 0; c < 4; ++c) {
    const std::uint64_t* steps = set.steps[c];
    for (std::uint64_t w = movers.word[c]; w != 0; w &= w - 1) {
      const int index = std::countr_zero(w);
      const Square origin = FromClass(c, index);
      for (int d = 0; d < kDirectionCount; ++d) {
        *out = LegalMove{origin, kStepOrSelf[origin][d], 0};
        out += (steps[d] >> index) & 1;
      }
    }
  }
  // Jumps: one pass over the union of the layers, the hop count read from
  // bit planes, instead of one bit loop (and one unpredictable exit) per
  // layer.
  for (int j = 0; j < set.jumper_count; ++j) {
    const MoveSet::Jumper& jumper = set.jumpers[j];
    std::uint64_t all = 0, h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0;
    for (int k = 1; k <= jumper.depth; ++k) {
      const std::uint64_t layer = set.Layer(jumper, k);
      all |= layer;
      h0 |= layer & (0 - std::uint64_t(k & 1));
      h1 |= layer & (0 - std::uint64_t((k >> 1) & 1));
      h2 |= layer & (0 - std::uint64_t((k >> 2) & 1));
      h3 |= layer & (0 - std::uint64_t((k >> 3) & 1));
      h4 |= layer & (0 - std::uint64_t((k >> 4) & 1));
      h5 |= layer & (0 - std::uint64_t((k >> 5) & 1));
    }
    const int cls = ClassOf(jumper.origin);
    for (; all != 0; all &= all - 1) {
      const int i = std::countr_zero(all);
      const int hops = int((h0 >> i) & 1) | int((h1 >> i) & 1) << 1 |
                       int((h2 >> i) & 1) << 2 | int((h3 >> i) & 1) << 3 |
                       int((h4 >> i) & 1) << 4 | int((h5 >> i) & 1) << 5;
      *out++ = LegalMove{jumper.origin, FromClass(cls, i),
                         static_cast<std::uint8_t>(hops)};
    }
  }
  list->size = static_cast<int>(out - list->moves);
}

void GenerateLegalMovesWithPaths(const Variant& variant,
                                 const Position& position, Seat seat,
                                 MoveList* list, MovePaths* paths,
                                 MoveFilter filter) {
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const JumpBoard board(variant, position, masks);
  MoveSet& set = ScratchSet();
  FillMoveSet(board, masks, Movers(position, seat, filter), &set);
  int n = 0;
  int used = 0;
  for (int c = 0; c < 4; ++c) {
    for (int d = 0; d < kDirectionCount; ++d) {
      for (std::uint64_t w = set.steps[c][d]; w != 0; w &= w - 1) {
        const Square origin = FromClass(c, std::countr_zero(w));
        const Square to = Neighbour(origin, d);
        paths->offset[n] = used;
        paths->squares[used++] = origin;
        paths->squares[used++] = to;
        list->moves[n++] = LegalMove{origin, to, 0};
      }
    }
  }
  // Jumps, layer by layer: the path to a square of layer k is the path to
  // one square of layer k - 1 that hops onto it (the lowest, as WritePath
  // picks) and the square itself, so each path costs one HopSources and a
  // copy rather than one HopSources per hop.
  int path_at[64];  // Where the path to each grid square was written.
  for (int j = 0; j < set.jumper_count; ++j) {
    const MoveSet::Jumper& jumper = set.jumpers[j];
    const int cls = ClassOf(jumper.origin);
    const std::uint64_t* landing = board.landing[cls];
    for (int k = 1; k <= jumper.depth; ++k) {
      const std::uint64_t previous = k == 1 ? 0 : set.Layer(jumper, k - 1);
      for (std::uint64_t w = set.Layer(jumper, k); w != 0; w &= w - 1) {
        const int index = std::countr_zero(w);
        Square* path = paths->squares + used;
        if (k == 1) {
          path[0] = jumper.origin;
        } else {
          const std::uint64_t sources =
              HopSources(landing, std::uint64_t{1} << index) & previous;
          std::copy_n(paths->squares + path_at[std::countr_zero(sources)], k,
                      path);
        }
        path[k] = FromClass(cls, index);
        path_at[index] = used;
        paths->offset[n] = used;
        used += k + 1;
        list->moves[n++] = LegalMove{jumper.origin, FromClass(cls, index),
                                     static_cast<std::uint8_t>(k)};
      }
    }
  }
  list->size = n;
  paths->offset[n] = used;
}

bool HasLegalMove(const Variant& variant, const Position& position, Seat seat) {
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const Bitboard movers = position.pieces[SeatIndex(seat)];
  // Steps need only the empty squares, and nearly every position has one;
  // the hop masks are built only when none does.
  std::uint64_t steps[4][kDirectionCount];
  StepsOfAll(variant.on_board & ~position.Occupied(), masks, movers, steps);
  std::uint64_t any = 0;
  for (int c = 0; c < 4; ++c) {
    for (int d = 0; d < kDirectionCount; ++d) any |= steps[c][d];
  }
  if (any != 0) return true;
  const JumpBoard board(variant, position, masks);
  for (int c = 0; c < 4; ++c) any |= movers.word[c] & Jumpers(board.landing[c]);
  return any != 0;
}

int FewestHopPath(const Variant& variant, const Position& position,
                  Square origin, Square destination,
                  Square path[kMaxPathSquares], bool ignore_target_lock) {
  Seat seat;
  if (!position.PieceAt(origin, &seat)) return 0;
  static const MoveMasks kUnlocked = MakeMoveMasks(Bitboard{});
  const Bitboard target_camp =
      ignore_target_lock ? Bitboard{} : TargetCampIfLocked(variant, seat);
  const JumpBoard board(
      variant, position,
      ignore_target_lock ? kUnlocked : variant.MoveMasksOf(seat));
  if (!board.empty_squares.Test(destination)) return 0;
  if (kStepMask[origin].Test(destination)) {
    if (target_camp.Test(origin) && !target_camp.Test(destination)) return 0;
    path[0] = origin;
    path[1] = destination;
    return 2;
  }
  const int cls = ClassOf(origin);
  if (ClassOf(destination) != cls) return 0;
  MoveSet& set = ScratchSet();
  std::uint64_t origins[kMaxFloodFillLanes] = {};
  origins[0] = std::uint64_t{1} << ClassIndexOf(origin);
  std::uint8_t classes[kMaxFloodFillLanes] = {};
  classes[0] = static_cast<std::uint8_t>(cls);
  const int lanes = FloodFillGroupLanes(1);
  const int layers =
      FloodFillGroup(board.landing, origins, classes, lanes, set.layers);
  const MoveSet::Jumper jumper{origin, static_cast<std::uint8_t>(layers),
                               static_cast<std::uint8_t>(lanes), 0};
  const std::uint64_t dest_bit = std::uint64_t{1} << ClassIndexOf(destination);
  for (int k = 1; k <= layers; ++k) {
    if (set.Layer(jumper, k) & dest_bit) {
      WritePath(set, board, jumper, ClassIndexOf(destination), k, path);
      return k + 1;
    }
  }
  return 0;
}

bool MoveOrder(const LegalMove& a, const LegalMove& b) {
  const auto key = [](const LegalMove& m) {
    return (FileOf(m.origin) << 24) | (RankOf(m.origin) << 16) |
           (FileOf(m.destination) << 8) | RankOf(m.destination);
  };
  return key(a) < key(b);
}

void SortMoves(MoveList* list) {
  std::sort(list->moves, list->moves + list->size, MoveOrder);
}

}  // namespace halma
