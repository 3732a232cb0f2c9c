#pragma once
// Content hashes for cache keys (XXH3-128: fast, and collisions are not a security matter
// here since every cache entry is also checked for the files it needs).

#include <string>
#include <string_view>

namespace kopt {

class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;

  // Each part is length-prefixed, so ("ab","c") and ("a","bc") hash differently.
  ContentHasher& add(std::string_view part);
  std::string hex() const;  // 32 lowercase hex digits

 private:
  void* state_;
};

std::string content_hash(std::string_view content);

}  // namespace kopt
