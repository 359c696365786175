#include "service/config/version.h"

#ifndef HALMA_VERSION
#define HALMA_VERSION "unknown"
#endif

namespace halma::service {

const char* Version() { return HALMA_VERSION; }

}  // namespace halma::service
