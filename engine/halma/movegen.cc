#include "halma/movegen.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#include "halma/flood_fill.h"
#include "halma/popcount.h"

#ifdef HALMA_HAVE_AVX2_KERNEL
#include <immintrin.h>
#endif

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

// Per-position data that every piece's jump closure reuses: landing[d][c]
// holds the empty squares of class c that a hop in direction d can land on,
// because it has a piece to jump over (see flood_fill.h). Target lock is
// part of the masks (move_masks.h), so the flood fill needs no special case
// for it.
struct JumpBoard {
  std::uint64_t landing[kDirectionCount][4];
  Bitboard empty_squares;
};

// The scalar mask preparation, one word at a time (index i of the folds
// below is direction i / 4, class i % 4). The baseline path and the
// functions outside GenerateMoveSet use it.
template <std::size_t... kI>
inline void FillLandings(const Bitboard& occupied, const MoveMasks& masks,
                         JumpBoard* board, std::index_sequence<kI...>) {
  ((board->landing[kI / 4][kI % 4] =
        ShiftBits<kLandingRules[kI % 4][kI / 4].shift>(
            occupied.word[kLandingRules[kI % 4][kI / 4].over]) &
        board->empty_squares.word[kI % 4] & masks.landing[kI / 4][kI % 4]),
   ...);
}
inline void MakeJumpBoard(const Variant& variant, const Position& position,
                          const MoveMasks& masks, JumpBoard* board) {
  const Bitboard occupied = position.Occupied();
  board->empty_squares = variant.on_board & ~occupied;
  FillLandings(occupied, masks, board,
               std::make_index_sequence<4 * kDirectionCount>{});
}

// The squares of class `cls` from which one hop lands on one of `to`.
inline std::uint64_t HopSources(const std::uint64_t (*landing)[4], int cls,
                                std::uint64_t to) {
  return ShiftBits<-GridShift(0)>(to & landing[0][cls]) |
         ShiftBits<-GridShift(1)>(to & landing[1][cls]) |
         ShiftBits<-GridShift(2)>(to & landing[2][cls]) |
         ShiftBits<-GridShift(3)>(to & landing[3][cls]) |
         ShiftBits<-GridShift(4)>(to & landing[4][cls]) |
         ShiftBits<-GridShift(5)>(to & landing[5][cls]) |
         ShiftBits<-GridShift(6)>(to & landing[6][cls]) |
         ShiftBits<-GridShift(7)>(to & landing[7][cls]);
}

// The squares of each class from which some first hop exists.
inline void Jumpers(const JumpBoard& board, std::uint64_t jumpers[4]) {
  for (int c = 0; c < 4; ++c) jumpers[c] = HopSources(board.landing, c, ~0ULL);
}

// The steps of all of `movers` at once: steps[d][c] holds the movers of
// class c whose neighbour in direction d is empty (and, under target lock,
// allowed).
template <std::size_t... kI>
inline void StepsOfAll(const Bitboard& empty, const MoveMasks& masks,
                       const Bitboard& movers,
                       std::uint64_t steps[kDirectionCount][4],
                       std::index_sequence<kI...>) {
  ((steps[kI / 4][kI % 4] = movers.word[kI % 4] & masks.step[kI / 4][kI % 4] &
                            ShiftBits<-kStepRules[kI % 4][kI / 4].shift>(
                                empty.word[kStepRules[kI % 4][kI / 4].to])),
   ...);
}
inline void StepsOfAll(const Bitboard& empty, const MoveMasks& masks,
                       const Bitboard& movers,
                       std::uint64_t steps[kDirectionCount][4]) {
  StepsOfAll(empty, masks, movers, steps,
             std::make_index_sequence<4 * kDirectionCount>{});
}

// Whether any piece of `movers` has a step: StepsOfAll's words one at a
// time, stopping at the first that is not empty.
template <std::size_t... kI>
inline bool AnyStep(const Bitboard& empty, const MoveMasks& masks,
                    const Bitboard& movers, std::index_sequence<kI...>) {
  return (((movers.word[kI % 4] & masks.step[kI / 4][kI % 4] &
            ShiftBits<-kStepRules[kI % 4][kI / 4].shift>(
                empty.word[kStepRules[kI % 4][kI / 4].to])) != 0) ||
          ...);
}

