// Tests the archive's JSON encoding (fx-archive.md "Node" and "Values"): every value form both
// ways, int/float distinction by the number's spelling, non-finite floats, graph decoding with
// exact names, and error messages that name the JSON location.

#include "fx/JsonEncoding.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <limits>

using namespace lattice::fx;
using nlohmann::json;

namespace {

Value decodeNoNodes(const std::string& text) {
  auto v = valueFromJson(json::parse(text), "v", [](const std::string&) { return nullptr; });
  if (!v) qWarning("%s", v.message().c_str());
  return v ? *v : Value::repr("<error>");
}

} // namespace

class TestFxJson : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void encodeValues_data();
  void encodeValues();
  void decodeValues_data();
  void decodeValues();
  void decodeNonFinite();
  void nodeReferences();
  void valueErrors_data();
  void valueErrors();
  void graphFromHandWrittenJson();
  void graphRoundTrip();
  void graphErrors_data();
  void graphErrors();
  void dumpWritesPythonFloats();
};

void TestFxJson::encodeValues_data() {
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("expected");
  const char* rows[][2] = {
      {"none", "null"},
      {"bool", "true"},
      {"int", "3"},
      {"negative-int", "-7"},
      {"integral-float", "1.0"},
      {"small-float", "1e-05"},
      {"float", "0.25"},
      {"inf", "{\"float\":\"inf\"}"},
      {"-inf", "{\"float\":\"-inf\"}"},
      {"nan", "{\"float\":\"nan\"}"},
      {"string", "\"nearest\""},
      {"list", "[1,2.0,null]"},
      {"tuple", "{\"tuple\":[1,[\"a\"]]}"},
      {"dict", "{\"dict\":{\"k\":{\"tuple\":[]}}}"},
      {"slice", "{\"slice\":[null,2,null]}"},
      {"dtype", "{\"dtype\":\"float32\"}"},
      {"device", "{\"device\":\"cpu\"}"},
      {"repr", "{\"repr\":\"Conv3d()\"}"},
  };
  int i = 0;
  for (const auto& r : rows)
    QTest::newRow(r[0]) << i++ << r[1];
}

void TestFxJson::encodeValues() {
  QFETCH(int, index);
  QFETCH(QString, expected);
  const Value values[] = {
      Value::none(),
      Value::boolean(true),
      Value::integer(3),
      Value::integer(-7),
      Value::floating(1.0),
      Value::floating(1e-05),
      Value::floating(0.25),
      Value::floating(std::numeric_limits<double>::infinity()),
      Value::floating(-std::numeric_limits<double>::infinity()),
      Value::floating(std::numeric_limits<double>::quiet_NaN()),
      Value::string("nearest"),
      Value::list({Value::integer(1), Value::floating(2.0), Value::none()}),
      Value::tuple({Value::integer(1), Value::list({Value::string("a")})}),
      Value::dict({{"k", Value::tuple({})}}),
      Value::slice(Value::none(), Value::integer(2), Value::none()),
      Value::dtype("float32"),
      Value::device("cpu"),
      Value::repr("Conv3d()"),
  };
  QCOMPARE(QString::fromStdString(valueToJson(values[index]).dump()), expected);
}

void TestFxJson::decodeValues_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<int>("index");
  const char* rows[][2] = {
      {"null", "null"},
      {"false", "false"},
      {"int", "3"},
      {"negative-int", "-7"},
      {"float-with-point", "1.0"},
      {"float-with-exponent", "1e-05"},
      {"float-with-capital-exponent", "2E3"},
      {"string", "\"nearest\""},
      {"list", "[1, 2.0, null]"},
      {"tuple", "{\"tuple\": [1, [\"a\"]]}"},
      {"dict", "{\"dict\": {\"k\": {\"tuple\": []}}}"},
      {"slice", "{\"slice\": [null, 2, {\"float\": \"inf\"}]}"},
      {"dtype", "{\"dtype\": \"float32\"}"},
      {"device", "{\"device\": \"cpu\"}"},
      {"repr", "{\"repr\": \"Conv3d()\"}"},
      {"int64-max", "9223372036854775807"},
      {"int64-min", "-9223372036854775808"},
  };
  int i = 0;
  for (const auto& r : rows)
    QTest::newRow(r[0]) << r[1] << i++;
}

