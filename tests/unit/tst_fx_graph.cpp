// Tests fx::Graph and fx::Node bookkeeping: insertion order and points, users kept consistent
// through every mutation (torch.fx `__update_args_kwargs` semantics), erasure (and reuse of the
// erased nodes' memory), lookup, lazy positions, lint() diagnostics, and linear-time building of
// a 30 000-node chain; and fx::Value copies, moves and reassignments across kinds (a value holds
// only its kind's payload).

#include "fx/Graph.h"

#include <QtTest/QtTest>

using namespace lattice::fx;

namespace {

std::vector<std::string> names(const std::vector<Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes)
    out.push_back(n->name());
  return out;
}

std::vector<std::string> order(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes())
    out.push_back(n.name());
  return out;
}

using Names = std::vector<std::string>;

Value ref(Node* n) {
  return Value::node(n);
}

} // namespace

class TestFxGraph : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void buildsInOrderWithUsers();
  void opNamesRoundTrip();
  void repeatedUseCountsOneUser();
  void insertGuardInsertsBeforeAndRestores();
  void setArgsRelinksUsers();
  void setKwargsRelinksUsers();
  void replaceAllUsesWithRewritesNestedUses();
  void eraseNode();
  void erasingInsertPointMovesIt();
  void createNodeNamedKeepsExactNames();
  void lintAcceptsValidGraph();
  void lintReports_data();
  void lintReports();
  void longChain();
  void erasedNodesMakeRoomForNewOnes();
  void valueCopiesAndMovesKeepTheirKind();
  void valueAccessorsOfOtherKindsAreEmpty();
  void valueTakesItsOwnElement();
};

void TestFxGraph::buildsInOrderWithUsers() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.getAttr("linear.weight");
  Node* add = g.callFunction("operator.add", {ref(x), ref(w)});
  Node* relu = g.callMethod("relu", {ref(add)});
  Node* out = g.output(ref(relu));

  QCOMPARE(g.size(), std::size_t(5));
  QCOMPARE(order(g), (Names{"x", "linear_weight", "add", "relu", "output"}));
  QCOMPARE(names(x->users()), Names{"add"});
  QCOMPARE(names(w->users()), Names{"add"});
  QCOMPARE(names(add->users()), Names{"relu"});
  QCOMPARE(names(relu->users()), Names{"output"});
  QVERIFY(out->users().empty());
  QCOMPARE(names(add->inputNodes()), (Names{"x", "linear_weight"}));
  QCOMPARE(add->op(), Op::CallFunction);
  QCOMPARE(add->target(), std::string("operator.add"));
  QCOMPARE(add->graph(), &g);

  QCOMPARE(g.findNode("add"), add);
  QCOMPARE(g.findNode("linear_weight"), w);
  QVERIFY(g.findNode("linear.weight") == nullptr);
  QCOMPARE(g.outputNode(), out);

  QCOMPARE(x->prev(), nullptr);
  QCOMPARE(x->next(), w);
  QCOMPARE(relu->prev(), add);
  QCOMPARE(out->next(), nullptr);
  QCOMPARE(x->index(), std::size_t(0));
  QCOMPARE(relu->index(), std::size_t(3));
  QCOMPARE(out->index(), std::size_t(4));

  Graph empty;
  QVERIFY(empty.outputNode() == nullptr);
  QVERIFY(empty.lint().ok());
}

void TestFxGraph::opNamesRoundTrip() {
  const std::pair<Op, const char*> ops[] = {
      {Op::Placeholder, "placeholder"}, {Op::GetAttr, "get_attr"},       {Op::CallFunction, "call_function"},
      {Op::CallModule, "call_module"},  {Op::CallMethod, "call_method"}, {Op::Output, "output"}};
  for (const auto& [op, text] : ops) {
    QCOMPARE(std::string(opName(op)), std::string(text));
    Op parsed = Op::Output;
    QVERIFY(parseOp(text, parsed));
    QCOMPARE(parsed, op);
  }
  Op unused;
  QVERIFY(!parseOp("call_fn", unused));
  QVERIFY(!parseOp("", unused));
}

