#pragma once
// Precompiled: the heavy Boost headers the engine's translation units include.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/basic_parser.hpp>
