// Tests fx::Interpreter: torch.fx.Interpreter's dispatch and placeholder/output semantics, plus
// the stepping API the studio uses (step, runUntil, env, failure stopping at the raising node,
// restart). A small integer-arithmetic subclass gives hand-checkable values.

#include "fx/Interpreter.h"

#include <QtTest/QtTest>

using namespace lattice::fx;
using lattice::Exception;

namespace {

Value ref(Node* n) {
  return Value::node(n);
}

/// add/mul on ints; "test.boom" throws while `failOn` names it; "neg" as a method.
class ArithInterpreter : public Interpreter {
public:
  using Interpreter::Interpreter;
  std::string failOn;
  std::vector<std::string> called;

protected:
  Value callFunction(const Node& node, const std::string& target, const ValueList& args,
                     const Kwargs& kwargs) override {
    called.push_back(node.name());
    if (executingNode() != &node) throw Exception{"executingNode() is not the running node"};
    if (target == failOn) throw Exception{"boom in " + target};
    int64_t acc = target == "operator.mul" ? 1 : 0;
    for (const Value& a : args)
      acc = target == "operator.mul" ? acc * a.asInt() : acc + a.asInt();
    for (const auto& kv : kwargs)
      acc += kv.second.asInt();
    return Value::integer(acc);
  }
  Value callMethod(const Node& node, const std::string& target, const ValueList& args,
                   const Kwargs&) override {
    called.push_back(node.name());
    if (target == "neg") return Value::integer(-args.at(0).asInt());
    return Interpreter::callMethod(node, target, args, {});
  }
};

/// x, y=10 -> a = x + y; b = a * 3; c = neg(b); return (c, [a])
struct Fixture {
  Graph g;
  Node* x;
  Node* y;
  Node* a;
  Node* b;
  Node* c;
  Node* out;
  Fixture() {
    x = g.placeholder("x");
    y = g.placeholder("y", Value::integer(10));
    a = g.callFunction("operator.add", {ref(x), ref(y)});
    b = g.callFunction("operator.mul", {ref(a), Value::integer(3)});
    c = g.callMethod("neg", {ref(b)});
    out = g.output(Value::tuple({ref(c), Value::list({ref(a)})}));
  }
};

} // namespace

class TestFxInterpreter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void runComputesOutput();
  void placeholderDefaultAndMissingInput();
  void stepByStep();
  void runUntilStopsBeforeNode();
  void failureStopsAtRaisingNode();
  void restartAfterFailure();
  void defaultHandlersRefuse_data();
  void defaultHandlersRefuse();
  void varArgsPlaceholder();
  void emptyGraphAndNotStarted();
  void longChain();
};

void TestFxInterpreter::runComputesOutput() {
  Fixture f;
  ArithInterpreter interp(f.g);
  auto r = interp.run({Value::integer(2), Value::integer(5)});
  QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
  // a = 7, b = 21, c = -21
  QCOMPARE(*r, Value::tuple({Value::integer(-21), Value::list({Value::integer(7)})}));
  QVERIFY(interp.finished());
  QCOMPARE(interp.result(), *r);
  QCOMPARE(interp.env().size(), std::size_t(6));
  QCOMPARE(*interp.valueOf(f.b), Value::integer(21));
  QCOMPARE(interp.called, (std::vector<std::string>{"add", "mul", "neg"}));
}

void TestFxInterpreter::placeholderDefaultAndMissingInput() {
  Fixture f;
  ArithInterpreter interp(f.g);
  auto r = interp.run({Value::integer(2)}); // y falls back to its default 10
  QVERIFY(r.ok());
  QCOMPARE(*interp.valueOf(f.y), Value::integer(10));
  QCOMPARE(*interp.valueOf(f.a), Value::integer(12));

  auto missing = interp.run({});
  QVERIFY(!missing.ok());
  QCOMPARE(QString::fromStdString(missing.message()),
           QString("Expected positional argument for parameter x, but one was not passed in!\n\n"
                   "While executing %x : [num_users=1] = placeholder[target=x]"));
  QCOMPARE(interp.failedNode(), f.x);
  QVERIFY(!interp.finished());
}

