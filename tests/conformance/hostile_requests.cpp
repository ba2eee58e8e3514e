#include "hostile_requests.hpp"

#include <poll.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <array>
#include <atomic>
#include <cstdio>
#include <functional>
#include <netinet/in.h>
#include <random>
#include <sys/socket.h>
#include <thread>

namespace benchd::testing {
namespace {

using Random = std::mt19937_64;

std::size_t pick(Random& random, std::size_t size) {
  return std::uniform_int_distribution<std::size_t>(0, size - 1)(random);
}

template <typename T, std::size_t N>
const T& oneOf(Random& random, const std::array<T, N>& options) {
  return options[pick(random, N)];
}

std::string randomBytes(Random& random, std::size_t length, bool printable_only) {
  std::string bytes(length, '\0');
  for (char& c : bytes) {
    c = static_cast<char>(printable_only ? 32 + pick(random, 95) : pick(random, 256));
  }
  return bytes;
}

struct Context {
  std::string plugin;
  std::string movies;  ///< "/<plugin>/movies"
  std::string valid_query;
};

std::string get(const std::string& target, const std::string& headers = {}) {
  return "GET " + target + " HTTP/1.1\r\nHost: t\r\n" + headers + "\r\n";
}

std::string post(const std::string& target, const std::string& headers, const std::string& body) {
  return "POST " + target + " HTTP/1.1\r\nHost: t\r\n" + headers + "\r\n" + body;
}

const std::string kMovie =
    R"([{"title":"T","releaseDate":"2000-01-01","director":{"firstName":"A","lastName":"B"},"actors":[]}])";

using Family = std::function<HostileRequest(Random&, const Context&)>;

std::vector<std::pair<std::string, Family>> families() {
  std::vector<std::pair<std::string, Family>> list;
  list.emplace_back("garbage-line", [](Random& r, const Context&) {
    return HostileRequest{"", randomBytes(r, 1 + pick(r, 200), pick(r, 2) == 0) + "\r\n\r\n"};
  });
  list.emplace_back("bad-request-line", [](Random& r, const Context& c) {
    static const std::array<std::string, 12> lines = {
        "GET /health HTTP/1.2",       "GET /health HTTP/2.0",
        "GET /health HTTP/0.9",       "GET /health",
        "GET  /health HTTP/1.1",      "/health HTTP/1.1",
        "GET /health HTTP/1.1 extra", "GET health HTTP/1.1",
        "G\x01T /health HTTP/1.1",    "GET /health HTTP/1.10",
        "GET /health HTTP/1.",        "GET /health HTTP/11"};
    (void)c;
    return HostileRequest{"", oneOf(r, lines) + "\r\nHost: t\r\n\r\n"};
  });
  list.emplace_back("unknown-method", [](Random& r, const Context& c) {
    static const std::array<std::string, 6> methods = {"FOO",   "get",      "CONNECT",
                                                       "TRACE", "PROPFIND", "PATCH"};
    return HostileRequest{"", oneOf(r, methods) + " " + c.movies + "?" + c.valid_query +
                                  " HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"};
  });
  list.emplace_back("bad-percent-encoding", [](Random& r, const Context& c) {
    static const std::array<std::string, 8> names = {"%zz", "%",      "%4",        "Al%",
                                                     "%00", "%C3%28", "%ED%A0%80", "%FF%FE"};
    return HostileRequest{"", get(c.movies + "?directorLastName=" + oneOf(r, names) +
                                  "&delayCallDepth=0&delayInMillis=0")};
  });
  list.emplace_back("out-of-range-number", [](Random& r, const Context& c) {
    static const std::array<std::string, 12> values = {
        "-1", "3600001", "99999999999999999999", "1e3", "0x10", "+5", "", " 1",
        "1 ", "007",     "18446744073709551616", "NaN"};
    static const std::array<std::string, 2> names = {"delayInMillis", "delayCallDepth"};
    const std::string& name = oneOf(r, names);
    std::string query = "directorLastName=Allen";
    query += name == "delayInMillis" ? "&delayCallDepth=0&delayInMillis=" + oneOf(r, values)
                                     : "&delayInMillis=0&delayCallDepth=" + oneOf(r, values);
    return HostileRequest{"", get(c.movies + "?" + query)};
  });
  list.emplace_back("huge-header", [](Random& r, const Context&) {
    static const std::array<std::size_t, 4> sizes = {8 * 1024, 16 * 1024, 64 * 1024, 200 * 1024};
    return HostileRequest{"",
                          get("/health", "X-Big: " + std::string(oneOf(r, sizes), 'a') + "\r\n")};
  });
  list.emplace_back("many-headers", [](Random& r, const Context&) {
    static const std::array<std::size_t, 4> counts = {50, 200, 1000, 5000};
    std::string headers;
    const std::size_t count = oneOf(r, counts);
    for (std::size_t index = 0; index < count; ++index) {
      headers += "X-H" + std::to_string(index) + ": v\r\n";
    }
    return HostileRequest{"", get("/health", headers)};
  });
  list.emplace_back("huge-target", [](Random& r, const Context& c) {
    static const std::array<std::size_t, 3> sizes = {4 * 1024, 16 * 1024, 64 * 1024};
    return HostileRequest{"",
                          get(c.movies + "?directorLastName=" + std::string(oneOf(r, sizes), 'x') +
                              "&delayCallDepth=0&delayInMillis=0")};
  });
  list.emplace_back("bad-chunking", [](Random& r, const Context& c) {
    static const std::array<std::string, 10> bodies = {"zz\r\nab\r\n0\r\n\r\n",
                                                       "2\r\nabc\r\n0\r\n\r\n",
                                                       "-1\r\n\r\n",
                                                       "2\nab\n0\n\n",
                                                       "2 \r\nab\r\n0\r\n\r\n",
                                                       "ffffffffffffffffffff\r\n",
                                                       "2\r\nab",
                                                       "0x2\r\nab\r\n0\r\n\r\n",
                                                       "\r\n",
                                                       "2;\r\nab\r\n0\r\n\r\n"};
    return HostileRequest{
        "", post(c.movies, "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n",
                 oneOf(r, bodies))};
  });
  list.emplace_back("bad-content-length", [](Random& r, const Context& c) {
    static const std::array<std::string, 9> heads = {
        "Content-Length: 2\r\nContent-Length: 3\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: abc\r\n",
        "Content-Length: 100000000\r\n",
        "Content-Length: 99999999999999999999999\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Content-Length:\r\n",
        "Content-Length: 1 2\r\n",
        "Content-Length: +3\r\n"};
    return HostileRequest{
        "", post(c.movies, "Content-Type: application/json\r\n" + oneOf(r, heads), "ab")};
  });
  list.emplace_back("bad-body", [](Random& r, const Context& c) {
    static const std::array<std::string, 10> bodies = {
        "",
        "[",
        "{}",
        "[1,2,3]",
        "null",
        "[{\"title\":1}]",
        "\"\\udc00\"",
        "[{\"title\":\"\\udc00\",\"releaseDate\":\"2000-01-01\"}]",
        std::string(100, '['),
        "[" + kMovie.substr(1, kMovie.size() - 2) + ",]"};
    const std::string& body = oneOf(r, bodies);
    return HostileRequest{"", post(c.movies,
                                   "Content-Type: application/json\r\nContent-Length: " +
                                       std::to_string(body.size()) + "\r\n",
                                   body)};
  });
  list.emplace_back("bad-header-syntax", [](Random& r, const Context&) {
    static const std::array<std::string, 8> heads = {"NoColon\r\n",
                                                     "Bad Name: v\r\n",
                                                     "X-A : v\r\n",
                                                     " folded: v\r\n",
                                                     "X-A: v\r\n continued\r\n",
                                                     ": empty-name\r\n",
                                                     "X-A: v\x01w\r\n",
                                                     "X-\x80: v\r\n"};
    return HostileRequest{"", get("/health", oneOf(r, heads))};
  });
  list.emplace_back("bare-lf", [](Random& r, const Context& c) {
    static const std::array<std::string, 3> requests = {"GET /health HTTP/1.1\nHost: t\n\n",
                                                        "GET /health HTTP/1.1\r\nHost: t\n\r\n",
                                                        "GET /health HTTP/1.1\nHost: t\r\n\r\n"};
    (void)c;
    return HostileRequest{"", oneOf(r, requests)};
  });
  list.emplace_back("pipelined-junk", [](Random& r, const Context&) {
    return HostileRequest{"", get("/health") + randomBytes(r, 1 + pick(r, 64), true) + "\r\n\r\n"};
  });
  list.emplace_back("truncated-and-half-closed", [](Random& r, const Context& c) {
    const std::string full =
        post(c.movies,
             "Content-Type: application/json\r\nContent-Length: " + std::to_string(kMovie.size()) +
                 "\r\n",
             kMovie);
    return HostileRequest{"", full.substr(0, 1 + pick(r, full.size() - 1))};
  });
  list.emplace_back("nul-bytes", [](Random& r, const Context& c) {
    static const std::array<std::string, 3> requests = {
        std::string("GET /hea\0lth HTTP/1.1\r\nHost: t\r\n\r\n", 35),
        std::string("GET /health HTTP/1.1\r\nHost: t\0x\r\n\r\n", 36),
        std::string("\0\0\0\0\r\n\r\n", 8)};
    (void)c;
    return HostileRequest{"", oneOf(r, requests)};
  });
  list.emplace_back("unknown-resource", [](Random& r, const Context& c) {
    static const std::array<std::string, 8> paths = {"/",        "/nope",          "/health/",
                                                     "/HEALTH",  "/%2e%2e/health", "/../health",
                                                     "//health", "/health?x=%zz"};
    const std::string path =
        pick(r, 2) == 0 ? oneOf(r, paths) : c.movies + "/" + oneOf(r, paths).substr(1);
    return HostileRequest{"", get(path)};
  });
  list.emplace_back("bad-id", [](Random& r, const Context& c) {
    static const std::array<std::string, 7> ids = {
        "-1", "abc", "99999999999999999999999", "0x1", "1.5", "%31", ""};
    static const std::array<std::string, 2> methods = {"GET", "DELETE"};
    return HostileRequest{"", oneOf(r, methods) + " " + c.movies + "/" + oneOf(r, ids) +
                                  " HTTP/1.1\r\nHost: t\r\n\r\n"};
  });
  return list;
}

int readStatus(int fd, std::chrono::milliseconds timeout) {
  std::string received;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::array<char, 4096> buffer{};
  while (received.find("\r\n") == std::string::npos && received.size() < 4096) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return -1;
    }
    pollfd readable{fd, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) {
      return -1;
    }
    const ssize_t got = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (got <= 0) {
      break;  // closed (or reset) before a status line
    }
    received.append(buffer.data(), static_cast<std::size_t>(got));
  }
  unsigned status = 0;
  if (std::sscanf(received.c_str(), "HTTP/1.%*1d %3u", &status) != 1) {
    return 0;
  }
  return static_cast<int>(status);
}

}  // namespace

