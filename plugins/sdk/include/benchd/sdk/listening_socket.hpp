#pragma once
// The listening socket of a plugin whose HTTP stack does not open its own (libmicrohttpd, h2o):
// bound here so that a port in use and a bad address get the contract's errors.

#include "plugin_support.hpp"

#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>

namespace benchd::sdk {

/// `address`:`port` (numeric IPv4 or IPv6) as a socket address; its size in `length`. Throws
/// PluginError (BENCHD_ERR_INVALID_ARGUMENT) for an address that is not numeric.
inline sockaddr_storage socketAddressOf(const std::string& address, std::uint16_t port,
                                        socklen_t& length) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    length = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    length = sizeof(sockaddr_in6);
  } else {
    throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                      "bind address '" + address + "' is not a numeric IPv4 or IPv6 address");
  }
  return storage;
}

/// A listening socket on `address`:`port`, non-blocking, SO_REUSEADDR but not SO_REUSEPORT: a
/// second server on the same port must fail, not share it. The caller owns the descriptor.
/// Throws PluginError: BENCHD_ERR_ADDRESS_IN_USE for a port in use, BENCHD_ERR_INVALID_ARGUMENT
/// for a bad address, BENCHD_ERR_IO otherwise.
inline int listenOn(const std::string& address, std::uint16_t port, int backlog) {
  socklen_t length = 0;
  const sockaddr_storage storage = socketAddressOf(address, port, length);
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw PluginError(BENCHD_ERR_IO, std::string("socket: ") + std::strerror(errno));
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EADDRINUSE) {
      throw PluginError(BENCHD_ERR_ADDRESS_IN_USE,
                        "port " + std::to_string(port) + " on " + address + " is already in use");
    }
    throw PluginError(BENCHD_ERR_IO, "cannot bind " + address + ":" + std::to_string(port) + ": " +
                                         std::strerror(error));
  }
  if (::listen(fd, backlog) != 0) {
    const int error = errno;
    ::close(fd);
    throw PluginError(BENCHD_ERR_IO, std::string("listen: ") + std::strerror(error));
  }
  return fd;
}

/// The port `fd` is bound to (0 when getsockname fails).
inline std::uint16_t boundPortOf(int fd) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0)
    return 0;
  if (storage.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
}

}  // namespace benchd::sdk
