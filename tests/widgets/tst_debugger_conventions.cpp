// The debugger keys as IDEs have them. F5 from idle (not started, finished, failed) starts and
// runs to the first enabled breakpoint, the very first node's included, or to the end; F5 when
// paused continues. Over the module groups of the graph: Step Over (F10) runs a collapsed group
// as one step, pausing before the node after it; Step Into (F11) on a node hidden in a collapsed
// group expands it instead of running; Step Out (Shift+F11) runs to the first node outside the
// current node's innermost group. The expected nodes come from the graph's order, the breakpoint
// set and the grouping's paths (groupPathsOf), not from the step helpers. StepTargets itself is
// checked on a hand-built graph whose answers are worked out by hand. The window title names the
// current tab's document.

#include "MainWindow.h"
#include "StudioSession.h"
#include "graph/GraphWidget.h"
#include "layout/GraphGrouping.h"
#include "session/StepTargets.h"

#include "WidgetTestSupport.h"

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <algorithm>

using lattice::GraphGrouping;
using lattice::studio::GraphWidget;
using lattice::studio::MainWindow;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;
namespace fx = lattice::fx;

using namespace lattice::widgettest;

namespace {

const QString kResnet = QStringLiteral("example:sparse_resnet21d");

bool waitForRunEnd(const StudioSession& session) {
  return waitFor([&] { return !session.isRunning(); }, 60000);
}

/// Opens `reference` in the window and waits for the model and its first layout.
bool openInWindow(MainWindow& window, const QString& reference) {
  QSignalSpy laidOut(window.graphWidget(), &GraphWidget::layoutFinished);
  if (!openAndWait(*window.session(), reference)) return false;
  return waitFor([&] { return !laidOut.isEmpty(); });
}

/// The graph's node names in order (the order the interpreter executes).
QStringList graphOrder(const fx::Graph& graph) {
  QStringList names;
  for (const fx::Node& n : graph.nodes())
    names << QString::fromStdString(n.name());
  return names;
}

/// Members of group `path` in graph order, by the paths of the groups holding each node.
QStringList membersOf(const GraphGrouping& grouping, const fx::Graph& graph, const std::string& path) {
  QStringList out;
  for (const fx::Node& n : graph.nodes()) {
    const std::vector<std::string> paths = grouping.groupPathsOf(n.name());
    if (std::find(paths.begin(), paths.end(), path) != paths.end()) out << QString::fromStdString(n.name());
  }
  return out;
}

/// A top-level module group of at least `minNodes` nodes, consecutive in graph order, that
/// neither starts nor ends the graph and holds a sub-group.
std::string pickGroup(const GraphGrouping& grouping, const fx::Graph& graph, int minNodes) {
  const QStringList order = graphOrder(graph);
  for (const lattice::Group& g : grouping.groups()) {
    if (g.depth != 1 || g.synthetic) continue;
    const bool nested = std::any_of(g.children.begin(), g.children.end(), [](const auto& c) { return c.isGroup; });
    const QStringList members = membersOf(grouping, graph, g.path);
    if (!nested || members.size() < minNodes) continue;
    const int first = int(order.indexOf(members.front()));
    if (first <= 0 || first + members.size() >= order.size()) continue;
    if (order.mid(first, members.size()) == members) return g.path;
  }
  return {};
}

} // namespace

class TestDebuggerConventions : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_debugger_conventions")); }

  void stepTargetsOnAHandBuiltGraph();
  void f5FromIdleRunsToTheFirstBreakpoint();
  void f5StopsOnABreakpointOnTheFirstNode();
  void f5WithoutBreakpointsRunsToTheEnd();
  void stepOverRunsACollapsedGroupAsOneStep();
  void stepIntoExpandsAndStepOutLeavesTheGroup();
  void windowTitleFollowsTheCurrentTab();
};

