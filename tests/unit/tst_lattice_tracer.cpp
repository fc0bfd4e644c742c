// Tests for the lattice tracer: the SUPPORTED_MODULE_TYPES registry order (lowering.md §1.1),
// the leaf policy (fx-archive.md, last paragraph) next to torch.fx's default rule, traces of every
// conformance archive compared with graphs written out by hand from each model.json, and the built-in
// backbones' structure (lowering.md §8) including a 10 000-block chain traced in linear time.

#include "model/Archive.h"
#include "model/Examples.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <ctime>
#include <set>
#include <string>
#include <vector>

using namespace lattice;
using fx::Op;
using fx::Value;

namespace {

constexpr const char* kModule = "torch.nn.modules.module.Module";
constexpr const char* kSequential = "torch.nn.modules.container.Sequential";

struct OpCounts {
  int placeholder = 0, getAttr = 0, callFunction = 0, callModule = 0, callMethod = 0, output = 0;
};

OpCounts countOps(const fx::Graph& g) {
  OpCounts c;
  for (const fx::Node& n : g.nodes()) {
    switch (n.op()) {
    case Op::Placeholder:
      ++c.placeholder;
      break;
    case Op::GetAttr:
      ++c.getAttr;
      break;
    case Op::CallFunction:
      ++c.callFunction;
      break;
    case Op::CallModule:
      ++c.callModule;
      break;
    case Op::CallMethod:
      ++c.callMethod;
      break;
    case Op::Output:
      ++c.output;
      break;
    }
  }
  return c;
}

std::vector<const fx::Node*> nodesWithTarget(const fx::Graph& g, const std::string& target) {
  std::vector<const fx::Node*> out;
  for (const fx::Node& n : g.nodes())
    if (n.target() == target) out.push_back(&n);
  return out;
}

std::unique_ptr<fx::Graph> traceOk(const Tracer& tracer, const Model& model) {
  auto traced = tracer.trace(model);
  if (!traced) qWarning("trace failed: %s", traced.message().c_str());
  if (!traced) return nullptr;
  const Status lint = (*traced)->lint();
  if (!lint) qWarning("lint failed: %s", lint.message().c_str());
  return lint ? std::move(*traced) : nullptr;
}

Value nodeRef(const fx::Graph& g, const char* name) {
  return Value::node(g.findNode(name));
}

} // namespace

class TestLatticeTracer : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void registryOrder();
  void registryHasNoDuplicates();
  void hasLatticeLowering_data();
  void hasLatticeLowering();
  void leafPolicy_data();
  void leafPolicy();
  void conformanceArchives_data();
  void conformanceArchives();
  void sparseResUNet42();
  void sparseResNet21D();
  void defaultTracerCannotTraceBackbones();
  void collapseAndExpandInBackbone();
  void chainNodeCount_data();
  void chainNodeCount();
  void longChain();
  void deepNesting();
};