void TestFxGraph::repeatedUseCountsOneUser() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* mul = g.callFunction("operator.mul", {ref(x), ref(x)}, {{"out", ref(x)}});
  QCOMPARE(names(x->users()), Names{"mul"});
  QCOMPARE(names(mul->inputNodes()), Names{"x"});
  // Args come before kwargs in inputNodes, nested values included.
  Node* y = g.placeholder("y");
  Node* cat = g.callFunction("torch.cat", {Value::list({ref(y), ref(mul)})}, {{"dim", ref(x)}});
  QCOMPARE(names(cat->inputNodes()), (Names{"y", "mul", "x"}));
  QCOMPARE(names(x->users()), (Names{"mul", "cat"}));
}

void TestFxGraph::insertGuardInsertsBeforeAndRestores() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.callMethod("relu", {ref(x)});
  Node* out = g.output(ref(relu));
  QCOMPARE(out->index(), std::size_t(2));
  QVERIFY(g.insertPoint() == nullptr);
  {
    Graph::InsertGuard guard(g, relu);
    QCOMPARE(g.insertPoint(), relu);
    Node* neg = g.callMethod("neg", {ref(x)});
    Node* abs = g.callFunction("torch.abs", {ref(neg)});
    QCOMPARE(order(g), (Names{"x", "neg", "abs_1", "relu", "output"}));
    QCOMPARE(neg->index(), std::size_t(1));
    QCOMPARE(abs->index(), std::size_t(2));
    QCOMPARE(relu->index(), std::size_t(3));
    QCOMPARE(out->index(), std::size_t(4));
    QCOMPARE(relu->prev(), abs);
    QCOMPARE(names(x->users()), (Names{"relu", "neg"}));
  }
  QVERIFY(g.insertPoint() == nullptr);
  g.setInsertPoint(x);
  Node* first = g.placeholder("first");
  g.setInsertPoint(nullptr);
  QCOMPARE(order(g).front(), std::string("first"));
  QCOMPARE(first->index(), std::size_t(0));
  QCOMPARE(out->index(), std::size_t(5));
  QVERIFY(g.lint().ok());
}

void TestFxGraph::setArgsRelinksUsers() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* add = g.callFunction("operator.add", {ref(x), ref(y)});
  g.callFunction("operator.sub", {ref(x), ref(y)});
  QCOMPARE(names(x->users()), (Names{"add", "sub"}));
  // torch pops the node from all old producers and re-appends it to the new ones.
  add->setArgs({ref(y), Value::integer(1)});
  QCOMPARE(names(x->users()), Names{"sub"});
  QCOMPARE(names(y->users()), (Names{"sub", "add"}));
  QCOMPARE(add->args().size(), std::size_t(2));
  QCOMPARE(add->args()[1], Value::integer(1));
  add->setArgs({});
  QVERIFY(add->inputNodes().empty());
  QCOMPARE(names(y->users()), Names{"sub"});
  QVERIFY(g.lint().ok());
}

void TestFxGraph::setKwargsRelinksUsers() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* cat = g.callFunction("torch.cat", {Value::tuple({ref(x)})}, {{"dim", Value::integer(0)}});
  cat->setKwargs({{"out", ref(y)}, {"dim", Value::integer(1)}});
  QCOMPARE(names(y->users()), Names{"cat"});
  QCOMPARE(names(x->users()), Names{"cat"});
  QCOMPARE(cat->kwargs().size(), std::size_t(2));
  QCOMPARE(cat->kwargs()[0].first, std::string("out"));
  cat->setKwargs({});
  QVERIFY(y->users().empty());
  QCOMPARE(names(x->users()), Names{"cat"});
  QVERIFY(g.lint().ok());
}

