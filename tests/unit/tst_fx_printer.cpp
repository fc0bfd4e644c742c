// Tests the FX text forms against torch.fx and Python: repr(float) and repr() of values as
// CPython prints them, Node::format / Graph::print as torch 2.x's `format_node` and
// `str(graph)` (torch formats arguments with str(), so strings and kwargs keys are unquoted:
// the torch.fx docs show `kwargs = {min: 0.0, max: 1.0}`), and print_tabular as tabulate's
// "simple" format. Expected texts are written out by hand.

#include "fx/Graph.h"

#include <QtTest/QtTest>

#include <cmath>
#include <limits>

using namespace lattice::fx;

namespace {

Value ref(Node* n) {
  return Value::node(n);
}

class Thing : public Object {
public:
  std::string typeName() const override { return "Thing"; }
};

class Named : public Object {
public:
  std::string typeName() const override { return "Named"; }
  std::string repr() const override { return "Named(7)"; }
};

} // namespace

class TestFxPrinter : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void floatRepr_data();
  void floatRepr();
  void valueRepr_data();
  void valueRepr();
  void valueStr();
  void typeNames();
  void formatNodes();
  void formatArgumentsLikeTorch();
  void formatOutputs_data();
  void formatOutputs();
  void printMatchesTorchDocs();
  void printTabularSimpleFormat();
  void printTabularEmptyGraph();
};

void TestFxPrinter::floatRepr_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("expected");
  QTest::newRow("one") << 1.0 << "1.0";
  QTest::newRow("zero") << 0.0 << "0.0";
  QTest::newRow("negative-zero") << -0.0 << "-0.0";
  QTest::newRow("tenth") << 0.1 << "0.1";
  QTest::newRow("third") << 1.0 / 3.0 << "0.3333333333333333";
  QTest::newRow("point-three") << 0.1 + 0.2 << "0.30000000000000004";
  QTest::newRow("hundred") << 100.0 << "100.0";
  QTest::newRow("decimal") << 12345.678 << "12345.678";
  QTest::newRow("negative") << -2.5 << "-2.5";
  QTest::newRow("1e-4-fixed") << 0.0001 << "0.0001";
  QTest::newRow("1e-5-exponent") << 1e-05 << "1e-05";
  QTest::newRow("eps") << 2.5e-10 << "2.5e-10";
  QTest::newRow("1e15-fixed") << 1e15 << "1000000000000000.0";
  QTest::newRow("1e16-exponent") << 1e16 << "1e+16";
  QTest::newRow("big-digits") << 123456789012345678.0 << "1.2345678901234568e+17";
  QTest::newRow("1e22") << 1e22 << "1e+22";
  QTest::newRow("max") << std::numeric_limits<double>::max() << "1.7976931348623157e+308";
  QTest::newRow("denorm-min") << std::numeric_limits<double>::denorm_min() << "5e-324";
  QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf";
  QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << "-inf";
  QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "nan";
}

void TestFxPrinter::floatRepr() {
  QFETCH(double, value);
  QFETCH(QString, expected);
  QCOMPARE(QString::fromStdString(pythonFloatRepr(value)), expected);
}

void TestFxPrinter::valueRepr_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("expected");
  QTest::addColumn<QString>("expectedWithPrefix");
  // Values are built in valueRepr() by index; texts are Python's repr().
  const char* rows[][3] = {
      {"none", "None", "None"},
      {"true", "True", "True"},
      {"int", "-3", "-3"},
      {"float", "0.5", "0.5"},
      {"string", "'nearest'", "'nearest'"},
      {"string-with-quote", "\"it's\"", "\"it's\""},
      {"string-with-both-quotes", "'a\\'b\"c'", "'a\\'b\"c'"},
      {"string-escapes", "'a\\nb\\\\c\\t\\x01'", "'a\\nb\\\\c\\t\\x01'"},
      {"empty-tuple", "()", "()"},
      {"one-tuple", "(1,)", "(1,)"},
      {"list", "[1, 'a', None]", "[1, 'a', None]"},
      {"dict", "{'k': 1, 'dim': (x,)}", "{'k': 1, 'dim': (%x,)}"},
      {"slice", "slice(None, 2, None)", "slice(None, 2, None)"},
      {"dtype", "torch.float32", "torch.float32"},
      {"device", "device(type='cpu')", "device(type='cpu')"},
      {"device-index", "device(type='cuda', index=0)", "device(type='cuda', index=0)"},
      {"repr", "Conv3d(1, 2)", "Conv3d(1, 2)"},
      {"node", "x", "%x"},
      {"object-default", "<Thing object>", "<Thing object>"},
      {"object-repr", "Named(7)", "Named(7)"},
  };
  int i = 0;
  for (const auto& r : rows)
    QTest::newRow(r[0]) << i++ << r[1] << r[2];
}

