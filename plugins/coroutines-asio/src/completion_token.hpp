#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/deferred.hpp>

namespace benchd::coroutines_asio {

/// The completion token of every asynchronous operation a coroutine of this plugin awaits:
/// the operation's results come back as a tuple (an error is a value to look at, not an
/// exception), and the operation is awaited as a deferred operation. Asio (1.26) awaits a
/// deferred operation in the awaiting coroutine's own frame, while `use_awaitable` wraps each
/// operation in a coroutine frame of its own that is pushed, resumed and popped per operation;
/// at 9,800 connections that frame cost showed as the plugin's largest symbols
/// (bench/plugins/profile-at-scale.sh).
inline constexpr auto kNoThrow = boost::asio::as_tuple(boost::asio::deferred);

}  // namespace benchd::coroutines_asio