void TestFxGraph::replaceAllUsesWithRewritesNestedUses() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* a = g.callMethod("relu", {ref(x)});
  Node* b = g.callFunction("torch.cat", {Value::list({ref(a), ref(y)})}, {{"dim", Value::integer(1)}});
  Node* c = g.callFunction("operator.add", {ref(b)}, {{"other", Value::dict({{"k", ref(a)}})}});
  Node* out = g.output(Value::tuple({ref(a), ref(c)}));

  const std::vector<Node*> former = a->replaceAllUsesWith(y);
  QCOMPARE(names(former), (Names{"cat", "add", "output"}));
  QVERIFY(a->users().empty());
  QCOMPARE(b->args()[0], Value::list({ref(y), ref(y)}));
  QCOMPARE(c->kwargs()[0].second, Value::dict({{"k", ref(y)}}));
  QCOMPARE(out->args()[0], Value::tuple({ref(y), ref(c)}));
  QCOMPARE(names(y->users()), (Names{"cat", "add", "output"}));
  QVERIFY(g.lint().ok());

  // Now unused, the old producer can go.
  QVERIFY(g.eraseNode(a));
  QVERIFY(x->users().empty());
  QVERIFY(g.lint().ok());
}

void TestFxGraph::eraseNode() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.callMethod("relu", {ref(x)});
  Node* neg = g.callMethod("neg", {ref(relu)});
  Node* out = g.output(ref(x));

  QVERIFY(!g.eraseNode(relu)); // still used by neg
  QCOMPARE(g.size(), std::size_t(4));
  QCOMPARE(out->index(), std::size_t(3));
  QVERIFY(g.eraseNode(neg));
  QVERIFY(relu->users().empty());
  QVERIFY(g.eraseNode(relu));
  QCOMPARE(names(x->users()), Names{"output"});
  QCOMPARE(order(g), (Names{"x", "output"}));
  QVERIFY(g.findNode("relu") == nullptr);
  QCOMPARE(out->index(), std::size_t(1));
  QCOMPARE(x->next(), out);
  QVERIFY(g.lint().ok());
  QVERIFY(!g.eraseNode(nullptr));
  Graph other;
  Node* foreign = other.placeholder("z");
  QVERIFY(!g.eraseNode(foreign));

  // torch.fx keeps an erased node's name reserved.
  Node* again = g.createNode(Op::CallMethod, "relu", {ref(x)});
  QCOMPARE(again->name(), std::string("relu_1"));
}

void TestFxGraph::erasingInsertPointMovesIt() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* mid = g.callMethod("neg", {ref(x)});
  Node* out = g.output(ref(x));
  g.setInsertPoint(mid);
  QVERIFY(g.eraseNode(mid));
  QCOMPARE(g.insertPoint(), out);
  g.callMethod("relu", {ref(x)});
  QCOMPARE(order(g), (Names{"x", "relu", "output"}));
  g.setInsertPoint(nullptr);
}

void TestFxGraph::createNodeNamedKeepsExactNames() {
  Graph g;
  Node* in = g.createNodeNamed(Op::Placeholder, "input", {}, {}, "input");
  QVERIFY(in);
  QCOMPARE(in->name(), std::string("input"));
  QVERIFY(g.createNodeNamed(Op::Placeholder, "x", {}, {}, "input") == nullptr);
  QVERIFY(g.createNodeNamed(Op::Placeholder, "x", {}, {}, "") == nullptr);
  QCOMPARE(g.size(), std::size_t(1));
  // An automatically named node avoids the exact one.
  Node* other = g.createNode(Op::CallModule, "input");
  QCOMPARE(other->name(), std::string("input_1"));
}

void TestFxGraph::lintAcceptsValidGraph() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y", Value::none());
  Node* s = g.callFunction("operator.add", {ref(x), ref(y)});
  g.output(Value::dict({{"sum", ref(s)}}));
  const lattice::Status st = g.lint();
  QVERIFY2(st.ok(), st.ok() ? "" : st.message().c_str());
}

