// Tests torch.fx's naming rule (fx-archive.md "Tracing an archive" step 4 and torch.fx
// `_Namespace.create_name` / `Graph._target_to_str`), and the node a Namespace records for each
// name. Expected names are worked out by hand from those rules.

#include "fx/Graph.h"
#include "fx/Namespace.h"

#include <QtTest/QtTest>

using namespace lattice::fx;

Q_DECLARE_METATYPE(lattice::fx::Op)

class TestFxNaming : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void candidate_data();
  void candidate();
  void sequence_data();
  void sequence();
  void keywordsAreIllegal_data();
  void keywordsAreIllegal();
  void graphNamesFollowSpecExamples();
  void reservedNamesAreSkipped();
  void explicitNameIsUniquedNotSnakeCased();
  void manyDuplicatesNamedFromTheCounter();
  void namesRememberTheirNode();
};

void TestFxNaming::candidate_data() {
  QTest::addColumn<Op>("op");
  QTest::addColumn<QString>("target");
  QTest::addColumn<QString>("expected");
  QTest::newRow("placeholder") << Op::Placeholder << "x"
                               << "x";
  QTest::newRow("builtin-placeholder-kept") << Op::Placeholder << "input"
                                            << "input";
  QTest::newRow("function-last-component") << Op::CallFunction << "operator.add"
                                           << "add";
  QTest::newRow("function-deep") << Op::CallFunction << "torch_lattice.operators.cat"
                                 << "cat";
  QTest::newRow("function-no-dot") << Op::CallFunction << "getattr"
                                   << "getattr";
  QTest::newRow("function-dunder-kept") << Op::CallFunction << "torch.Tensor.__add__"
                                        << "__add__";
  QTest::newRow("method") << Op::CallMethod << "view"
                          << "view";
  QTest::newRow("method-dunder") << Op::CallMethod << "__getitem__"
                                 << "getitem";
  QTest::newRow("method-camel") << Op::CallMethod << "addMM"
                                << "add_mm";
  QTest::newRow("module-path") << Op::CallModule << "layer1.0.conv1"
                               << "layer1.0.conv1";
  QTest::newRow("get-attr") << Op::GetAttr << "stem.weight"
                            << "stem.weight";
  QTest::newRow("camel") << Op::Placeholder << "inputTensor"
                         << "input_tensor";
  QTest::newRow("pascal") << Op::CallModule << "MyBlock"
                          << "my_block";
  QTest::newRow("acronym-run") << Op::CallModule << "myHTTPServer"
                               << "my_httpserver";
  QTest::newRow("digit-before-upper") << Op::CallModule << "conv3D"
                                      << "conv3d";
  QTest::newRow("output") << Op::Output << "output"
                          << "output";
}

void TestFxNaming::candidate() {
  QFETCH(Op, op);
  QFETCH(QString, target);
  QFETCH(QString, expected);
  QCOMPARE(QString::fromStdString(candidateName(op, target.toStdString())), expected);
}

void TestFxNaming::sequence_data() {
  // Candidates handed to one Namespace in order, and the names it must return.
  QTest::addColumn<QStringList>("candidates");
  QTest::addColumn<QStringList>("expected");
  auto row = [](const char* name, QStringList in, QStringList out) { QTest::newRow(name) << in << out; };
  row("spec-x", {"x"}, {"x"});
  row("spec-input", {"input"}, {"input_1"});
  row("spec-second-add", {"add", "add"}, {"add", "add_1"});
  row("spec-module-path", {"layer1.0.conv1"}, {"layer1_0_conv1"});
  row("spec-output-taken", {"output", "output"}, {"output", "output_1"});
  row("third-add", {"add", "add", "add"}, {"add", "add_1", "add_2"});
  row("input-twice", {"input", "input"}, {"input_1", "input_2"});
  row("keyword", {"class"}, {"class_1"});
  row("builtin-sum", {"sum"}, {"sum_1"});
  row("builtin-max-min-abs", {"max", "min", "abs"}, {"max_1", "min_1", "abs_1"});
  row("builtin-len-type-id", {"len", "type", "id"}, {"len_1", "type_1", "id_1"});
  row("builtin-exception-class", {"ValueError"}, {"ValueError_1"});
  row("builtin-dunder", {"__name__"}, {"__name___1"});
  row("custom-builtins", {"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"},
      {"inf_1", "nan_1", "NoneType_1", "torch_1", "device_1", "fx_pytree_1", "pytree_1"});
  row("not-builtin", {"relu", "conv", "linear"}, {"relu", "conv", "linear"});
  row("leading-digit", {"0"}, {"_0"});
  row("leading-digit-word", {"3d"}, {"_3d"});
  row("leading-digit-path", {"0.conv"}, {"_0_conv"});
  row("empty", {""}, {"_unnamed"});
  row("only-illegal", {"..."}, {"_"});
  row("runs-collapse", {"a..b", "a- b"}, {"a_b", "a_b_1"});
  row("suffix-kept", {"add_5"}, {"add_5"});
  row("suffix-leading-zeros", {"x_007"}, {"x_7"});
  row("suffix-zero", {"x_0", "x_0"}, {"x_0", "x_1"});
  row("suffix-on-builtin", {"sum_1"}, {"sum_1"});
  row("double-underscore-base", {"a__1", "a_", "a_"}, {"a__1", "a_", "a__2"});
  row("digits-without-underscore", {"conv2", "conv2"}, {"conv2", "conv2_1"});
  row("unicode-run", {"caf\xc3\xa9"}, {"caf_"});
  // torch's per-base counter: a later plain candidate continues from the highest number seen.
  row("counter-after-explicit", {"add_5", "add", "add"}, {"add_5", "add", "add_6"});
  row("counter-taken-suffix", {"add", "add", "add_1"}, {"add", "add_1", "add_2"});
  row("counter-resumes", {"relu", "relu_1", "relu"}, {"relu", "relu_1", "relu_2"});
  row("counter-builtin-base", {"input", "input_1", "input"}, {"input_1", "input_2", "input_3"});
  row("counter-per-base", {"add", "mul", "add", "mul"}, {"add", "mul", "add_1", "mul_1"});
}

