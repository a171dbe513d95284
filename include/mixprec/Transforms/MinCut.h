//===- MinCut.h - minimum s-t cut of a capacitated graph --------*- C++ -*-===//
//
// Autocast labels every undecided value 16-bit (source side) or FP32 (sink
// side) so that the cut edges, one per cast, are as few as possible.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_MINCUT_H
#define MIXPREC_TRANSFORMS_MINCUT_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mixprec {

/// A directed graph with edge capacities, a source and a sink; solve() finds
/// a maximum flow (Dinic's algorithm, iterative, so deep graphs cannot
/// overflow the stack) and with it a minimum cut.
class MinCut {
public:
  static constexpr int kSource = 0;
  static constexpr int kSink = 1;
  /// Larger than any finite cut: an edge that must never be cut.
  static constexpr int64_t kInfinite = INT64_MAX / 4;

  MinCut() : numNodes(2) {}

  int addNode() { return numNodes++; }
  int getNumNodes() const { return numNodes; }
  void addEdge(int from, int to, int64_t capacity);

  /// Computes a maximum flow and returns its value, the capacity of a
  /// minimum cut (kInfinite or more: every cut crosses an infinite edge).
  /// Call it once, after every addEdge.
  int64_t solve();

  /// After solve(): whether `node` is on the source side of the minimum cut
  /// with the largest source side (the nodes that cannot reach the sink in
  /// the residual graph); among all minimum cuts it labels the most nodes
  /// source.
  bool onSourceSide(int node) const { return !reachesSink[node]; }

private:
  void buildAdjacency();
  bool buildLevels();
  int64_t augmentAlongLevels();
  void markNodesReachingSink();

  int numNodes;
  // The edges as added; each becomes an arc and a reverse arc.
  llvm::SmallVector<int> edgeFrom, edgeTo;
  llvm::SmallVector<int64_t> edgeCapacity;
  // Arcs grouped by tail (compressed rows): the arcs out of node n are
  // firstArc[n] .. firstArc[n + 1] - 1.
  llvm::SmallVector<int> firstArc, arcHead, arcReverse;
  llvm::SmallVector<int64_t> residual;
  llvm::SmallVector<int> level, currentArc;
  llvm::SmallVector<bool> reachesSink;
};

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_MINCUT_H