void TestLatticeTracer::registryOrder() {
  const std::vector<std::string>& types = latticeSupportedModuleTypes();
  // lowering.md §1.1: 15 rows, 7 activation pairs (rows 16–29), then rows 30–39.
  QCOMPARE(types.size(), std::size_t(39));
  const std::vector<std::pair<int, std::string>> rows = {
      {1, "torch_lattice.nn.modules.conv.Conv3d"},
      {2, "torch_lattice.nn.modules.conv.SubmConv3d"},
      {7, "torch_lattice.nn.modules.conv.NormalizedGenerativeConvTranspose3d"},
      {8, "torch_lattice.nn.modules.pooling.Pool3d"},
      {10, "torch_lattice.nn.modules.pooling.TrilinearUpsample3d"},
      {11, "torch_lattice.nn.modules.norm.BatchNorm"},
      {13, "torch.nn.modules.normalization.LayerNorm"},
      {14, "torch_lattice.nn.modules.norm.RMSNorm"},
      {15, "torch.nn.modules.normalization.RMSNorm"},
      {16, "torch_lattice.nn.modules.activation.ReLU"},
      {17, "torch.nn.modules.activation.ReLU"},
      {18, "torch_lattice.nn.modules.activation.LeakyReLU"},
      {19, "torch.nn.modules.activation.LeakyReLU"},
      {20, "torch_lattice.nn.modules.activation.SiLU"},
      {22, "torch_lattice.nn.modules.activation.GELU"},
      {24, "torch_lattice.nn.modules.activation.Sigmoid"},
      {26, "torch_lattice.nn.modules.activation.Tanh"},
      {28, "torch_lattice.nn.modules.activation.Softplus"},
      {29, "torch.nn.modules.activation.Softplus"},
      {30, "torch_lattice.nn.modules.pooling.GlobalAvgPool"},
      {32, "torch_lattice.nn.modules.pooling.GlobalSumPool"},
      {33, "torch.nn.modules.linear.Linear"},
      {34, "torch.nn.modules.dropout.Dropout"},
      {35, "torch.nn.modules.flatten.Flatten"},
      {36, "torch.nn.modules.linear.Identity"},
      {37, "torch_lattice.nn.modules.norm.InstanceNorm"},
      {38, "torch_lattice.nn.modules.norm.GroupNorm"},
      {39, "torch_lattice.nn.modules.crop.SparseCrop"},
  };
  for (const auto& [row, type] : rows)
    QCOMPARE(QString::fromStdString(types[row - 1]), QString::fromStdString(type));
}

void TestLatticeTracer::registryHasNoDuplicates() {
  const std::vector<std::string>& types = latticeSupportedModuleTypes();
  QCOMPARE(std::set<std::string>(types.begin(), types.end()).size(), types.size());
}

void TestLatticeTracer::hasLatticeLowering_data() {
  QTest::addColumn<QString>("type");
  QTest::addColumn<QStringList>("bases");
  QTest::addColumn<bool>("supported");
  const QString module = QString::fromLatin1(kModule);
  QTest::newRow("SubmConv3d") << "torch_lattice.nn.modules.conv.SubmConv3d"
                              << QStringList{"torch_lattice.nn.modules.conv._BaseConv3d", module} << true;
  QTest::newRow("AvgPool3d via Pool3d")
      << "torch_lattice.nn.modules.pooling.AvgPool3d"
      << QStringList{"torch_lattice.nn.modules.pooling.Pool3d", module} << true;
  QTest::newRow("user subclass of nn.ReLU")
      << "pkg.MyReLU" << QStringList{"torch.nn.modules.activation.ReLU", module} << true;
  QTest::newRow("torch RMSNorm") << "torch.nn.modules.normalization.RMSNorm" << QStringList{module} << true;
  QTest::newRow("nn.Identity") << "torch.nn.modules.linear.Identity" << QStringList{module} << true;
  QTest::newRow("nn.Conv3d") << "torch.nn.modules.conv.Conv3d"
                             << QStringList{"torch.nn.modules.conv._ConvNd", module} << false;
  QTest::newRow("nn.Dropout2d") << "torch.nn.modules.dropout.Dropout2d"
                                << QStringList{"torch.nn.modules.dropout._DropoutNd", module} << false;
  QTest::newRow("nn.ReLU6") << "torch.nn.modules.activation.ReLU6"
                            << QStringList{"torch.nn.modules.activation.Hardtanh", module} << false;
  QTest::newRow("ToBEVConvolution") << "torch_lattice.nn.modules.bev.ToBEVConvolution" << QStringList{module}
                                    << false;
  QTest::newRow("SparseResBlock") << "torch_lattice.backbones.modules.blocks.SparseResBlock"
                                  << QStringList{module} << false;
}