// x; blk.0.conv, blk.0.relu (group blk.0 in blk); blk.1.conv (blk.1 in blk); head (root);
// output. By hand: collapsed blk hides nodes 1..3, whose end is node 4 (head); blk.0 ends at 3.
void TestDebuggerConventions::stepTargetsOnAHandBuiltGraph() {
  using namespace lattice::studio;
  fx::Graph g;
  fx::Node* x = g.placeholder("x");
  fx::Node* c0 = g.callModule("blk.0.conv", {fx::Value::node(x)});
  fx::Node* r0 = g.callModule("blk.0.relu", {fx::Value::node(c0)});
  fx::Node* c1 = g.callModule("blk.1.conv", {fx::Value::node(r0)});
  fx::Node* head = g.callModule("head", {fx::Value::node(c1)});
  g.output(fx::Value::node(head));
  const GraphGrouping grouping = GraphGrouping::build(g);
  QCOMPARE(grouping.nodes().size(), std::size_t(6));
  const int blk = grouping.findGroup("blk"), blk0 = grouping.findGroup("blk.0"), blk1 = grouping.findGroup("blk.1");
  QVERIFY(blk > 0 && blk0 > 0 && blk1 > 0);

  const lattice::ExpandedGroups none;
  QCOMPARE(collapsedGroupOf(grouping, none, 0), -1); // x is in the root
  QCOMPARE(collapsedGroupOf(grouping, none, 1), blk);
  QCOMPARE(stepOverTarget(grouping, none, 0), 1);
  QCOMPARE(stepOverTarget(grouping, none, 1), 4);
  QCOMPARE(stepOverTarget(grouping, none, 2), 4); // from inside the box too
  QCOMPARE(stepOverTarget(grouping, none, 4), 5);
  QCOMPARE(stepOverTarget(grouping, none, 5), -1); // the output: the end

  const lattice::ExpandedGroups outer{"blk"};
  QCOMPARE(collapsedGroupOf(grouping, outer, 1), blk0);
  QCOMPARE(stepOverTarget(grouping, outer, 1), 3);
  QCOMPARE(stepOverTarget(grouping, outer, 3), 4);

  const lattice::ExpandedGroups all{"blk", "blk.0", "blk.1"};
  QCOMPARE(collapsedGroupOf(grouping, all, 1), -1);
  QCOMPARE(stepOverTarget(grouping, all, 1), 2);
  // A listed group whose parent is collapsed is still hidden by the parent.
  QCOMPARE(collapsedGroupOf(grouping, lattice::ExpandedGroups{"blk.0"}, 1), blk);

  QCOMPARE(innermostModuleGroup(grouping, 2), blk0);
  QCOMPARE(stepOutTarget(grouping, 1), 3);
  QCOMPARE(stepOutTarget(grouping, 2), 3);
  QCOMPARE(stepOutTarget(grouping, 3), 4);
  QCOMPARE(stepOutTarget(grouping, 4), -1); // a node of the root: to the end
  QCOMPARE(lastNodeOf(grouping, blk), 3);
  QCOMPARE(nodeAfterGroup(grouping, blk1), 4);
}

void TestDebuggerConventions::f5FromIdleRunsToTheFirstBreakpoint() {
  MainWindow window;
  QVERIFY(openInWindow(window, kResnet));
  StudioSession* session = window.session();
  const QStringList order = graphOrder(*session->graph());
  QVERIFY(order.size() > 20);
  // Two breakpoints, set in reverse graph order: the run stops at the earlier one.
  const QString late = order[order.size() * 2 / 3];
  const QString early = order[order.size() / 3];
  session->toggleBreakpoint(late);
  session->toggleBreakpoint(early);
  QStringList expected;
  for (const QString& node : order)
    if (session->breakpoints().contains(node)) expected << node;
  QCOMPARE(expected.size(), 2);

  QAction* f5 = window.action(QStringLiteral("debug.start"));
  QCOMPARE(f5->shortcut(), QKeySequence(Qt::Key_F5));
  QCOMPARE(session->interpreterState(), State::NotStarted);
  f5->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), expected[0]);
  QCOMPARE(session->executedNodes(), order.mid(0, order.indexOf(expected[0])));

  f5->trigger(); // paused: continue to the next one
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), expected[1]);
  f5->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->interpreterState(), State::Finished);
  QCOMPARE(session->executedNodes(), order);

  f5->trigger(); // finished: start again, to the first breakpoint
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), expected[0]);
  QCOMPARE(session->executedNodes().size(), order.indexOf(expected[0]));
}

