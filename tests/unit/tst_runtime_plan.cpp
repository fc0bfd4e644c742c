// The RuntimePlan rules R1-R17 of lattice-artifact-validation.md sec. 7, one row per rule, on
// graphs that are parsed but not verified (buildRuntimePlan is the executor's own contract and
// must refuse a bad graph handed to it directly). Each row edits a valid graph, as text before
// parsing or as the parsed ArtifactGraph where the parser would refuse the text, and checks the
// spec's message and its `graph.mlir:LINE:` location. Also the plan of a valid graph: argument
// labels, ABI names and roles, op kinds, value slots and last uses.

#include "RuntimeTestSupport.h"

#include "runtime/RuntimePlan.h"

#include <QtTest/QtTest>

#include <functional>

using namespace lattice;
using namespace lattice::rt;

namespace {

const std::string kConvAttrs = "{kernel_size = array<i64: 1, 1, 1>, stride = array<i64: 1, 1, 1>, padding = "
                               "array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"}";

/// x → %w, %y = conv3d, %p = global_pool (unused), %r = reindex (unused); returns %y.
Graph base() {
  Graph g;
  g.sparseInput("x", 1);
  g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {2});
  g.op("%y = lattice.conv3d %x, %w " + kConvAttrs + " : ($S, $WC) -> $S");
  g.op("%p = lattice.global_pool %y {mode = #lattice.pool_mode<avg>, batch_size = 1} : ($S) -> tensor<?x1xf32>");
  g.op("%r = lattice.sparse.reindex %y, %x {fill = 0.0 : f32} : ($S, $S) -> $S");
  g.output("y", "$S");
  return g;
}

void replaceOnce(std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
    qFatal("'%s' is not in the graph exactly once", from.c_str());
  text.replace(at, from.size(), to);
}

ArtifactOp& opOf(ArtifactGraph& g, const std::string& result) {
  for (ArtifactOp& op : g.functions.front().ops)
    if (!op.results.empty() && op.results.front().name == result) return op;
  qFatal("no op %%%s", result.c_str());
}

struct PlanCase {
  const char* name;
  std::function<void(std::string&)> editText;
  std::function<void(ArtifactGraph&)> editGraph;
  std::string message;
  std::string lineOf; ///< a text the reported line holds (in the edited text)
};

using T = std::string&;
using G = ArtifactGraph&;

