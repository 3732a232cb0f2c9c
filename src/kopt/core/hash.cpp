#include "kopt/core/hash.hpp"

#include <fmt/format.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>

namespace kopt {

ContentHasher::ContentHasher() : state_(XXH3_createState()) {
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}

ContentHasher::~ContentHasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

ContentHasher& ContentHasher::add(std::string_view part) {
  auto* state = static_cast<XXH3_state_t*>(state_);
  std::uint64_t length = part.size();
  XXH3_128bits_update(state, &length, sizeof length);
  XXH3_128bits_update(state, part.data(), part.size());
  return *this;
}

std::string ContentHasher::hex() const {
  XXH128_hash_t hash = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
  return fmt::format("{:016x}{:016x}", hash.high64, hash.low64);
}

std::string content_hash(std::string_view content) { return ContentHasher().add(content).hex(); }

}  // namespace kopt