void TestFxInterpreter::stepByStep() {
  Fixture f;
  ArithInterpreter interp(f.g);
  QVERIFY(!interp.started());
  QVERIFY(interp.currentNode() == nullptr);
  interp.start({Value::integer(1), Value::integer(2)});
  QVERIFY(interp.started());
  QCOMPARE(interp.currentNode(), f.x);
  QVERIFY(interp.env().empty());

  const Node* expectedOrder[] = {f.x, f.y, f.a, f.b, f.c, f.out};
  for (std::size_t i = 0; i < 6; ++i) {
    QCOMPARE(interp.currentNode(), expectedOrder[i]);
    QVERIFY(interp.valueOf(expectedOrder[i]) == nullptr);
    auto s = interp.step();
    QVERIFY(s.ok());
    QVERIFY(*s);
    QCOMPARE(interp.env().size(), i + 1);
    QVERIFY(interp.valueOf(expectedOrder[i]) != nullptr);
  }
  QVERIFY(interp.currentNode() == nullptr);
  QVERIFY(interp.finished());
  auto more = interp.step();
  QVERIFY(more.ok());
  QVERIFY(!*more);
  QCOMPARE(*interp.valueOf(f.a), Value::integer(3));
  QCOMPARE(interp.result(), Value::tuple({Value::integer(-9), Value::list({Value::integer(3)})}));
}

void TestFxInterpreter::runUntilStopsBeforeNode() {
  Fixture f;
  ArithInterpreter interp(f.g);
  interp.start({Value::integer(4), Value::integer(1)});
  QVERIFY(interp.runUntil(f.b).ok());
  QCOMPARE(interp.currentNode(), f.b);
  QCOMPARE(interp.env().size(), std::size_t(3));
  QCOMPARE(*interp.valueOf(f.a), Value::integer(5));
  QVERIFY(interp.valueOf(f.b) == nullptr);
  QVERIFY(!interp.finished());
  QVERIFY(interp.runUntil(f.b).ok()); // already there: nothing runs
  QCOMPARE(interp.env().size(), std::size_t(3));
  QVERIFY(interp.runToEnd().ok());
  QVERIFY(interp.finished());
  QCOMPARE(interp.result(), Value::tuple({Value::integer(-15), Value::list({Value::integer(5)})}));
}

void TestFxInterpreter::failureStopsAtRaisingNode() {
  Fixture f;
  ArithInterpreter interp(f.g);
  interp.failOn = "operator.mul";
  auto r = interp.run({Value::integer(1), Value::integer(1)});
  QVERIFY(!r.ok());
  QCOMPARE(QString::fromStdString(r.message()),
           QString("boom in operator.mul\n\nWhile executing %mul : [num_users=1] = "
                   "call_function[target=operator.mul](args = (%add, 3), kwargs = {})"));
  QCOMPARE(interp.failedNode(), f.b);
  QCOMPARE(interp.currentNode(), f.b);
  QVERIFY(!interp.finished());
  QCOMPARE(interp.env().size(), std::size_t(3)); // x, y, add
  QVERIFY(interp.valueOf(f.b) == nullptr);
  QVERIFY(interp.valueOf(f.c) == nullptr);
  QCOMPARE(interp.called, (std::vector<std::string>{"add", "mul"}));

  // Stepping again reports the same error without re-running anything.
  auto again = interp.step();
  QVERIFY(!again.ok());
  QCOMPARE(again.message(), r.message());
  QCOMPARE(interp.called.size(), std::size_t(2));
  QVERIFY(!interp.runToEnd().ok());
}

