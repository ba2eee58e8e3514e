#pragma once

#include <benchd/http/request.hpp>
#include <benchd/http/response.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::http {

/// A request handler. Runs on one of the server's event-loop threads, possibly concurrently
/// with itself on another thread (so it must be thread-safe), and must return quickly: while
/// it runs, the other connections of that thread wait. Long work belongs on the application's
/// own threads; answer 202 and report progress elsewhere.
///
/// An exception escaping a handler becomes a 500 problem (its message is not sent: it may
/// carry internal details) and is reported to ServerOptions::on_handler_error.
using Handler = std::function<Response(const Request&)>;

struct RouteOptions {
  /// Public routes skip policies that honour RouteTraits::is_public (the bearer-token policy),
  /// e.g. a health check. Host checks still apply.
  bool is_public = false;
};

/// Method + path pattern -> handler.
///
/// Patterns are absolute paths whose segments are literals or `{name}` parameters, e.g.
/// "/api/v1/runs/{id}/events". A parameter matches exactly one non-empty decoded segment (which
/// parseTarget() already freed of '/', '..' and control characters). A literal segment beats a
/// parameter at the same position ("/runs/latest" wins over "/runs/{id}", and a method only
/// registered for "/runs/{id}" then gets 405 on "/runs/latest"). A trailing '/' is
/// significant: "/a/" and "/a" are different paths.
///
/// Thread-safety: build it on one thread, then hand it to HttpServer, which only reads it.
class Router {
 public:
  /// Registers a route. `method` is case-sensitive ("GET"). HEAD is answered by the GET route
  /// of a path unless a HEAD route is registered. Throws std::invalid_argument for a malformed
  /// pattern (not starting with '/', empty segment, bad parameter name, duplicate parameter)
  /// or a method+pattern pair registered twice.
  void add(std::string method, std::string_view pattern, Handler handler,
           RouteOptions options = {});

  /// The outcome of match().
  struct Match {
    enum class Kind { Found = 1, MethodNotAllowed, NotFound };
    Kind kind = Kind::NotFound;
    const Handler* handler = nullptr;  ///< Found only; points into the router
    RouteOptions options;  ///< Found: the route's; MethodNotAllowed: public if every method is
    std::vector<std::pair<std::string, std::string>> params;  ///< Found only
    std::string allow;  ///< MethodNotAllowed: the `Allow` value, e.g. "GET, HEAD, POST"
  };

  /// Finds the route for decoded path segments (see ParsedTarget).
  [[nodiscard]] Match match(std::string_view method, const std::vector<std::string>& segments,
                            bool trailing_slash) const;

 private:
  struct Segment {
    std::string text;  ///< literal text, or the parameter name
    bool is_param = false;
  };
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<Segment> segments;
    bool trailing_slash = false;
    Handler handler;
    RouteOptions options;
  };
  std::vector<Route> routes_;
};

}  // namespace benchd::http