const std::vector<PlanCase>& cases() {
  static const std::vector<PlanCase> c = {
      {"R1 ir_version", [](T t) { replaceOnce(t, "lattice.ir_version = 2", "lattice.ir_version = 3"); }, {},
       "unsupported lattice artifact runtime plan ir_version: 3 (expected 2).", "lattice.ir_version"},
      {"R2 schema_digest", [](T t) { replaceOnce(t, kDigest, "0123"); }, {},
       "unsupported lattice artifact runtime plan schema_digest: \"0123\"", "lattice.schema_digest"},
      {"R3 weight_file", [](T t) { replaceOnce(t, "\"weights.safetensors\"", "\"other.safetensors\""); }, {},
       "unsupported lattice artifact runtime plan weight_file: \"other.safetensors\"", "lattice.weight_file"},
      {"R4 entry name", [](T t) { replaceOnce(t, "@forward(", "@main("); }, {},
       "lattice artifact runtime plan entry must be forward.", "@main("},
      {"R5 no returns", {},
       [](G g) {
         g.functions.front().ret.operands.clear();
         g.functions.front().ret.types.clear();
       },
       "lattice artifact runtime plan must return values.", "return %y"},
      {"R6 empty argument label", {}, [](G g) { g.functions.front().arguments[1].name.clear(); },
       "argument value label must not be empty.", "%x_features:"},
      {"R6 duplicate argument label", {}, [](G g) { g.functions.front().arguments[1].name = "x_coords"; },
       "duplicate runtime value label: %x_coords", "%x_features:"},
      {"R6 empty ABI name",
       [](T t) { replaceOnce(t, "input_names = [\"x_coords\", \"x_features\"", "input_names = [\"x_coords\", \"\""); },
       {}, "argument ABI name must not be empty.", "%x_features:"},
      {"R6 duplicate ABI name",
       [](T t) {
         replaceOnce(t, "input_names = [\"x_coords\", \"x_features\"", "input_names = [\"x_coords\", \"x_coords\"");
       },
       {}, "duplicate artifact input ABI name: x_coords", "%x_features:"},
      {"R6 input role", [](T t) { replaceOnce(t, "\"sparse_active\"", "\"dense\""); }, {},
       "unsupported artifact input ABI role: dense.", "%x_active:"},
      {"R7 namespace", {}, [](G g) { opOf(g, "y").name = "torch.conv3d"; },
       "operation name must use 'lattice' namespace: torch.conv3d", "%y ="},
      {"R7 unknown op", {}, [](G g) { opOf(g, "y").name = "lattice.conv4d"; },
       "unknown lattice operation: lattice.conv4d", "%y ="},
      {"R8 operand types", {}, [](G g) { opOf(g, "y").operandTypes.pop_back(); },
       "lattice.conv3d operand_types must match operands.", "%y ="},
      {"R9 operand count", {},
       [](G g) {
         opOf(g, "y").operands.pop_back();
         opOf(g, "y").operandTypes.pop_back();
       },
       "lattice.conv3d expects 2..3 SSA operands, got 1.", "%y ="},
      {"R10 result count", {},
       [](G g) {
         ArtifactOp& op = opOf(g, "y");
         op.results.push_back(op.results.front());
         op.results.back().name = "y2";
       },
       "lattice.conv3d expects 1 results, got 2.", "%y ="},
      {"R11 missing attribute", [](T t) { replaceOnce(t, "dilation = array<i64: 1, 1, 1>, accumulation", "accumulation"); },
       {}, "lattice.conv3d missing required attrs: ['dilation'].", "%y ="},
      {"R12 unknown attributes",
       [](T t) { replaceOnce(t, "accumulation = \"canonical_f32\"}", "accumulation = \"canonical_f32\", zeta = 1, alpha = 2}"); },
       {}, "lattice.conv3d has unknown attrs: ['alpha', 'zeta'].", "%y ="},
      {"R13 triple of two", [](T t) { replaceOnce(t, "stride = array<i64: 1, 1, 1>, padding", "stride = array<i64: 1, 1>, padding"); },
       {}, "lattice.conv3d.stride must contain 3 values.", "%y ="},
      {"R13 integer expected", [](T t) { replaceOnce(t, "batch_size = 1", "batch_size = \"one\""); }, {},
       "lattice.global_pool.batch_size must be an integer.", "%p ="},
      {"R13 number expected", [](T t) { replaceOnce(t, "fill = 0.0 : f32", "fill = \"zero\""); }, {},
       "lattice.sparse.reindex.fill must be numeric.", "%r ="},
      {"R13 string expected", [](T t) { replaceOnce(t, "accumulation = \"canonical_f32\"", "accumulation = 32"); }, {},
       "lattice.conv3d.accumulation must be a string.", "%y ="},
      {"R13 enum value", [](T t) { replaceOnce(t, "pool_mode<avg>", "pool_mode<median>"); }, {},
       "lattice.global_pool.mode must be one of: ", "%p ="},
      {"R14 packing kind", {},
       [](G g) {
         auto& p = const_cast<ArtifactAttribute&>(*opOf(g, "w").attribute("packing")).value.packing;
         p = {"int2", 32, "f16", "affine"};
       },
       "lattice.weight.packing.kind must be dense, int4, or int8.", "%w ="},
      {"R14 group size", [](T t) {
         replaceOnce(t, "#lattice.packing<dense>", "#lattice.packing<int4, group_size = 0, scale_dtype = f16, mode = affine>");
       }, {}, "lattice.weight.packing.group_size must be a positive integer.", "%w ="},
      {"R14 scale dtype", [](T t) {
         replaceOnce(t, "#lattice.packing<dense>", "#lattice.packing<int4, group_size = 32, scale_dtype = bf16, mode = affine>");
       }, {}, "lattice.weight.packing.scale_dtype must be f16 or f32.", "%w ="},
      {"R14 mode", [](T t) {
         replaceOnce(t, "#lattice.packing<dense>", "#lattice.packing<int8, group_size = 32, scale_dtype = f16, mode = symmetric>");
       }, {}, "lattice.weight.packing.mode must be affine.", "%w ="},
      {"R14 dense with quantization keys", {},
       [](G g) {
         auto& p = const_cast<ArtifactAttribute&>(*opOf(g, "w").attribute("packing")).value.packing;
         p.scaleDtype = "f16";
       },
       "lattice.weight.packing has unknown keys", "%w ="},
      {"R15 accumulation", [](T t) { replaceOnce(t, "\"canonical_f32\"", "\"fast_f16\""); }, {},
       "lattice.conv3d.accumulation must be canonical_f32 for IR v2.", "%y ="},
      {"R16 undefined operand", {}, [](G g) { opOf(g, "y").operands[1].name = "nowhere"; },
       "lattice.conv3d uses undefined value: %nowhere", "%y ="},
      {"R16 use before definition", {},
       [](G g) {
         auto& ops = g.functions.front().ops; // %w after %y
         std::swap(ops[1], ops[2]);
       },
       "lattice.conv3d uses undefined value: %w", "%y ="},
      {"R16 redefined value", {}, [](G g) { opOf(g, "p").results[0].name = "y"; },
       "duplicate runtime value label: %y", "%p ="},
      {"R16 return of an undefined value", {}, [](G g) { g.functions.front().ret.operands[0].name = "gone"; },
       "return uses undefined value: %gone", "return %y"},
      {"R17 more outputs than returns", [](T t) {
         replaceOnce(t, "output_names = [\"output\"]", "output_names = [\"output\", \"extra\"]");
       }, {}, "lattice artifact runtime plan outputs must match returns.", "return %y"},
      {"R17 empty output name", [](T t) { replaceOnce(t, "output_names = [\"output\"]", "output_names = [\"\"]"); }, {},
       "output ABI name must not be empty.", "return %y"},
      {"R17 duplicate output name",
       [](T t) {
         replaceOnce(t, "output_names = [\"output\"]", "output_names = [\"output\", \"output\"]");
         replaceOnce(t, "output_roles = [\"sparse_tensor\"]", "output_roles = [\"sparse_tensor\", \"sparse_tensor\"]");
       },
       [](G g) {
         ArtifactReturn& ret = g.functions.front().ret;
         ret.operands.push_back(ret.operands[0]);
         ret.types.push_back(ret.types[0]);
       },
       "duplicate artifact output ABI name: output", "return %y"},
      {"R17 output role", [](T t) { replaceOnce(t, "output_roles = [\"sparse_tensor\"]", "output_roles = [\"points\"]"); },
       {}, "unsupported artifact output ABI role: points.", "return %y"},
  };
  return c;
}