void TestFxPrinter::valueRepr() {
  QFETCH(int, index);
  QFETCH(QString, expected);
  QFETCH(QString, expectedWithPrefix);
  Graph g;
  Node* x = g.placeholder("x");
  const Value values[] = {
      Value::none(),
      Value::boolean(true),
      Value::integer(-3),
      Value::floating(0.5),
      Value::string("nearest"),
      Value::string("it's"),
      Value::string("a'b\"c"),
      Value::string("a\nb\\c\t\x01"),
      Value::tuple({}),
      Value::tuple({Value::integer(1)}),
      Value::list({Value::integer(1), Value::string("a"), Value::none()}),
      Value::dict({{"k", Value::integer(1)}, {"dim", Value::tuple({ref(x)})}}),
      Value::slice(Value::none(), Value::integer(2), Value::none()),
      Value::dtype("float32"),
      Value::device("cpu"),
      Value::device("cuda:0"),
      Value::repr("Conv3d(1, 2)"),
      ref(x),
      Value::object(std::make_shared<Thing>()),
      Value::object(std::make_shared<Named>()),
  };
  QCOMPARE(QString::fromStdString(pythonRepr(values[index], false)), expected);
  QCOMPARE(QString::fromStdString(pythonRepr(values[index], true)), expectedWithPrefix);
}

void TestFxPrinter::valueStr() {
  QCOMPARE(pythonStr(Value::string("it's")), std::string("it's"));
  QCOMPARE(pythonStr(Value::device("cpu")), std::string("cpu"));
  QCOMPARE(pythonStr(Value::tuple({Value::string("a")})), std::string("('a',)"));
  QCOMPARE(pythonStr(Value::floating(1.0)), std::string("1.0"));
}

void TestFxPrinter::typeNames() {
  QCOMPARE(Value().typeName(), std::string("NoneType"));
  QCOMPARE(Value::integer(1).typeName(), std::string("int"));
  QCOMPARE(Value::floating(1).typeName(), std::string("float"));
  QCOMPARE(Value::string("s").typeName(), std::string("str"));
  QCOMPARE(Value::tuple({}).typeName(), std::string("tuple"));
  QCOMPARE(Value::list({}).typeName(), std::string("list"));
  QCOMPARE(Value::dict({}).typeName(), std::string("dict"));
  QCOMPARE(Value::object(std::make_shared<Thing>()).typeName(), std::string("Thing"));
  // Equality is structural and kind-sensitive (1 != 1.0 != True here, unlike Python).
  QVERIFY(Value::integer(1) != Value::floating(1.0));
  QVERIFY(Value::integer(1) != Value::boolean(true));
  QVERIFY(Value::list({Value::integer(1)}) != Value::tuple({Value::integer(1)}));
  QVERIFY(Value::dict({{"a", Value::none()}}) == Value::dict({{"a", Value::none()}}));
}

