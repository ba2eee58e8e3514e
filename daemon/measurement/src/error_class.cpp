#include <benchd/measurement/error_class.hpp>

namespace benchd::measurement {

std::string_view errorClassName(ErrorClass error_class) {
  switch (error_class) {
    case ErrorClass::kConnectionRefused:
      return "connection_refused";
    case ErrorClass::kConnectTimeout:
      return "connect_timeout";
    case ErrorClass::kConnectionReset:
      return "connection_reset";
    case ErrorClass::kRequestTimeout:
      return "request_timeout";
    case ErrorClass::kHttp4xx:
      return "http_4xx";
    case ErrorClass::kHttp5xx:
      return "http_5xx";
    case ErrorClass::kOther:
      break;
  }
  return "other";
}

std::optional<ErrorClass> errorClassFromName(std::string_view name) {
  for (const ErrorClass error_class : kAllErrorClasses) {
    if (errorClassName(error_class) == name) {
      return error_class;
    }
  }
  return std::nullopt;
}

std::optional<ErrorClass> errorClassOfStatus(unsigned status) {
  if (status >= 200 && status < 300) {
    return std::nullopt;
  }
  if (status >= 400 && status < 500) {
    return ErrorClass::kHttp4xx;
  }
  if (status >= 500 && status < 600) {
    return ErrorClass::kHttp5xx;
  }
  return ErrorClass::kOther;
}

std::uint64_t ErrorCounts::total() const noexcept {
  std::uint64_t sum = 0;
  for (const std::uint64_t count : by_class) {
    sum += count;
  }
  return sum;
}

ErrorCounts& ErrorCounts::operator+=(const ErrorCounts& other) noexcept {
  for (std::size_t index = 0; index < by_class.size(); ++index) {
    by_class[index] += other.by_class[index];
  }
  return *this;
}

}  // namespace benchd::measurement
