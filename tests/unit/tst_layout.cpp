// Tests for computeLayout (one Graphviz `dot` call): geometric properties any correct layout of
// small hand-made graphs has (boxes keep the asked size and do not overlap, edges run from the
// tail's box to the head's box as 1 + 3k Bézier points, rankdir orders producer and consumer,
// clusters contain their nodes and reserve their label band, y points down from (0,0)), input
// errors and cancellation as values, and concurrent calls serialised by the layout lock.

#include "layout/GraphLayout.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <thread>

using namespace lattice;

Q_DECLARE_METATYPE(lattice::LayoutGraph)
Q_DECLARE_METATYPE(lattice::RankDir)

namespace {

/// Distance from `p` to the rectangle (0 inside).
double distance(const LayoutPoint& p, const LayoutRect& r) {
  const double dx = std::max({r.left - p.x, 0.0, p.x - r.right()});
  const double dy = std::max({r.top - p.y, 0.0, p.y - r.bottom()});
  return std::hypot(dx, dy);
}

LayoutGraph chain(int n, double w = 60, double h = 30) {
  LayoutGraph g;
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"n" + std::to_string(i), w, h, {}});
    if (i) g.edges.push_back({"n" + std::to_string(i - 1), "n" + std::to_string(i), 1});
  }
  return g;
}

/// a → b, a → c, b → d, c → d, plus a wide node and a fan-in, to exercise ordering in ranks.
LayoutGraph diamond() {
  LayoutGraph g;
  g.nodes = {{"a", 80, 30, {}}, {"b", 40, 20, {}}, {"c", 120, 50, {}}, {"d", 60, 30, {}}, {"e", 200, 24, {}}};
  g.edges = {{"a", "b", 1}, {"a", "c", 1}, {"b", "d", 1}, {"c", "d", 1}, {"a", "e", 1}, {"e", "d", 1}};
  return g;
}

/// Two nested clusters with a reserved label band each, and a node outside.
LayoutGraph clustered() {
  LayoutGraph g;
  g.clusters = {{"outer", "outer label", {}, 150, 24}, {"inner", "inner label", "outer", 90, 18}};
  g.nodes = {{"x", 50, 30, {}},      {"p", 60, 30, "outer"}, {"q", 60, 30, "inner"},
             {"r", 60, 30, "inner"}, {"s", 70, 30, "outer"}, {"y", 50, 30, {}}};
  g.edges = {{"x", "p", 1}, {"p", "q", 1}, {"q", "r", 1}, {"p", "s", 1}, {"r", "y", 1}, {"s", "y", 1}};
  return g;
}

LayoutResult layoutOk(const LayoutGraph& g, const LayoutOptions& o = {}) {
  Expected<LayoutResult> r = computeLayout(g, o);
  if (!r) qWarning("layout failed: %s", r.message().c_str());
  return r ? *r : LayoutResult{};
}

} // namespace

