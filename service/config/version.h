// The project's version, as the build knows it.
#ifndef HALMA_SERVICE_CONFIG_VERSION_H_
#define HALMA_SERVICE_CONFIG_VERSION_H_

namespace halma::service {

// CMake's PROJECT_VERSION, e.g. "0.1.0".
const char* Version();

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONFIG_VERSION_H_