void TestLatticeTracer::hasLatticeLowering() {
  QFETCH(QString, type);
  QFETCH(QStringList, bases);
  QFETCH(bool, supported);
  ModuleInfo m;
  m.path = "m";
  m.type = type.toStdString();
  for (const QString& b : bases)
    m.bases.push_back(b.toStdString());
  QCOMPARE(lattice::hasLatticeLowering(m), supported);
}

void TestLatticeTracer::leafPolicy_data() {
  QTest::addColumn<QString>("type");
  QTest::addColumn<QStringList>("bases");
  QTest::addColumn<bool>("fxLeaf");      // Tracer: torch.fx's rule on the class's own module
  QTest::addColumn<bool>("latticeLeaf"); // LatticeTracer: supported types first (lowering.md §1.1)
  const QString module = QString::fromLatin1(kModule);
  const QString seq = QString::fromLatin1(kSequential);
  QTest::newRow("supported torch_lattice")
      << "torch_lattice.nn.modules.norm.BatchNorm"
      << QStringList{"torch.nn.modules.batchnorm.BatchNorm1d", module} << false << true;
  QTest::newRow("supported subclass")
      << "torch_lattice.nn.modules.pooling.MaxPool3d"
      << QStringList{"torch_lattice.nn.modules.pooling.Pool3d", module} << false << true;
  QTest::newRow("user subclass of nn.ReLU")
      << "pkg.MyReLU" << QStringList{"torch.nn.modules.activation.ReLU", module} << false << true;
  QTest::newRow("supported torch.nn")
      << "torch.nn.modules.linear.Linear" << QStringList{module} << true << true;
  QTest::newRow("unsupported torch.nn")
      << "torch.nn.modules.conv.Conv3d" << QStringList{"torch.nn.modules.conv._ConvNd", module} << true
      << true;
  QTest::newRow("torch.ao.nn") << "torch.ao.nn.quantized.modules.linear.Linear" << QStringList{module} << true
                               << true;
  QTest::newRow("ModuleList") << "torch.nn.modules.container.ModuleList" << QStringList{module} << true
                              << true;
  QTest::newRow("Sequential") << seq << QStringList{module} << false << false;
  QTest::newRow("torch.nn Sequential subclass")
      << "torch.nn.modules.container.MySeq" << QStringList{seq, module} << false << false;
  QTest::newRow("SparseConvBlock") << "torch_lattice.backbones.modules.blocks.SparseConvBlock"
                                   << QStringList{seq, module} << false << false;
  QTest::newRow("SparseResBlock") << "torch_lattice.backbones.modules.blocks.SparseResBlock"
                                  << QStringList{module} << false << false;
  QTest::newRow("ToBEVConvolution") << "torch_lattice.nn.modules.bev.ToBEVConvolution" << QStringList{module}
                                    << false << false;
  QTest::newRow("user module") << "examples.e2e.SparseClassifier" << QStringList{module} << false << false;
}

void TestLatticeTracer::leafPolicy() {
  QFETCH(QString, type);
  QFETCH(QStringList, bases);
  QFETCH(bool, fxLeaf);
  QFETCH(bool, latticeLeaf);
  ModuleInfo m;
  m.path = "a.0";
  m.type = type.toStdString();
  for (const QString& b : bases)
    m.bases.push_back(b.toStdString());
  Tracer fx;
  QCOMPARE(fx.isLeafModule(m, m.path), fxLeaf);
  QCOMPARE(fx.isLeaf(m), fxLeaf);
  LatticeTracer lattice;
  QCOMPARE(lattice.isLeafModule(m, m.path), latticeLeaf);
  QCOMPARE(lattice.isLeaf(m), latticeLeaf);
}

