// Forwarding header, kept only until service/ and client/ include
// halma/record_replay.h (the replay of a game record); remove it then.
#ifndef HALMA_GAME_H_
#define HALMA_GAME_H_

#include "halma/record_replay.h"

#endif  // HALMA_GAME_H_
