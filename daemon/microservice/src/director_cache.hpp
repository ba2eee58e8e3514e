#pragma once

#include "per_thread_counter.hpp"
#include "transparent_string_hash.hpp"

#include <benchd/microservice/clock.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace benchd::microservice {

/// The per-director cache of GET /movies answers: each entry expires a fixed time after it was
/// loaded (expire-after-write, on the injected clock) or when evicted. The authoritative level
/// holds at most kMaxEntries entries and drops the least recently used one to make room.
///
/// Two levels. The authoritative entries live in a mutex-protected map; a miss there calls the
/// loader while holding the mutex, so each director is loaded once per expiry. Each thread also
/// keeps a private mirror of the entries it has read (with its own copy of the text), valid as
/// long as the cache's generation, which every eviction bumps, is unchanged. A mirror hit reads
/// one shared atomic and otherwise touches only thread-private memory: no lock, no shared
/// reference count, no shared counter.
///
/// Bounded memory: kMaxEntries caps the authoritative entries (least recently used out, where
/// "used" means loaded or read from the authoritative level; hits in a thread's mirror do not
/// reorder it, so the hit path stays lock-free), and each thread's mirror is capped at its own
/// 256 entries. A capacity eviction leaves the mirrors alone: their copies are still correct.
///
/// Counting: a hit in either level is a hit, a load is a miss, so the counts do not depend on
/// which thread asks.
///
/// Thread-safety: every member function may be called concurrently. The cache must outlive
/// its calls; threads' mirrors of a destroyed cache are dropped lazily.
class DirectorCache {
 public:
  /// The most directors the authoritative level holds. The benchmark's working set is 3
  /// directors (Allen, Hitchcock, Kubrick; the write scenarios POST the same ones), so 1024
  /// leaves two orders of magnitude of headroom for real data and never evicts under the
  /// scenarios, while a stream of unique directorLastName values (each otherwise kept for the
  /// whole hour) stays bounded: an entry is its name (at most one request line, a few KiB) plus
  /// its answer ("[]" for an unknown name), so even hostile names cost tens of MiB at most.
  static constexpr std::size_t kMaxEntries = 1024;

  using Loader = std::function<std::string(std::string_view last_name)>;

  DirectorCache(std::shared_ptr<const Clock> clock,
                std::chrono::steady_clock::duration time_to_live, Loader loader);
  ~DirectorCache();
  DirectorCache(const DirectorCache&) = delete;
  DirectorCache& operator=(const DirectorCache&) = delete;

  /// The cached answer for this director, loaded on a miss. Rethrows the loader's exception
  /// (nothing is cached then). The returned text is immutable and owned by the calling
  /// thread's mirror and the caller.
  [[nodiscard]] std::shared_ptr<const std::string> get(std::string_view last_name);

  /// What find() saw: the cached answer, or null on a miss, and the cache's generation then.
  struct Lookup {
    std::shared_ptr<const std::string> json;
    std::uint64_t generation = 0;
  };

  /// For callers that load an answer themselves without waiting in the cache (the postgres
  /// profile, whose query runs on the caller's event loop): the cached answer or a miss,
  /// counted like get()'s. The loader is never called.
  [[nodiscard]] Lookup find(std::string_view last_name);

  /// Caches an answer the caller loaded after find() missed with `generation`. Dropped when an
  /// eviction came in between: the answer may have been read before the change that evicted.
  void store(std::string_view last_name, std::string json, std::uint64_t generation);

  /// Drops these directors' entries and invalidates every thread's mirror.
  void evict(std::span<const std::string> last_names);

  [[nodiscard]] std::int64_t hits() const;
  [[nodiscard]] std::int64_t misses() const;

  /// The number of entries in the authoritative level (an expired one counts until it is
  /// reloaded, evicted or pushed out); never more than kMaxEntries.
  [[nodiscard]] std::size_t size() const;

 private:
  struct ThreadMirror;
  struct Entry {
    std::shared_ptr<const std::string> json;
    std::chrono::steady_clock::time_point expires_at;
  };
  /// An authoritative entry, in recency order (most recently used first).
  struct LruNode {
    std::string last_name;
    Entry entry;
  };
  using LruList = std::list<LruNode>;

  /// This thread's mirror, emptied first when the cache's generation moved on; sets
  /// `generation` to the generation it is valid for.
  ThreadMirror& currentMirror(std::uint64_t& generation);
  ThreadMirror& threadMirror();
  /// Copies an authoritative entry into the mirror and returns the copy's text.
  static std::shared_ptr<const std::string> mirrored(ThreadMirror& mirror,
                                                     std::string_view last_name,
                                                     const Entry& authoritative);
  Entry getAuthoritative(std::string_view last_name, std::chrono::steady_clock::time_point now);
  /// The authoritative entry if present and unexpired (counted as a hit, or else a miss).
  /// Requires mutex_.
  std::optional<Entry> findAuthoritative(std::string_view last_name,
                                         std::chrono::steady_clock::time_point now);
  /// Adds or replaces an authoritative entry as the most recently used. Requires mutex_.
  void putAuthoritative(std::string_view last_name, const Entry& entry);

  // Read-only after construction.
  const std::uint64_t id_;  ///< unique per cache in this process; keys the threads' mirrors
  const std::shared_ptr<const Clock> clock_;
  const std::chrono::steady_clock::duration time_to_live_;
  const Loader loader_;
  const std::shared_ptr<const bool> alive_;  ///< mirrors hold a weak_ptr to notice destruction
  PerThreadCounter mirror_hits_;

  /// Read by every hit, written by evictions only; alone on its cache line.
  alignas(64) std::atomic<std::uint64_t> generation_{1};

  alignas(64) mutable std::mutex mutex_;
  LruList lru_;  ///< guarded by mutex_; owns the authoritative entries
  /// guarded by mutex_; keys view the names in lru_'s nodes, which never move
  std::unordered_map<std::string_view, LruList::iterator, TransparentStringHash, std::equal_to<>>
      entries_;
  std::atomic<std::int64_t> authoritative_hits_{0};
  std::atomic<std::int64_t> misses_{0};
};

}  // namespace benchd::microservice