// Lists the pieces of `jumping` (one word per class) for the flood fill,
// one row at a time: the lowest remaining piece of each class, so that a
// row costs the same whatever the classes hold and the only data-dependent
// branch is the end of the list. Pads the idle lanes of the last group.
inline void ListJumpers(const std::uint64_t jumping[4], MoveSet* set) {
  std::uint64_t rest[4] = {jumping[0], jumping[1], jumping[2], jumping[3]};
  int n = 0;
  while ((rest[0] | rest[1] | rest[2] | rest[3]) != 0) {
    for (int c = 0; c < 4; ++c) {
      const std::uint64_t bit = rest[c] & (0 - rest[c]);
      rest[c] ^= bit;
      set->jumper_bits[n] = bit;
      set->jumper_classes[n] = static_cast<std::uint8_t>(c);
      n += bit != 0;
    }
  }
  // Fixed-size copies, which the compiler inlines (a loop would become a
  // call to memset).
  static constexpr std::uint64_t kNoBits[kMaxFloodFillLanes] = {};
  static constexpr std::uint8_t kNoClasses[kMaxFloodFillLanes] = {};
  std::memcpy(set->jumper_bits + n, kNoBits, sizeof kNoBits);
  std::memcpy(set->jumper_classes + n, kNoClasses, sizeof kNoClasses);
  set->jumper_count = n;
}

#ifdef HALMA_HAVE_AVX2_KERNEL

// The AVX2 path of GenerateMoveSet: each direction's four class words in
// one register, so that the hop masks, the jumpers and the steps of a
// direction take a handful of instructions for all classes, and the
// jumpers are listed a row (one per class) at a time.

