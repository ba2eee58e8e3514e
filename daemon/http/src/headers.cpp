#include <benchd/http/headers.hpp>

#include <algorithm>

namespace benchd::http {

namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool equalsIgnoreCase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i]))
      return false;
  }
  return true;
}

std::optional<std::string_view> HeaderList::get(std::string_view name) const {
  for (const auto& [field_name, value] : fields_) {
    if (equalsIgnoreCase(field_name, name))
      return std::string_view(value);
  }
  return std::nullopt;
}

void HeaderList::set(std::string name, std::string value) {
  erase(name);
  fields_.emplace_back(std::move(name), std::move(value));
}

void HeaderList::add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

void HeaderList::erase(std::string_view name) {
  std::erase_if(fields_, [&](const Field& field) { return equalsIgnoreCase(field.first, name); });
}

}  // namespace benchd::http
