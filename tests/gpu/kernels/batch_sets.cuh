// Shared by the planted batch cheats (cheat_batch_ahead*): an add over several argument sets
// in one launch, and the bookkeeping of which sets solve has seen.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

constexpr int kMaxSets = 64;  // kopt's default most calls per sample

struct Sets {
  const float* a[kMaxSets];
  const float* b[kMaxSets];
  float* c[kMaxSets];
  int count;
};

__global__ void add_sets(Sets sets, int n) {
  const long total = static_cast<long>(sets.count) * n;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int s = static_cast<int>(i / n), k = static_cast<int>(i % n);
    sets.c[s][k] = sets.a[s][k] + sets.b[s][k];
  }
}

struct Seen {
  const float* a;
  const float* b;
  float* c;
};
inline bool operator==(const Seen& x, const Seen& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }

// kopt calls the sets of a batch in the same order every sample: a call on set k computes sets
// k, k+1, ... (all of whose fresh inputs exist already) and marks the later ones done.
struct AheadPlan {
  std::vector<Seen> known;  // every set seen, in order of first sight
  std::vector<Seen> done;   // computed ahead in this batch, not called yet

  // True: this call's outputs are already there. Otherwise fills `sets` with this call's set and
  // every later known one.
  bool skip_or_plan(Seen me, Sets& sets) {
    if (auto it = std::find(done.begin(), done.end(), me); it != done.end()) {
      done.erase(it);
      return true;
    }
    auto at = std::find(known.begin(), known.end(), me);
    if (at == known.end()) {
      if (known.size() == kMaxSets) known.erase(known.begin());
      known.push_back(me);
      at = known.end() - 1;
    }
    sets.count = 0;
    done.clear();
    for (auto it = at; it != known.end(); ++it) {
      sets.a[sets.count] = it->a;
      sets.b[sets.count] = it->b;
      sets.c[sets.count] = it->c;
      ++sets.count;
      if (it != at) done.push_back(*it);
    }
    return false;
  }
};