int lineHolding(const std::string& text, const std::string& what) {
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n)
    if (line.find(what) != std::string::npos) return n;
  return -1;
}

} // namespace

class TestRuntimePlan : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // The test graphs use the writer's exact form: rebuilt with the helper, the conformance case
  // canonical_kernel_layout is byte for byte its expected graph.mlir (so the header, the
  // argument list and the line numbers the location checks rely on are the writer's).
  void testGraphsUseTheWritersForm() {
    Graph g;
    g.sparseInput("x", 1);
    g.op("%conv_weight = lattice.weight @conv_weight {storage_key = \"conv.weight\", layout = "
         "#lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>} : $WC");
    g.op("%conv = lattice.subm_conv3d %x, %conv_weight {kernel_size = array<i64: 3, 1, 5>, dilation = array<i64: 1, "
         "1, 1>, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S");
    g.output("conv", "$S");
    QFile f(QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/canonical_kernel_layout/expected.lattice/graph.mlir"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromStdString(g.text()), QString::fromUtf8(f.readAll()));
    QCOMPARE(g.loc("conv"), std::string("graph.mlir:17:13"));
  }

  // The plan of the valid base graph (what the rows below break).
  void validGraphPlan() {
    ArtifactParseResult p = base().parse();
    QVERIFY2(p.ok(), p.error.str().c_str());
    Expected<runtime::RuntimePlan> plan = runtime::buildRuntimePlan(std::make_shared<const ArtifactGraph>(*p.graph));
    QVERIFY2(plan, plan ? "" : plan.message().c_str());
    QCOMPARE(plan->args.size(), std::size_t(3));
    for (std::size_t i = 0; i < 3; ++i) QCOMPARE(plan->args[i].label, "arg" + std::to_string(i));
    QCOMPARE(plan->args[1].abiName, std::string("x_features"));
    QCOMPARE(plan->args[2].role, std::string("sparse_active"));
    std::vector<std::string> kinds;
    for (const runtime::PlanOp& op : plan->ops)
      kinds.emplace_back(opName(op.kind));
    QCOMPARE(kinds, (std::vector<std::string>{"sparse.make", "weight", "conv3d", "global_pool", "sparse.reindex"}));
    QCOMPARE(plan->ops[1].name(), std::string("w"));
    QCOMPARE(plan->opIndexOf("@w"), 1);
    QCOMPARE(plan->opIndexOf("%r"), 4);
    // Last uses: %x is read last by the reindex (op 4), %w by the conv (2); %y is an output
    // (ops.size()); %p and %r are never read (−1).
    QCOMPARE(plan->lastUse[plan->slotOf("x")], 4);
    QCOMPARE(plan->lastUse[plan->slotOf("w")], 2);
    QCOMPARE(plan->lastUse[plan->slotOf("%y")], 5);
    QCOMPARE(plan->lastUse[plan->slotOf("p")], -1);
    QCOMPARE(plan->lastUse[plan->slotOf("r")], -1);
    QCOMPARE(plan->producer[plan->slotOf("y")], 2);
    QCOMPARE(plan->producer[plan->slotOf("x_coords")], -1);
    QCOMPARE(plan->outputs.size(), std::size_t(1));
    QCOMPARE(plan->outputs[0].abiName, std::string("output"));
    QCOMPARE(plan->outputs[0].slot, plan->slotOf("y"));
  }

  void planRulesGiveTheirMessage_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void planRulesGiveTheirMessage() {
    QFETCH(int, index);
    const PlanCase& c = cases()[static_cast<std::size_t>(index)];
    std::string text = base().text();
    if (c.editText) c.editText(text);
    ArtifactParseResult p = parseArtifactGraph(text, "graph.mlir");
    QVERIFY2(p.ok(), p.error.str().c_str());
    if (c.editGraph) c.editGraph(*p.graph);
    Expected<runtime::RuntimePlan> plan = runtime::buildRuntimePlan(std::make_shared<const ArtifactGraph>(*p.graph));
    QVERIFY2(!plan, "the plan was built");
    RT_CHECK(containsAll(plan.message(), {c.message}));
    const std::string where = "graph.mlir:" + std::to_string(lineHolding(text, c.lineOf)) + ":";
    QVERIFY2(plan.message().rfind(where, 0) == 0, (plan.message() + " does not start with " + where).c_str());
    QVERIFY(plan.message().find(": error: ") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestRuntimePlan)
#include "tst_runtime_plan.moc"
