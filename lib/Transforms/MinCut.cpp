//===- MinCut.cpp - minimum s-t cut of a capacitated graph ----------------===//

#include "mixprec/Transforms/MinCut.h"

#include <algorithm>
#include <cassert>

using namespace mixprec;

void MinCut::addEdge(int from, int to, int64_t capacity) {
  assert(from < numNodes && to < numNodes && capacity >= 0);
  edgeFrom.push_back(from);
  edgeTo.push_back(to);
  edgeCapacity.push_back(capacity);
}

/// Lays the arcs out by tail, so a node's arcs are contiguous in memory.
void MinCut::buildAdjacency() {
  firstArc.assign(numNodes + 1, 0);
  for (size_t e = 0; e < edgeFrom.size(); ++e) {
    ++firstArc[edgeFrom[e] + 1];
    ++firstArc[edgeTo[e] + 1];
  }
  for (int node = 0; node < numNodes; ++node)
    firstArc[node + 1] += firstArc[node];
  size_t numArcs = 2 * edgeFrom.size();
  arcHead.resize(numArcs);
  arcReverse.resize(numArcs);
  residual.resize(numArcs);
  llvm::SmallVector<int> next(firstArc.begin(), firstArc.end() - 1);
  for (size_t e = 0; e < edgeFrom.size(); ++e) {
    int forward = next[edgeFrom[e]]++, backward = next[edgeTo[e]]++;
    arcHead[forward] = edgeTo[e];
    arcHead[backward] = edgeFrom[e];
    arcReverse[forward] = backward;
    arcReverse[backward] = forward;
    residual[forward] = edgeCapacity[e];
    residual[backward] = 0;
  }
}

/// Breadth-first levels from the source over arcs with residual capacity;
/// false once the sink is unreachable.
bool MinCut::buildLevels() {
  level.assign(numNodes, -1);
  llvm::SmallVector<int> queue{kSource};
  level[kSource] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    int node = queue[head];
    for (int arc = firstArc[node]; arc < firstArc[node + 1]; ++arc) {
      if (residual[arc] > 0 && level[arcHead[arc]] < 0) {
        level[arcHead[arc]] = level[node] + 1;
        queue.push_back(arcHead[arc]);
      }
    }
  }
  return level[kSink] >= 0;
}

/// A blocking flow along strictly increasing levels: depth-first search with
/// an explicit stack of arcs and a current-arc pointer per node, so each arc
/// is skipped at most once per phase.
int64_t MinCut::augmentAlongLevels() {
  currentArc.assign(firstArc.begin(), firstArc.end() - 1);
  int64_t total = 0;
  llvm::SmallVector<int> path; // arcs from the source
  while (true) {
    int node = path.empty() ? kSource : arcHead[path.back()];
    if (node == kSink) {
      int64_t bottleneck = kInfinite;
      for (int arc : path)
        bottleneck = std::min(bottleneck, residual[arc]);
      for (int arc : path) {
        residual[arc] -= bottleneck;
        residual[arcReverse[arc]] += bottleneck;
      }
      total += bottleneck;
      if (total >= kInfinite)
        return total;
      // Retreat to the tail of the first saturated arc.
      size_t keep = 0;
      while (residual[path[keep]] > 0)
        ++keep;
      path.resize(keep);
      continue;
    }
    int &arc = currentArc[node];
    while (arc < firstArc[node + 1] &&
           (residual[arc] == 0 || level[arcHead[arc]] != level[node] + 1))
      ++arc;
    if (arc < firstArc[node + 1]) {
      path.push_back(arc);
      continue;
    }
    // Dead end: no augmenting path leaves `node` in this phase.
    if (path.empty())
      return total;
    level[node] = -1;
    path.pop_back();
    int tail = path.empty() ? kSource : arcHead[path.back()];
    ++currentArc[tail];
  }
}

void MinCut::markNodesReachingSink() {
  // Reverse search from the sink: `from` reaches `node` when the arc
  // from -> node, the reverse of an arc out of `node`, has residual capacity.
  reachesSink.assign(numNodes, false);
  llvm::SmallVector<int> queue{kSink};
  reachesSink[kSink] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    int node = queue[head];
    for (int arc = firstArc[node]; arc < firstArc[node + 1]; ++arc) {
      int from = arcHead[arc];
      if (!reachesSink[from] && residual[arcReverse[arc]] > 0) {
        reachesSink[from] = true;
        queue.push_back(from);
      }
    }
  }
}

int64_t MinCut::solve() {
  buildAdjacency();
  int64_t flow = 0;
  while (flow < kInfinite && buildLevels())
    flow += augmentAlongLevels();
  markNodesReachingSink();
  return flow;
}
