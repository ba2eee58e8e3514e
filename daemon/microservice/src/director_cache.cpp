#include "director_cache.hpp"

#include <cstddef>
#include <unordered_map>
#include <utility>

namespace benchd::microservice {
namespace {

/// A thread's mirror is emptied when it would exceed this many entries.
constexpr std::size_t kMaxMirrorEntries = 256;

std::atomic<std::uint64_t> next_cache_id{1};

}  // namespace

/// One thread's copies of the entries it has read from one cache. Owned by that thread.
struct DirectorCache::ThreadMirror {
  std::weak_ptr<const bool> cache_alive;
  std::uint64_t generation = 0;  ///< the cache's generation the entries are valid for
  StringKeyedMap<Entry> entries;
  PerThreadCounter::Slot hits;
};

DirectorCache::DirectorCache(std::shared_ptr<const Clock> clock,
                             std::chrono::steady_clock::duration time_to_live, Loader loader)
    : id_(next_cache_id.fetch_add(1)),
      clock_(std::move(clock)),
      time_to_live_(time_to_live),
      loader_(std::move(loader)),
      alive_(std::make_shared<const bool>(true)) {
  entries_.reserve(kMaxEntries);
}

DirectorCache::~DirectorCache() = default;

DirectorCache::ThreadMirror& DirectorCache::threadMirror() {
  struct MirrorsOfThisThread {
    std::unordered_map<std::uint64_t, ThreadMirror> by_cache_id;
    std::uint64_t last_cache_id = 0;  // cache ids start at 1
    ThreadMirror* last = nullptr;
  };
  thread_local MirrorsOfThisThread mirrors;

  if (mirrors.last != nullptr && mirrors.last_cache_id == id_) {
    return *mirrors.last;
  }
  auto mirror = mirrors.by_cache_id.find(id_);
  if (mirror == mirrors.by_cache_id.end()) {
    std::erase_if(mirrors.by_cache_id,
                  [](const auto& entry) { return entry.second.cache_alive.expired(); });
    mirror =
        mirrors.by_cache_id.try_emplace(id_, ThreadMirror{alive_, 0, {}, mirror_hits_.newSlot()})
            .first;
  }
  mirrors.last_cache_id = id_;
  mirrors.last = &mirror->second;
  return mirror->second;
}

DirectorCache::ThreadMirror& DirectorCache::currentMirror(std::uint64_t& generation) {
  ThreadMirror& mirror = threadMirror();
  // Loaded before consulting the authoritative map: a mirror filled after a concurrent
  // eviction is then tagged with the older generation and dropped on the next call.
  generation = generation_.load(std::memory_order_acquire);
  if (mirror.generation != generation) {
    mirror.entries.clear();
    mirror.generation = generation;
  }
  return mirror;
}

std::shared_ptr<const std::string> DirectorCache::mirrored(ThreadMirror& mirror,
                                                           std::string_view last_name,
                                                           const Entry& authoritative) {
  // A private copy, so the callers' reference counting never touches another thread's cache
  // line.
  Entry copy{std::make_shared<const std::string>(*authoritative.json), authoritative.expires_at};
  if (mirror.entries.size() >= kMaxMirrorEntries) {
    mirror.entries.clear();
  }
  mirror.entries.insert_or_assign(std::string(last_name), copy);
  return std::move(copy.json);
}

std::shared_ptr<const std::string> DirectorCache::get(std::string_view last_name) {
  std::uint64_t generation = 0;
  ThreadMirror& mirror = currentMirror(generation);
  const auto now = clock_->now();
  if (const auto cached = mirror.entries.find(last_name);
      cached != mirror.entries.end() && now < cached->second.expires_at) {
    mirror.hits.increment();
    return cached->second.json;
  }
  return mirrored(mirror, last_name, getAuthoritative(last_name, now));
}

DirectorCache::Lookup DirectorCache::find(std::string_view last_name) {
  std::uint64_t generation = 0;
  ThreadMirror& mirror = currentMirror(generation);
  const auto now = clock_->now();
  if (const auto cached = mirror.entries.find(last_name);
      cached != mirror.entries.end() && now < cached->second.expires_at) {
    mirror.hits.increment();
    return {cached->second.json, generation};
  }
  std::optional<Entry> found;
  {
    std::lock_guard lock(mutex_);
    found = findAuthoritative(last_name, now);
  }
  if (!found) {
    return {nullptr, generation};
  }
  return {mirrored(mirror, last_name, *found), generation};
}

void DirectorCache::store(std::string_view last_name, std::string json, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  if (generation_.load(std::memory_order_acquire) != generation) {
    return;
  }
  putAuthoritative(last_name, Entry{std::make_shared<const std::string>(std::move(json)),
                                    clock_->now() + time_to_live_});
}

std::optional<DirectorCache::Entry> DirectorCache::findAuthoritative(
    std::string_view last_name, std::chrono::steady_clock::time_point now) {
  const auto cached = entries_.find(last_name);
  if (cached != entries_.end()) {
    const LruList::iterator node = cached->second;
    lru_.splice(lru_.begin(), lru_, node);  // most recently used; iterators stay valid
    if (now < node->entry.expires_at) {
      authoritative_hits_.fetch_add(1, std::memory_order_relaxed);
      return node->entry;
    }
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  return std::nullopt;
}

void DirectorCache::putAuthoritative(std::string_view last_name, const Entry& entry) {
  if (const auto cached = entries_.find(last_name); cached != entries_.end()) {
    const LruList::iterator node = cached->second;
    lru_.splice(lru_.begin(), lru_, node);
    node->entry = entry;
    return;
  }
  if (entries_.size() >= kMaxEntries) {
    entries_.erase(std::string_view(lru_.back().last_name));
    lru_.pop_back();
  }
  lru_.push_front(LruNode{std::string(last_name), entry});
  try {
    entries_.emplace(std::string_view(lru_.front().last_name), lru_.begin());
  } catch (...) {
    lru_.pop_front();
    throw;
  }
}

DirectorCache::Entry DirectorCache::getAuthoritative(std::string_view last_name,
                                                     std::chrono::steady_clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (std::optional<Entry> found = findAuthoritative(last_name, now)) {
    return *found;
  }
  // Loaded under the mutex, so each director is loaded once per expiry.
  Entry loaded{std::make_shared<const std::string>(loader_(last_name)),
               clock_->now() + time_to_live_};
  putAuthoritative(last_name, loaded);
  return loaded;
}

void DirectorCache::evict(std::span<const std::string> last_names) {
  std::lock_guard lock(mutex_);
  for (const std::string& last_name : last_names) {
    if (const auto cached = entries_.find(std::string_view(last_name)); cached != entries_.end()) {
      const LruList::iterator node = cached->second;
      entries_.erase(cached);
      lru_.erase(node);
    }
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

std::int64_t DirectorCache::hits() const {
  return mirror_hits_.total() + authoritative_hits_.load(std::memory_order_relaxed);
}

std::int64_t DirectorCache::misses() const {
  return misses_.load(std::memory_order_relaxed);
}

std::size_t DirectorCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace benchd::microservice