std::vector<HostileRequest> hostileCorpus(const std::string& plugin, std::uint64_t seed,
                                          std::size_t count) {
  const Context context{plugin, "/" + plugin + "/movies",
                        "directorLastName=Allen&delayCallDepth=0&delayInMillis=0"};
  const auto list = families();
  Random random(seed);
  std::vector<HostileRequest> corpus;
  corpus.reserve(count);
  for (std::size_t index = 0; index < count; ++index) {
    const auto& [kind, make] = list[index % list.size()];
    HostileRequest request = make(random, context);
    request.kind = kind;
    corpus.push_back(std::move(request));
  }
  return corpus;
}

int firstStatus(std::uint16_t port, const HostileRequest& request,
                std::chrono::milliseconds timeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return -2;
  }
  // Reset on close: tens of thousands of short connections must not pile up in TIME_WAIT.
  const linger reset{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -2;
  }
  std::size_t sent = 0;
  while (sent < request.bytes.size()) {
    const ssize_t wrote =
        ::send(fd, request.bytes.data() + sent, request.bytes.size() - sent, MSG_NOSIGNAL);
    if (wrote <= 0) {
      break;  // the server may answer and close before reading everything (a 413, a 431)
    }
    sent += static_cast<std::size_t>(wrote);
  }
  if (request.half_close) {
    ::shutdown(fd, SHUT_WR);
  }
  const int status = readStatus(fd, timeout);
  ::close(fd);
  return status;
}

std::vector<int> firstStatuses(std::uint16_t port, const std::vector<HostileRequest>& corpus,
                               std::chrono::milliseconds timeout, unsigned parallel) {
  std::vector<int> statuses(corpus.size(), -3);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned thread = 0; thread < parallel; ++thread) {
    threads.emplace_back([&] {
      for (std::size_t index = next++; index < corpus.size(); index = next++) {
        statuses[index] = firstStatus(port, corpus[index], timeout);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  return statuses;
}

std::string printable(const std::string& bytes) {
  std::string text;
  for (const char c : bytes.substr(0, 160)) {
    if (c == '\r') {
      text += "\\r";
    } else if (c == '\n') {
      text += "\\n";
    } else if (c >= 32 && c < 127) {
      text += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned char>(c));
      text += escaped;
    }
  }
  if (bytes.size() > 160) {
    text += "... (" + std::to_string(bytes.size()) + " bytes)";
  }
  return text;
}

}  // namespace benchd::testing