void TestDebuggerConventions::f5StopsOnABreakpointOnTheFirstNode() {
  MainWindow window;
  QVERIFY(openInWindow(window, kResnet));
  StudioSession* session = window.session();
  const QString first = QString::fromStdString(session->graph()->nodes().front().name());
  session->toggleBreakpoint(first);
  window.action(QStringLiteral("debug.start"))->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), first);
  QVERIFY(session->executedNodes().isEmpty());
}

void TestDebuggerConventions::f5WithoutBreakpointsRunsToTheEnd() {
  MainWindow window;
  QVERIFY(openInWindow(window, kResnet));
  StudioSession* session = window.session();
  session->setRunSliceBudget(2); // in slices, from the event loop
  QVERIFY(session->breakpoints().isEmpty());
  window.action(QStringLiteral("debug.start"))->trigger();
  QVERIFY(waitForRunEnd(*session));
  QVERIFY2(session->interpreterState() == State::Finished, qPrintable(session->lastError()));
  QCOMPARE(session->executedNodes(), graphOrder(*session->graph()));
}

void TestDebuggerConventions::stepOverRunsACollapsedGroupAsOneStep() {
  MainWindow window;
  QVERIFY(openInWindow(window, kResnet));
  StudioSession* session = window.session();
  GraphWidget* graph = window.graphWidget();
  const GraphGrouping& grouping = *graph->grouping();
  const QStringList order = graphOrder(*session->graph());
  const std::string path = pickGroup(grouping, *session->graph(), 4);
  QVERIFY(!path.empty());
  const QStringList members = membersOf(grouping, *session->graph(), path);
  const QString after = order[order.indexOf(members.constLast()) + 1];

  QAction* f10 = window.action(QStringLiteral("debug.step"));
  QCOMPARE(f10->shortcut(), QKeySequence(Qt::Key_F10));
  // Outside collapsed groups F10 is one node.
  f10->trigger(); // starts, paused on the first node
  f10->trigger();
  QCOMPARE(session->executedNodes(), order.mid(0, 1));

  graph->collapseGroup(QString::fromStdString(path));
  QVERIFY(!graph->expandedGroups().count(path));
  session->runToNode(members.front());
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), members.front());
  int before = int(session->executedNodes().size());
  f10->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->executedNodes().mid(before), members);
  QCOMPARE(session->currentNode(), after);

  // A breakpoint inside the group stops the step there.
  session->toggleBreakpoint(members[2]);
  session->runToNode(members.front()); // already ran: starts over
  QVERIFY(waitForRunEnd(*session));
  before = int(session->executedNodes().size());
  f10->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), members[2]);
  QCOMPARE(session->executedNodes().mid(before), members.mid(0, 2));
  // Disabled, it no longer does.
  session->setBreakpointEnabled(members[2], false);
  session->runToNode(members.front());
  QVERIFY(waitForRunEnd(*session));
  f10->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), after);
}