void TestFxJson::decodeValues() {
  QFETCH(QString, text);
  QFETCH(int, index);
  const double inf = std::numeric_limits<double>::infinity();
  const Value expected[] = {
      Value::none(),
      Value::boolean(false),
      Value::integer(3),
      Value::integer(-7),
      Value::floating(1.0),
      Value::floating(1e-05),
      Value::floating(2000.0),
      Value::string("nearest"),
      Value::list({Value::integer(1), Value::floating(2.0), Value::none()}),
      Value::tuple({Value::integer(1), Value::list({Value::string("a")})}),
      Value::dict({{"k", Value::tuple({})}}),
      Value::slice(Value::none(), Value::integer(2), Value::floating(inf)),
      Value::dtype("float32"),
      Value::device("cpu"),
      Value::repr("Conv3d()"),
      Value::integer(std::numeric_limits<int64_t>::max()),
      Value::integer(std::numeric_limits<int64_t>::min()),
  };
  const Value got = decodeNoNodes(text.toStdString());
  QCOMPARE(QString::fromStdString(pythonRepr(got, false)),
           QString::fromStdString(pythonRepr(expected[index], false)));
  QVERIFY(got == expected[index]);
}

void TestFxJson::decodeNonFinite() {
  QCOMPARE(decodeNoNodes("{\"float\": \"inf\"}").asFloat(), std::numeric_limits<double>::infinity());
  QCOMPARE(decodeNoNodes("{\"float\": \"-inf\"}").asFloat(), -std::numeric_limits<double>::infinity());
  const Value nan = decodeNoNodes("{\"float\": \"nan\"}");
  QCOMPARE(nan.kind(), Value::Kind::Float);
  QVERIFY(std::isnan(nan.asFloat()));
}

void TestFxJson::nodeReferences() {
  Graph g;
  Node* x = g.placeholder("x");
  const Value v = Value::list({Value::node(x), Value::dict({{"a", Value::node(x)}})});
  QCOMPARE(QString::fromStdString(valueToJson(v).dump()),
           QString("[{\"node\":\"x\"},{\"dict\":{\"a\":{\"node\":\"x\"}}}]"));
  auto back =
      valueFromJson(valueToJson(v), "args[0]", [&g](const std::string& name) { return g.findNode(name); });
  QVERIFY(back.ok());
  QVERIFY(*back == v);
}

void TestFxJson::valueErrors_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("expected");
  const QString w = "modules[3].graph.nodes[7].args[0]";
  QTest::newRow("unknown-node") << "{\"node\": \"y\"}" << QString(w + ": reference to unknown node 'y'");
  QTest::newRow("nested-unknown-node") << "{\"tuple\": [1, [{\"node\": \"y\"}]]}"
                                       << QString(w + ".tuple[1][0]: reference to unknown node 'y'");
  QTest::newRow("dict-location") << "{\"dict\": {\"k\": {\"node\": \"y\"}}}"
                                 << QString(w + ".dict.k: reference to unknown node 'y'");
  QTest::newRow("node-not-string") << "{\"node\": 3}"
                                   << QString(w + ".node: expected a string, got an integer");
  QTest::newRow("bad-float") << "{\"float\": \"infinity\"}"
                             << QString(w + ".float: expected 'inf', '-inf' or 'nan', got 'infinity'");
  QTest::newRow("slice-size") << "{\"slice\": [1, 2]}"
                              << QString(w + ".slice: expected 3 items (start, stop, step), got 2");
  QTest::newRow("tuple-not-array") << "{\"tuple\": {}}"
                                   << QString(w + ".tuple: expected an array, got an object");
  QTest::newRow("dict-not-object") << "{\"dict\": []}"
                                   << QString(w + ".dict: expected an object, got an array");
  QTest::newRow("unknown-key") << "{\"set\": [1]}" << QString(w + ": unknown value encoding 'set'");
  QTest::newRow("two-keys") << "{\"dtype\": \"float32\", \"device\": \"cpu\"}"
                            << QString(w + ": expected an object with one key (node, tuple, dict, slice, "
                                           "float, dtype, device or repr), got 2 keys");
  QTest::newRow("too-big") << "9223372036854775808"
                           << QString(w + ": integer 9223372036854775808 does not fit in 64 bits");
}

void TestFxJson::valueErrors() {
  QFETCH(QString, text);
  QFETCH(QString, expected);
  Graph g;
  g.placeholder("x");
  auto v = valueFromJson(json::parse(text.toStdString()), "modules[3].graph.nodes[7].args[0]",
                         [&g](const std::string& name) { return g.findNode(name); });
  QVERIFY(!v.ok());
  QCOMPARE(QString::fromStdString(v.message()), expected);
}