void TestFxGraph::lintReports_data() {
  QTest::addColumn<int>("scenario");
  QTest::addColumn<QString>("expected");
  QTest::newRow("use-before-definition")
      << 0 << "graph lint: node 'relu' uses node 'neg' before its definition";
  QTest::newRow("foreign-node") << 1 << "graph lint: node 'relu' uses node 'z' from another graph";
  QTest::newRow("node-after-output") << 2 << "graph lint: node 'neg' follows the output node 'output'";
  QTest::newRow("two-outputs") << 3 << "graph lint: node 'output_1' follows the output node 'output'";
  QTest::newRow("late-placeholder")
      << 4 << "graph lint: node 'y': placeholder follows non-placeholder node 'relu'";
  QTest::newRow("empty-target") << 5 << "graph lint: node 'm' has an empty target";
}

void TestFxGraph::lintReports() {
  QFETCH(int, scenario);
  QFETCH(QString, expected);
  Graph g;
  Graph other;
  Node* x = g.placeholder("x");
  Node* relu = g.callMethod("relu", {ref(x)});
  switch (scenario) {
  case 0: {
    Node* neg = g.callMethod("neg", {ref(x)});
    relu->setArgs({ref(neg)});
    break;
  }
  case 1:
    relu->setArgs({ref(other.placeholder("z"))});
    break;
  case 2:
    g.output(ref(relu));
    g.callMethod("neg", {ref(relu)});
    break;
  case 3:
    g.output(ref(relu));
    g.output(ref(x));
    break;
  case 4:
    g.placeholder("y");
    break;
  case 5:
    g.createNode(Op::CallModule, "", {}, {}, "m");
    break;
  }
  const lattice::Status st = g.lint();
  QVERIFY(!st.ok());
  QCOMPARE(QString::fromStdString(st.message()), expected);
  if (scenario == 1) relu->setArgs({}); // detach before `other` is destroyed
}

void TestFxGraph::longChain() {
  // 30 000 chained adds, then 30 000 inserts in the middle: names, indexes and users stay right.
  // (Speed is lattice-bench's business; the time is printed for reference only.)
  constexpr int kChain = 30000;
  QElapsedTimer timer;
  timer.start();
  Graph g;
  Node* prev = g.placeholder("x");
  Node* x = prev;
  for (int i = 0; i < kChain; ++i)
    prev = g.callFunction("operator.add", {ref(prev), Value::integer(1)});
  Node* out = g.output(ref(prev));
  QCOMPARE(prev->name(), std::string("add_29999"));
  QCOMPARE(g.findNode("add_12345")->index(), std::size_t(12346));
  QCOMPARE(out->index(), std::size_t(kChain + 1));

  Node* mid = g.findNode("add_15000");
  {
    Graph::InsertGuard guard(g, mid);
    for (int i = 0; i < kChain; ++i)
      g.callMethod("relu", {ref(x)});
  }
  QCOMPARE(names(x->users()).size(), std::size_t(kChain + 1));
  QCOMPARE(mid->index(), std::size_t(15001 + kChain));
  QCOMPARE(g.findNode("relu_29999")->next(), mid);
  QVERIFY(g.lint().ok());
  QCOMPARE(g.size(), std::size_t(2 * kChain + 2));
  qInfo("built and spliced a %d-node chain in %lld ms", 2 * kChain, static_cast<long long>(timer.elapsed()));
}

void TestFxGraph::erasedNodesMakeRoomForNewOnes() {
  // Erase every other node, then build as many again: new nodes may reuse the erased nodes'
  // memory, and nothing about order, names or lookup may show it.
  Graph g;
  Node* x = g.placeholder("x");
  std::vector<Node*> first;
  for (int i = 0; i < 200; ++i)
    first.push_back(g.callMethod("neg", {ref(x)}));
  for (int i = 0; i < 200; i += 2)
    QVERIFY(g.eraseNode(first[static_cast<std::size_t>(i)]));
  std::vector<Node*> second;
  for (int i = 0; i < 200; ++i)
    second.push_back(g.callMethod("relu", {ref(x)}));
  Node* out = g.output(ref(second.back()));

  QCOMPARE(g.size(), std::size_t(1 + 100 + 200 + 1));
  QVERIFY(g.lint().ok());
  QCOMPARE(x->users().size(), std::size_t(300));
  Names expected{"x"};
  for (int i = 1; i < 200; i += 2)
    expected.push_back(i == 0 ? "neg" : "neg_" + std::to_string(i));
  for (int i = 0; i < 200; ++i)
    expected.push_back(i == 0 ? "relu" : "relu_" + std::to_string(i));
  expected.push_back("output");
  QCOMPARE(order(g), expected);
  QVERIFY(g.findNode("neg") == nullptr);
  QVERIFY(g.findNode("neg_198") == nullptr);
  QCOMPARE(g.findNode("neg_199"), first.back());
  QCOMPARE(g.findNode("relu_199"), second.back());
  QVERIFY(g.createNodeNamed(Op::CallMethod, "neg", {}, {}, "neg_2") == nullptr); // still reserved
  QCOMPARE(out->index(), std::size_t(301));
  QCOMPARE(second.front()->prev(), first.back());
}

