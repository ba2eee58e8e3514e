#pragma once
// Header-only plugin SDK: the header deadline every approach plugin applies to inbound
// requests, and the plugin option that shortens it.
//
// The contract, the same in every plugin:
//  - A connection waits for the first byte of its next request as long as an idle keep-alive
//    connection may wait (sdk::kIoTimeout).
//  - From that first byte, the whole request header must arrive within the header deadline:
//    a total over every read, not a timeout per read. Otherwise the connection is closed
//    without an answer.
//  - The body, once the header is complete, must arrive within sdk::kIoTimeout, again in
//    total.

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::sdk {

/// How long a request header may take to arrive, counted from its first byte. A total rather
/// than a timeout per read, because a timeout per read lets a client that sends one byte
/// every 50 s hold a connection (and, for a thread-per-connection server, a thread) forever.
/// Every real client sends its header in one write; 20 s covers a congested link or a loaded
/// client machine many times over and still frees a slot held by a trickling client quickly.
inline constexpr std::chrono::milliseconds kHeaderDeadline{20'000};

/// The plugin option (`--option header_deadline_ms=N`) that sets a shorter header deadline,
/// from 1 ms up to kHeaderDeadline. It exists so tests need not wait 20 s; a longer deadline
/// is refused because it would reopen what the deadline closes.
inline constexpr std::string_view kHeaderDeadlineOption = "header_deadline_ms";

/// The options every approach plugin takes for its request deadlines, for a Server's
/// knownOptions().
inline constexpr std::array<std::string_view, 1> kRequestDeadlineOptions = {kHeaderDeadlineOption};

/// The header deadline in effect: kHeaderDeadline unless the option sets a shorter one.
/// Throws PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the option and its range for a
/// value that is not an integer from 1 to kHeaderDeadline's milliseconds.
inline std::chrono::milliseconds headerDeadline(const ServerSettings& settings) {
  const auto it = settings.options.find(kHeaderDeadlineOption);
  if (it == settings.options.end())
    return kHeaderDeadline;
  const std::string& text = it->second;
  std::int64_t millis = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), millis);
  if (error != std::errc{} || end != text.data() + text.size() || millis < 1 ||
      millis > kHeaderDeadline.count()) {
    throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "option " + std::string(kHeaderDeadlineOption) +
                                                       ": expected an integer from 1 to " +
                                                       std::to_string(kHeaderDeadline.count()) +
                                                       " (milliseconds), got '" + text + "'");
  }
  return std::chrono::milliseconds(millis);
}

}  // namespace benchd::sdk