void TestFxNaming::sequence() {
  QFETCH(QStringList, candidates);
  QFETCH(QStringList, expected);
  Namespace ns;
  QStringList got;
  for (const QString& c : candidates)
    got << QString::fromStdString(ns.createName(c.toStdString()));
  QCOMPARE(got, expected);
  for (const QString& name : expected)
    QVERIFY(ns.isUsed(name.toStdString()));
}

void TestFxNaming::keywordsAreIllegal_data() {
  QTest::addColumn<QString>("keyword");
  // Python 3.11 keyword.kwlist.
  const char* const kw[] = {"False",  "None",   "True",    "and",      "as",       "assert", "async",
                            "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                            "else",   "except", "finally", "for",      "from",     "global", "if",
                            "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                            "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  for (const char* k : kw)
    QTest::newRow(k) << QString::fromLatin1(k);
}

void TestFxNaming::keywordsAreIllegal() {
  QFETCH(QString, keyword);
  Namespace ns;
  QCOMPARE(QString::fromStdString(ns.createName(keyword.toStdString())), QString(keyword + "_1"));
}

void TestFxNaming::graphNamesFollowSpecExamples() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* in = g.placeholder("input");
  Node* a1 = g.callFunction("operator.add", {Value::node(x), Value::node(in)});
  Node* a2 = g.callFunction("operator.add", {Value::node(a1), Value::integer(1)});
  Node* conv = g.callModule("layer1.0.conv1", {Value::node(a2)});
  Node* outMod = g.callModule("output", {Value::node(conv)});
  Node* item = g.callMethod("__getitem__", {Value::node(outMod), Value::integer(0)});
  Node* out = g.output(Value::node(item));
  QCOMPARE(x->name(), std::string("x"));
  QCOMPARE(in->name(), std::string("input_1"));
  QCOMPARE(in->target(), std::string("input")); // the target keeps the parameter name
  QCOMPARE(a1->name(), std::string("add"));
  QCOMPARE(a2->name(), std::string("add_1"));
  QCOMPARE(conv->name(), std::string("layer1_0_conv1"));
  QCOMPARE(conv->target(), std::string("layer1.0.conv1"));
  QCOMPARE(outMod->name(), std::string("output"));
  QCOMPARE(item->name(), std::string("getitem"));
  QCOMPARE(out->name(), std::string("output_1"));
  QCOMPARE(out->target(), std::string("output"));
}

void TestFxNaming::reservedNamesAreSkipped() {
  Namespace ns;
  ns.reserve("x");
  QVERIFY(ns.isUsed("x"));
  QVERIFY(!ns.isUsed("y"));
  QCOMPARE(ns.createName("x"), std::string("x_1"));
}

void TestFxNaming::explicitNameIsUniquedNotSnakeCased() {
  Graph g;
  Node* a = g.createNode(Op::CallModule, "blockA", {}, {}, "MyName");
  Node* b = g.createNode(Op::CallModule, "blockA", {}, {}, "MyName");
  Node* c = g.callModule("blockA");
  QCOMPARE(a->name(), std::string("MyName"));
  QCOMPARE(b->name(), std::string("MyName_1"));
  QCOMPARE(c->name(), std::string("block_a"));
}

void TestFxNaming::manyDuplicatesNamedFromTheCounter() {
  // 30 000 identical candidates: each must be named from the counter, not by rescanning.
  Namespace ns;
  QElapsedTimer timer;
  timer.start();
  std::string last;
  for (int i = 0; i < 30000; ++i)
    last = ns.createName("add");
  QCOMPARE(last, std::string("add_29999"));
  qInfo("named 30000 nodes in %lld ms", static_cast<long long>(timer.elapsed()));
}

void TestFxNaming::namesRememberTheirNode() {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  Namespace ns;
  QCOMPARE(ns.createName("x", a), std::string("x"));
  ns.reserve("y", b);
  ns.reserve("z");
  QCOMPARE(ns.owner("x"), a);
  QCOMPARE(ns.owner("y"), b);
  QVERIFY(ns.owner("z") == nullptr); // reserved without a node
  QVERIFY(ns.owner("w") == nullptr); // free
  QCOMPARE(ns.ownedCount(), std::size_t(2));
  ns.release("x");
  QVERIFY(ns.owner("x") == nullptr);
  QVERIFY(ns.isUsed("x")); // released names stay used
  QCOMPARE(ns.createName("x"), std::string("x_1"));
  QCOMPARE(ns.ownedCount(), std::size_t(1));
  ns.reserve("y", a); // already used: unchanged
  QCOMPARE(ns.owner("y"), b);
}

QTEST_APPLESS_MAIN(TestFxNaming)
#include "tst_fx_naming.moc"
