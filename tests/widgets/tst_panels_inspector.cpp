// Inspector: the module and node sections for the sparse_classifier conformance archive,
// checked against its model.json (stem: Conv3d with in_channels 3, out_channels 4, weight F32
// [1, 3, 4] = 48 bytes, bias F32 [4] = 16 bytes, buffer kernel_positions I32 [1, 3] = 12 bytes)
// and its expected graph.mlir (what `stem` emits: two weights and a conv3d named %stem). The root
// module's totals are summed by hand from model.json: 7 modules; parameters stem.weight [1, 3, 4]
// 48 + stem.bias 16 + norm.weight 16 + norm.bias 16 + head.weight [2, 4] 32 + head.bias 8 = 6
// tensors, 136 bytes; buffers kernel_positions I32 [1, 3] 12 + running_mean 16 + running_var 16
// + num_batches_tracked I64 [] 8 = 4 tensors, 52 bytes.

#include "StudioSession.h"
#include "panels/InspectorModel.h"
#include "panels/InspectorPanel.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QTreeView>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::InspectorModel;
using lattice::studio::InspectorPanel;
using lattice::studio::Property;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

QString classifier() {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/model.ltfx");
}

QString valueAt(const Property* section, const QString& group, const QString& name) {
  const Property* g = section ? section->child(group) : nullptr;
  const Property* p = g ? g->child(name) : nullptr;
  return p ? p->value : QStringLiteral("<missing>");
}

} // namespace

class TestPanelsInspector : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void moduleAttributesParametersBuffers();
  void rootModuleSection();
  void nodeSection();
  void nodeValueAndEmittedOpsAfterStepping();
  void sectionsFollowTheLatestSelection();
  void doubleClickOnArgumentSelectsProducer();
};

void TestPanelsInspector::moduleAttributesParametersBuffers() {
  StudioSession session;
  InspectorModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, classifier()));
  QVERIFY(!model.moduleSection());
  session.selectModule(QStringLiteral("stem"));
  const Property* module = model.moduleSection();
  QVERIFY(module);
  QCOMPARE(module->value, QStringLiteral("stem"));
  QCOMPARE(module->child(QStringLiteral("Type"))->value,
           QStringLiteral("torch_lattice.nn.modules.conv.Conv3d"));
  QCOMPARE(valueAt(module, QStringLiteral("Bases"), QStringLiteral("0")),
           QStringLiteral("torch_lattice.nn.modules.conv._BaseConv3d"));
  QCOMPARE(valueAt(module, QStringLiteral("Attributes"), QStringLiteral("in_channels")), QStringLiteral("3"));
  QCOMPARE(valueAt(module, QStringLiteral("Attributes"), QStringLiteral("out_channels")),
           QStringLiteral("4"));
  QCOMPARE(valueAt(module, QStringLiteral("Attributes"), QStringLiteral("kernel_size")),
           QStringLiteral("(1, 1, 1)"));
  QCOMPARE(valueAt(module, QStringLiteral("Attributes"), QStringLiteral("subm")), QStringLiteral("False"));
  QCOMPARE(module->child(QStringLiteral("Lowering"))->value, QStringLiteral("lattice"));
  QCOMPARE(module->child(QStringLiteral("Leaf"))->value, QStringLiteral("leaf"));

  const Property* weight = module->child(QStringLiteral("Parameters"))->child(QStringLiteral("weight"));
  QVERIFY(weight);
  QCOMPARE(weight->value, QStringLiteral("F32"));
  QCOMPARE(weight->shape, QStringLiteral("[1, 3, 4]"));
  QCOMPARE(weight->bytes, QStringLiteral("48"));
  const Property* bias = module->child(QStringLiteral("Parameters"))->child(QStringLiteral("bias"));
  QCOMPARE(bias->shape, QStringLiteral("[4]"));
  QCOMPARE(bias->bytes, QStringLiteral("16"));
  QCOMPARE(module->child(QStringLiteral("Parameters"))->bytes, QStringLiteral("64"));
  const Property* positions =
      module->child(QStringLiteral("Buffers"))->child(QStringLiteral("kernel_positions"));
  QVERIFY(positions);
  QCOMPARE(positions->value, QStringLiteral("I32"));
  QCOMPARE(positions->shape, QStringLiteral("[1, 3]"));
  QCOMPARE(positions->bytes, QStringLiteral("12"));

  // The same through the Qt model: section row, then the attribute rows.
  QCOMPARE(model.rowCount(), 1);
  const QModelIndex section = model.index(0, 0);
  QCOMPARE(section.data().toString(), QStringLiteral("Module"));
  QModelIndex attributes;
  for (int r = 0; r < model.rowCount(section); ++r)
    if (model.index(r, 0, section).data().toString() == QStringLiteral("Attributes"))
      attributes = model.index(r, 0, section);
  QVERIFY(attributes.isValid());
  QCOMPARE(model.index(0, 0, attributes).data().toString(), QStringLiteral("in_channels"));
  QCOMPARE(model.index(0, InspectorModel::ValueColumn, attributes).data().toString(), QStringLiteral("3"));
  QCOMPARE(model.parent(model.index(0, 0, attributes)), attributes);
}

