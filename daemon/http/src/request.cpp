#include <benchd/http/request.hpp>

namespace benchd::http {

std::optional<std::string_view> Request::param(std::string_view name) const {
  for (const auto& [param_name, value] : path_params) {
    if (param_name == name)
      return std::string_view(value);
  }
  return std::nullopt;
}

std::optional<std::string_view> Request::queryParam(std::string_view name) const {
  for (const auto& [param_name, value] : query) {
    if (param_name == name)
      return std::string_view(value);
  }
  return std::nullopt;
}

}  // namespace benchd::http