void TestFxJson::graphFromHandWrittenJson() {
  const char* text = R"({"nodes": [
    {"name": "input", "op": "placeholder", "target": "input", "args": [], "kwargs": {}},
    {"name": "scale", "op": "placeholder", "target": "scale", "args": [1.0], "kwargs": {}},
    {"name": "w", "op": "get_attr", "target": "stem.weight", "args": [], "kwargs": {}},
    {"name": "mul", "op": "call_function", "target": "operator.mul",
     "args": [{"node": "input"}, {"node": "scale"}], "kwargs": {}},
    {"name": "cat", "op": "call_function", "target": "torch.cat",
     "args": [[{"node": "mul"}, {"node": "w"}]], "kwargs": {"dim": 1}},
    {"name": "stem", "op": "call_module", "target": "stem", "args": [{"node": "cat"}], "kwargs": {}},
    {"name": "view", "op": "call_method", "target": "view", "args": [{"node": "stem"}, -1, 3], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output",
     "args": [{"tuple": [{"node": "view"}, {"node": "w"}]}], "kwargs": {}}
  ]})";
  auto g = graphFromJson(json::parse(text), "modules[0].graph");
  QVERIFY2(g.ok(), g.ok() ? "" : g.message().c_str());
  const Graph& graph = **g;
  QVERIFY((*g)->lint().ok());
  // Names are kept exactly, even "input" which the naming rule would have changed.
  const char* expected =
      "graph():\n"
      "    %input : [num_users=1] = placeholder[target=input]\n"
      "    %scale : [num_users=1] = placeholder[target=scale](default=1.0)\n"
      "    %w : [num_users=2] = get_attr[target=stem.weight]\n"
      "    %mul : [num_users=1] = call_function[target=operator.mul](args = (%input, %scale), kwargs = {})\n"
      "    %cat : [num_users=1] = call_function[target=torch.cat](args = ([%mul, %w],), kwargs = {dim: 1})\n"
      "    %stem : [num_users=1] = call_module[target=stem](args = (%cat,), kwargs = {})\n"
      "    %view : [num_users=1] = call_method[target=view](args = (%stem, -1, 3), kwargs = {})\n"
      "    return (view, w)\n";
  QCOMPARE(QString::fromStdString(graph.print()), QString(expected));
  QCOMPARE(graph.findNode("scale")->args()[0].kind(), Value::Kind::Float);
  QCOMPARE(graph.findNode("view")->args()[1].kind(), Value::Kind::Int);
}

void TestFxJson::graphRoundTrip() {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y", Value::floating(0.5));
  Node* add = g.callFunction("operator.add", {Value::node(x), Value::node(y)},
                             {{"alpha", Value::floating(std::numeric_limits<double>::infinity())}});
  Node* item = g.callFunction(
      "operator.getitem", {Value::node(add), Value::slice(Value::integer(1), Value::none(), Value::none())});
  g.output(Value::dict({{"out", Value::node(item)}}));
  const json j = graphToJson(g);
  QCOMPARE(QString::fromStdString(j["nodes"][1].dump()),
           QString(R"({"args":[0.5],"kwargs":{},"name":"y","op":"placeholder","target":"y"})"));
  // Reparse the dumped text, as an archive reader would.
  auto back = graphFromJson(json::parse(j.dump()), "");
  QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
  QCOMPARE(QString::fromStdString((*back)->print()), QString::fromStdString(g.print()));
  QCOMPARE(QString::fromStdString(graphToJson(**back).dump()), QString::fromStdString(j.dump()));
}