namespace {
struct Marker : Object {
  std::string typeName() const override { return "Marker"; }
};
} // namespace

void TestFxGraph::valueCopiesAndMovesKeepTheirKind() {
  Graph g;
  Node* x = g.placeholder("x");
  const std::vector<Value> values = {
      Value::none(),
      Value::boolean(true),
      Value::integer(-7),
      Value::floating(0.5),
      Value::string("a string longer than the small-string buffer"),
      Value::node(x),
      Value::list({Value::integer(1), Value::string("two")}),
      Value::tuple({Value::node(x)}),
      Value::dict({{"k", Value::list({Value::integer(3)})}}),
      Value::slice(Value::none(), Value::integer(4), Value::none()),
      Value::dtype("float32"),
      Value::device("cpu"),
      Value::repr("<thing>"),
      Value::object(std::make_shared<Marker>()),
  };
  for (const Value& v : values) {
    const Value copy = v;
    QVERIFY(copy == v);
    QCOMPARE(copy.typeName(), v.typeName());
    Value source = v;
    const Value moved = std::move(source);
    QVERIFY(moved == v);
    // Every kind over every other: assignment releases the old payload and takes the new one.
    for (const Value& w : values) {
      Value target = v;
      target = w;
      QVERIFY(target == w);
      Value movedInto = v;
      Value donor = w;
      movedInto = std::move(donor);
      QVERIFY(movedInto == w);
    }
  }
  std::vector<Value> grown;
  for (int i = 0; i < 100; ++i)
    grown.push_back(values[static_cast<std::size_t>(i) % values.size()]); // reallocations move
  for (std::size_t i = 0; i < grown.size(); ++i)
    QVERIFY(grown[i] == values[i % values.size()]);
}

void TestFxGraph::valueAccessorsOfOtherKindsAreEmpty() {
  const Value i = Value::integer(3);
  QVERIFY(i.asString().empty());
  QVERIFY(i.items().empty());
  QVERIFY(i.dictItems().empty());
  QVERIFY(i.asObject() == nullptr);
  QVERIFY(i.asNode() == nullptr);
  QCOMPARE(Value::floating(2.5).asInt(), int64_t(0));
  QCOMPARE(Value::integer(2).asFloat(), 0.0);
  Value s = Value::string("text");
  QVERIFY(s.items().empty()); // the mutable overload too
  QVERIFY(s.dictItems().empty());
  QCOMPARE(s.asString(), std::string("text"));
  Value list = Value::list({});
  list.items().push_back(Value::integer(1)); // a list's own items are mutable
  QCOMPARE(list.items().size(), std::size_t(1));
}

void TestFxGraph::valueTakesItsOwnElement() {
  const Value inner = Value::tuple({Value::integer(1), Value::string("a string longer than the small buffer")});
  Value v = Value::list({inner, Value::string("s")});
  v = v.items()[0];
  QVERIFY(v == inner);
  Value w = Value::list({inner, Value::string("s")});
  w = std::move(w.items()[0]);
  QVERIFY(w == inner);
  Value d = Value::dict({{"k", inner}});
  d = d.dictItems()[0].second;
  QVERIFY(d == inner);
}

QTEST_APPLESS_MAIN(TestFxGraph)
#include "tst_fx_graph.moc"