void TestLatticeTracer::conformanceArchives_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("expected");
  // Written by hand from each model.json: every child is a supported leaf, so the traced graph is
  // the root's one-level graph, printed as torch.fx prints it.
  auto single = [](const char* module) {
    return QStringLiteral("graph():\n"
                          "    %x : [num_users=1] = placeholder[target=x]\n"
                          "    %%1 : [num_users=1] = call_module[target=%1](args = (%x,), kwargs = {})\n"
                          "    return %1\n")
        .arg(QLatin1String(module));
  };
  QTest::newRow("canonical_kernel_layout") << "canonical_kernel_layout" << single("conv");
  QTest::newRow("normalized_convolution") << "normalized_convolution" << single("conv");
  QTest::newRow("point_voxel")
      << "point_voxel"
      << QStringLiteral("graph():\n"
                        "    %points : [num_users=2] = placeholder[target=points]\n"
                        "    %features : [num_users=1] = placeholder[target=features]\n"
                        "    %batch_indices : [num_users=2] = placeholder[target=batch_indices]\n"
                        "    %active_rows : [num_users=2] = placeholder[target=active_rows]\n"
                        "    %voxelize : [num_users=1] = "
                        "call_function[target=torch_lattice.nn.functional.voxelize.voxelize]"
                        "(args = (%points, %features), kwargs = {batch_indices: %batch_indices, active_rows: "
                        "%active_rows, "
                        "voxel_size: (1.0, 1.0, 1.0), origin: (0.0, 0.0, 0.0), reduction: mean})\n"
                        "    %devoxelize : [num_users=1] = "
                        "call_function[target=torch_lattice.nn.functional.devoxelize.devoxelize]"
                        "(args = (%points, %voxelize), kwargs = {batch_indices: %batch_indices, "
                        "point_active_rows: %active_rows, "
                        "voxel_size: (1.0, 1.0, 1.0), origin: (0.0, 0.0, 0.0), interpolation: nearest})\n"
                        "    return devoxelize\n");
  QTest::newRow("quantized_classifier_int8")
      << "quantized_classifier_int8"
      << QStringLiteral(
             "graph():\n"
             "    %x : [num_users=1] = placeholder[target=x]\n"
             "    %stem : [num_users=1] = call_module[target=stem](args = (%x,), kwargs = {})\n"
             "    %act : [num_users=1] = call_module[target=act](args = (%stem,), kwargs = {})\n"
             "    %global_pool : [num_users=1] = call_module[target=global_pool](args = (%act,), kwargs = "
             "{})\n"
             "    %head : [num_users=1] = call_module[target=head](args = (%global_pool,), kwargs = {})\n"
             "    return head\n");
  QTest::newRow("sparse_classifier")
      << "sparse_classifier"
      << QStringLiteral(
             "graph():\n"
             "    %x : [num_users=1] = placeholder[target=x]\n"
             "    %stem : [num_users=1] = call_module[target=stem](args = (%x,), kwargs = {})\n"
             "    %norm : [num_users=1] = call_module[target=norm](args = (%stem,), kwargs = {})\n"
             "    %act : [num_users=1] = call_module[target=act](args = (%norm,), kwargs = {})\n"
             "    %pool : [num_users=1] = call_module[target=pool](args = (%act,), kwargs = {})\n"
             "    %global_pool : [num_users=1] = call_module[target=global_pool](args = (%pool,), kwargs = "
             "{})\n"
             "    %head : [num_users=1] = call_module[target=head](args = (%global_pool,), kwargs = {})\n"
             "    return head\n");
  QTest::newRow("sparse_reindex") << "sparse_reindex"
                                  << QStringLiteral(
                                         "graph():\n"
                                         "    %source : [num_users=1] = placeholder[target=source]\n"
                                         "    %target : [num_users=1] = placeholder[target=target]\n"
                                         "    %reindex_sparse : [num_users=1] = "
                                         "call_function[target=torch_lattice.operators.reindex_sparse]"
                                         "(args = (%source, %target), kwargs = {fill: -0.75})\n"
                                         "    return reindex_sparse\n");
  QTest::newRow("transpose_convolution")
      << "transpose_convolution"
      << QStringLiteral("graph():\n"
                        "    %x : [num_users=1] = placeholder[target=x]\n"
                        "    %down : [num_users=1] = call_module[target=down](args = (%x,), kwargs = {})\n"
                        "    %up : [num_users=1] = call_module[target=up](args = (%down,), kwargs = {})\n"
                        "    return up\n");
}

