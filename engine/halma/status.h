// Forwarding header, kept only until service/ includes halma/game_status.h
// (the status of a position); remove it then.
#ifndef HALMA_STATUS_H_
#define HALMA_STATUS_H_

#include "halma/game_status.h"

#endif  // HALMA_STATUS_H_
