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

  MinCut();

  int addNode();
  int getNumNodes() const { return static_cast<int>(firstEdge.size()); }
  void addEdge(int from, int to, int64_t capacity);

  /// Computes a maximum flow and returns its value, the capacity of a
  /// minimum cut (kInfinite or more: every cut crosses an infinite edge).
  int64_t solve();

  /// After solve(): whether `node` is on the source side of the minimum cut
  /// with the largest source side (the nodes that cannot reach the sink in
  /// the residual graph); among all minimum cuts it labels the most nodes
  /// source.
  bool onSourceSide(int node) const { return !reachesSink[node]; }

private:
  struct Edge {
    int to;
    int next; // next edge out of the same node, -1 at the end
    int64_t residual;
  };

  bool buildLevels();
  int64_t augmentAlongLevels();
  void markNodesReachingSink();

  llvm::SmallVector<Edge> edges; // edge i ^ 1 is the reverse of edge i
  llvm::SmallVector<int> firstEdge;
  llvm::SmallVector<int> level;
  llvm::SmallVector<int> currentEdge;
  llvm::SmallVector<bool> reachesSink;
};

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_MINCUT_H
