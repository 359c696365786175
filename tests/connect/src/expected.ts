// The answers docs/http.md shows (and ListVariants' presets), as the tests expect them.
import { GameStatus_State, IllegalReason, Seat } from "./gen/halma/v1/halma_pb";

export const brainking8Start = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";

export const presetNames = [
  "brainking-8x8",
  "brainking-10x10",
  "iggamecenter-10x10",
  "classic-16x16",
  "classic-16x16-4p",
];

export const badPresetMessage =
  'variant.preset: variant "brainking-9x9": no such preset, expected one of ' + presetNames.join(", ");

export interface ExpectedVariant {
  name: string;
  spec: {
    boardSize: number;
    seatCount: number;
    campRows: number[];
    homeExitLimit: number;
    roundCompletion: boolean;
    targetLock: boolean;
    moveCap: number;
  };
  seats: Seat[];
  piecesPerSeat: number;
  startPosition: string;
  source: string;
}

export const variants: ExpectedVariant[] = [
  {
    name: "brainking-8x8",
    spec: { boardSize: 8, seatCount: 2, campRows: [4, 3, 2, 1], homeExitLimit: 30, roundCompletion: false, targetLock: false, moveCap: 0 },
    seats: [Seat.W, Seat.B],
    piecesPerSeat: 10,
    startPosition: brainking8Start,
    source: "BrainKing Halma 8x8",
  },
  {
    name: "brainking-10x10",
    spec: { boardSize: 10, seatCount: 2, campRows: [5, 4, 3, 2, 1], homeExitLimit: 50, roundCompletion: false, targetLock: false, moveCap: 0 },
    seats: [Seat.W, Seat.B],
    piecesPerSeat: 15,
    startPosition: "5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww5 w 0,0",
    source: "BrainKing Halma 10x10",
  },
  {
    name: "iggamecenter-10x10",
    spec: { boardSize: 10, seatCount: 2, campRows: [5, 4, 3, 2, 1], homeExitLimit: 0, roundCompletion: true, targetLock: false, moveCap: 0 },
    seats: [Seat.W, Seat.B],
    piecesPerSeat: 15,
    startPosition: "5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww5 w 0,0",
    source: "igGameCenter Halma",
  },
  {
    name: "classic-16x16",
    spec: { boardSize: 16, seatCount: 2, campRows: [5, 5, 4, 3, 2], homeExitLimit: 0, roundCompletion: false, targetLock: true, moveCap: 0 },
    seats: [Seat.W, Seat.B],
    piecesPerSeat: 19,
    startPosition: "11bbbbb/11bbbbb/12bbbb/13bbb/14bb/16/16/16/16/16/16/ww14/www13/wwww12/wwwww11/wwwww11 w 0,0",
    source: "original two-handed game (G. H. Monks)",
  },
  {
    name: "classic-16x16-4p",
    spec: { boardSize: 16, seatCount: 4, campRows: [4, 4, 3, 2], homeExitLimit: 0, roundCompletion: false, targetLock: true, moveCap: 0 },
    seats: [Seat.W, Seat.R, Seat.B, Seat.G],
    piecesPerSeat: 13,
    startPosition:
      "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/www10ggg/wwww8gggg/wwww8gggg w 0,0,0,0",
    source: "original four-handed game",
  },
];

/** A GameStatus with every field, defaults filled in. */
export function status(state: GameStatus_State, toMove: Seat) {
  return {
    state,
    toMove,
    roundCompletionTurn: false,
    mustPass: false,
    winners: [] as Seat[],
    rule: 0,
    ply: 0,
    finished: [] as Seat[],
    eliminated: [] as Seat[],
  };
}

export { GameStatus_State, IllegalReason, Seat };
