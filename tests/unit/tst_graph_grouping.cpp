// Tests for GraphGrouping, the collapsible view (ViewGraph) and the bounded nested layout
// (layoutView). Expected memberships follow the rule documented in GraphGrouping.h applied by
// hand to hand-built graphs and to sparse_resunet42 as lowering.md §8.1/§8.3 describes it;
// group and node counts are counted from §8.3's tables; view node/edge counts of chain:3 and of
// the collapsed UNet are worked out from their forward descriptions; chain:10000's ranges and
// default expansion follow the documented chunking (100 per range) and budget (800 items).

#include "layout/ViewLayout.h"
#include "model/LoadModel.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

using namespace lattice;
using fx::Value;

namespace {

std::unique_ptr<fx::Graph> traceReference(const std::string& reference) {
  Expected<Model> model = loadModel(reference);
  if (!model) qWarning("load failed: %s", model.message().c_str());
  if (!model) return nullptr;
  auto traced = LatticeTracer().trace(*model);
  if (!traced) qWarning("trace failed: %s", traced.message().c_str());
  return traced ? std::move(*traced) : nullptr;
}

std::string innermost(const GraphGrouping& g, const std::string& node) {
  const int n = g.findNode(node);
  return n < 0 ? std::string("<missing>") : g.groups()[g.nodes()[n].group].path;
}

std::vector<std::string> childPaths(const GraphGrouping& g, const std::string& group) {
  std::vector<std::string> out;
  for (const GroupChild& c : g.groups()[g.findGroup(group)].children)
    out.push_back(c.isGroup ? "group:" + g.groups()[c.index].path : "node:" + g.nodes()[c.index].name);
  return out;
}

/// Hand-built graph exercising every membership rule (names are the nodes' own names).
struct RuleGraph {
  fx::Graph g;
  fx::Node *x, *m0, *relu, *m1, *sc, *add, *encRelu, *headW, *linear, *encW, *zeros, *proj, *mul, *out;
  RuleGraph() {
    x = g.placeholder("x");
    m0 = g.callModule("enc.0.main.0", {Value::node(x)});
    relu = g.callMethod("relu", {Value::node(m0)});
    m1 = g.callModule("enc.0.main.1", {Value::node(relu)});
    sc = g.callModule("enc.0.shortcut", {Value::node(x)});
    add = g.callFunction("operator.add", {Value::node(m1), Value::node(sc)});
    encRelu = g.callModule("enc.0.relu", {Value::node(add)});
    headW = g.getAttr("head.weight");
    linear = g.callFunction("torch.nn.functional.linear", {Value::node(encRelu), Value::node(headW)});
    encW = g.getAttr("enc.0.main.0.weight");
    zeros = g.callFunction("torch.zeros", {Value::integer(3)});
    proj = g.callModule("head.proj", {Value::node(linear), Value::node(zeros)});
    mul = g.callFunction("operator.mul", {Value::node(encW), Value::node(encW)});
    out = g.output(Value::tuple({Value::node(proj), Value::node(mul)}));
  }
};

/// The innermost open group of a visible item: where its cluster must contain it.
int containerOf(const GraphGrouping& g, const ViewItem& it) {
  return it.kind == ViewItemKind::Node ? g.nodes()[it.index].group : g.groups()[it.index].parent;
}

} // namespace

class TestGraphGrouping : public QObject {
  Q_OBJECT

  std::unique_ptr<fx::Graph> m_chain;
  std::unique_ptr<GraphGrouping> m_chainGroups;

private Q_SLOTS:
  void initTestCase() {
    m_chain = traceReference("example:chain:10000");
    QVERIFY(m_chain);
    QCOMPARE(m_chain->size(), std::size_t(30002));
    m_chainGroups = std::make_unique<GraphGrouping>(GraphGrouping::build(*m_chain));
  }

  void itemIdsRoundTrip() {
    QCOMPARE(nodeItemId("add_1"), std::string("node:add_1"));
    QCOMPARE(groupItemId("blocks[0..99]"), std::string("group:blocks[0..99]"));
    ViewItemKind kind;
    std::string name;
    QVERIFY(parseItemId("group:encoders.0.1", kind, name));
    QCOMPARE(int(kind), int(ViewItemKind::Group));
    QCOMPARE(name, std::string("encoders.0.1"));
    QVERIFY(parseItemId("node:x", kind, name));
    QCOMPARE(int(kind), int(ViewItemKind::Node));
    QCOMPARE(name, std::string("x"));
    QVERIFY(!parseItemId("x", kind, name));
  }