void TestLatticeTracer::conformanceArchives() {
  QFETCH(QString, name);
  QFETCH(QString, expected);
  const QString dir = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/%1/model.ltfx").arg(name);
  auto model = readArchive(dir.toStdString());
  QVERIFY2(model, model ? "" : model.message().c_str());
  LatticeTracer tracer;
  auto g = traceOk(tracer, *model);
  QVERIFY(g);
  QCOMPARE(QString::fromStdString(g->print()), expected);
}

void TestLatticeTracer::sparseResUNet42() {
  const Model model = makeSparseResUNet42();
  LatticeTracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  // 149 leaf modules (stem 6, encoders 17+18+18+18, decoders 4×18), 16 adds, 4 cats.
  QCOMPARE(g->size(), std::size_t(171));
  const OpCounts c = countOps(*g);
  QCOMPARE(c.callModule, 149);
  QCOMPARE(c.callFunction, 20);
  QCOMPARE(c.placeholder, 1);
  QCOMPARE(c.output, 1);
  QCOMPARE(c.getAttr + c.callMethod, 0);
  QCOMPARE(g->nodes().front().op(), Op::Placeholder);
  QCOMPARE(g->nodes().back().op(), Op::Output);

  // Every leaf has a lattice lowering (Identity shortcuts included).
  for (const fx::Node& n : g->nodes()) {
    if (n.op() != Op::CallModule) continue;
    const ModuleInfo* m = model.module(n.target());
    QVERIFY2(m && lattice::hasLatticeLowering(*m), n.target().c_str());
  }

  const fx::Node* first = g->nodes().front().next();
  QCOMPARE(first->name(), std::string("stem_0"));
  QCOMPARE(first->target(), std::string("stem.0"));
  // A Sequential shortcut is inlined; an Identity shortcut stays a leaf.
  QVERIFY(g->findNode("encoders_1_1_shortcut_0"));
  QCOMPARE(g->findNode("encoders_1_1_shortcut_0")->target(), std::string("encoders.1.1.shortcut.0"));
  QCOMPARE(g->findNode("encoders_0_1_shortcut")->target(), std::string("encoders.0.1.shortcut"));

  // Adds: `add`, `add_1`, …, in emission order; the first is main + shortcut of encoders.0.1.
  const auto adds = nodesWithTarget(*g, "operator.add");
  QCOMPARE(adds.size(), std::size_t(16));
  QCOMPARE(adds[0]->name(), std::string("add"));
  for (std::size_t i = 1; i < adds.size(); ++i)
    QCOMPARE(adds[i]->name(), "add_" + std::to_string(i));
  QVERIFY(adds[0]->args() ==
          (fx::ValueList{nodeRef(*g, "encoders_0_1_main_4"), nodeRef(*g, "encoders_0_1_shortcut")}));
  QVERIFY(g->findNode("encoders_0_1_relu")->args() ==
          fx::ValueList{Value::node(const_cast<fx::Node*>(adds[0]))});

  // Cats: the first pairs decoders.0's upsampled value with encoders.2's output (§8.3).
  const auto cats = nodesWithTarget(*g, "torch_lattice.operators.cat");
  QCOMPARE(cats.size(), std::size_t(4));
  QCOMPARE(cats[0]->name(), std::string("cat"));
  QCOMPARE(cats[3]->name(), std::string("cat_3"));
  QVERIFY(!cats[0]->args().empty());
  QVERIFY(cats[0]->args()[0] ==
          Value::list({nodeRef(*g, "decoders_0_upsample_2"), nodeRef(*g, "encoders_2_2_relu")}));
  QVERIFY(cats[3]->args()[0] == Value::list({nodeRef(*g, "decoders_3_upsample_2"), nodeRef(*g, "stem_5")}));
  QVERIFY(g->findNode("decoders_0_fuse_0_main_0")->args().front() ==
          Value::node(const_cast<fx::Node*>(cats[0])));

  // Output: [x0, x1, x2, x3, x4, y0, y1, y2, y3].
  const Value expected =
      Value::list({nodeRef(*g, "stem_5"), nodeRef(*g, "encoders_0_2_relu"), nodeRef(*g, "encoders_1_2_relu"),
                   nodeRef(*g, "encoders_2_2_relu"), nodeRef(*g, "encoders_3_2_relu"),
                   nodeRef(*g, "decoders_0_fuse_1_relu"), nodeRef(*g, "decoders_1_fuse_1_relu"),
                   nodeRef(*g, "decoders_2_fuse_1_relu"), nodeRef(*g, "decoders_3_fuse_1_relu")});
  QVERIFY(g->outputNode()->args().front() == expected);
}

