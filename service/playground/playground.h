// The playground page (GitHub issue #13): a board in the browser that calls
// the service's own Connect endpoint, served on the HTTP listener at GET /
// and GET /playground/<asset>. Every asset is compiled into the binary
// (CMakeLists.txt embeds them with service/reflection/embed_file.cmake), so
// the page needs nothing from the network beyond the service itself, and
// its Content-Security-Policy forbids anything else (docs/playground.md).
#ifndef HALMA_SERVICE_PLAYGROUND_PLAYGROUND_H_
#define HALMA_SERVICE_PLAYGROUND_PLAYGROUND_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace halma::service {

// What the listener sends back for a playground path.
struct PlaygroundResponse {
  int status = 200;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct PlaygroundOptions {
  // The gRPC port the page's grpcurl command lines name (the HTTP side it
  // calls is the page's own origin).
  int grpc_port = 50051;
  // Whether that port speaks TLS: grpcurl lines then leave out -plaintext.
  bool grpc_tls = false;
};

class Playground {
 public:
  explicit Playground(PlaygroundOptions options);

  // Whether `path` belongs to the playground: "/" or "/playground/...".
  static bool Serves(absl::string_view path);

  // The answer to `method` on `path` (one that Serves): the page or an
  // asset for GET and HEAD (the listener leaves the body out for HEAD),
  // 404 for an unknown asset, 405 for other methods. Every answer carries
  // the security headers.
  PlaygroundResponse Answer(absl::string_view method,
                            absl::string_view path) const;

 private:
  struct Asset {
    std::string path;  // "/" or "/playground/app.js".
    std::string content_type;
    std::string cache_control;
    std::string body;
  };
  const Asset* Find(absl::string_view path) const;

  std::vector<Asset> assets_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_PLAYGROUND_PLAYGROUND_H_