  void membershipRules_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("group");
    QTest::newRow("placeholder: root") << "x"
                                       << "";
    QTest::newRow("call_module: parent of target") << "m0"
                                                   << "enc.0.main";
    QTest::newRow("one producer: its group") << "relu"
                                             << "enc.0.main";
    QTest::newRow("call_module on the side") << "sc"
                                             << "enc.0";
    QTest::newRow("residual add: two votes in enc.0") << "add"
                                                      << "enc.0";
    QTest::newRow("get_attr: owner module") << "headW"
                                            << "head";
    QTest::newRow("reads head.weight: head") << "linear"
                                             << "head";
    QTest::newRow("get_attr of a leaf: its parent") << "encW"
                                                    << "enc.0.main";
    QTest::newRow("no producer: consumer's group") << "zeros"
                                                   << "head";
    QTest::newRow("reads a leaf's weight") << "mul"
                                           << "enc.0.main";
    QTest::newRow("output: root") << "out"
                                  << "";
  }
  void membershipRules() {
    QFETCH(QString, which);
    QFETCH(QString, group);
    RuleGraph r;
    const std::map<QString, fx::Node*> nodes{{"x", r.x},           {"m0", r.m0},     {"relu", r.relu},
                                             {"sc", r.sc},         {"add", r.add},   {"headW", r.headW},
                                             {"linear", r.linear}, {"encW", r.encW}, {"zeros", r.zeros},
                                             {"mul", r.mul},       {"out", r.out}};
    const GraphGrouping g = GraphGrouping::build(r.g);
    QCOMPARE(QString::fromStdString(innermost(g, nodes.at(which)->name())), group);
  }

  void treeOfTheRuleGraph() {
    RuleGraph r;
    const GraphGrouping g = GraphGrouping::build(r.g);
    QCOMPARE(g.groups().size(), std::size_t(5)); // root, enc, enc.0, enc.0.main, head
    QCOMPARE(g.groups()[0].path, std::string());
    QCOMPARE(g.groups()[0].nodeCount, std::size_t(14));
    QCOMPARE(g.groups()[g.findGroup("enc")].nodeCount, std::size_t(8));
    QCOMPARE(g.groups()[g.findGroup("enc.0.main")].nodeCount, std::size_t(5));
    QCOMPARE(g.groups()[g.findGroup("head")].nodeCount, std::size_t(4));
    QCOMPARE(g.groups()[g.findGroup("enc.0")].name, std::string("0"));
    QCOMPARE(g.groups()[g.findGroup("enc.0")].depth, 2);
    // Children in graph order of their first node.
    const std::vector<std::string> root{"node:x", "group:enc", "group:head", "node:" + r.out->name()};
    QCOMPARE(childPaths(g, ""), root);
    const std::vector<std::string> enc0{"group:enc.0.main", "node:" + r.sc->name(), "node:" + r.add->name(),
                                        "node:" + r.encRelu->name()};
    QCOMPARE(childPaths(g, "enc.0"), enc0);
    QCOMPARE(g.groupPathsOf(r.m0->name()), (std::vector<std::string>{"enc", "enc.0", "enc.0.main"}));
    QVERIFY(g.groupPathsOf("x").empty());
    QVERIFY(g.contains(g.findGroup("enc"), g.findGroup("enc.0.main")));
    QVERIFY(!g.contains(g.findGroup("head"), g.findGroup("enc.0")));
    QCOMPARE(g.commonGroup(g.findGroup("enc.0.main"), g.findGroup("head")), 0);
  }

  void collapsedViewMergesEdges() {
    RuleGraph r;
    const GraphGrouping g = GraphGrouping::build(r.g);
    // Collapsed: x, enc, head, output; x→enc stands for x→m0 and x→sc.
    const ViewGraph v = buildViewGraph(g, ExpandedGroups{});
    QCOMPARE(v.graph.nodes.size(), std::size_t(4));
    QVERIFY(v.graph.clusters.empty());
    QCOMPARE(v.graph.edges.size(), std::size_t(4));
    std::map<std::pair<std::string, std::string>, int> edges;
    for (const LayoutEdge& e : v.graph.edges)
      edges[{e.from, e.to}] = e.count;
    const std::string out = "node:" + r.out->name();
    const std::map<std::pair<std::string, std::string>, int> expected{{{"node:x", "group:enc"}, 2},
                                                                      {{"group:enc", "group:head"}, 1},
                                                                      {{"group:head", out}, 1},
                                                                      {{"group:enc", out}, 1}};
    QCOMPARE(edges, expected);
  }

  void chain3ViewCounts_data() {
    QTest::addColumn<QStringList>("expanded");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("edges");
    QTest::addColumn<int>("clusters");
    QTest::newRow("all collapsed") << QStringList{} << 3 << 2 << 0;
    QTest::newRow("blocks") << QStringList{"blocks"} << 5 << 4 << 1;
    QTest::newRow("blocks, blocks.1") << QStringList{"blocks", "blocks.1"} << 7 << 6 << 2;
    QTest::newRow("hidden blocks.1") << QStringList{"blocks.1"} << 3 << 2 << 0;
    QTest::newRow("everything") << QStringList{"blocks", "blocks.0", "blocks.1", "blocks.2"} << 11 << 10 << 4;
  }
  void chain3ViewCounts() {
    QFETCH(QStringList, expanded);
    QFETCH(int, nodes);
    QFETCH(int, edges);
    QFETCH(int, clusters);
    auto graph = traceReference("example:chain:3");
    QVERIFY(graph);
    const GraphGrouping g = GraphGrouping::build(*graph);
    QCOMPARE(g.groups().size(), std::size_t(5));
    ExpandedGroups e;
    for (const QString& p : expanded)
      e.insert(p.toStdString());
    const ViewGraph v = buildViewGraph(g, e);
    QCOMPARE(int(v.graph.nodes.size()), nodes);
    QCOMPARE(int(v.graph.edges.size()), edges);
    QCOMPARE(int(v.graph.clusters.size()), clusters);
    QCOMPARE(v.items.size(), v.graph.nodes.size());
    for (const LayoutEdge& edge : v.graph.edges)
      QCOMPARE(edge.count, 1);
    // 11 nodes ≤ 500: the default opens everything.
    QCOMPARE(defaultExpansion(g), (ExpandedGroups{"blocks", "blocks.0", "blocks.1", "blocks.2"}));
  }

  void conformanceModelIsFlat() {
    // sparse_classifier's model.json: x → stem → norm → act → pool → global_pool → head → output,
    // all leaf modules of the root.
    auto graph = traceReference(std::string(LATTICE_TEST_DATA_DIR) +
                                "/conformance/models/sparse_classifier/model.ltfx");
    QVERIFY(graph);
    const GraphGrouping g = GraphGrouping::build(*graph);
    QCOMPARE(g.groups().size(), std::size_t(1));
    for (const GroupedNode& n : g.nodes())
      QCOMPARE(n.group, 0);
    const ViewGraph v = buildViewGraph(g, defaultExpansion(g));
    QCOMPARE(v.graph.nodes.size(), std::size_t(8));
    QCOMPARE(v.graph.edges.size(), std::size_t(7));
    QVERIFY(v.graph.clusters.empty());
  }

  void resUNetGroups() {
    auto graph = traceReference("example:sparse_resunet42");
    QVERIFY(graph);
    const GraphGrouping g = GraphGrouping::build(*graph);
    // §8.3: stem; encoders + 4 × (k.0, k.1, k.1.main, k.2, k.2.main, plus k.1.shortcut for k ≥ 1);
    // decoders + 4 × (k, upsample, fuse, fuse.0, fuse.0.main, fuse.0.shortcut, fuse.1, fuse.1.main).
    QCOMPARE(g.groups().size(), std::size_t(1 + 1 + (1 + 4 + 4 * 5 + 3) + (1 + 4 * 8)));
    QCOMPARE(g.nodes().size(), std::size_t(171));
    QCOMPARE(g.groups()[g.findGroup("stem")].nodeCount, std::size_t(6));
    QCOMPARE(g.groups()[g.findGroup("encoders")].nodeCount, std::size_t(19 + 3 * 20));
    QCOMPARE(g.groups()[g.findGroup("encoders.1.1")].nodeCount, std::size_t(5 + 2 + 2));
    // upsample 3, fuse.0 9, fuse.1 8; the cat is not in it: the root's forward calls
    // torch_lattice.cat (lowering.md §8.3, step 3) and the tracer records that.
    QCOMPARE(g.groups()[g.findGroup("decoders.0")].nodeCount, std::size_t(3 + 9 + 8));
    QCOMPARE(g.groupPathsOf("encoders_0_1_main_0"),
             (std::vector<std::string>{"encoders", "encoders.0", "encoders.0.1", "encoders.0.1.main"}));
    QCOMPARE(innermost(g, "x"), std::string());
    QCOMPARE(innermost(g, "stem_3"), std::string("stem"));
    QCOMPARE(innermost(g, "encoders_0_1_shortcut"), std::string("encoders.0.1")); // Identity: a leaf
    QCOMPARE(innermost(g, "encoders_1_1_shortcut_0"), std::string("encoders.1.1.shortcut"));
    QCOMPARE(innermost(g, "add"), std::string("encoders.0.1"));
    QCOMPARE(innermost(g, "cat"), std::string()); // recorded: SparseResUNet42.forward
    QCOMPARE(innermost(g, "output"), std::string());
    QVERIFY(g.findGroup("encoders.0.1.shortcut") < 0);
    {
      // Without the tracer's record (a graph read from a file) the neighbours decide (rule 3):
      // the cat's producers are decoders.0.upsample's relu and encoders.2's output, its consumer
      // decoders.0.fuse.0: decoders.0 holds two of the three votes.
      auto bare = traceReference("example:sparse_resunet42");
      for (fx::Node& n : bare->nodes())
        n.meta.erase(fx::kModulePathMeta);
      const GraphGrouping inferred = GraphGrouping::build(*bare);
      QCOMPARE(innermost(inferred, "cat"), std::string("decoders.0"));
      QCOMPARE(innermost(inferred, "add"), std::string("encoders.0.1"));
      QCOMPARE(inferred.groups()[inferred.findGroup("decoders.0")].nodeCount, std::size_t(3 + 1 + 9 + 8));
    }

    // Collapsed: x, stem, encoders, decoders, output, and the root forward's four cats. x0 feeds
    // enc0, cat_3 (dec3's skip) and the output; x4 feeds dec0's upsample, x3..x1 the cats, and
    // x1..x4 the output; each cat takes an upsampled value from decoders and feeds its fuse.0
    // twice (main.0 and the channel-changing shortcut.0).
    const ViewGraph v = buildViewGraph(g, ExpandedGroups{});
    QCOMPARE(v.graph.nodes.size(), std::size_t(9));
    std::map<std::pair<std::string, std::string>, int> edges;
    for (const LayoutEdge& e : v.graph.edges)
      edges[{e.from, e.to}] = e.count;
    const std::map<std::pair<std::string, std::string>, int> expected{
        {{"node:x", "group:stem"}, 1},
        {{"group:stem", "group:encoders"}, 1},
        {{"group:stem", "node:cat_3"}, 1},
        {{"group:stem", "node:output"}, 1},
        {{"group:encoders", "group:decoders"}, 1},
        {{"group:encoders", "node:cat"}, 1},
        {{"group:encoders", "node:cat_1"}, 1},
        {{"group:encoders", "node:cat_2"}, 1},
        {{"group:encoders", "node:output"}, 4},
        {{"group:decoders", "node:cat"}, 1},
        {{"group:decoders", "node:cat_1"}, 1},
        {{"group:decoders", "node:cat_2"}, 1},
        {{"group:decoders", "node:cat_3"}, 1},
        {{"node:cat", "group:decoders"}, 2},
        {{"node:cat_1", "group:decoders"}, 2},
        {{"node:cat_2", "group:decoders"}, 2},
        {{"node:cat_3", "group:decoders"}, 2},
        {{"group:decoders", "node:output"}, 4}};
    QCOMPARE(edges, expected);
  }

  void resUNetFullLayout() {
    auto graph = traceReference("example:sparse_resunet42");
    QVERIFY(graph);
    const GraphGrouping g = GraphGrouping::build(*graph);
    const ExpandedGroups all = defaultExpansion(g); // 171 ≤ 500 nodes: everything
    QCOMPARE(all.size(), g.groups().size() - 1);
    Expected<ViewLayout> v = layoutView(g, all);
    QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
    QCOMPARE(v->stats.units, 1);
    QCOMPARE(v->items.size(), std::size_t(171));
    QCOMPARE(v->clusters.size(), g.groups().size() - 1);
    checkGeometry(g, *v);
  }

  void chunkingWideGroups() {
    auto graph = traceReference("example:chain:250");
    QVERIFY(graph);
    const GraphGrouping g = GraphGrouping::build(*graph);
    const std::vector<std::string> ranges{"group:blocks[0..99]", "group:blocks[100..199]",
                                          "group:blocks[200..249]"};
    QCOMPARE(childPaths(g, "blocks"), ranges);
    const Group& last = g.groups()[g.findGroup("blocks[200..249]")];
    QVERIFY(last.synthetic);
    QCOMPARE(last.name, std::string("[200..249]"));
    QCOMPARE(last.modulePath, std::string("blocks"));
    QCOMPARE(last.nodeCount, std::size_t(150));
    QCOMPARE(g.groupPathsOf("blocks_205_1"),
             (std::vector<std::string>{"blocks", "blocks[200..249]", "blocks.205"}));
  }

  void chunkingRepeatsUntilNarrow() {
    // s.0 .. s.9 in a chain, at most 4 children, chunks of 2: five pairs, then pairs of pairs;
    // the lone fifth pair stays as it is.
    fx::Graph graph;
    fx::Node* prev = graph.placeholder("x");
    for (int i = 0; i < 10; ++i)
      prev = graph.callModule("s." + std::to_string(i), {Value::node(prev)});
    graph.output(Value::node(prev));
    GroupingOptions o;
    o.maxChildren = 4;
    o.chunkSize = 2;
    const GraphGrouping g = GraphGrouping::build(graph, o);
    QCOMPARE(childPaths(g, "s"),
             (std::vector<std::string>{"group:s[0..3]", "group:s[4..7]", "group:s[8..9]"}));
    QCOMPARE(childPaths(g, "s[4..7]"), (std::vector<std::string>{"group:s[4..5]", "group:s[6..7]"}));
    QCOMPARE(g.groupPathsOf("s_5"), (std::vector<std::string>{"s", "s[4..7]", "s[4..5]"}));
    QCOMPARE(g.groups()[g.findGroup("s[4..5]")].depth, 3);
  }

  void chain10000DefaultView() {
    const GraphGrouping& g = *m_chainGroups;
    // root + blocks + 10 000 blocks.i + 100 ranges of 100.
    QCOMPARE(g.groups().size(), std::size_t(10102));
    QCOMPARE(childPaths(g, "blocks").size(), std::size_t(100));
    // Root: x, blocks, output (3); blocks opens to 100 ranges (102); each range adds 99 → after
    // seven 795, an eighth would make 894 > 800.
    ExpandedGroups expected{"blocks"};
    for (int i = 0; i < 7; ++i)
      expected.insert("blocks[" + std::to_string(100 * i) + ".." + std::to_string(100 * i + 99) + "]");
    const ExpandedGroups e = defaultExpansion(g);
    QCOMPARE(e, expected);
    QCOMPARE(ViewState(g, e).visibleCount(0), std::size_t(795));
  }

  void chain10000EveryLayoutCallIsBounded() {
    const GraphGrouping& g = *m_chainGroups;
    LayoutCache cache;
    ExpandedGroups e = defaultExpansion(g);
    auto check = [&](const char* what) {
      Expected<ViewLayout> v = layoutView(g, e, {}, &cache);
      QVERIFY2(v.ok(), v.ok() ? what : v.message().c_str());
      QVERIFY2(v->stats.largestUnit <= 800, what);
      QCOMPARE(v->items.size(), ViewState(g, e).visibleCount(0));
    };
    check("default");
    for (int i = 7; i < 100; i += 9)
      expandGroup(g, e, "blocks[" + std::to_string(100 * i) + ".." + std::to_string(100 * i + 99) + "]");
    check("18 ranges");
    expandGroup(g, e, "blocks.5005");
    expandGroup(g, e, "blocks.9999");
    check("two blocks");
    for (int i = 0; i < 100; ++i)
      expandGroup(g, e, "blocks[" + std::to_string(100 * i) + ".." + std::to_string(100 * i + 99) + "]");
    check("all ranges");
  }

  void expandingRelaysOutOnlyThePathToTheRoot() {
    const GraphGrouping& g = *m_chainGroups;
    LayoutCache cache;
    ExpandedGroups e = defaultExpansion(g);
    expandGroup(g, e, "blocks[700..799]"); // 894 items: root and blocks become nested units
    Expected<ViewLayout> a = layoutView(g, e, {}, &cache);
    QVERIFY(a.ok());
    QCOMPARE(a->stats.units, 10); // root, blocks, 8 ranges
    QCOMPARE(a->stats.layoutCalls, 10);
    expandGroup(g, e, "blocks[800..899]");
    Expected<ViewLayout> b = layoutView(g, e, {}, &cache);
    QVERIFY(b.ok());
    QCOMPARE(b->stats.units, 11);
    QCOMPARE(b->stats.layoutCalls, 3); // the new range, blocks, root
    QCOMPARE(b->stats.cacheHits, 8);
    collapseGroup(g, e, "blocks[800..899]");
    Expected<ViewLayout> c = layoutView(g, e, {}, &cache);
    QVERIFY(c.ok());
    QCOMPARE(c->stats.layoutCalls, 0);
    QCOMPARE(c->layout.bounds.height, a->layout.bounds.height);
    expandGroup(g, e, "blocks.805"); // reopens its range too; blocks.805 is a cluster inside it
    Expected<ViewLayout> d = layoutView(g, e, {}, &cache);
    QVERIFY(d.ok());
    QCOMPARE(d->stats.layoutCalls, 3);
    QVERIFY(d->layout.findCluster("group:blocks.805"));
    checkGeometry(g, *d);
  }

  void cancelAndProgress() {
    const GraphGrouping& g = *m_chainGroups;
    ExpandedGroups e = defaultExpansion(g);
    expandGroup(g, e, "blocks[700..799]");
    std::atomic<bool> cancel{true};
    Expected<ViewLayout> stopped = layoutView(g, e, {}, nullptr, &cancel);
    QVERIFY(!stopped.ok());
    QCOMPARE(stopped.message(), std::string("layout cancelled"));
    QVERIFY(stopped.code() == ErrorCode::Cancelled);
    cancel = false;
    std::vector<std::pair<int, int>> calls;
    Expected<ViewLayout> v =
        layoutView(g, e, {}, nullptr, &cancel, [&](int done, int total) { calls.emplace_back(done, total); });
    QVERIFY(v.ok());
    QCOMPARE(int(calls.size()), v->stats.units);
    QCOMPARE(calls.back(), std::make_pair(10, 10));
  }