void TestLatticeTracer::sparseResNet21D() {
  const Model model = makeSparseResNet21D();
  LatticeTracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(g->size(), std::size_t(81));
  const OpCounts c = countOps(*g);
  QCOMPARE(c.callModule, 71);
  QCOMPARE(c.callFunction, 8);
  QCOMPARE(c.placeholder, 1);
  QCOMPARE(c.output, 1);
  // Paths start with a digit: `0.0.0` → `_0_0_0`, `0.1.main.0` → `_0_1_main_0`.
  const fx::Node* first = g->nodes().front().next();
  QCOMPARE(first->name(), std::string("_0_0_0"));
  QCOMPARE(first->target(), std::string("0.0.0"));
  QVERIFY(g->findNode("_0_1_main_0"));
  QCOMPARE(g->findNode("_0_1_main_0")->target(), std::string("0.1.main.0"));
  QCOMPARE(g->findNode("_4_0_0")->target(), std::string("4.0.0"));
  const auto adds = nodesWithTarget(*g, "operator.add");
  QCOMPARE(adds.size(), std::size_t(8));
  QCOMPARE(adds.back()->name(), std::string("add_7"));
  const Value expected =
      Value::list({nodeRef(*g, "_0_2_relu"), nodeRef(*g, "_1_2_relu"), nodeRef(*g, "_2_2_relu"),
                   nodeRef(*g, "_3_2_relu"), nodeRef(*g, "_4_0_2")});
  QVERIFY(g->outputNode()->args().front() == expected);
}

void TestLatticeTracer::defaultTracerCannotTraceBackbones() {
  // torch.fx's own rule does not know torch_lattice modules: it tries to inline SubmConv3d.
  Tracer tracer;
  auto traced = tracer.trace(makeSparseResUNet42());
  QVERIFY(!traced);
  QCOMPARE(traced.message(), std::string("module 'stem.0' (torch_lattice.nn.modules.conv.SubmConv3d) is "
                                         "traced through but has no recorded graph"));
}

void TestLatticeTracer::collapseAndExpandInBackbone() {
  const Model model = makeSparseResUNet42();
  LatticeTracer tracer;
  // encoders.0 holds 17 leaves and 2 adds; collapsed it is one call_module.
  tracer.setLeafOverride("encoders.0", true);
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(g->size(), std::size_t(171 - 17 - 2 + 1));
  QCOMPARE(g->findNode("encoders_0")->target(), std::string("encoders.0"));
  QVERIFY(g->findNode("encoders_1_0_0")->args() == fx::ValueList{nodeRef(*g, "encoders_0")});
  QCOMPARE(nodesWithTarget(*g, "operator.add").size(), std::size_t(14));

  tracer.clearLeafOverride("encoders.0");
  tracer.setLeafOverride("stem.0", false);
  auto failed = tracer.trace(model);
  QVERIFY(!failed);
  QCOMPARE(failed.message(), std::string("module 'stem.0' (torch_lattice.nn.modules.conv.SubmConv3d) is "
                                         "traced through but has no recorded graph"));
}