void TestFxInterpreter::restartAfterFailure() {
  Fixture f;
  ArithInterpreter interp(f.g);
  interp.failOn = "operator.add";
  QVERIFY(!interp.run({Value::integer(1), Value::integer(1)}).ok());
  QCOMPARE(interp.failedNode(), f.a);
  interp.failOn.clear();
  interp.start({Value::integer(2), Value::integer(2)});
  QVERIFY(interp.failedNode() == nullptr);
  QVERIFY(interp.env().empty());
  QCOMPARE(interp.currentNode(), f.x);
  QVERIFY(interp.runToEnd().ok());
  QCOMPARE(interp.result(), Value::tuple({Value::integer(-12), Value::list({Value::integer(4)})}));
}

void TestFxInterpreter::defaultHandlersRefuse_data() {
  QTest::addColumn<int>("op");
  QTest::addColumn<QString>("expected");
  QTest::newRow("get_attr") << int(Op::GetAttr)
                            << "get_attr is not supported by this interpreter: stem.weight\n\n"
                               "While executing %stem_weight : [num_users=1] = get_attr[target=stem.weight]";
  QTest::newRow("call_function") << int(Op::CallFunction)
                                 << "call_function is not supported by this interpreter: stem.weight\n\n"
                                    "While executing %weight : [num_users=1] = "
                                    "call_function[target=stem.weight](args = (%x,), kwargs = {})";
  QTest::newRow("call_module") << int(Op::CallModule)
                               << "call_module is not supported by this interpreter: stem.weight\n\n"
                                  "While executing %stem_weight : [num_users=1] = "
                                  "call_module[target=stem.weight](args = (%x,), kwargs = {})";
  QTest::newRow("call_method") << int(Op::CallMethod)
                               << "call_method is not supported by this interpreter: stem.weight\n\n"
                                  "While executing %stem_weight : [num_users=1] = "
                                  "call_method[target=stem.weight](args = (%x,), kwargs = {})";
}

void TestFxInterpreter::defaultHandlersRefuse() {
  QFETCH(int, op);
  QFETCH(QString, expected);
  Graph g;
  Node* x = g.placeholder("x");
  ValueList args;
  if (Op(op) != Op::GetAttr) args.push_back(ref(x));
  Node* n = g.createNode(Op(op), "stem.weight", args);
  g.output(ref(n));
  Interpreter interp(g);
  auto r = interp.run({Value::integer(1)});
  QVERIFY(!r.ok());
  QCOMPARE(QString::fromStdString(r.message()), expected);
  QCOMPARE(interp.failedNode(), n);
}

void TestFxInterpreter::varArgsPlaceholder() {
  // torch.fx: a `*args` placeholder takes every remaining input as a list.
  Graph g;
  Node* first = g.placeholder("first");
  Node* rest = g.placeholder("*rest");
  g.output(Value::tuple({ref(first), ref(rest)}));
  Interpreter interp(g);
  auto r = interp.run({Value::integer(1), Value::integer(2), Value::integer(3)});
  QVERIFY(r.ok());
  QCOMPARE(*r, Value::tuple({Value::integer(1), Value::list({Value::integer(2), Value::integer(3)})}));
}

void TestFxInterpreter::emptyGraphAndNotStarted() {
  Graph g;
  Interpreter interp(g);
  QVERIFY(!interp.step().ok());
  QVERIFY(!interp.runToEnd().ok());
  auto r = interp.run({});
  QVERIFY(r.ok());
  QVERIFY(r->isNone());
  QVERIFY(interp.finished());
}

void TestFxInterpreter::longChain() {
  // x + 1 thirty thousand times.
  Graph g;
  Node* prev = g.placeholder("x");
  for (int i = 0; i < 30000; ++i)
    prev = g.callFunction("operator.add", {ref(prev), Value::integer(1)});
  g.output(ref(prev));
  ArithInterpreter interp(g);
  QElapsedTimer timer;
  timer.start();
  auto r = interp.run({Value::integer(5)});
  QVERIFY(r.ok());
  QCOMPARE(*r, Value::integer(30005));
  QCOMPARE(interp.env().size(), std::size_t(30002));
  qInfo("interpreted a 30000-node chain in %lld ms", static_cast<long long>(timer.elapsed()));
}

QTEST_APPLESS_MAIN(TestFxInterpreter)

#include "tst_fx_interpreter.moc"