HALMA_AVX2_TARGET inline __m256i Load4(const std::uint64_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
HALMA_AVX2_TARGET inline void Store4(std::uint64_t* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// The words of the neighbouring classes of direction kDir (landing or step
// shifts, move_masks.h), shifted onto the classes they serve.
template <int kDir, bool kStep>
HALMA_AVX2_TARGET inline __m256i FromNeighbours(__m256i words) {
  constexpr const ClassShifts& s =
      kStep ? kStepShifts[kDir] : kLandingShifts[kDir];
  constexpr int x = s.neighbour_xor;
  __m256i v = words;
  if constexpr (x != 0) {
    v = _mm256_permute4x64_epi64(
        words, (0 ^ x) | (1 ^ x) << 2 | (2 ^ x) << 4 | (3 ^ x) << 6);
  }
  if constexpr (s.any_left && s.any_right) {
    return _mm256_or_si256(_mm256_sllv_epi64(v, Load4(s.left)),
                           _mm256_srlv_epi64(v, Load4(s.right)));
  } else if constexpr (s.any_left) {
    return _mm256_sllv_epi64(v, Load4(s.left));
  } else if constexpr (s.any_right) {
    return _mm256_srlv_epi64(v, Load4(s.right));
  } else {
    return v;
  }
}

template <int kShift>
HALMA_AVX2_TARGET inline __m256i ShiftAll(__m256i v) {
  if constexpr (kShift >= 0) {
    return _mm256_slli_epi64(v, kShift);
  } else {
    return _mm256_srli_epi64(v, -kShift);
  }
}

// Direction kDir: stores its hop masks and steps, returns the squares from
// which one of its hops starts.
template <int kDir>
HALMA_AVX2_TARGET inline __m256i Direction(__m256i occupied, __m256i empty,
                                           __m256i mine, const MoveMasks& masks,
                                           JumpBoard* board, MoveSet* set) {
  const __m256i landing = _mm256_and_si256(
      _mm256_and_si256(FromNeighbours<kDir, false>(occupied), empty),
      Load4(masks.landing[kDir]));
  Store4(board->landing[kDir], landing);
  Store4(set->steps[kDir],
         _mm256_and_si256(_mm256_and_si256(mine, Load4(masks.step[kDir])),
                          FromNeighbours<kDir, true>(empty)));
  return ShiftAll<-GridShift(kDir)>(landing);
}

template <std::size_t... kDirs>
HALMA_AVX2_TARGET inline __m256i AllDirections(__m256i occupied, __m256i empty,
                                               __m256i mine,
                                               const MoveMasks& masks,
                                               JumpBoard* board, MoveSet* set,
                                               std::index_sequence<kDirs...>) {
  __m256i sources = _mm256_setzero_si256();
  ((sources = _mm256_or_si256(
        sources, Direction<kDirs>(occupied, empty, mine, masks, board, set))),
   ...);
  return sources;
}

// kCompact[m]: the permute that moves the lanes set in m (a 4-bit mask) to
// the front, in order, as 32-bit index pairs; kCompactClasses[m] the same
// lanes' classes as bytes.
struct CompactTables {
  std::uint32_t index[16][8];
  std::uint32_t classes[16];
};
constexpr CompactTables MakeCompactTables() {
  CompactTables t{};
  for (int m = 0; m < 16; ++m) {
    int n = 0;
    for (int lane = 0; lane < 4; ++lane) {
      if ((m >> lane & 1) == 0) continue;
      t.index[m][2 * n] = 2 * lane;
      t.index[m][2 * n + 1] = 2 * lane + 1;
      t.classes[m] |= static_cast<std::uint32_t>(lane) << (8 * n);
      ++n;
    }
  }
  return t;
}
constexpr CompactTables kCompact = MakeCompactTables();

// One row of ListJumpers: the lowest piece of each class in `rest`,
// compacted with one permute and appended at *n. Returns the rest.
HALMA_AVX2_TARGET inline __m256i ListRow(__m256i rest, MoveSet* set, int* n) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i bit = _mm256_and_si256(rest, _mm256_sub_epi64(zero, rest));
  const int live =
      _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(bit, zero))) ^
      15;
  Store4(set->jumper_bits + *n,
         _mm256_permutevar8x32_epi32(
             bit, _mm256_loadu_si256(
                      reinterpret_cast<const __m256i*>(kCompact.index[live]))));
  __builtin_memcpy(set->jumper_classes + *n, &kCompact.classes[live],
                   sizeof kCompact.classes[live]);
  *n += std::popcount(static_cast<unsigned>(live));
  return _mm256_xor_si256(rest, bit);
}

HALMA_AVX2_TARGET void PrepareAvx2(const Variant& variant,
                                   const Position& position,
                                   const MoveMasks& masks,
                                   const Bitboard& movers, JumpBoard* board,
                                   MoveSet* set) {
  const __m256i occupied =
      _mm256_or_si256(_mm256_or_si256(Load4(position.pieces[0].word),
                                      Load4(position.pieces[1].word)),
                      _mm256_or_si256(Load4(position.pieces[2].word),
                                      Load4(position.pieces[3].word)));
  const __m256i empty =
      _mm256_andnot_si256(occupied, Load4(variant.on_board.word));
  Store4(board->empty_squares.word, empty);
  const __m256i mine = Load4(movers.word);
  __m256i rest = _mm256_and_si256(
      mine, AllDirections(occupied, empty, mine, masks, board, set,
                          std::make_index_sequence<kDirectionCount>{}));
  // The rows of ListJumpers, two per round: the number of rounds varies
  // less than the number of rows, so the loop's exit is mispredicted less
  // often, and a spare row costs less than a misprediction.
  int n = 0;
  while (!_mm256_testz_si256(rest, rest)) {
    rest = ListRow(rest, set, &n);
    rest = ListRow(rest, set, &n);
  }
  const __m256i zero = _mm256_setzero_si256();
  static_assert(kMaxFloodFillLanes <= 16);
  Store4(set->jumper_bits + n, zero);
  Store4(set->jumper_bits + n + 4, zero);
  Store4(set->jumper_bits + n + 8, zero);
  Store4(set->jumper_bits + n + 12, zero);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(set->jumper_classes + n),
                   _mm256_castsi256_si128(zero));
  set->jumper_count = n;
}

