//===- MinCut.cpp - minimum s-t cut of a capacitated graph ----------------===//

#include "mixprec/Transforms/MinCut.h"

#include <algorithm>
#include <cassert>

using namespace mixprec;

MinCut::MinCut() {
  addNode(); // kSource
  addNode(); // kSink
}

int MinCut::addNode() {
  firstEdge.push_back(-1);
  return getNumNodes() - 1;
}

void MinCut::addEdge(int from, int to, int64_t capacity) {
  assert(from < getNumNodes() && to < getNumNodes() && capacity >= 0);
  edges.push_back({to, firstEdge[from], capacity});
  firstEdge[from] = static_cast<int>(edges.size()) - 1;
  edges.push_back({from, firstEdge[to], 0});
  firstEdge[to] = static_cast<int>(edges.size()) - 1;
}

/// Breadth-first levels from the source over edges with residual capacity;
/// false once the sink is unreachable.
bool MinCut::buildLevels() {
  level.assign(getNumNodes(), -1);
  llvm::SmallVector<int> queue{kSource};
  level[kSource] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    int node = queue[head];
    for (int e = firstEdge[node]; e != -1; e = edges[e].next) {
      if (edges[e].residual > 0 && level[edges[e].to] < 0) {
        level[edges[e].to] = level[node] + 1;
        queue.push_back(edges[e].to);
      }
    }
  }
  return level[kSink] >= 0;
}

/// A blocking flow along strictly increasing levels: depth-first search with
/// an explicit stack of edges and a current-edge pointer per node, so each
/// edge is skipped at most once per phase.
int64_t MinCut::augmentAlongLevels() {
  currentEdge.assign(firstEdge.begin(), firstEdge.end());
  int64_t total = 0;
  llvm::SmallVector<int> path; // edges from the source
  while (true) {
    int node = path.empty() ? kSource : edges[path.back()].to;
    if (node == kSink) {
      int64_t bottleneck = MinCut::kInfinite;
      for (int e : path)
        bottleneck = std::min(bottleneck, edges[e].residual);
      for (int e : path) {
        edges[e].residual -= bottleneck;
        edges[e ^ 1].residual += bottleneck;
      }
      total += bottleneck;
      if (total >= MinCut::kInfinite)
        return total;
      // Retreat to the tail of the first saturated edge.
      size_t keep = 0;
      while (edges[path[keep]].residual > 0)
        ++keep;
      path.resize(keep);
      continue;
    }
    int &e = currentEdge[node];
    while (e != -1 && (edges[e].residual == 0 ||
                       level[edges[e].to] != level[node] + 1))
      e = edges[e].next;
    if (e != -1) {
      path.push_back(e);
      continue;
    }
    // Dead end: no augmenting path leaves `node` in this phase.
    if (path.empty())
      return total;
    level[node] = -1;
    path.pop_back();
    int tail = path.empty() ? kSource : edges[path.back()].to;
    currentEdge[tail] = edges[currentEdge[tail]].next;
  }
}

void MinCut::markNodesReachingSink() {
  // Reverse search from the sink: `from` reaches `to` when the edge
  // from -> to has residual capacity, i.e. the reverse of an edge out of
  // `to` does.
  reachesSink.assign(getNumNodes(), false);
  llvm::SmallVector<int> queue{kSink};
  reachesSink[kSink] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    int node = queue[head];
    for (int e = firstEdge[node]; e != -1; e = edges[e].next) {
      int from = edges[e].to;
      if (!reachesSink[from] && edges[e ^ 1].residual > 0) {
        reachesSink[from] = true;
        queue.push_back(from);
      }
    }
  }
}

int64_t MinCut::solve() {
  int64_t flow = 0;
  while (buildLevels() && flow < kInfinite)
    flow += augmentAlongLevels();
  markNodesReachingSink();
  return flow;
}