class TestLayout : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void graphs_data() {
    QTest::addColumn<LayoutGraph>("graph");
    QTest::newRow("chain") << chain(6);
    QTest::newRow("diamond") << diamond();
    QTest::newRow("clusters") << clustered();
    LayoutGraph parallel = chain(2);
    parallel.edges.push_back({"n0", "n1", 1}); // a second, parallel edge
    QTest::newRow("parallel edges") << parallel;
  }

  void boxesKeepTheirSizeAndDoNotOverlap_data() { graphs_data(); }
  void boxesKeepTheirSizeAndDoNotOverlap() {
    QFETCH(LayoutGraph, graph);
    const LayoutResult r = layoutOk(graph);
    QCOMPARE(r.nodes.size(), graph.nodes.size());
    QCOMPARE(r.bounds.left, 0.0);
    QCOMPARE(r.bounds.top, 0.0);
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
      QCOMPARE(r.nodes[i].id, graph.nodes[i].id);
      QCOMPARE(r.nodes[i].width, graph.nodes[i].width);
      QCOMPARE(r.nodes[i].height, graph.nodes[i].height);
      QVERIFY2(r.bounds.contains(r.nodes[i].rect(), 1.0), r.nodes[i].id.c_str());
      for (std::size_t j = i + 1; j < r.nodes.size(); ++j)
        QVERIFY2(!r.nodes[i].rect().intersects(r.nodes[j].rect(), 0.5),
                 (r.nodes[i].id + " overlaps " + r.nodes[j].id).c_str());
    }
  }

  void edgesRunFromTailToHead_data() { graphs_data(); }
  void edgesRunFromTailToHead() {
    QFETCH(LayoutGraph, graph);
    const LayoutResult r = layoutOk(graph);
    QCOMPARE(r.edges.size(), graph.edges.size());
    for (std::size_t i = 0; i < r.edges.size(); ++i) {
      const EdgePath& e = r.edges[i];
      QCOMPARE(e.from, graph.edges[i].from);
      QCOMPARE(e.to, graph.edges[i].to);
      QVERIFY(e.points.size() >= 4);
      QCOMPARE((e.points.size() - 1) % 3, std::size_t(0));
      // Directed graphs get an arrowhead at the head by default; the spline stops short of it.
      QVERIFY(e.arrowHead.has_value());
      const LayoutRect tail = r.findNode(e.from)->rect(), head = r.findNode(e.to)->rect();
      QVERIFY2(distance(e.points.front(), tail) <= 2.0, e.from.c_str());
      QVERIFY2(distance(*e.arrowHead, head) <= 2.0, e.to.c_str());
      QVERIFY(distance(e.points.back(), head) <= 15.0); // arrowhead length is 10 points
      for (const LayoutPoint& p : e.points)
        QVERIFY(r.bounds.contains({p.x, p.y, 0, 0}, 1.0));
    }
  }

  void rankDirOrdersProducerAndConsumer_data() {
    QTest::addColumn<RankDir>("dir");
    QTest::addColumn<QString>("name");
    QTest::newRow("TB") << RankDir::TopToBottom << "TB";
    QTest::newRow("LR") << RankDir::LeftToRight << "LR";
    QTest::newRow("BT") << RankDir::BottomToTop << "BT";
    QTest::newRow("RL") << RankDir::RightToLeft << "RL";
  }
  void rankDirOrdersProducerAndConsumer() {
    QFETCH(RankDir, dir);
    QFETCH(QString, name);
    QCOMPARE(QString::fromLatin1(rankDirName(dir)), name);
    LayoutOptions o;
    o.rankDir = dir;
    o.rankSep = 40;
    const LayoutResult r = layoutOk(chain(3, 60, 30), o);
    QCOMPARE(r.nodes.size(), std::size_t(3));
    const NodeBox &a = r.nodes[0], &b = r.nodes[1];
    // y grows downwards: TB puts the producer above (smaller y) its consumer.
    switch (dir) {
    case RankDir::TopToBottom:
      QVERIFY(b.cy - a.cy >= (a.height + b.height) / 2 + 40 - 1);
      QCOMPARE(a.cx, b.cx);
      break;
    case RankDir::BottomToTop:
      QVERIFY(a.cy - b.cy >= (a.height + b.height) / 2 + 40 - 1);
      break;
    case RankDir::LeftToRight:
      QVERIFY(b.cx - a.cx >= (a.width + b.width) / 2 + 40 - 1);
      QCOMPARE(a.cy, b.cy);
      break;
    case RankDir::RightToLeft:
      QVERIFY(a.cx - b.cx >= (a.width + b.width) / 2 + 40 - 1);
      break;
    }
  }

  void clustersContainTheirNodesAndReserveTheLabel() {
    const LayoutGraph g = clustered();
    const LayoutResult r = layoutOk(g);
    QCOMPARE(r.clusters.size(), std::size_t(2));
    const ClusterBox* outer = r.findCluster("outer");
    const ClusterBox* inner = r.findCluster("inner");
    QVERIFY(outer && inner);
    QCOMPARE(outer->label, std::string("outer label"));
    QCOMPARE(inner->parent, std::string("outer"));
    QVERIFY(outer->box.contains(inner->box));
    QVERIFY(r.bounds.contains(outer->box, 1.0));
    for (const LayoutNode& n : g.nodes) {
      const LayoutRect box = r.findNode(n.id)->rect();
      const bool inOuter = n.cluster == "outer" || n.cluster == "inner";
      QCOMPARE(outer->box.contains(box), inOuter);
      QCOMPARE(inner->box.contains(box), n.cluster == "inner");
      // Each cluster's label band (its reserved height, at the top) stays clear of its nodes.
      if (n.cluster == "inner") QVERIFY(box.top >= inner->box.top + 18);
      if (inOuter) QVERIFY(box.top >= outer->box.top + 24);
    }
    // The band is as wide as asked, plus the cluster margin on each side.
    QVERIFY(outer->box.width >= 150 + 2 * 8 - 1);
    QVERIFY(inner->box.width >= 90 + 2 * 8 - 1);
  }

  void emptyGraphHasEmptyLayout() {
    Expected<LayoutResult> r = computeLayout(LayoutGraph{});
    QVERIFY(r.ok());
    QVERIFY(r->nodes.empty());
    QCOMPARE(r->bounds.width, 0.0);
  }

  void cancelledBeforeTheCall() {
    std::atomic<bool> cancel{true};
    Expected<LayoutResult> r = computeLayout(chain(3), {}, &cancel);
    QVERIFY(!r.ok());
    QCOMPARE(r.message(), std::string("layout cancelled"));
    QVERIFY(r.code() == ErrorCode::Cancelled);
    cancel = false;
    QVERIFY(computeLayout(chain(3), {}, &cancel).ok());
  }

  void invalidInputIsAnError_data() {
    QTest::addColumn<LayoutGraph>("graph");
    QTest::addColumn<QString>("message");
    LayoutGraph dup = chain(2);
    dup.nodes.push_back({"n1", 10, 10, {}});
    QTest::newRow("duplicate node") << dup << "layout: duplicate node id 'n1'";
    LayoutGraph edge = chain(2);
    edge.edges.push_back({"n1", "zz", 1});
    QTest::newRow("unknown head") << edge << "layout: edge 'n1' -> 'zz' ends at an unknown node";
    LayoutGraph cluster = chain(2);
    cluster.nodes[0].cluster = "c";
    QTest::newRow("unknown cluster") << cluster << "layout: node 'n0' is in unknown cluster 'c'";
    LayoutGraph cycle = chain(1);
    cycle.clusters = {{"a", {}, "b", 0, 0}, {"b", {}, "a", 0, 0}};
    QTest::newRow("cluster cycle") << cycle << "layout: cluster 'a' is its own ancestor";
    LayoutGraph size = chain(1);
    size.nodes[0].width = -1;
    QTest::newRow("negative size") << size << "layout: node 'n0' has an invalid size";
  }
  void invalidInputIsAnError() {
    QFETCH(LayoutGraph, graph);
    QFETCH(QString, message);
    Expected<LayoutResult> r = computeLayout(graph);
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.message()), message);
  }

  void idsAreOpaqueStrings() {
    // Item ids of the view layer contain ':' '.' '[' and spaces; Graphviz must not care.
    LayoutGraph g;
    g.nodes = {{"group:blocks[0..99]", 80, 30, {}}, {"node:a b", 40, 30, {}}};
    g.edges = {{"group:blocks[0..99]", "node:a b", 1}};
    const LayoutResult r = layoutOk(g);
    QVERIFY(r.findNode("group:blocks[0..99]"));
    QCOMPARE(r.edges.size(), std::size_t(1));
  }

  void concurrentCallsAgreeWithSerialOnes() {
    const LayoutGraph g = clustered();
    const LayoutResult expected = layoutOk(g);
    std::vector<LayoutResult> results(4);
    std::vector<std::thread> threads;
    for (auto& slot : results)
      threads.emplace_back([&] { slot = layoutOk(g); });
    for (std::thread& t : threads)
      t.join();
    for (const LayoutResult& r : results) {
      QCOMPARE(r.nodes.size(), expected.nodes.size());
      for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        QCOMPARE(r.nodes[i].cx, expected.nodes[i].cx);
        QCOMPARE(r.nodes[i].cy, expected.nodes[i].cy);
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestLayout)
#include "tst_layout.moc"
