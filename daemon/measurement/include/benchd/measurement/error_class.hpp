#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace benchd::measurement {

/// Why a request did not end with a 2xx response. Every failed request has exactly one class.
enum class ErrorClass : std::uint8_t {
  kConnectionRefused = 0,  ///< the connect was refused (nothing listens on the port)
  kConnectTimeout,         ///< the connect did not complete within the connect timeout
  kConnectionReset,        ///< the server reset or closed the connection before the response ended
  kRequestTimeout,         ///< no complete response within the request timeout
  kHttp4xx,                ///< a 4xx response
  kHttp5xx,                ///< a 5xx response
  kOther,                  ///< anything else: other socket errors, malformed responses, 1xx/3xx
};

inline constexpr std::size_t kErrorClassCount = 7;

/// Every class, in enum order (for loops and output).
inline constexpr std::array<ErrorClass, kErrorClassCount> kAllErrorClasses = {
    ErrorClass::kConnectionRefused,
    ErrorClass::kConnectTimeout,
    ErrorClass::kConnectionReset,
    ErrorClass::kRequestTimeout,
    ErrorClass::kHttp4xx,
    ErrorClass::kHttp5xx,
    ErrorClass::kOther};

/// The stable snake_case name used in output and storage: "connection_refused",
/// "connect_timeout", "connection_reset", "request_timeout", "http_4xx", "http_5xx", "other".
std::string_view errorClassName(ErrorClass error_class);

/// The class with that name, or nullopt.
std::optional<ErrorClass> errorClassFromName(std::string_view name);

/// The class of a completed response's status, or nullopt for 2xx (a success).
std::optional<ErrorClass> errorClassOfStatus(unsigned status);

/// Failed requests counted by class.
struct ErrorCounts {
  std::array<std::uint64_t, kErrorClassCount> by_class{};

  [[nodiscard]] std::uint64_t operator[](ErrorClass error_class) const noexcept {
    return by_class[static_cast<std::size_t>(error_class)];
  }
  std::uint64_t& operator[](ErrorClass error_class) noexcept {
    return by_class[static_cast<std::size_t>(error_class)];
  }
  [[nodiscard]] std::uint64_t total() const noexcept;

  ErrorCounts& operator+=(const ErrorCounts& other) noexcept;
  bool operator==(const ErrorCounts&) const = default;
};

}  // namespace benchd::measurement
