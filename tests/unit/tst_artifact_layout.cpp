// Tests for the artifact view's op-graph layout (core/layout/ArtifactLayout.h) on hand-made
// graphs: which method a graph gets (Graphviz up to kMaxGraphvizNodes nodes, layered above or
// when forced), the layered layout's ranks (longest path; a source sits just above its first
// consumer), its bands (a long chain wraps into side-by-side columns), its edges (producer's
// bottom to an arrowhead on the consumer's top), boxes that neither overlap nor leave the
// bounds, and input errors and cancellation as values.

#include "layout/ArtifactLayout.h"

#include <QtTest/QtTest>

#include <atomic>
#include <string>
#include <vector>

using namespace lattice;

namespace {

constexpr double kWidth = 80;
constexpr double kHeight = 30;

std::vector<LayoutSize> sameSizes(std::size_t n) {
  return std::vector<LayoutSize>(n, LayoutSize{kWidth, kHeight});
}

/// 0 → 1 → … → n−1.
OpLayoutGraph chain(std::size_t n) {
  OpLayoutGraph g;
  g.nodeCount = n;
  for (std::size_t i = 1; i < n; ++i)
    g.edges.push_back({static_cast<int>(i - 1), static_cast<int>(i)});
  return g;
}

/// An argument (0) through two ops (1, 2) into an op (4) that also reads a weight (3), a source
/// listed after the ops before it, as `lattice.weight` ops are.
OpLayoutGraph weightedChain() {
  OpLayoutGraph g;
  g.nodeCount = 5;
  g.edges = {{0, 1}, {1, 2}, {2, 4}, {3, 4}};
  return g;
}

void checkBoxes(const LayoutResult& r) {
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    QVERIFY(r.bounds.contains(r.nodes[i].rect(), 0.5));
    for (std::size_t j = i + 1; j < r.nodes.size(); ++j)
      QVERIFY2(!r.nodes[i].rect().intersects(r.nodes[j].rect(), 0.5),
               qPrintable(QStringLiteral("nodes %1 and %2 overlap").arg(i).arg(j)));
  }
}

} // namespace