private:
  /// Composed-view invariants: items inside their innermost open group's cluster, clusters
  /// inside their parents, no overlapping items, edges from their tail's box to their head's.
  void checkGeometry(const GraphGrouping& g, const ViewLayout& v) {
    QCOMPARE(v.items.size(), v.layout.nodes.size());
    QCOMPARE(v.clusters.size(), v.layout.clusters.size());
    std::map<std::string, LayoutRect> boxes;
    for (const ClusterBox& c : v.layout.clusters)
      boxes[c.id] = c.box;
    for (const NodeBox& n : v.layout.nodes)
      boxes[n.id] = n.rect();
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      QCOMPARE(v.items[i].id, v.layout.nodes[i].id);
      const int container = containerOf(g, v.items[i]);
      if (container == 0) continue;
      const std::string cid = groupItemId(g.groups()[container].path);
      QVERIFY2(boxes.count(cid), cid.c_str());
      QVERIFY2(boxes[cid].contains(v.layout.nodes[i].rect(), 0.5),
               (v.items[i].id + " outside " + cid).c_str());
    }
    for (const ClusterBox& c : v.layout.clusters)
      if (!c.parent.empty()) QVERIFY2(boxes[c.parent].contains(c.box, 0.5), c.id.c_str());
    std::vector<LayoutRect> rects;
    for (const NodeBox& n : v.layout.nodes)
      rects.push_back(n.rect());
    std::sort(rects.begin(), rects.end(),
              [](const LayoutRect& a, const LayoutRect& b) { return a.top < b.top; });
    for (std::size_t i = 0; i < rects.size(); ++i)
      for (std::size_t j = i + 1; j < rects.size() && rects[j].top < rects[i].bottom(); ++j)
        QVERIFY(!rects[i].intersects(rects[j], 0.5));
    for (const EdgePath& e : v.layout.edges) {
      QVERIFY2(boxes.count(e.from) && boxes.count(e.to), (e.from + " -> " + e.to).c_str());
      const LayoutRect& tail = boxes[e.from];
      const LayoutRect& head = boxes[e.to];
      const LayoutPoint start = e.points.front(), end = e.arrowHead ? *e.arrowHead : e.points.back();
      auto near = [](const LayoutPoint& p, const LayoutRect& r) {
        return p.x >= r.left - 2 && p.x <= r.right() + 2 && p.y >= r.top - 2 && p.y <= r.bottom() + 2;
      };
      QVERIFY2(near(start, tail), (e.from + " -> " + e.to).c_str());
      QVERIFY2(near(end, head), (e.from + " -> " + e.to).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestGraphGrouping)
#include "tst_graph_grouping.moc"
