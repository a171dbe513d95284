//===- MinCutTest.cpp - the minimum cut behind autocast -------------------===//

#include "mixprec/Transforms/MinCut.h"

#include <gtest/gtest.h>

#include <random>

using mixprec::MinCut;

namespace {

TEST(MinCutTest, NoEdgesCostNothingAndLeaveNodesOnTheSourceSide) {
  MinCut cut;
  int node = cut.addNode();
  EXPECT_EQ(cut.solve(), 0);
  EXPECT_TRUE(cut.onSourceSide(MinCut::kSource));
  EXPECT_FALSE(cut.onSourceSide(MinCut::kSink));
  EXPECT_TRUE(cut.onSourceSide(node));
}

TEST(MinCutTest, ChainIsCutAtItsCheapestEdge) {
  // source -5-> a -2-> b -7-> sink
  MinCut cut;
  int a = cut.addNode(), b = cut.addNode();
  cut.addEdge(MinCut::kSource, a, 5);
  cut.addEdge(a, b, 2);
  cut.addEdge(b, MinCut::kSink, 7);
  EXPECT_EQ(cut.solve(), 2);
  EXPECT_TRUE(cut.onSourceSide(a));
  EXPECT_FALSE(cut.onSourceSide(b));
}

TEST(MinCutTest, TiesGoToTheSourceSide) {
  // source -1-> a -1-> sink: cutting either edge costs 1; the cut with the
  // largest source side cuts a -> sink.
  MinCut cut;
  int a = cut.addNode();
  cut.addEdge(MinCut::kSource, a, 1);
  cut.addEdge(a, MinCut::kSink, 1);
  EXPECT_EQ(cut.solve(), 1);
  EXPECT_TRUE(cut.onSourceSide(a));
}

TEST(MinCutTest, InfiniteEdgesAreNeverCut) {
  // source -inf-> a -1-> b -inf-> sink, and a second path through c.
  MinCut cut;
  int a = cut.addNode(), b = cut.addNode(), c = cut.addNode();
  cut.addEdge(MinCut::kSource, a, MinCut::kInfinite);
  cut.addEdge(a, b, 1);
  cut.addEdge(b, MinCut::kSink, MinCut::kInfinite);
  cut.addEdge(a, c, 3);
  cut.addEdge(c, MinCut::kSink, 1);
  EXPECT_EQ(cut.solve(), 2);
  EXPECT_TRUE(cut.onSourceSide(a));
  EXPECT_FALSE(cut.onSourceSide(b));
  EXPECT_TRUE(cut.onSourceSide(c));
}

TEST(MinCutTest, AnInfinitePathIsReported) {
  MinCut cut;
  int a = cut.addNode();
  cut.addEdge(MinCut::kSource, a, MinCut::kInfinite);
  cut.addEdge(a, MinCut::kSink, MinCut::kInfinite);
  EXPECT_GE(cut.solve(), MinCut::kInfinite);
}

TEST(MinCutTest, DeepChainNeedsNoRecursion) {
  // A million-node path: a recursive search would overflow the stack.
  MinCut cut;
  int previous = MinCut::kSource;
  for (int i = 0; i < 1000000; ++i) {
    int node = cut.addNode();
    cut.addEdge(previous, node, i == 500000 ? 1 : 2);
    previous = node;
  }
  cut.addEdge(previous, MinCut::kSink, 2);
  EXPECT_EQ(cut.solve(), 1);
}

/// The cheapest cut by enumerating every labelling of the inner nodes.
int64_t bruteForceMinCut(int numNodes,
                         const std::vector<std::tuple<int, int, int>> &edges) {
  int inner = numNodes - 2;
  int64_t best = INT64_MAX;
  for (unsigned mask = 0; mask < (1u << inner); ++mask) {
    auto onSource = [&](int node) {
      return node == MinCut::kSource || (node >= 2 && (mask >> (node - 2) & 1));
    };
    int64_t cost = 0;
    for (auto [from, to, capacity] : edges)
      if (onSource(from) && !onSource(to))
        cost += capacity;
    best = std::min(best, cost);
  }
  return best;
}

TEST(MinCutTest, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    int numNodes = 2 + static_cast<int>(random() % 9);
    std::vector<std::tuple<int, int, int>> edges;
    MinCut cut;
    for (int i = 2; i < numNodes; ++i)
      cut.addNode();
    int numEdges = static_cast<int>(random() % (3 * numNodes));
    for (int e = 0; e < numEdges; ++e) {
      int from = random() % numNodes, to = random() % numNodes;
      int capacity = random() % 4;
      edges.emplace_back(from, to, capacity);
      cut.addEdge(from, to, capacity);
    }
    int64_t flow = cut.solve();
    ASSERT_EQ(flow, bruteForceMinCut(numNodes, edges)) << "trial " << trial;
    // The labelling solve() reports is itself a cut of that capacity.
    int64_t labelled = 0;
    for (auto [from, to, capacity] : edges)
      if (cut.onSourceSide(from) && !cut.onSourceSide(to))
        labelled += capacity;
    EXPECT_EQ(labelled, flow) << "trial " << trial;
  }
}

} // namespace
