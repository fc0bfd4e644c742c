// The graph view's "lowerable" marks come from the lowering's own verdict on each node (a dry run
// of the lowering, checkLowering), not from a table of names: a dense `operator.add` (what the
// README's old Tiny example did) is marked as refused, a sparse one as lowered. The expectation
// for each model is the lowering's own outcome: finishLowering of the same model and inputs fails
// on the dense add and succeeds on the sparse one. The refusal is in the node's tooltip, and
// the marks follow the inputs when they change. The dry run is a worker's job: the test waits
// for GraphWidget::verdictsChanged.

#include "../unit/LoweringTestModels.h"
#include "StudioSession.h"
#include "WidgetTestSupport.h"
#include "graph/GraphScene.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "graph/NodeStyle.h"
#include "lowering/Lowering.h"
#include "model/Archive.h"

#include <QTemporaryDir>

#include <functional>
#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::testmodels;
using namespace lattice::widgettest;

namespace {

// points/x -> fc/conv -> operator.add(input, fc/conv) -> output, written as an archive.
QString writeModel(const QTemporaryDir& dir, bool sparse) {
  Model model = customModel(positional({"x"}));
  auto graph = std::make_shared<fx::Graph>();
  fx::Node* x = graph->placeholder("x");
  fx::Node* layer = nullptr;
  if (sparse) {
    ConvSpec s;
    s.in = 2;
    s.out = 2;
    addConv(model, "conv", "SubmConv3d", s);
    layer = graph->callModule("conv", {fx::Value::node(x)});
    model.exampleInputs = {sparseInput("x", 2)};
  } else {
    addLinear(model, "fc", 3, 3);
    layer = graph->callModule("fc", {fx::Value::node(x)});
    model.exampleInputs = {denseInput("x", "tensor<?x3xf32>", 3)};
  }
  fx::Node* add = graph->callFunction("operator.add", {fx::Value::node(x), fx::Value::node(layer)});
  graph->output(fx::Value::node(add));
  setRootGraph(model, graph);
  const QString path = dir.filePath(sparse ? QStringLiteral("sparse.ltfx") : QStringLiteral("dense.ltfx"));
  const Status s = writeArchive(model, path.toStdString());
  if (!s) qFatal("%s", s.message().c_str());
  return path;
}

// The lowering's own outcome on the session's model: true when it lowers.
bool lowers(const StudioSession& session) {
  Expected<PreparedLowering> p = prepareLowering(*session.model(), session.exportOptions(), session.graph());
  return p && finishLowering(*p);
}

struct Fixture {
  StudioSession session;
  GraphWidget widget{&session};

  QSignalSpy verdicts{&widget, &GraphWidget::verdictsChanged};

  // Opens `reference` and waits for its layout and the lowering's verdicts (a worker's job).
  bool open(const QString& reference) {
    QSignalSpy finished(&widget, &GraphWidget::layoutFinished);
    widget.resize(900, 700);
    widget.show();
    verdicts.clear();
    if (!openAndWait(session, reference)) return false;
    return waitFor([&] { return !finished.isEmpty() && !verdicts.isEmpty(); });
  }
  // Changes the inputs and waits for the verdicts on them.
  bool setInputs(const std::function<void()>& change) {
    verdicts.clear();
    change();
    return waitFor([&] { return !verdicts.isEmpty(); });
  }
  NodeRole roleOf(const char* node) const {
    NodeItem* item = widget.scene()->nodeItem(QString::fromLatin1(node));
    return item ? item->role() : NodeRole::Group;
  }
};

} // namespace

class TestLoweringMarks : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_lowering_marks")); }

  void denseAddIsNotMarkedLowerable() {
    QTemporaryDir dir;
    Fixture f;
    QVERIFY(f.open(writeModel(dir, false)));
    QVERIFY(!lowers(f.session)); // the lowering refuses this model
    QCOMPARE(f.roleOf("fc"), NodeRole::LatticeModule);
    QCOMPARE(f.roleOf("add"), NodeRole::Unsupported);
    QVERIFY(roleStyle(f.roleOf("add")).blocker);
    const QString tip = f.widget.toolTipFor(f.widget.scene()->nodeItem(QStringLiteral("add")));
    QVERIFY2(tip.contains(QStringLiteral("The lowering refuses it: sparse add lhs expects sparse_tensor")),
             qPrintable(tip));
  }

  void sparseAddIsMarkedLowerable() {
    QTemporaryDir dir;
    Fixture f;
    QVERIFY(f.open(writeModel(dir, true)));
    QVERIFY(lowers(f.session)); // the lowering lowers this model
    QCOMPARE(f.roleOf("conv"), NodeRole::LatticeModule);
    QCOMPARE(f.roleOf("add"), NodeRole::LoweredFunction);
    QVERIFY(!roleStyle(f.roleOf("add")).blocker);
  }

  // The verdicts follow the inputs: the sparse model given a dense input refuses its conv
  // ("SubmConv3d expects sparse_tensor"), and what uses the conv is not reached.
  void marksFollowTheInputs() {
    QTemporaryDir dir;
    Fixture f;
    QVERIFY(f.open(writeModel(dir, true)));
    QVERIFY(f.setInputs(
        [&] { f.session.setInputSpecs({denseInput("x", "tensor<?x2xf32>", 2)}, QStringLiteral("Dense Input")); }));
    QVERIFY(!lowers(f.session));
    QCOMPARE(f.roleOf("conv"), NodeRole::OtherModule);
    QCOMPARE(f.roleOf("add"), NodeRole::Unchecked);
    QVERIFY(f.setInputs([&] { f.session.resetInputSpecs(); }));
    QCOMPARE(f.roleOf("add"), NodeRole::LoweredFunction);
  }
};

QTEST_MAIN(TestLoweringMarks)
#include "tst_lowering_marks.moc"