void TestPanelsInspector::rootModuleSection() {
  StudioSession session;
  InspectorModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, classifier()));
  QVERIFY(!model.showsModule());
  session.selectModule(QString()); // "" is the root's path
  QVERIFY(session.hasModuleSelection());
  const Property* module = model.moduleSection();
  QVERIFY(module);
  QCOMPARE(module->value, QStringLiteral("(root)"));
  QCOMPARE(module->child(QStringLiteral("Type"))->value, QStringLiteral("examples.e2e.SparseClassifier"));
  QCOMPARE(module->child(QStringLiteral("Leaf"))->value, QStringLiteral("root (always traced)"));
  QCOMPARE(module->child(QStringLiteral("Children"))->value, QStringLiteral("6"));
  QCOMPARE(module->child(QStringLiteral("Parameters"))->value, QStringLiteral("0"));
  const Property* totals = module->child(QStringLiteral("Model"));
  QVERIFY(totals);
  QCOMPARE(totals->value, QStringLiteral("7 modules"));
  QCOMPARE(totals->child(QStringLiteral("All parameters"))->value, QStringLiteral("6 tensors"));
  QCOMPARE(totals->child(QStringLiteral("All parameters"))->bytes, QStringLiteral("136"));
  QCOMPARE(totals->child(QStringLiteral("All buffers"))->value, QStringLiteral("4 tensors"));
  QCOMPARE(totals->child(QStringLiteral("All buffers"))->bytes, QStringLiteral("52"));
  // Another module has no totals; clearing the selection empties the inspector.
  session.selectModule(QStringLiteral("head"));
  QVERIFY(!model.moduleSection()->child(QStringLiteral("Model")));
  session.clearModuleSelection();
  QVERIFY(!model.showsModule());
  QCOMPARE(model.rowCount(), 0);
}

void TestPanelsInspector::nodeSection() {
  StudioSession session;
  InspectorModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, classifier()));
  session.selectNode(QStringLiteral("stem"));
  const Property* node = model.nodeSection();
  QVERIFY(node);
  QCOMPARE(node->child(QStringLiteral("Op"))->value, QStringLiteral("call_module"));
  QCOMPARE(node->child(QStringLiteral("Target"))->value, QStringLiteral("stem"));
  QCOMPARE(valueAt(node, QStringLiteral("Args"), QStringLiteral("0")), QStringLiteral("%x"));
  QCOMPARE(node->child(QStringLiteral("Args"))->child(QStringLiteral("0"))->nodeRef, QStringLiteral("x"));
  QCOMPARE(node->child(QStringLiteral("Kwargs"))->children.size(), std::size_t(0));
  QCOMPARE(node->child(QStringLiteral("Users"))->value, QStringLiteral("1"));
  QCOMPARE(node->child(QStringLiteral("Users"))->children.front().name, QStringLiteral("norm"));
  QVERIFY(!node->child(QStringLiteral("Value"))); // not executed yet
  // A call_module node brings its module along.
  QVERIFY(model.moduleSection());
  QCOMPARE(model.shownModule(), QStringLiteral("stem"));

  session.selectNode(QStringLiteral("output"));
  QCOMPARE(model.nodeSection()->child(QStringLiteral("Op"))->value, QStringLiteral("output"));
  QCOMPARE(valueAt(model.nodeSection(), QStringLiteral("Args"), QStringLiteral("0")),
           QStringLiteral("%head"));
  QVERIFY(!model.moduleSection());
}