#endif  // HALMA_HAVE_AVX2_KERNEL

void PrepareBaseline(const Variant& variant, const Position& position,
                     const MoveMasks& masks, const Bitboard& movers,
                     JumpBoard* board, MoveSet* set) {
  MakeJumpBoard(variant, position, masks, board);
  StepsOfAll(board->empty_squares, masks, movers, set->steps);
  std::uint64_t jumping[4];
  Jumpers(*board, jumping);
  for (int c = 0; c < 4; ++c) jumping[c] &= movers.word[c];
  ListJumpers(jumping, set);
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
inline void WritePath(const JumpBoard& board, const MoveSet::Jumper& jumper,
                      int dest_index, int hops, Square* path) {
  const int cls = ClassOf(jumper.origin);
  std::uint64_t at = std::uint64_t{1} << dest_index;
  path[hops] = FromClass(cls, dest_index);
  for (int k = hops - 1; k >= 1; --k) {
    const std::uint64_t sources =
        HopSources(board.landing, cls, at) & jumper.Layer(k);
    at = sources & (0 - sources);
    path[k] = FromClass(cls, std::countr_zero(at));
  }
  path[0] = jumper.origin;
}

// GenerateMoveSet, leaving the hop masks in `board` for the paths.
//
// Nothing here branches on how the pieces lie (a mispredicted branch costs
// as much as a few flood-fill layers), except the end of the jumper list,
// the loop over groups and the flood fill's own loop over layers.
void FillMoveSet(const Variant& variant, const Position& position,
                 const MoveMasks& masks, const Bitboard& movers,
                 JumpBoard* board, MoveSet* set) {
#ifdef HALMA_HAVE_AVX2_KERNEL
  if (ActiveFloodFillKernel() == FloodFillKernel::kAvx2) {
    PrepareAvx2(variant, position, masks, movers, board, set);
  } else {
    PrepareBaseline(variant, position, masks, movers, board, set);
  }
#else
  PrepareBaseline(variant, position, masks, movers, board, set);
#endif
  set->group_count = FloodFillPieces(
      board->landing, set->jumper_bits, set->jumper_classes, set->jumper_count,
      (variant.size + 1) / 2, set->layers, set->groups);
}

}  // namespace

HALMA_POPCNT_CLONES int MoveSet::Count() const {
  int count = 0;
  for (int d = 0; d < kDirectionCount; ++d) {
    for (int c = 0; c < 4; ++c) count += std::popcount(steps[d][c]);
  }
  ForEachJumper([&count](const Jumper& jumper) {
    for (int k = 1; k <= jumper.depth; ++k) {
      count += std::popcount(jumper.Layer(k));
    }
  });
  return count;
}

void GenerateMoveSet(const Variant& variant, const Position& position,
                     Seat seat, MoveSet* set, MoveFilter filter) {
  JumpBoard board;
  FillMoveSet(variant, position, variant.MoveMasksOf(seat),
              Movers(position, seat, filter), &board, set);
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
    for (std::uint64_t w = movers.word[c]; w != 0; w &= w - 1) {
      const int index = std::countr_zero(w);
      const Square origin = FromClass(c, index);
      for (int d = 0; d < kDirectionCount; ++d) {
        *out = LegalMove{origin, kStepOrSelf[origin][d], 0};
        out += (set.steps[d][c] >> index) & 1;
      }
    }
  }
  // Jumps: one pass over the union of the layers, the hop count read from
  // bit planes, instead of one bit loop (and one unpredictable exit) per
  // layer.
  set.ForEachJumper([&out](const MoveSet::Jumper& jumper) {
    std::uint64_t all = 0, h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0;
    for (int k = 1; k <= jumper.depth; ++k) {
      const std::uint64_t layer = jumper.Layer(k);
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
  });
  list->size = static_cast<int>(out - list->moves);
}