void TestFxJson::graphErrors_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("expected");
  const QString w = "modules[3].graph";
  const QString x = R"({"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}})";
  auto nodes = [](const QString& list) -> QString { return "{\"nodes\": [" + list + "]}"; };
  QTest::newRow("not-object") << "[]" << QString(w + ": expected an object, got an array");
  QTest::newRow("no-nodes") << "{}" << QString(w + ": missing key 'nodes'");
  QTest::newRow("nodes-not-array") << "{\"nodes\": {}}"
                                   << QString(w + ".nodes: expected an array, got an object");
  QTest::newRow("node-not-object") << nodes(x + ", 3")
                                   << QString(w + ".nodes[1]: expected an object, got an integer");
  QTest::newRow("unknown-node")
      << nodes(
             x +
             R"(, {"name": "r", "op": "call_method", "target": "relu", "args": [{"node": "y"}], "kwargs": {}})")
      << QString(w + ".nodes[1].args[0]: reference to unknown node 'y'");
  QTest::newRow("later-node")
      << nodes(
             R"({"name": "r", "op": "call_method", "target": "relu", "args": [], "kwargs": {"t": {"node": "x"}}}, )" +
             x)
      << QString(w + ".nodes[0].kwargs.t: reference to node 'x' before its definition");
  QTest::newRow("self-reference")
      << nodes(
             R"({"name": "r", "op": "call_method", "target": "relu", "args": [{"node": "r"}], "kwargs": {}})")
      << QString(w + ".nodes[0].args[0]: reference to node 'r' before its definition");
  QTest::newRow("duplicate-name") << nodes(x + ", " + x)
                                  << QString(w + ".nodes[1].name: duplicate node name 'x'");
  QTest::newRow("unknown-op")
      << nodes(R"({"name": "r", "op": "call", "target": "relu", "args": [], "kwargs": {}})")
      << QString(w + ".nodes[0].op: unknown op 'call'");
  QTest::newRow("missing-name") << nodes(R"({"op": "placeholder", "target": "x", "args": [], "kwargs": {}})")
                                << QString(w + ".nodes[0]: missing key 'name'");
  QTest::newRow("missing-target") << nodes(R"({"name": "x", "op": "placeholder", "args": [], "kwargs": {}})")
                                  << QString(w + ".nodes[0]: missing key 'target'");
  QTest::newRow("missing-args") << nodes(R"({"name": "x", "op": "placeholder", "target": "x", "kwargs": {}})")
                                << QString(w + ".nodes[0]: missing key 'args'");
  QTest::newRow("missing-kwargs") << nodes(R"({"name": "x", "op": "placeholder", "target": "x", "args": []})")
                                  << QString(w + ".nodes[0]: missing key 'kwargs'");
  QTest::newRow("name-not-string")
      << nodes(R"({"name": 1, "op": "placeholder", "target": "x", "args": [], "kwargs": {}})")
      << QString(w + ".nodes[0].name: expected a string, got an integer");
  QTest::newRow("empty-name")
      << nodes(R"({"name": "", "op": "placeholder", "target": "x", "args": [], "kwargs": {}})")
      << QString(w + ".nodes[0].name: empty node name");
  QTest::newRow("args-not-array")
      << nodes(R"({"name": "x", "op": "placeholder", "target": "x", "args": {}, "kwargs": {}})")
      << QString(w + ".nodes[0].args: expected an array, got an object");
  QTest::newRow("kwargs-not-object")
      << nodes(R"({"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": []})")
      << QString(w + ".nodes[0].kwargs: expected an object, got an array");
  QTest::newRow("target-not-string")
      << nodes(R"({"name": "x", "op": "placeholder", "target": null, "args": [], "kwargs": {}})")
      << QString(w + ".nodes[0].target: expected a string, got null");
}

void TestFxJson::graphErrors() {
  QFETCH(QString, text);
  QFETCH(QString, expected);
  auto g = graphFromJson(json::parse(text.toStdString()), "modules[3].graph");
  QVERIFY(!g.ok());
  QCOMPARE(QString::fromStdString(g.message()), expected);
}

void TestFxJson::dumpWritesPythonFloats() {
  // Same layout as nlohmann's dump() at every indent...
  const json doc =
      json::parse(R"({"b": [1, 2.5, {"c": null, "d": []}, {}], "a": "x\"y", "e": -3, "f": 1.0})");
  for (int indent : {-1, 0, 2, 4})
    QCOMPARE(QString::fromStdString(dumpJson(doc, indent)), QString::fromStdString(doc.dump(indent)));
  // ...but floats in Python's repr spelling (Python: repr(1e15) == '1000000000000000.0').
  QCOMPARE(QString::fromStdString(dumpJson(json::array({1e15, 1e16, 1e-05, 0.0001, 1.0}))),
           QString("[1000000000000000.0,1e+16,1e-05,0.0001,1.0]"));
  const json encoded = valueToJson(Value::floating(1e15));
  QCOMPARE(QString::fromStdString(dumpJson(encoded)), QString("1000000000000000.0"));
  QCOMPARE(QString::fromStdString(dumpJson(valueToJson(Value::floating(-0.0)))), QString("-0.0"));
}

QTEST_APPLESS_MAIN(TestFxJson)
#include "tst_fx_json.moc"
