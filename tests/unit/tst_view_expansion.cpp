// Tests for the expansions the studio's View menu and large graphs use (ViewGraph.h):
// fullExpansion, expansionToDepth and overviewExpansion. Expectations are worked out by hand from
// the chain example's shape: the root holds x, `blocks` and the output; `blocks` holds one group
// per block, chunked into ranges of 100 above 200 blocks (GraphGrouping.h).

#include "layout/ViewGraph.h"
#include "model/LoadModel.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <memory>

using namespace lattice;

namespace {

std::unique_ptr<GraphGrouping> groupingOf(const std::string& reference) {
  Expected<Model> model = loadModel(reference);
  if (!model) return nullptr;
  auto traced = LatticeTracer().trace(*model);
  if (!traced) return nullptr;
  return std::make_unique<GraphGrouping>(GraphGrouping::build(**traced));
}

} // namespace

class TestViewExpansion : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void depthsOfASmallChain() {
    auto g = groupingOf("example:chain:3");
    QVERIFY(g);
    const ExpandedGroups blocks{"blocks", "blocks.0", "blocks.1", "blocks.2"};
    QCOMPARE(fullExpansion(*g), blocks);
    QCOMPARE(expansionToDepth(*g, 0), ExpandedGroups{});
    QCOMPARE(expansionToDepth(*g, -3), ExpandedGroups{});
    QCOMPARE(expansionToDepth(*g, 1), ExpandedGroups{"blocks"});
    QCOMPARE(expansionToDepth(*g, 2), blocks);
    QCOMPARE(expansionToDepth(*g, 9), blocks);
    // The lone `blocks` opens in an overview: 3 - 1 + 3 = 5 boxes; its three blocks stay boxes.
    QCOMPARE(overviewExpansion(*g, 50), ExpandedGroups{"blocks"});
    QCOMPARE(overviewExpansion(*g, 4), ExpandedGroups{});
    QCOMPARE(ViewState(*g, overviewExpansion(*g, 50)).visibleCount(0), std::size_t(5));
  }

  void rangesAreALevel() {
    // chain:1000: blocks → 10 ranges of 100 → the blocks.
    auto g = groupingOf("example:chain:1000");
    QVERIFY(g);
    QCOMPARE(g->groups().size(), std::size_t(1 + 1 + 10 + 1000));
    QCOMPARE(fullExpansion(*g).size(), std::size_t(1011));
    ExpandedGroups two{"blocks"};
    for (int i = 0; i < 10; ++i)
      two.insert("blocks[" + std::to_string(100 * i) + ".." + std::to_string(100 * i + 99) + "]");
    QCOMPARE(expansionToDepth(*g, 1), ExpandedGroups{"blocks"});
    QCOMPARE(expansionToDepth(*g, 2), two);
    QCOMPARE(expansionToDepth(*g, 3), fullExpansion(*g));
    // Opening `blocks` shows 3 - 1 + 10 = 12 boxes: within 50, not within 11.
    QCOMPARE(overviewExpansion(*g, 50), ExpandedGroups{"blocks"});
    QCOMPARE(overviewExpansion(*g, 11), ExpandedGroups{});
  }

  void severalTopGroupsStayCollapsed() {
    // sparse_resunet42's root holds stem, encoders and decoders: no lone wrapper.
    auto g = groupingOf("example:sparse_resunet42");
    QVERIFY(g);
    QCOMPARE(overviewExpansion(*g, 1000), ExpandedGroups{});
  }
};

QTEST_GUILESS_MAIN(TestViewExpansion)
#include "tst_view_expansion.moc"