void TestFxPrinter::formatNodes() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.placeholder("w");
  Node* add = g.callFunction("operator.add", {ref(x), ref(w)});
  Node* add1 = g.callFunction("operator.add", {ref(x), ref(w)});
  Node* scale = g.placeholder("scale", Value::none());
  Node* mode = g.placeholder("mode", Value::string("nearest"));
  Node* weight = g.getAttr("linear.weight");
  g.callFunction("torch.stack", {Value::list({ref(add), ref(add1), ref(weight)})});

  QCOMPARE(
      QString::fromStdString(add1->format()),
      QString("%add_1 : [num_users=1] = call_function[target=operator.add](args = (%x, %w), kwargs = {})"));
  QCOMPARE(QString::fromStdString(x->format()), QString("%x : [num_users=2] = placeholder[target=x]"));
  QCOMPARE(QString::fromStdString(scale->format()),
           QString("%scale : [num_users=0] = placeholder[target=scale](default=None)"));
  // torch prints the default with str(): no quotes.
  QCOMPARE(QString::fromStdString(mode->format()),
           QString("%mode : [num_users=0] = placeholder[target=mode](default=nearest)"));
  QCOMPARE(QString::fromStdString(weight->format()),
           QString("%linear_weight : [num_users=1] = get_attr[target=linear.weight]"));
}

void TestFxPrinter::formatArgumentsLikeTorch() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* cat = g.callFunction("torch_lattice.operators.cat", {Value::list({ref(x), ref(y)})},
                             {{"dim", Value::integer(1)}});
  Node* view = g.callMethod("view", {ref(cat), Value::integer(-1), Value::integer(3)});
  Node* up = g.callFunction(
      "torch.nn.functional.interpolate", {ref(view)},
      {{"scale_factor", Value::floating(2.0)}, {"mode", Value::string("nearest")}, {"size", Value::none()}});
  Node* item = g.callFunction(
      "operator.getitem",
      {ref(up),
       Value::tuple({Value::slice(Value::none(), Value::integer(2), Value::none()), Value::integer(0)})});
  Node* to =
      g.callMethod("to", {ref(item)}, {{"dtype", Value::dtype("float16")}, {"device", Value::device("cpu")}});
  Node* mod = g.callModule("layer1.0.conv1", {ref(to)}, {{"opts", Value::dict({{"k", Value::tuple({})}})}});

  QCOMPARE(QString::fromStdString(cat->format()),
           QString("%cat : [num_users=1] = call_function[target=torch_lattice.operators.cat](args = ([%x, "
                   "%y],), kwargs = {dim: 1})"));
  QCOMPARE(QString::fromStdString(view->format()),
           QString("%view : [num_users=1] = call_method[target=view](args = (%cat, -1, 3), kwargs = {})"));
  QCOMPARE(
      QString::fromStdString(up->format()),
      QString("%interpolate : [num_users=1] = call_function[target=torch.nn.functional.interpolate](args = "
              "(%view,), kwargs = {scale_factor: 2.0, mode: nearest, size: None})"));
  QCOMPARE(QString::fromStdString(item->format()),
           QString("%getitem : [num_users=1] = call_function[target=operator.getitem](args = (%interpolate, "
                   "(slice(None, 2, None), 0)), kwargs = {})"));
  QCOMPARE(QString::fromStdString(to->format()),
           QString("%to : [num_users=1] = call_method[target=to](args = (%getitem,), kwargs = {dtype: "
                   "torch.float16, device: cpu})"));
  QCOMPARE(QString::fromStdString(mod->format()),
           QString("%layer1_0_conv1 : [num_users=0] = call_module[target=layer1.0.conv1](args = (%to,), "
                   "kwargs = {opts: {k: ()}})"));
}

void TestFxPrinter::formatOutputs_data() {
  QTest::addColumn<int>("shape");
  QTest::addColumn<QString>("expected");
  QTest::newRow("node") << 0 << "return head";
  QTest::newRow("list") << 1 << "return [x0, x1]";
  QTest::newRow("tuple") << 2 << "return (x0, x1)";
  QTest::newRow("one-tuple") << 3 << "return (x0,)";
  QTest::newRow("dict") << 4 << "return {'logits': head, 'aux': [x0]}";
  QTest::newRow("none") << 5 << "return None";
}

