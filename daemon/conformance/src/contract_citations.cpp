// The sentence(s) of plugins/sdk/CONTRACT.md each conformance rule checks, word for word.
//
// One place to read every rule against the contract: `benchd verify-plugin` prints a failing
// rule's citation under its reason, so a plugin author reads which sentence the plugin broke,
// and a reviewer reads down this table to see that each rule checks what the contract says and
// nothing it does not. The citations are the contract's own words, Markdown included (a
// sentence that spans lines is joined with single spaces; several are joined by " ... " in
// contract order), taken from sections 1 to 10: the table of section 11 only summarises. Being
// copies, they would drift when the contract is reworded; ContractCitations in
// tests/conformance/contract_citations_test.cpp finds each one in CONTRACT.md, within a section
// the rule names, and fails naming the rule and the words the contract no longer says.
//
// In the order of the rule groups in rules.cpp, one entry per rule id.
#include <benchd/conformance/rules.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace benchd::conformance {
namespace {

constexpr std::pair<std::string_view, std::string_view> kCitations[] = {
    // rules_endpoints.cpp: the endpoints of section 2 are stated as the rows of its table.
    {"endpoints.health", R"(| `GET /health` | `{"status":"UP"}` |)"},
    {"endpoints.epoch-millis",
     "| `GET /{a}/epoch-millis?delayCallDepth=D&delayInMillis=M` | the host's `epoch_millis()` "
     "taken after the wait, as a decimal number, e.g. `1764450000000` | ... **Depth d > 0**: do "
     "**not** wait; make exactly one HTTP call to the server's own "
     "`GET /{a}/epoch-millis?delayCallDepth=<d-1>&delayInMillis=<M>` (same `M`; decimal without "
     "leading zeros), wait for its answer, then run the operation. ... Only the innermost request "
     "waits, so a request at depth d takes about `M` ms and costs d + 1 served requests and d "
     "nested calls (`upstream_calls`)."},
    {"endpoints.get-movies",
     "| `GET /{a}/movies?directorLastName=X&delayCallDepth=D&delayInMillis=M` | "
     "`movies_by_director(X)`: a JSON array, `[]` when none |"},
    {"endpoints.post-echoes",
     "| `POST /{a}/movies?delayCallDepth=D&delayInMillis=M`, body a JSON array of movies | "
     "`save_movies(body)`: the input re-serialised (read-only default) or the stored movies with "
     "their ids (`read-write`) |"},
    {"endpoints.read-write-cycle",
     "| `GET /{a}/movies?directorLastName=X&delayCallDepth=D&delayInMillis=M` | "
     "`movies_by_director(X)`: a JSON array, `[]` when none | ... | "
     "`POST /{a}/movies?delayCallDepth=D&delayInMillis=M`, body a JSON array of movies | "
     "`save_movies(body)`: the input re-serialised (read-only default) or the stored movies with "
     "their ids (`read-write`) | ... | `DELETE /{a}/movies/{id}?delayCallDepth=D&delayInMillis=M` "
     "| empty body; `delete_movie(id)` |"},

    // rules_query.cpp
    {"bad-input.parameters",
     "**`delayCallDepth`**: missing, then malformed or out of range: 400. ... "
     "**`delayInMillis`**: missing, then malformed or out of range: 400. ... "
     "**`directorLastName`** (GET movies only): missing, then badly encoded or empty: 400."},
    {"bad-input.paths-and-methods",
     "**Path**: not `/health` and not one of the plugin's resources: 404. ... **Method**: 405 "
     "with `Allow` (`GET` for `/health` and `/{a}/epoch-millis`, `GET, POST` for `/{a}/movies`, "
     "`DELETE` for `/{a}/movies/{id}`)."},
    {"bad-input.body",
     "A POST body that is not a JSON array of movies is refused with 400 **after** the wait and "
     "after the nested call was made; under `read-write` the save (and the cache eviction) "
     "happens **after** the wait, so a read during the wait does not see the new movies. ... "
     "After 400/404/405 found by routing or parameters (steps 2 to 7) and after a 400 from the "
     "core, the connection stays open for the next request."},
    {"query.numbers",
     "A pair without `=` has an empty value. ... **Numbers** (`delayCallDepth`, `delayInMillis`, "
     "`{id}`) are not percent-decoded and must be one or more ASCII digits: leading zeros are fine "
     "(`007` is 7), and so is a `-` in front of zero (`-0` is 0, an accident of the parser every "
     "plugin shares); `+`, blanks, `0x`, `1e3`, `1.0`, `%31` and the empty value are refused, and "
     "so is anything outside the range, however many digits."},
    {"query.ranges",
     "Both bounds of every range are accepted. ... | `BENCHD_MAX_DELAY_CALL_DEPTH` | "
     "`kMaxDelayCallDepth` | 64 | `delayCallDepth` (larger: 400) | ... | "
     "`BENCHD_MAX_DELAY_MILLIS` | `kMaxDelayMillis` | 3,600,000 (1 h) | `delayInMillis` (larger: "
     "400) |"},
    {"query.names",
     "**The query** is split at `&` only (`;` is part of a value). ... Names are compared exactly: "
     "case-sensitive and not percent-decoded (`delay%43allDepth` is not `delayCallDepth`). ... The "
     "**first** pair with a name counts; later ones and unknown names are ignored "
     "(`directorLastName` is ignored on other endpoints)."},
    {"query.director-name",
     "**`directorLastName`** is decoded: `+` is a space, `%XX` (hex digits in either case) is "
     "that byte, everything else is itself. ... A `%` not followed by two hex digits is refused, "
     "and so is a name that is empty after decoding. ... `%2B` is a literal `+`."},
    {"paths.exact",
     "The target is split at the first `?` into the path and the query. ... **The path** is "
     "compared byte for byte: no percent-decoding, no case folding, no trailing slash, no dot "
     "segments. ... `/{a}/movies/{id}` is exactly one segment after `/movies/`: `/{a}/movies/` "
     "and `/{a}/movies/1/2` are 404."},
    {"paths.movie-id",
     "| `{id}` (path) | `DELETE /{a}/movies/{id}` | decimal integer | 0 to 2^63 - 1 | ... Both "
     "bounds of every range are accepted. ... **Numbers** (`delayCallDepth`, `delayInMillis`, "
     "`{id}`) are not percent-decoded and must be one or more ASCII digits: leading zeros are fine "
     "(`007` is 7), and so is a `-` in front of zero (`-0` is 0, an accident of the parser every "
     "plugin shares); `+`, blanks, `0x`, `1e3`, `1.0`, `%31` and the empty value are refused, and "
     "so is anything outside the range, however many digits."},

    // rules_answers.cpp
    {"order.checks",
     "A request is checked in this order; the first check that fails answers, and nothing after "
     "it runs. ... These apply to every path and method, unknown ones included, and end the "
     "connection. ... So 413 beats 404 and 405; 404 beats 405; 405 beats 400; a bad id beats bad "
     "parameters."},
    {"order.body-after-wait",
     "**The operation**: only now is the body given to the core. ... A POST body that is not a "
     "JSON array of movies is refused with 400 **after** the wait and after the nested call was "
     "made; under `read-write` the save (and the cache eviction) happens **after** the wait, so a "
     "read during the wait does not see the new movies."},
    {"order.save-after-wait",
     "A POST body that is not a JSON array of movies is refused with 400 **after** the wait and "
     "after the nested call was made; under `read-write` the save (and the cache eviction) "
     "happens **after** the wait, so a read during the wait does not see the new movies."},
    {"answers.headers-and-bodies",
     "**200 of DELETE**: empty body, `Content-Length: 0`, **no** `Content-Type`. ... **Every "
     "error** (400, 404, 405, 413, 500, 502, 503): `Content-Type: application/json` and a JSON "
     R"(object of exactly three members, `{"status":<code>,"error":"<reason phrase>", )"
     R"("message":"<text>"}`: `status` the answer's code as a number, `error` its reason )"
     "phrase, `message` a string that says what was wrong. ... After 400/404/405 found by routing "
     "or parameters (steps 2 to 7) and after a 400 from the core, the connection stays open for "
     "the next request."},
    {"counters.required",
     "Every plugin must report: ... | `requests_in_flight` | requests in flight (section 8): read "
     "and not yet answered or abandoned (a request at depth d waiting counts d + 1 with its "
     "nested requests) | ... | `connections_open` | inbound connections open, the nested calls' "
     "server side included |"},

    // rules_framing.cpp
    {"framing.malformed",
     "**The request line** is exactly `method SP target SP version CRLF`, with nothing before "
     "it: ... **version**: exactly `HTTP/1.1` or `HTTP/1.0`. ... Any other, such as `HTTP/1.2`, "
     "`HTTP/2.0`, `HTTP/0.9` or `http/1.1`, and a missing one are 400."},
    {"framing.body-over-limit",
     "A declared length over `BENCHD_MAX_REQUEST_BODY_BYTES`, or a chunk that takes the body over "
     "it: **413**, answered from what was read, without waiting for the body. ... | "
     "`BENCHD_MAX_REQUEST_BODY_BYTES` | `kMaxRequestBodyBytes` | 1,048,576 (1 MiB) | request body "
     "(larger: 413) |"},
    {"framing.length-over-limit",
     "A declared length over `BENCHD_MAX_REQUEST_BODY_BYTES`, or a chunk that takes the body over "
     "it: **413**, answered from what was read, without waiting for the body. ... | "
     "`BENCHD_MAX_REQUEST_BODY_BYTES` | `kMaxRequestBodyBytes` | 1,048,576 (1 MiB) | request body "
     "(larger: 413) |"},
    {"framing.no-length",
     "Neither `Content-Length` nor `Transfer-Encoding`: **no body** (a POST then gets the core's "
     "400; the bytes that follow are the next request)."},
    {"framing.content-length",
     "`Content-Length`: one or more digits (leading zeros fine); two or more fields or list "
     "elements with **different** values, a sign, letters, blanks inside, an empty value or a "
     "value over 64 bits: **400**; equal repeated values, in fields or in a list, are one "
     "length."},
    {"framing.length-with-chunked",
     "`Content-Length` **and** a chunked `Transfer-Encoding` in one request, in either order: "
     "**400**."},
    {"framing.chunks",
     "`Transfer-Encoding` frames a **chunked** body when the field's first `chunked` coding (any "
     "case, blanks around it ignored) is also its last: `chunked`, `gzip, chunked`. ... A "
     "chunk-size line is hex digits (leading zeros fine), optionally followed, after blanks, by "
     "`;` and extensions; a size with letters, a sign, `0x`, over 64 bits, empty, with a blank "
     "before it or alone after it, a bare LF, data not followed by CRLF, or data shorter than its "
     "size: **400**. ... Trailer fields after the last chunk are read and ignored: none changes "
     "the framing."},
    {"framing.unparsed-limit",
     "A plugin must accept a chunk-size line (size and extensions) of up to 4,096 bytes "
     "(`BENCHD_MIN_CHUNK_LINE_BYTES`) and "
     "trailer fields of up to `BENCHD_MAX_REQUEST_HEADER_BYTES` in total, line ends included; "
     "above that it may answer 400 and end the connection (threads-poco does). ... Above "
     "`BENCHD_MAX_UNPARSED_REQUEST_BYTES` for either it must refuse (400, or close the "
     "connection) and keep serving: the Asio plugins cap their read buffers there. ... | "
     "`BENCHD_MAX_UNPARSED_REQUEST_BYTES` | `kMaxUnparsedRequestBytes` | 16,384 (16 KiB) | bytes "
     "of a request held before they are parsed: a chunk-size line, a trailer section (larger: 400 "
     "or closed) |"},

    // rules_connections.cpp
    {"connections.keep-alive",
     "Pooling is free; a nested-call connection that is not kept in a pool is closed once its "
     "answer is read. ... **Keep-alive**: an HTTP/1.1 connection persists unless the request's "
     "`Connection` field "
     "holds the token `close` (any case, also in a list: `Connection: foo, close`); an HTTP/1.0 "
     "connection persists only when that field holds the token `keep-alive` (any case), and "
     "otherwise the answer carries `Connection: close` and the connection ends. ... Many "
     "requests, pipelined ones too, are served in order on one connection."},
    {"connections.no-keep-alive",
     "Under the `no-keep-alive` profile every answer carries `Connection: close` and the server "
     "closes the connection after it."},
    {"concurrency.delayed-requests",
     "**Depth 0**: wait `delayInMillis` ms (no wait for 0), then answer. ... The wait must not "
     "block other requests of the server, and must end early when the client leaves (section 7) "
     "or the stop gives up (section 8)."},

    // rules_nested.cpp
    {"nested.outwaits-the-margin",
     "**Timeouts**: connecting `BENCHD_CONNECT_TIMEOUT_MILLIS`; the answer "
     "`M + BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS` (C++: `sdk::upstreamResponseTimeout(M)`), so a "
     "nested call outwaits the longest delay it may forward. ... `--option upstream_margin_ms=N` "
     "(1 to `BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS`) puts N in place of the margin. ... | "
     "`BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS` | `kUpstreamResponseMargin` | 60,000 (60 s) | "
     "nested call's answer timeout beyond the forwarded delay |"},
    {"nested.no-resend",
     "**Retry**: only a reused pooled connection that ends before any byte of the answer arrived "
     "(the server closed it while it sat in the pool) is retried, once, on a new connection. ... "
     "A timeout, an error on a new connection, or a partial answer is never retried."},
    {"nested.idle-pool-closed",
     "**Connections** for nested calls may be pooled and reused (keep-alive). ... A pool is "
     "bounded by `BENCHD_UPSTREAM_POOL_CAPACITY` connections per worker, closes idle connections "
     "after `BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS` (checked every "
     "`BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS`), and closes every idle one when the stop "
     "begins. ... `--option upstream_idle_ms=N` (1 to `BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS`) "
     "shortens the idle timeout, and the sweep then runs at least every N ms."},

    // rules_lifetime.cpp
    {"lifetime.hung-up-client",
     "The wait must not block other requests of the server, and must end early when the client "
     "leaves (section 7) or the stop gives up (section 8). ... **A client that leaves** (closes, "
     "resets, or half-closes its sending side) while its request waits frees the request at "
     "once: its delay or nested call ends and no answer is sent."},
    {"lifetime.hung-up-nested",
     "When the client leaves while its nested call waits, the nested call is abandoned (its "
     "connection closed), which in turn ends the nested request's own wait, down the chain. ... "
     "**A client that leaves** (closes, resets, or half-closes its sending side) while its request "
     "waits frees the request at once: its delay or nested call ends and no answer is sent."},
    {"lifetime.half-close",
     "When the client leaves while its nested call waits, the nested call is abandoned (its "
     "connection closed), which in turn ends the nested request's own wait, down the chain. ... "
     "**A client that leaves** (closes, resets, or half-closes its sending side) while its request "
     "waits frees the request at once: its delay or nested call ends and no answer is sent."},
    {"lifetime.pipelined",
     "Many requests, pipelined ones too, are served in order on one connection. ... Bytes "
     "pipelined behind a waiting request are not a departure."},
    {"lifetime.header-deadline",
     "**Request deadlines** (`benchd/sdk/request_deadline.hpp`): a connection waits for the first "
     "byte of its next request up to `BENCHD_IO_TIMEOUT_MILLIS`; from that byte the whole header "
     "must arrive within `BENCHD_HEADER_DEADLINE_MILLIS` in total (not per read), else the "
     "connection is closed without an answer; the body then has `BENCHD_IO_TIMEOUT_MILLIS` in "
     "total. ... The option `--option header_deadline_ms=N` (1 to "
     "`BENCHD_HEADER_DEADLINE_MILLIS`) shortens the header deadline."},
    {"options.bad-timeouts",
     "The plugin must refuse a key it does not know, and a value it cannot use, with "
     "`BENCHD_ERR_INVALID_ARGUMENT` and a message naming the key (exit 2). ... The option "
     "`--option header_deadline_ms=N` (1 to `BENCHD_HEADER_DEADLINE_MILLIS`) shortens the header "
     "deadline. ... For this option, `upstream_margin_ms` and `upstream_idle_ms` (section 6) any "
     "other value is refused (exit 2)."},

    // rules_hostile.cpp
    {"hostile.first-answers",
     "Whatever a client sends, the plugin answers it or closes the connection, and goes on "
     "serving: no request may stop the server. ... The rules below are how every in-tree plugin "
     "reads a request, stated without reference to a parser; where they differ, the rule says "
     "what is free, and the known exceptions are in "
     "[Where the plugins differ](#where-the-plugins-differ)."},
    {"hostile.survives",
     "Whatever a client sends, the plugin answers it or closes the connection, and goes on "
     "serving: no request may stop the server. Malformed input is the client's error, never "
     "answered with a 5xx status. Once a client's connection has ended, the plugin holds nothing "
     "for it: no connection, descriptor or request in flight."},

    // rules_stop.cpp
    {"stop.drains-in-flight",
     "Every request in flight is finished and answered, with `Connection: close`; at least every "
     "request read completely before the call is. ... A nested call that was already received by "
     "the server when the stop began is in flight and finishes; one sent later may fail, and its "
     "caller answers 502. ... When no request is left, or `timeout_millis` has passed, the plugin "
     "closes the listener and every connection, ends every wait (delays must be interruptible: a "
     "sleeping request must not hold the stop beyond the timeout), joins all its threads and "
     "returns: `BENCHD_OK` when everything was answered, `BENCHD_ERR_TIMEOUT` (message: what was "
     "cut off) otherwise."},
    {"stop.last-answer-closes",
     "Every request in flight is finished and answered, with `Connection: close`; at least every "
     "request read completely before the call is."},
    {"stop.new-connections",
     "A plugin does **not** tell nested requests from new ones (nothing marks them, section 6): a "
     "connection accepted during the drain may be closed without an answer or have its requests "
     "answered with `Connection: close`; both are allowed."},
    {"stop.timeout",
     "`stop(timeout_millis)` (the worker's `--stop-timeout-ms`, default 10000) is a drain: ... "
     "When no request is left, or `timeout_millis` has passed, the plugin closes the listener and "
     "every connection, ends every wait (delays must be interruptible: a sleeping request must "
     "not hold the stop beyond the timeout), joins all its threads and returns: `BENCHD_OK` when "
     "everything was answered, `BENCHD_ERR_TIMEOUT` (message: what was cut off) otherwise."},

    // rules_tls.cpp: the `tls` profile of section 1.
    {"tls.answers",
     "Under it the plugin serves HTTP/1.1 over TLS on its one listening port, and nothing in "
     "clear: ... Every rule of sections 2 to 9 holds inside the TLS stream: ... the nested call "
     "goes to the same port over TLS (verifying nothing: it is the plugin's own server), on "
     "pooled keep-alive connections as without TLS;"},
    {"tls.alpn", "It speaks TLS 1.2 or newer, and under ALPN chooses `http/1.1` or nothing."},
    {"tls.nothing-in-clear",
     "Under it the plugin serves HTTP/1.1 over TLS on its one listening port, and nothing in "
     "clear:"},
    {"tls.client-leaves",
     "a client that leaves while its request waits (a close_notify, an end of stream or a reset "
     "under TLS) ends the wait;"},
    {"tls.handshake-deadline",
     "the handshake counts as the first request's header, under the header deadline;"},
    {"tls.drain",
     "Every rule of sections 2 to 9 holds inside the TLS stream: ... Every request in flight is "
     "finished and answered, with `Connection: close`; at least every request read completely "
     "before the call is."},
    {"tls.key-mismatch",
     "The plugin loads both in `create()` and refuses a file it cannot load, or a key that is "
     "not the certificate's, with `BENCHD_ERR_INVALID_ARGUMENT` naming the file (exit 2)."},

    // rules_h2.cpp: the `h2` and `h2c` profiles of section 1.
    {"h2.answers",
     "Under `h2` the plugin serves as under `tls` (the same certificate fields, the same "
     "refusals), and ALPN chooses `h2` when the client offers it, else `http/1.1` (or nothing, "
     "which means HTTP/1.1). ... Each stream is a request under sections 2 to 6, answered with "
     "the same status, `content-type`, `allow` and body, and no `Connection` field (HTTP/2 "
     "forbids it); the `:path` is read as the request target (section 3). ... Nested calls stay "
     "HTTP/1.1 (in clear under `h2c`, over TLS under `h2`)."},
    {"h2.concurrent-streams",
     "On an HTTP/2 connection the server announces `SETTINGS_MAX_CONCURRENT_STREAMS` of at least "
     "100 (the in-tree plugins: 128) and answers the streams concurrently: streams waiting their "
     "delays on one connection take about one delay, not one each."},
    {"h2.stream-reset",
     "A stream the client resets while its request waits (RST_STREAM), like a client that "
     "leaves, ends that wait and leaves the connection serving;"},
    {"h2.connection-ends", "a connection that ends ends the waits of all its streams."},
    {"h2.broken-frame",
     "A broken frame is answered with a GOAWAY and the connection closes; the server goes on."},
    {"h2.drain",
     "A draining server (section 8) answers the streams in flight, then sends a GOAWAY;"},
    {"h2c.answers",
     "Under `h2c` the port stays in clear and serves both: a connection whose first 24 bytes are "
     "HTTP/2's client preface (`PRI * HTTP/2.0...`) speaks HTTP/2 with prior knowledge, any "
     "other HTTP/1.1; there is no `Upgrade: h2c`. ... Each stream is a request under sections 2 "
     "to 6, answered with the same status, `content-type`, `allow` and body, and no "
     "`Connection` field (HTTP/2 forbids it); ... Nested calls stay HTTP/1.1 (in clear under "
     "`h2c`, over TLS under `h2`)."},
    {"h2c.concurrent-streams",
     "On an HTTP/2 connection the server announces `SETTINGS_MAX_CONCURRENT_STREAMS` of at least "
     "100 (the in-tree plugins: 128) and answers the streams concurrently: streams waiting their "
     "delays on one connection take about one delay, not one each."},
    {"h2c.stream-reset",
     "A stream the client resets while its request waits (RST_STREAM), like a client that "
     "leaves, ends that wait and leaves the connection serving;"},
};

}  // namespace

std::string_view contractCitation(std::string_view rule_id) {
  for (const auto& [id, citation] : kCitations) {
    if (id == rule_id)
      return citation;
  }
  throw std::logic_error("conformance rule " + std::string(rule_id) +
                         " cites no sentence of CONTRACT.md");
}

}  // namespace benchd::conformance