void TestDebuggerConventions::stepIntoExpandsAndStepOutLeavesTheGroup() {
  MainWindow window;
  QVERIFY(openInWindow(window, kResnet));
  StudioSession* session = window.session();
  GraphWidget* graph = window.graphWidget();
  const GraphGrouping& grouping = *graph->grouping();
  const QStringList order = graphOrder(*session->graph());
  const std::string path = pickGroup(grouping, *session->graph(), 4);
  QVERIFY(!path.empty());
  const QStringList members = membersOf(grouping, *session->graph(), path);

  QAction* f11 = window.action(QStringLiteral("debug.stepInto"));
  QAction* stepOut = window.action(QStringLiteral("debug.stepOut"));
  QVERIFY(f11 && stepOut);
  QCOMPARE(f11->shortcut(), QKeySequence(Qt::Key_F11));
  QCOMPARE(stepOut->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F11));
  QVERIFY(!stepOut->isEnabled()); // nothing to step out of before the start

  graph->collapseGroup(QString::fromStdString(path));
  session->runToNode(members.front());
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), members.front());
  const int before = int(session->executedNodes().size());
  // Into the collapsed group: it opens down to the node that runs next; nothing runs.
  f11->trigger();
  QCOMPARE(session->currentNode(), members.front());
  QCOMPARE(int(session->executedNodes().size()), before);
  for (const std::string& p : grouping.groupPathsOf(members.front().toStdString()))
    QVERIFY2(graph->expandedGroups().count(p), p.c_str());
  // Then F11 is one node.
  f11->trigger();
  QCOMPARE(int(session->executedNodes().size()), before + 1);
  QCOMPARE(session->currentNode(), members[1]);

  // Out of the current node's innermost group: the first node after it not in that group.
  const std::vector<std::string> paths = grouping.groupPathsOf(members[1].toStdString());
  QVERIFY(!paths.empty());
  const std::string innermost = paths.back();
  QString expected;
  for (int i = int(order.indexOf(members[1])); i < order.size() && expected.isEmpty(); ++i) {
    const std::vector<std::string> p = grouping.groupPathsOf(order[i].toStdString());
    if (std::find(p.begin(), p.end(), innermost) == p.end()) expected = order[i];
  }
  QVERIFY(!expected.isEmpty());
  QVERIFY(stepOut->isEnabled());
  stepOut->trigger();
  QVERIFY(waitForRunEnd(*session));
  QCOMPARE(session->currentNode(), expected);
  // Out of the top-level group: to the first node after the group.
  const QString afterGroup = order[order.indexOf(members.constLast()) + 1];
  while (session->currentNode() != afterGroup) {
    const QString from = session->currentNode();
    QVERIFY2(members.contains(from), qPrintable(from));
    stepOut->trigger();
    QVERIFY(waitForRunEnd(*session));
    QVERIFY(session->currentNode() != from);
  }
  QCOMPARE(session->executedNodes().size(), order.indexOf(afterGroup));
}

void TestDebuggerConventions::windowTitleFollowsTheCurrentTab() {
  MainWindow window;
  const QString reference = QStringLiteral("example:chain:2");
  const QString artifact = conformanceDir() + QStringLiteral("/sparse_classifier/expected.lattice");
  const auto titleOf = [](const QString& source) { return QStringLiteral("%1 — Lattice Studio").arg(source); };
  QCOMPARE(window.windowTitle(), QStringLiteral("Lattice Studio"));
  QVERIFY(openInWindow(window, reference));
  QCOMPARE(window.windowTitle(), titleOf(reference));
  window.openArtifact(artifact);
  QCOMPARE(window.tabs()->currentIndex(), 1);
  QCOMPARE(window.windowTitle(), titleOf(QFileInfo(artifact).fileName()));
  window.tabs()->setCurrentIndex(0);
  QCOMPARE(window.windowTitle(), titleOf(reference));
  window.tabs()->setCurrentIndex(1);
  QCOMPARE(window.windowTitle(), titleOf(QFileInfo(artifact).fileName()));
  // Another model, opened while the artifact shows: its tab comes up, and its name.
  QVERIFY(openInWindow(window, QStringLiteral("example:chain:3")));
  QCOMPARE(window.tabs()->currentIndex(), 0);
  QCOMPARE(window.windowTitle(), titleOf(QStringLiteral("example:chain:3")));
}

QTEST_MAIN(TestDebuggerConventions)
#include "tst_debugger_conventions.moc"