void TestFxPrinter::formatOutputs() {
  QFETCH(int, shape);
  QFETCH(QString, expected);
  Graph g;
  Node* x0 = g.placeholder("x0");
  Node* x1 = g.placeholder("x1");
  Node* head = g.callModule("head", {ref(x0)});
  const Value results[] = {
      ref(head),
      Value::list({ref(x0), ref(x1)}),
      Value::tuple({ref(x0), ref(x1)}),
      Value::tuple({ref(x0)}),
      Value::dict({{"logits", ref(head)}, {"aux", Value::list({ref(x0)})}}),
      Value::none(),
  };
  Node* out = g.output(results[shape]);
  QCOMPARE(QString::fromStdString(out->format()), expected);
}

void TestFxPrinter::printMatchesTorchDocs() {
  // The torch.fx documentation's first example (symbolic_trace of a module computing
  // `self.linear(x + self.param).clamp(min=0.0, max=1.0)`), in torch 2.x spelling.
  Graph g;
  Node* x = g.placeholder("x");
  Node* param = g.getAttr("param");
  Node* add = g.callFunction("operator.add", {ref(x), ref(param)});
  Node* linear = g.callModule("linear", {ref(add)});
  Node* clamp =
      g.callMethod("clamp", {ref(linear)}, {{"min", Value::floating(0.0)}, {"max", Value::floating(1.0)}});
  g.output(ref(clamp));
  const char* expected =
      "graph():\n"
      "    %x : [num_users=1] = placeholder[target=x]\n"
      "    %param : [num_users=1] = get_attr[target=param]\n"
      "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %param), kwargs = {})\n"
      "    %linear : [num_users=1] = call_module[target=linear](args = (%add,), kwargs = {})\n"
      "    %clamp : [num_users=1] = call_method[target=clamp](args = (%linear,), kwargs = {min: 0.0, max: "
      "1.0})\n"
      "    return clamp\n";
  QCOMPARE(QString::fromStdString(g.print()), QString(expected));
}

void TestFxPrinter::printTabularSimpleFormat() {
  // The torch.fx print_tabular docs example; call_function targets print as canonical names.
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.getAttr("linear.weight");
  Node* add = g.createNode(Op::CallFunction, "operator.add", {ref(x), ref(w)}, {}, "add_1");
  Node* lin = g.createNode(Op::CallModule, "linear", {ref(add)}, {}, "linear_1");
  Node* relu = g.createNode(Op::CallMethod, "relu", {ref(lin)}, {}, "relu_1");
  Node* sum =
      g.createNode(Op::CallFunction, "torch.sum", {ref(relu)}, {{"dim", Value::integer(-1)}}, "sum_1");
  Node* topk = g.createNode(Op::CallFunction, "torch.topk", {ref(sum), Value::integer(3)}, {}, "topk_1");
  g.output(ref(topk));
  const char* expected = "opcode         name           target         args                kwargs\n"
                         "-------------  -------------  -------------  ------------------  -----------\n"
                         "placeholder    x              x              ()                  {}\n"
                         "get_attr       linear_weight  linear.weight  ()                  {}\n"
                         "call_function  add_1          operator.add   (x, linear_weight)  {}\n"
                         "call_module    linear_1       linear         (add_1,)            {}\n"
                         "call_method    relu_1         relu           (linear_1,)         {}\n"
                         "call_function  sum_1          torch.sum      (relu_1,)           {'dim': -1}\n"
                         "call_function  topk_1         torch.topk     (sum_1, 3)          {}\n"
                         "output         output         output         (topk_1,)           {}\n";
  QCOMPARE(QString::fromStdString(g.printTabular()), QString(expected));
}

void TestFxPrinter::printTabularEmptyGraph() {
  // Columns are at least their header plus two characters wide.
  Graph g;
  QCOMPARE(QString::fromStdString(g.printTabular()),
           QString("opcode    name    target    args    kwargs\n"
                   "--------  ------  --------  ------  --------\n"));
  QCOMPARE(QString::fromStdString(g.print()), QString("graph():\n"));
}

QTEST_APPLESS_MAIN(TestFxPrinter)
#include "tst_fx_printer.moc"