void TestLatticeTracer::chainNodeCount_data() {
  QTest::addColumn<int>("blocks");
  QTest::newRow("1") << 1;
  QTest::newRow("3") << 3;
  QTest::newRow("100") << 100;
}

void TestLatticeTracer::chainNodeCount() {
  QFETCH(int, blocks);
  const Model model = makeChain(blocks);
  LatticeTracer tracer;
  auto g = traceOk(tracer, model);
  QVERIFY(g);
  QCOMPARE(g->size(), std::size_t(3 * blocks + 2));
  const OpCounts c = countOps(*g);
  QCOMPARE(c.callModule, 3 * blocks);
  // Each block is SubmConv3d, BatchNorm, ReLU, in that order, each feeding the next.
  const char* classes[3] = {"SubmConv3d", "BatchNorm", "ReLU"};
  int i = 0;
  const fx::Node* prev = &g->nodes().front();
  for (const fx::Node& n : g->nodes()) {
    if (n.op() != Op::CallModule) continue;
    const ModuleInfo* m = model.module(n.target());
    QVERIFY(m);
    QCOMPARE(QString::fromStdString(m->className()), QString::fromLatin1(classes[i++ % 3]));
    QVERIFY(n.args() == fx::ValueList{Value::node(const_cast<fx::Node*>(prev))});
    prev = &n;
  }
  QVERIFY(g->outputNode()->args() == fx::ValueList{Value::node(const_cast<fx::Node*>(prev))});
}

void TestLatticeTracer::longChain() {
  const int blocks = 10000;
  const Model model = makeChain(blocks);
  LatticeTracer tracer;
  // CPU time, not wall time: the test machines are shared.
  const std::clock_t start = std::clock();
  auto traced = tracer.trace(model);
  const double ms = double(std::clock() - start) * 1000.0 / CLOCKS_PER_SEC;
  QVERIFY2(traced, traced ? "" : traced.message().c_str());
  QCOMPARE((*traced)->size(), std::size_t(3 * blocks + 2));
  qInfo("traced %d blocks in %.1f ms of CPU time", blocks, ms);
}

void TestLatticeTracer::deepNesting() {
  // 2000 user modules nested `m.m.m…`, each calling its child, around one ReLU: the walk must
  // neither recurse on the C++ stack nor slow down quadratically.
  const int depth = 2000;
  Model model;
  std::string path;
  for (int i = 0; i <= depth; ++i) {
    ModuleInfo m;
    m.path = path;
    m.bases = {kModule};
    if (i == depth) {
      m.type = "torch.nn.modules.activation.ReLU";
    } else {
      m.type = "test.Wrap";
      m.children = {"m"};
      m.signature = {SignatureParam{"x", ParamKind::PositionalOrKeyword, std::nullopt}};
      auto g = std::make_shared<fx::Graph>();
      g->output(Value::node(g->callModule("m", {Value::node(g->placeholder("x"))})));
      m.graph = std::move(g);
    }
    model.addModule(std::move(m));
    path = path.empty() ? std::string("m") : path + ".m";
  }
  LatticeTracer tracer;
  const std::clock_t start = std::clock();
  auto traced = tracer.trace(model);
  const double ms = double(std::clock() - start) * 1000.0 / CLOCKS_PER_SEC;
  QVERIFY2(traced, traced ? "" : traced.message().c_str());
  QCOMPARE((*traced)->size(), std::size_t(3));
  std::string leaf = "m";
  for (int i = 1; i < depth; ++i)
    leaf += ".m";
  QCOMPARE(QString::fromStdString((*traced)->nodes().front().next()->target()), QString::fromStdString(leaf));
  qInfo("traced %d nested modules in %.1f ms of CPU time", depth, ms);
}

QTEST_APPLESS_MAIN(TestLatticeTracer)
#include "tst_lattice_tracer.moc"
