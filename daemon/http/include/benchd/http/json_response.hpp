#pragma once

#include <benchd/http/response.hpp>

#include <rapidjson/fwd.h>

namespace benchd::http {

/// Serialises a RapidJSON value (a Document is one) compactly into an `application/json`
/// response. Thread-safe for distinct values (RapidJSON's own rules).
[[nodiscard]] Response jsonResponse(unsigned status, const rapidjson::Value& value);

}  // namespace benchd::http
