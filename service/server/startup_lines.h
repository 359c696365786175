// The two start-up lines, both made from the settings table (settings.h):
// the human-readable one ("halma_server listening on ...", which tools and
// tests read for the ports) and the JSON one with every setting as a field
// of its own.
#ifndef HALMA_SERVICE_SERVER_STARTUP_LINES_H_
#define HALMA_SERVICE_SERVER_STARTUP_LINES_H_

#include <string>

#include "service/config/settings.h"
#include "service/log/json_line.h"

namespace halma::service {

// What the lines say besides the settings in effect.
struct StartupFacts {
  int grpc_port = 0;        // gRPC's own port (the backend's, with a proxy).
  bool http = false;        // The HTTP listener runs.
  bool playground = false;  // It serves the playground page.
};

// "halma_server listening on HOST:PORT (version V; tls on|off; NAME VALUE;
// ... for every setting; http HOST:PORT (Connect protocol)|http off;
// flood_fill KERNEL)", without a newline. A setting not in use says so
// ("max_connections 256 (unused: no front proxy, no HTTP listener)").
std::string ListeningLine(const Settings& settings, const StartupFacts& facts);

// The JSON line: event server.start, "message" the line above, then the
// version, tls, every setting, http_enabled, playground_enabled and the
// flood-fill kernel as fields.
JsonLine StartupLine(const Settings& settings, const StartupFacts& facts);

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_STARTUP_LINES_H_
