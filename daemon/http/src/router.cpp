#include <benchd/http/router.hpp>

#include <algorithm>
#include <stdexcept>

namespace benchd::http {

namespace {

bool validParamName(std::string_view name) {
  if (name.empty())
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

}  // namespace

void Router::add(std::string method, std::string_view pattern, Handler handler,
                 RouteOptions options) {
  const std::string context = "route " + method + " " + std::string(pattern) + ": ";
  if (method.empty())
    throw std::invalid_argument(context + "the method must not be empty");
  if (!handler)
    throw std::invalid_argument(context + "the handler must not be empty");
  if (pattern.empty() || pattern.front() != '/')
    throw std::invalid_argument(context + "the pattern must start with '/'");
  Route route;
  route.method = std::move(method);
  route.pattern = std::string(pattern);
  route.handler = std::move(handler);
  route.options = options;
  std::string_view rest = pattern.substr(1);
  if (!rest.empty() && rest.back() == '/') {
    route.trailing_slash = true;
    rest.remove_suffix(1);
  }
  while (!rest.empty()) {
    const auto slash = rest.find('/');
    const std::string_view text = rest.substr(0, slash);
    if (text.empty())
      throw std::invalid_argument(context + "empty segment ('//')");
    Segment segment;
    if (text.front() == '{') {
      if (text.back() != '}' || !validParamName(text.substr(1, text.size() - 2))) {
        throw std::invalid_argument(context +
                                    "a parameter is written {name} with letters, digits, "
                                    "'_' or '-', got '" +
                                    std::string(text) + "'");
      }
      segment.is_param = true;
      segment.text = std::string(text.substr(1, text.size() - 2));
      for (const auto& earlier : route.segments) {
        if (earlier.is_param && earlier.text == segment.text)
          throw std::invalid_argument(context + "parameter {" + segment.text + "} appears twice");
      }
    } else {
      if (text.find_first_of("{}%?#") != std::string_view::npos) {
        throw std::invalid_argument(context +
                                    "a literal segment must not contain {, }, %, ? or #, "
                                    "got '" +
                                    std::string(text) + "'");
      }
      segment.text = std::string(text);
    }
    route.segments.push_back(std::move(segment));
    if (slash == std::string_view::npos)
      break;
    rest = rest.substr(slash + 1);
  }
  for (const auto& existing : routes_) {
    bool same_shape = existing.method == route.method &&
                      existing.trailing_slash == route.trailing_slash &&
                      existing.segments.size() == route.segments.size();
    for (std::size_t i = 0; same_shape && i < route.segments.size(); ++i) {
      const auto& a = existing.segments[i];
      const auto& b = route.segments[i];
      same_shape = a.is_param == b.is_param && (a.is_param || a.text == b.text);
    }
    if (same_shape)
      throw std::invalid_argument(context + "already registered as " + existing.pattern);
  }
  routes_.push_back(std::move(route));
}

Router::Match Router::match(std::string_view method, const std::vector<std::string>& segments,
                            bool trailing_slash) const {
  // Among the routes whose pattern fits the path, the most specific shape wins: compare
  // segment by segment, a literal beating a parameter at the first position they differ.
  // Routes of one shape share a path, so the method then picks within that shape.
  const Route* best_shape = nullptr;
  auto more_specific = [](const Route& a, const Route& b) {
    for (std::size_t i = 0; i < a.segments.size(); ++i) {
      if (a.segments[i].is_param != b.segments[i].is_param)
        return !a.segments[i].is_param;
    }
    return false;
  };
  auto fits = [&](const Route& route) {
    if (route.trailing_slash != trailing_slash || route.segments.size() != segments.size())
      return false;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (!route.segments[i].is_param && route.segments[i].text != segments[i])
        return false;
    }
    return true;
  };
  auto same_shape = [](const Route& a, const Route& b) {
    for (std::size_t i = 0; i < a.segments.size(); ++i) {
      if (a.segments[i].is_param != b.segments[i].is_param)
        return false;
    }
    return true;
  };
  for (const auto& route : routes_) {
    if (fits(route) && (best_shape == nullptr || more_specific(route, *best_shape)))
      best_shape = &route;
  }
  Match result;
  if (best_shape == nullptr)
    return result;

  const Route* found = nullptr;
  const Route* get_route = nullptr;
  bool has_head = false;
  bool all_public = true;
  std::vector<std::string> methods;
  for (const auto& route : routes_) {
    if (!fits(route) || !same_shape(route, *best_shape))
      continue;
    methods.push_back(route.method);
    all_public = all_public && route.options.is_public;
    if (route.method == method)
      found = &route;
    if (route.method == "GET")
      get_route = &route;
    if (route.method == "HEAD")
      has_head = true;
  }
  if (found == nullptr && method == "HEAD")
    found = get_route;
  if (found == nullptr) {
    if (get_route != nullptr && !has_head)
      methods.emplace_back("HEAD");
    std::sort(methods.begin(), methods.end());
    result.kind = Match::Kind::MethodNotAllowed;
    result.options.is_public = all_public;
    for (const auto& name : methods)
      result.allow += (result.allow.empty() ? "" : ", ") + name;
    return result;
  }
  result.kind = Match::Kind::Found;
  result.handler = &found->handler;
  result.options = found->options;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (found->segments[i].is_param)
      result.params.emplace_back(found->segments[i].text, segments[i]);
  }
  return result;
}

}  // namespace benchd::http
