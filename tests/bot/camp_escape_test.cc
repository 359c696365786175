// CanLeaveCamp (halma/bot/camp_escape.h) against the engine's own moves.
#include "halma/bot/camp_escape.h"

#include <string>

#include "gtest/gtest.h"
#include "halma/notation.h"
#include "tests/bot/bot_test_util.h"

namespace halma::bot {
namespace {

using bot_test::CanGetOutByItsOwnMoves;
using bot_test::Playouts;
using bot_test::Variants;
using testing_util::Parse;
using testing_util::Preset;

// Every piece standing in another seat's target camp, in positions of
// random playouts of every variant: the flood and the engine agree.
TEST(CampEscapeTest, AgreesWithTheEnginesMoves) {
  int walled_in = 0, checked = 0;
  for (const bot_test::NamedVariant& nv : Variants()) {
    const Variant& v = nv.variant;
    for (const Position& p : Playouts(v, 3, 160, 7)) {
      const Bitboard occupied = p.Occupied();
      for (int i = 0; i < v.seat_count; ++i) {
        const Seat owner = v.seats[i];
        const Bitboard& camp = v.TargetCamp(owner);
        for (int j = 0; j < v.seat_count; ++j) {
          const Seat seat = v.seats[j];
          if (seat == owner) continue;
          ForEachSquare(p.pieces[SeatIndex(seat)] & camp, [&](Square q) {
            const bool expected = CanGetOutByItsOwnMoves(v, p, seat, q, camp);
            ASSERT_EQ(CanLeaveCamp(v.size, occupied, camp, q), expected)
                << nv.name << " " << FormatPosition(p, v) << " piece on "
                << FormatSquare(q) << " in the camp of "
                << std::string(1, SeatLetter(owner));
            ++checked;
            walled_in += !expected;
          });
        }
      }
    }
  }
  // Both answers occur (the start's back rows are walled in by their own).
  EXPECT_GT(checked, 1000);
  EXPECT_GT(walled_in, 100);
  EXPECT_LT(walled_in, checked);
}

// The deadlock of docs/bot.md ("A camp closed on a straggler"): b's camp
// full but for a1, held by w's piece that b's pieces wall in.
TEST(CampEscapeTest, AWalledInStragglerCannotLeave) {
  const Variant v = Preset("classic-16x16");
  const Position p = Parse(
      "11wwwww/11wwwww/12wwww/13www/15w/16/16/16/16/16/16/bbb13/bbb13/"
      "bbbb12/bbbbb11/wbbbb11 w 1000,1000",
      v);
  const Bitboard& camp = v.TargetCamp(Seat::kB);
  const Square a1 = MakeSquare(0, 0);
  EXPECT_FALSE(CanLeaveCamp(v.size, p.Occupied(), camp, a1));
  EXPECT_FALSE(CanGetOutByItsOwnMoves(v, p, Seat::kW, a1, camp));
}

}  // namespace
}  // namespace halma::bot