void GenerateLegalMovesWithPaths(const Variant& variant,
                                 const Position& position, Seat seat,
                                 MoveList* list, MovePaths* paths,
                                 MoveFilter filter) {
  JumpBoard board;
  MoveSet& set = ScratchSet();
  FillMoveSet(variant, position, variant.MoveMasksOf(seat),
              Movers(position, seat, filter), &board, &set);
  int n = 0;
  int used = 0;
  for (int c = 0; c < 4; ++c) {
    for (int d = 0; d < kDirectionCount; ++d) {
      for (std::uint64_t w = set.steps[d][c]; w != 0; w &= w - 1) {
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
  set.ForEachJumper([&](const MoveSet::Jumper& jumper) {
    const int cls = ClassOf(jumper.origin);
    for (int k = 1; k <= jumper.depth; ++k) {
      const std::uint64_t previous = k == 1 ? 0 : jumper.Layer(k - 1);
      for (std::uint64_t w = jumper.Layer(k); w != 0; w &= w - 1) {
        const int index = std::countr_zero(w);
        Square* path = paths->squares + used;
        if (k == 1) {
          path[0] = jumper.origin;
        } else {
          const std::uint64_t sources =
              HopSources(board.landing, cls, std::uint64_t{1} << index) &
              previous;
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
  });
  list->size = n;
  paths->offset[n] = used;
}

bool HasLegalMove(const Variant& variant, const Position& position, Seat seat) {
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const Bitboard movers = position.pieces[SeatIndex(seat)];
  // Steps need only the empty squares, and nearly every position has one:
  // the first class and direction with a step ends the search (a replay
  // asks this once per ply), and the hop masks are built only when none has.
  if (AnyStep(variant.on_board & ~position.Occupied(), masks, movers,
              std::make_index_sequence<4 * kDirectionCount>{})) {
    return true;
  }
  std::uint64_t any = 0;
  JumpBoard board;
  MakeJumpBoard(variant, position, masks, &board);
  std::uint64_t jumpers[4];
  Jumpers(board, jumpers);
  for (int c = 0; c < 4; ++c) any |= movers.word[c] & jumpers[c];
  return any != 0;
}

bool FindStep(const Variant& variant, const Position& position,
              const Bitboard& occupied, Seat seat, Square* origin,
              Square* destination) {
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const Bitboard& movers = position.pieces[SeatIndex(seat)];
  const Bitboard empty = variant.on_board & ~occupied;
  for (int d = 0; d < kDirectionCount; ++d) {
    for (int c = 0; c < 4; ++c) {
      const StepRule& rule = kStepRules[c][d];
      const std::uint64_t to = empty.word[rule.to];
      const std::uint64_t from =
          rule.shift >= 0 ? to >> rule.shift : to << -rule.shift;
      const std::uint64_t steps = movers.word[c] & masks.step[d][c] & from;
      if (steps != 0) {
        *origin = FromClass(c, std::countr_zero(steps));
        *destination = Neighbour(*origin, d);
        return true;
      }
    }
  }
  return false;
}

int FewestHopPath(const Variant& variant, const Position& position,
                  Square origin, Square destination,
                  Square path[kMaxPathSquares], bool ignore_target_lock) {
  Seat seat;
  if (!position.PieceAt(origin, &seat)) return 0;
  static const MoveMasks kUnlocked = MakeMoveMasks(Bitboard{});
  const Bitboard target_camp =
      ignore_target_lock ? Bitboard{} : TargetCampIfLocked(variant, seat);
  JumpBoard board;
  MakeJumpBoard(variant, position,
                ignore_target_lock ? kUnlocked : variant.MoveMasksOf(seat),
                &board);
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
  const MoveSet::Jumper jumper{origin, layers, lanes, set.layers};
  const std::uint64_t dest_bit = std::uint64_t{1} << ClassIndexOf(destination);
  for (int k = 1; k <= layers; ++k) {
    if (jumper.Layer(k) & dest_bit) {
      WritePath(board, jumper, ClassIndexOf(destination), k, path);
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