class TestArtifactLayout : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void smallGraphsGoThroughGraphviz() {
    const OpLayoutGraph g = weightedChain();
    Expected<ArtifactLayout> laid = layoutArtifactGraph(g, sameSizes(g.nodeCount));
    QVERIFY2(laid.ok(), laid.ok() ? "" : laid.message().c_str());
    QCOMPARE(laid->method, ArtifactLayoutMethod::Graphviz);
    QCOMPARE(laid->result.nodes.size(), g.nodeCount);
    QCOMPARE(laid->result.edges.size(), g.edges.size());
    for (std::size_t i = 0; i < g.nodeCount; ++i)
      QCOMPARE(laid->result.nodes[i].id, std::to_string(i));
  }

  void largeOrForcedGraphsAreLayered() {
    const OpLayoutGraph large = chain(kMaxGraphvizNodes + 1);
    Expected<ArtifactLayout> laid = layoutArtifactGraph(large, sameSizes(large.nodeCount));
    QVERIFY(laid.ok());
    QCOMPARE(laid->method, ArtifactLayoutMethod::Layered);
    QCOMPARE(laid->result.nodes.size(), large.nodeCount);

    const OpLayoutGraph small = weightedChain();
    laid = layoutArtifactGraph(small, sameSizes(small.nodeCount), nullptr, true);
    QVERIFY(laid.ok());
    QCOMPARE(laid->method, ArtifactLayoutMethod::Layered);
  }

  void layeredRanksFollowTheLongestPath() {
    const OpLayoutGraph g = weightedChain();
    const LayoutResult r = layeredLayout(g, sameSizes(g.nodeCount));
    QCOMPARE(r.nodes.size(), std::size_t(5));
    // Ranks 0, 1, 2 for the chain, 3 for the op reading the weight; the weight moves from rank 0
    // to rank 2, the row above its consumer. Equal heights: rows are kHeight + a gap apart.
    const double row = r.nodes[1].cy - r.nodes[0].cy;
    QVERIFY(row > kHeight);
    QCOMPARE(r.nodes[2].cy - r.nodes[1].cy, row);
    QCOMPARE(r.nodes[3].cy, r.nodes[2].cy);
    QCOMPARE(r.nodes[4].cy - r.nodes[3].cy, row);
    QCOMPARE(r.nodes[0].cy, kHeight / 2); // the first row starts at the top
    checkBoxes(r);
  }

  void layeredEdgesRunFromBottomToTop() {
    const OpLayoutGraph g = weightedChain();
    const LayoutResult r = layeredLayout(g, sameSizes(g.nodeCount));
    QCOMPARE(r.edges.size(), g.edges.size());
    for (std::size_t i = 0; i < g.edges.size(); ++i) {
      const EdgePath& path = r.edges[i];
      const NodeBox& from = r.nodes[static_cast<std::size_t>(g.edges[i].from)];
      const NodeBox& to = r.nodes[static_cast<std::size_t>(g.edges[i].to)];
      QCOMPARE(path.from, from.id);
      QCOMPARE(path.to, to.id);
      QCOMPARE(path.points.size(), std::size_t(4)); // one cubic curve
      QCOMPARE(path.points.front().x, from.cx);
      QCOMPARE(path.points.front().y, from.cy + kHeight / 2);
      QVERIFY(path.arrowHead);
      QCOMPARE(path.arrowHead->x, to.cx);
      QCOMPARE(path.arrowHead->y, to.cy - kHeight / 2);
      QVERIFY(path.points.back().y < path.arrowHead->y); // the arrowhead fills the gap
    }
  }

  void longChainsWrapIntoBands() {
    // 1000 ranks in one column would be 1000 rows tall; the bands make the drawing wider than
    // one box and far less tall than that column.
    const std::size_t n = 1000;
    const OpLayoutGraph g = chain(n);
    const LayoutResult r = layeredLayout(g, sameSizes(n));
    QCOMPARE(r.nodes.size(), n);
    const double column = static_cast<double>(n) * kHeight;
    QVERIFY2(r.bounds.height < column / 4, qPrintable(QString::number(r.bounds.height)));
    QVERIFY(r.bounds.width > 4 * kWidth);
    checkBoxes(r);
    // Every band starts on the top row; within a band every edge points down, so the only
    // edges that do not are the ones from the bottom of a band to the top of the next.
    int bands = 0;
    for (const NodeBox& box : r.nodes)
      if (box.cy == r.nodes.front().cy) ++bands;
    QVERIFY(bands > 1);
    int upward = 0;
    for (const OpLayoutEdge& e : g.edges)
      if (r.nodes[static_cast<std::size_t>(e.from)].cy >= r.nodes[static_cast<std::size_t>(e.to)].cy)
        ++upward;
    QCOMPARE(upward, bands - 1);
  }

  void inputErrorsAndCancellation() {
    const OpLayoutGraph g = weightedChain();
    Expected<ArtifactLayout> laid = layoutArtifactGraph(g, sameSizes(4));
    QVERIFY(!laid.ok());
    QCOMPARE(QString::fromStdString(laid.message()), QStringLiteral("artifact layout: 4 sizes for 5 nodes"));

    OpLayoutGraph bad = g;
    bad.edges.push_back({2, 5});
    laid = layoutArtifactGraph(bad, sameSizes(5));
    QVERIFY(!laid.ok());
    QCOMPARE(QString::fromStdString(laid.message()),
             QStringLiteral("artifact layout: edge 2 -> 5 names no node of 5"));

    const std::atomic<bool> cancel{true};
    for (bool layered : {false, true}) {
      laid = layoutArtifactGraph(g, sameSizes(5), &cancel, layered);
      QVERIFY(!laid.ok());
      QCOMPARE(QString::fromStdString(laid.message()), QStringLiteral("layout cancelled"));
      QVERIFY(laid.code() == ErrorCode::Cancelled);
    }
  }
};

QTEST_APPLESS_MAIN(TestArtifactLayout)
#include "tst_artifact_layout.moc"