void TestPanelsInspector::nodeValueAndEmittedOpsAfterStepping() {
  StudioSession session;
  InspectorModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, classifier()));
  session.selectNode(QStringLiteral("stem"));
  session.startInterpreter();
  session.step(); // x
  QVERIFY(!model.nodeSection()->child(QStringLiteral("Value")));
  session.step(); // stem
  QCOMPARE(session.executedNodes().constLast(), QStringLiteral("stem"));
  const Property* value = model.nodeSection()->child(QStringLiteral("Value"));
  QVERIFY(value);
  QCOMPARE(value->children.size(), std::size_t(1));
  const Property& leaf = value->children.front();
  QCOMPARE(leaf.name, QStringLiteral("%stem"));
  QCOMPARE(leaf.child(QStringLiteral("Kind"))->value, QStringLiteral("sparse_tensor"));
  QCOMPARE(leaf.child(QStringLiteral("Channels"))->value, QStringLiteral("4"));
  QCOMPARE(leaf.child(QStringLiteral("DType"))->value, QStringLiteral("f32"));
  QCOMPARE(leaf.child(QStringLiteral("MLIR type"))->value,
           QStringLiteral(
               "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>"));
  // expected.lattice/graph.mlir lines 16-18: %stem_weight, %stem_bias (lattice.weight), %stem
  // (lattice.conv3d).
  const Property* emitted = model.nodeSection()->child(QStringLiteral("Emitted"));
  QVERIFY(emitted);
  QCOMPARE(emitted->children.size(), std::size_t(3));
  QCOMPARE(emitted->children[0].name, QStringLiteral("lattice.weight"));
  QCOMPARE(emitted->children[0].value, QStringLiteral("%stem_weight"));
  QCOMPARE(emitted->children[0].child(QStringLiteral("weight key"))->value, QStringLiteral("stem.weight"));
  QCOMPARE(emitted->children[1].value, QStringLiteral("%stem_bias"));
  QCOMPARE(emitted->children[2].name, QStringLiteral("lattice.conv3d"));
  QCOMPARE(emitted->children[2].value, QStringLiteral("%stem"));
  QCOMPARE(emitted->children[2].tooltip, QStringLiteral("graph.mlir line 18"));
}

void TestPanelsInspector::sectionsFollowTheLatestSelection() {
  StudioSession session;
  InspectorModel model(&session);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(openAndWait(session, classifier()));
  session.selectNode(QStringLiteral("pool"));
  QVERIFY(model.nodeSection());
  // Choosing another module in the tree hides the unrelated node.
  session.selectModule(QStringLiteral("head"));
  QVERIFY(!model.nodeSection());
  QCOMPARE(model.moduleSection()->value, QStringLiteral("head"));
  QCOMPARE(model.rowCount(), 1);
  // Choosing the module the node calls keeps both.
  session.selectNode(QStringLiteral("norm"));
  session.selectModule(QStringLiteral("norm"));
  QVERIFY(model.nodeSection());
  QVERIFY(model.moduleSection());
  QCOMPARE(model.rowCount(), 2);
  // A placeholder has no module.
  session.selectNode(QStringLiteral("x"));
  QVERIFY(model.nodeSection());
  QVERIFY(!model.moduleSection());
}

void TestPanelsInspector::doubleClickOnArgumentSelectsProducer() {
  StudioSession session;
  InspectorPanel panel(&session);
  QVERIFY(openAndWait(session, classifier()));
  session.selectNode(QStringLiteral("norm"));
  panel.resize(500, 600);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  InspectorModel* model = panel.model();
  // Node → Args → 0 ("%stem").
  QModelIndex args;
  const QModelIndex node = model->index(0, 0);
  for (int r = 0; r < model->rowCount(node); ++r)
    if (model->index(r, 0, node).data().toString() == QStringLiteral("Args")) args = model->index(r, 0, node);
  QVERIFY(args.isValid());
  const QModelIndex arg = model->index(0, InspectorModel::ValueColumn, args);
  QCOMPARE(arg.data().toString(), QStringLiteral("%stem"));
  panel.view()->scrollTo(arg);
  const QPoint center = panel.view()->visualRect(arg).center();
  // A real double click: the first click's press, then the double-click event.
  QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {}, center);
  QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, center);
  QCOMPARE(session.selectedNode(), QStringLiteral("stem"));
}

QTEST_MAIN(TestPanelsInspector)
#include "tst_panels_inspector.moc"
