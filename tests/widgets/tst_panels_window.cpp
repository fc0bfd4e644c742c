// The studio window with its panels: on example:sparse_resunet42, F10
// steps the interpreter with values and MLIR appearing, and File ▸ Export Artifact… (the export
// dialog, driven while it is modal) writes an artifact equal byte for byte to what
// saveLatticeModelArtifact — `lattice-cli lower` — writes for the same model. A long run
// (Continue on the chain example) goes on in slices while the event loop keeps turning, shows its
// progress in the status bar and ends with the complete graph.mlir in the MLIR panel; with
// LATTICE_LARGE_RUN=N it runs example:chain:N (lattice-studio-bench --run times such a run and
// its longest event-loop stall). Artifact and compare tabs hide the model's panels and give them
// back, in the layout the user left, on the model tab; a window opened on an artifact alone shows
// no empty model tab.

#include "MainWindow.h"
#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactNodeItem.h"
#include "artifactview/ArtifactView.h"
#include "lowering/Lowering.h"
#include "artifactview/MlirTextView.h"
#include "graph/ClusterItem.h"
#include "graph/GraphScene.h"
#include "graph/GraphSearchBar.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "model/LoadModel.h"
#include "panels/ExportDialog.h"
#include "panels/InterpreterPanel.h"
#include "panels/MlirPanel.h"
#include "panels/ModuleTreeModel.h"
#include "panels/ModuleTreePanel.h"
#include "panels/Panels.h"
#include "panels/ValueTableModel.h"

#include "WidgetTestSupport.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <functional>

using lattice::studio::ExportDialog;
using lattice::studio::InterpreterPanel;
using lattice::studio::MainWindow;
using lattice::studio::MlirPanel;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

QString conformanceArtifact(const QString& name) {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/") + name +
         QStringLiteral("/expected.lattice");
}

/// Shows the window at `size` and waits until it is exposed and
/// active: the window's shortcuts (F5, F8, ...) reach only an active window, and on a loaded
/// machine activation can come after exposure.
bool showActive(MainWindow& window, QSize size = QSize(1400, 900)) {
  window.resize(size);
  window.show();
  window.activateWindow();
  return QTest::qWaitForWindowExposed(&window) && QTest::qWaitForWindowActive(&window);
}

/// Opens `reference` in the window and waits for the model and its first layout.
bool openAndWait(MainWindow& window, const QString& reference) {
  QSignalSpy loaded(window.session(), &StudioSession::modelLoaded);
  QSignalSpy laidOut(window.graphWidget(), &lattice::studio::GraphWidget::layoutFinished);
  window.openModel(reference);
  for (int i = 0; i < 1200 && (loaded.isEmpty() || laidOut.isEmpty()); ++i)
    QTest::qWait(50);
  return !loaded.isEmpty() && !laidOut.isEmpty();
}

/// The artifact saveLatticeModelArtifact writes for `reference` (what `lattice-cli lower` does),
/// into `directory`.
bool saveLikeTheCli(const QString& reference, const QString& directory) {
  lattice::Expected<lattice::Model> model = lattice::loadModel(reference.toStdString());
  return model && lattice::saveLatticeModelArtifact(*model, directory.toStdString()).ok();
}

QString statusText(const MainWindow& window) {
  QStringList texts;
  for (const QLabel* label : window.statusBar()->findChildren<QLabel*>())
    texts << label->text();
  return texts.join(QLatin1Char('|'));
}

QList<QDockWidget*> docks(const MainWindow& window) {
  return window.findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly);
}

QDockWidget* dock(const MainWindow& window, const char* name) {
  return window.findChild<QDockWidget*>(QString::fromLatin1(name));
}

} // namespace

class TestPanelsWindow : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void init();
  void stepAndExportThroughTheMenu();
  void f5ContinuesWhenPausedAndRestartStartsOver();
  void longRunKeepsTheWindowResponsive();
  void artifactTabHidesModelPanels();
  void artifactOnlyWindow();
  void valueTableShowsTheLastRowAfterContinue_data();
  void valueTableShowsTheLastRowAfterContinue();
  void leafUndoRedoKeepsTheModuleInView();
  void settingsAreSavedWhenTheyChange();
  void onlyValidArtifactsBecomeRecent();
  void openArtifactStartsAtTheLastExport();
  void findWorksInArtifactTabs();

private:
  QTemporaryDir m_settingsDir;
};

void TestPanelsWindow::initTestCase() {
  QVERIFY(m_settingsDir.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_panels_window"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
}

void TestPanelsWindow::init() {
  QSettings().clear(); // no saved layout, no remembered export options
}

void TestPanelsWindow::stepAndExportThroughTheMenu() {
  const QString reference = QStringLiteral("example:sparse_resunet42");
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, reference));
  StudioSession* session = window.session();
  auto* interpreter = window.findChild<InterpreterPanel*>();
  auto* mlir = window.findChild<MlirPanel*>();
  QVERIFY(interpreter && mlir);

  // F10 on a fresh session starts on the first node; each further F10 executes one node, whose
  // value appears in the table while the MLIR text grows.
  QTest::keyClick(&window, Qt::Key_F10);
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), QStringLiteral("x"));
  int lines = mlir->editor()->document()->blockCount();
  for (int i = 1; i <= 5; ++i) {
    QTest::keyClick(&window, Qt::Key_F10);
    QCOMPARE(session->executedNodes().size(), i);
    QCOMPARE(interpreter->valueModel()->executedRows(), i);
    const QString last = session->executedNodes().constLast();
    QCOMPARE(interpreter->valueModel()
                 ->index(i - 1, lattice::studio::ValueTableModel::NodeColumn)
                 .data()
                 .toString(),
             last);
    if (i > 1) { // the placeholder's arguments were written at start; modules emit ops
      QVERIFY2(!interpreter->valueModel()
                    ->index(i - 1, lattice::studio::ValueTableModel::SsaColumn)
                    .data()
                    .toString()
                    .isEmpty(),
               qPrintable(last));
      QVERIFY(mlir->editor()->document()->blockCount() > lines);
    }
    lines = mlir->editor()->document()->blockCount();
  }
  QVERIFY(statusText(window).contains(QStringLiteral("5 executed")));

  // File ▸ Export Artifact…: the dialog is modal; drive it once it is up.
  QTemporaryDir out;
  const QString target = out.filePath(QStringLiteral("studio.lattice"));
  bool exported = false;
  QTimer::singleShot(0, this, [&] {
    auto* dialog = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
    if (!dialog) {
      qWarning("no export dialog is up");
      return;
    }
    QSignalSpy done(dialog, &ExportDialog::artifactExported);
    dialog->setTargetDirectory(target);
    dialog->startExport();
    exported = done.wait(60000);
    dialog->reject();
  });
  window.action(QStringLiteral("file.export"))->trigger();
  QVERIFY(exported);
  QCOMPARE(session->lastExport(), target);

  QVERIFY(saveLikeTheCli(reference, out.filePath(QStringLiteral("cli.lattice"))));
  const QByteArray mlirText = readAll(target + QStringLiteral("/graph.mlir"));
  QVERIFY(mlirText.startsWith("module"));
  QCOMPARE(mlirText, readAll(out.filePath(QStringLiteral("cli.lattice/graph.mlir"))));
  const QByteArray weights = readAll(target + QStringLiteral("/weights.safetensors"));
  QVERIFY(weights.size() > 80'000'000); // 86.9 MB of parameters (lattice-cli info)
  QVERIFY(weights == readAll(out.filePath(QStringLiteral("cli.lattice/weights.safetensors"))));
  // Stepping was not disturbed by the export.
  QCOMPARE(session->executedNodes().size(), 5);
}

// F5 continues when paused, as in every debugger (from idle it runs to the first breakpoint:
// tst_debugger_conventions); Restart is Ctrl+Shift+F5. The status bar counts "1 breakpoint".
void TestPanelsWindow::f5ContinuesWhenPausedAndRestartStartsOver() {
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:2")));
  StudioSession* session = window.session();
  QCOMPARE(window.action(QStringLiteral("debug.restart"))->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+F5")));

  QTest::keyClick(&window, Qt::Key_F10); // start: paused on the first node
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->executedNodes().size(), 0);
  QTest::keyClick(&window, Qt::Key_F10);
  QTest::keyClick(&window, Qt::Key_F10);
  QCOMPARE(session->executedNodes().size(), 2);

  // A breakpoint on the last block's relu; F5 runs on to it instead of starting over.
  const QString relu = QStringLiteral("blocks_1_2");
  QVERIFY(session->graph()->findNode(relu.toStdString()));
  session->toggleBreakpoint(relu);
  QVERIFY2(statusText(window).contains(QStringLiteral("  1 breakpoint|")) &&
               !statusText(window).contains(QStringLiteral("1 breakpoints")),
           qPrintable(statusText(window)));
  QTest::keyClick(&window, Qt::Key_F5);
  for (int i = 0; i < 500 && session->isRunning(); ++i) QTest::qWait(10);
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->currentNode(), relu);
  const int reached = int(session->executedNodes().size());
  QVERIFY(reached > 2);

  QTest::keyClick(&window, Qt::Key_F5, Qt::ControlModifier | Qt::ShiftModifier); // restart
  QCOMPARE(session->interpreterState(), State::Paused);
  QCOMPARE(session->executedNodes().size(), 0);
}

void TestPanelsWindow::longRunKeepsTheWindowResponsive() {
  const int blocks = qEnvironmentVariableIsSet("LATTICE_LARGE_RUN")
                         ? qEnvironmentVariableIntValue("LATTICE_LARGE_RUN")
                         : 1000;
  QVERIFY(blocks > 0);
  const QString reference = QStringLiteral("example:chain:%1").arg(blocks);
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, reference));
  StudioSession* session = window.session();
  auto* mlir = window.findChild<MlirPanel*>();
  auto* interpreter = window.findChild<InterpreterPanel*>();

  window.action(QStringLiteral("debug.restart"))->trigger(); // paused on the first node
  QCOMPARE(session->interpreterState(), State::Paused);
  // A run of 3000 nodes can fit in one default slice on a fast machine, and then it is never
  // "running" between slices; a 2 ms budget makes it run in many slices everywhere.
  session->setRunSliceBudget(2);
  QVERIFY(window.action(QStringLiteral("debug.continue"))->isEnabled());
  const int total = 1 + 3 * blocks + 1;
  QCOMPARE(session->totalNodes(), total);

  // A probe that re-posts itself as a queued call runs once per event-loop turn, as pending
  // input and paint events do: it sees the run's progress only if the run yields to the event
  // loop between slices. (lattice-studio-bench --run times the longest stall.)
  bool sawProgress = false;
  bool probing = true;
  std::function<void()> probe = [&] {
    if (session->isRunning() && statusText(window).contains(QStringLiteral("running… node")))
      sawProgress = true;
    if (probing) QMetaObject::invokeMethod(this, probe, Qt::QueuedConnection);
  };
  // However the test leaves this function (a failed QVERIFY returns early), the probe stops and
  // its last queued call runs while the locals it refers to still exist.
  struct StopProbe {
    bool& probing;
    ~StopProbe() {
      probing = false;
      QCoreApplication::sendPostedEvents();
    }
  } stopProbe{probing};
  QSignalSpy stepped(session, &StudioSession::interpreterStepped);
  QSignalSpy running(session, &StudioSession::runningChanged);
  QMetaObject::invokeMethod(this, probe, Qt::QueuedConnection);
  QTest::keyClick(&window, Qt::Key_F8); // Debug ▸ Continue
  QVERIFY(session->isRunning());
  QVERIFY(!window.action(QStringLiteral("debug.step"))->isEnabled());
  QVERIFY(window.action(QStringLiteral("debug.interrupt"))->isEnabled());
  for (int i = 0; i < 6000 && session->isRunning(); ++i)
    QTest::qWait(10);
  probing = false;
  QTest::qWait(1); // the last probe call runs out
  QVERIFY(!session->isRunning());
  QCOMPARE(session->interpreterState(), State::Finished);
  QCOMPARE(session->executedNodes().size(), total);
  QCOMPARE(interpreter->valueModel()->rowCount(), total);
  QVERIFY(sawProgress);
  QVERIFY(stepped.count() > 1); // several slices, each refreshing the panels once
  QCOMPARE(running.count(), 2);
  QVERIFY(statusText(window).contains(QStringLiteral("finished")));

  // The MLIR panel holds exactly what the builder wrote, and what the CLI writes.
  const std::string built = session->lowering()->builder->writer().str().value();
  QCOMPARE(mlir->text(), QString::fromStdString(built));
  if (blocks <= 1000) {
    QTemporaryDir out;
    QVERIFY(saveLikeTheCli(reference, out.filePath(QStringLiteral("cli.lattice"))));
    QCOMPARE(QByteArray::fromStdString(built),
             readAll(out.filePath(QStringLiteral("cli.lattice/graph.mlir"))));
  }
}

void TestPanelsWindow::artifactTabHidesModelPanels() {
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:3")));
  QVERIFY(window.isModelTabActive());
  // The user closes the MLIR panel; the others stay.
  dock(window, "mlirDock")->close();
  QStringList shown;
  for (QDockWidget* d : docks(window))
    if (d->toggleViewAction()->isChecked()) shown << d->objectName();
  QVERIFY(shown.contains(QStringLiteral("moduleTreeDock")));
  QVERIFY(!shown.contains(QStringLiteral("mlirDock")));

  window.openArtifact(conformanceArtifact(QStringLiteral("sparse_classifier")));
  QVERIFY(!window.isModelTabActive());
  for (QDockWidget* d : docks(window)) {
    QVERIFY2(d->isHidden(), qPrintable(d->objectName()));
    QVERIFY(!d->toggleViewAction()->isEnabled());
  }
  QVERIFY(!window.action(QStringLiteral("debug.step"))->isEnabled());
  QVERIFY(!window.action(QStringLiteral("debug.start"))->isEnabled());
  QVERIFY(window.action(QStringLiteral("file.export"))->isEnabled()); // the model can still be exported

  // Back on the model tab: the panels the user had, and only those.
  window.tabs()->setCurrentIndex(0);
  QVERIFY(window.isModelTabActive());
  QStringList back;
  for (QDockWidget* d : docks(window)) {
    QVERIFY(d->toggleViewAction()->isEnabled());
    if (d->toggleViewAction()->isChecked()) back << d->objectName();
  }
  std::sort(shown.begin(), shown.end());
  std::sort(back.begin(), back.end());
  QCOMPARE(back, shown);
  QVERIFY(dock(window, "moduleTreeDock")->isVisible());
  QVERIFY(window.action(QStringLiteral("debug.step"))->isEnabled());

  // Settings written while an artifact tab shows keep the model tab's layout.
  window.tabs()->setCurrentIndex(1);
  window.close();
  MainWindow again;
  again.show();
  QVERIFY(QTest::qWaitForWindowExposed(&again));
  QVERIFY(dock(again, "moduleTreeDock")->isVisible());
  QVERIFY(dock(again, "interpreterDock")->isVisible());
  QVERIFY(!dock(again, "mlirDock")->isVisible());
}

void TestPanelsWindow::artifactOnlyWindow() {
  MainWindow window;
  QVERIFY(showActive(window, QSize(1200, 800)));
  window.openArtifact(conformanceArtifact(QStringLiteral("sparse_classifier")));
  // No model was opened: no empty model tab, no empty panels.
  QCOMPARE(window.tabs()->count(), 2);
  QVERIFY(!window.tabs()->isTabVisible(0));
  QCOMPARE(window.tabs()->currentIndex(), 1);
  for (QDockWidget* d : docks(window))
    QVERIFY2(!d->isVisible(), qPrintable(d->objectName()));
  // Opening a model brings the model tab (and its panels) up.
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:2")));
  QVERIFY(window.tabs()->isTabVisible(0));
  QCOMPARE(window.tabs()->currentIndex(), 0);
  QVERIFY(dock(window, "moduleTreeDock")->isVisible());
  QVERIFY(dock(window, "interpreterDock")->isVisible());
}

void TestPanelsWindow::valueTableShowsTheLastRowAfterContinue_data() {
  QTest::addColumn<int>("sliceBudget");
  QTest::newRow("default slices") << -1;
  QTest::newRow("one node per slice") << 0;
}

// After Continue stops (a breakpoint, the end) the value table shows the last
// executed row and the row of the node that runs next, however many rows the run appended.
void TestPanelsWindow::valueTableShowsTheLastRowAfterContinue() {
  QFETCH(int, sliceBudget);
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:60"))); // 182 nodes
  StudioSession* session = window.session();
  if (sliceBudget >= 0) session->setRunSliceBudget(sliceBudget);
  auto* interpreter = window.findChild<InterpreterPanel*>();
  QTableView* table = interpreter->valueView();
  auto shown = [&](int row) {
    const QRect cell = table->visualRect(interpreter->valueModel()->index(row, 0));
    return cell.isValid() && table->viewport()->rect().contains(cell);
  };
  QTest::keyClick(&window, Qt::Key_F5, Qt::ControlModifier | Qt::ShiftModifier); // paused on the first node
  const QString stop = QStringLiteral("blocks_45_1");
  session->toggleBreakpoint(stop);
  QTest::keyClick(&window, Qt::Key_F8);
  QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 30000);
  QCOMPARE(session->currentNode(), stop);
  const int last = interpreter->valueModel()->executedRows() - 1;
  QCOMPARE(last, 1 + 45 * 3);                                      // x, 45 blocks, blocks_45_0
  QVERIFY(table->viewport()->height() < table->rowHeight(0) * 60); // the rows do not all fit
  QVERIFY2(shown(last), qPrintable(QStringLiteral("row %1 not shown").arg(last)));
  QVERIFY(shown(last + 1)); // the current row
  // To the end.
  QTest::keyClick(&window, Qt::Key_F8);
  QTRY_VERIFY_WITH_TIMEOUT(!session->isRunning(), 30000);
  QCOMPARE(session->interpreterState(), State::Finished);
  QVERIFY(shown(interpreter->valueModel()->rowCount() - 1));
}

// Edit ▸ Undo (Ctrl+Z) and Redo (Ctrl+Shift+Z) take back and repeat a leaf toggle
// made in the module tree, and after each re-layout the graph shows the toggled module (its
// call node as a leaf, its frame when inlined) even when the view was scrolled elsewhere.
void TestPanelsWindow::leafUndoRedoKeepsTheModuleInView() {
  MainWindow window;
  QVERIFY(showActive(window));
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:40"))); // 122 nodes, every group open
  StudioSession* session = window.session();
  lattice::studio::GraphWidget* graph = window.graphWidget();
  auto* tree = window.findChild<lattice::studio::ModuleTreePanel*>();
  QVERIFY(tree);
  QAction* undo = window.action(QStringLiteral("edit.undo"));
  QAction* redo = window.action(QStringLiteral("edit.redo"));
  QVERIFY(undo && redo);
  QVERIFY(!undo->isEnabled());
  auto inView = [&](QGraphicsItem* item) {
    lattice::studio::GraphView* view = graph->view();
    return item &&
           view->mapToScene(view->viewport()->rect()).boundingRect().intersects(item->sceneBoundingRect());
  };
  auto scrollAway = [&] { // to the first node, far from block 30
    graph->view()->setZoom(1.0);
    graph->view()->centerOn(graph->scene()->nodeItem(QStringLiteral("x")));
  };
  auto relaidOut = [&](const std::function<void()>& act) {
    QSignalSpy finished(graph, &lattice::studio::GraphWidget::layoutFinished);
    act();
    return waitFor([&] { return !finished.isEmpty(); }, 30000);
  };

  const QModelIndex leaf = tree->model()
                               ->indexOfPath(QStringLiteral("blocks.30"))
                               .siblingAtColumn(lattice::studio::ModuleTreeModel::LeafColumn);
  QVERIFY(relaidOut([&] { tree->model()->setData(leaf, Qt::Checked, Qt::CheckStateRole); }));
  QCOMPARE(int(session->graph()->size()), 122 - 2); // block 30's three layers are one node
  QVERIFY(inView(graph->scene()->nodeItem(QStringLiteral("blocks_30"))));
  QVERIFY(undo->isEnabled());
  QCOMPARE(undo->text().remove(QLatin1Char('&')), QStringLiteral("Undo Keep blocks.30 as Leaf"));

  scrollAway();
  QVERIFY(!inView(graph->scene()->nodeItem(QStringLiteral("blocks_30"))));
  QVERIFY(relaidOut([&] { QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier); }));
  QCOMPARE(int(session->graph()->size()), 122);
  QVERIFY(!graph->scene()->nodeItem(QStringLiteral("blocks_30")));
  QCOMPARE(session->selectedModule(), QStringLiteral("blocks.30"));
  QVERIFY(inView(graph->scene()->clusterItem(QStringLiteral("blocks.30"))));
  QVERIFY(inView(graph->scene()->nodeItem(QStringLiteral("blocks_30_1"))));
  QVERIFY(!undo->isEnabled());
  QVERIFY(redo->isEnabled());

  scrollAway();
  QVERIFY(relaidOut([&] { QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier); }));
  QCOMPARE(int(session->graph()->size()), 120);
  QVERIFY(inView(graph->scene()->nodeItem(QStringLiteral("blocks_30"))));
  QCOMPARE(static_cast<Qt::CheckState>(leaf.data(Qt::CheckStateRole).toInt()), Qt::Checked);

  // From an artifact tab, Undo brings the model tab back to show what it changed.
  window.openArtifact(conformanceArtifact(QStringLiteral("sparse_classifier")));
  QVERIFY(!window.isModelTabActive());
  undo->trigger();
  QVERIFY(window.isModelTabActive());
  QCOMPARE(int(session->graph()->size()), 122);
}

// Every setting is written when it changes, not only when the window closes: the
// settings file on disk has it at once, and another window (the first never closed) starts
// with it.
void TestPanelsWindow::settingsAreSavedWhenTheyChange() {
  // Read from the file itself (QSettings objects share what they cached in memory).
  const QString file = QSettings().fileName();
  auto onDisk = [&](const QString& key) -> QVariant {
    const QString group = key.section(QLatin1Char('/'), 0, -2);
    const QString name = key.section(QLatin1Char('/'), -1);
    QString current;
    for (const QString& line : QString::fromUtf8(readAll(file)).split(QLatin1Char('\n'))) {
      if (line.startsWith(QLatin1Char('[')) && line.endsWith(QLatin1Char(']')))
        current = line.mid(1, line.size() - 2);
      else if ((current == group || (group.isEmpty() && current == QStringLiteral("General"))) &&
               line.startsWith(name + QLatin1Char('=')))
        return line.mid(name.size() + 1);
    }
    return {};
  };
  auto* window = new MainWindow;
  QVERIFY(showActive(*window, QSize(1300, 850)));
  window->action(QStringLiteral("view.minimap"))->trigger();
  window->action(QStringLiteral("view.legend"))->trigger();
  window->action(QStringLiteral("view.flat"))->trigger();
  QCOMPARE(onDisk(QStringLiteral("options/minimap")).toString(), QStringLiteral("false"));
  QCOMPARE(onDisk(QStringLiteral("options/legend")).toString(), QStringLiteral("false"));
  QCOMPARE(onDisk(QStringLiteral("options/hierarchical")).toString(), QStringLiteral("false"));
  const QString model = conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx");
  QVERIFY(openAndWait(*window, model));
  QCOMPARE(onDisk(QStringLiteral("recentFiles")).toString(), model);
  QCOMPARE(onDisk(QStringLiteral("paths/lastDirectory")).toString(), QFileInfo(model).absolutePath());

  // The window's size and its panels, a moment after they change.
  window->resize(1100, 700);
  QTRY_VERIFY_WITH_TIMEOUT(!onDisk(QStringLiteral("window/geometry")).isNull(), 5000);
  const QByteArray state = onDisk(QStringLiteral("window/state")).toByteArray();
  dock(*window, "mlirDock")->close();
  QTRY_VERIFY_WITH_TIMEOUT(onDisk(QStringLiteral("window/state")).toByteArray() != state, 5000);

  {
    MainWindow second; // the first is still open: nothing came from its closeEvent
    QVERIFY(!second.action(QStringLiteral("view.minimap"))->isChecked());
    QVERIFY(!second.action(QStringLiteral("view.legend"))->isChecked());
    QVERIFY(second.action(QStringLiteral("view.flat"))->isChecked());
    QVERIFY(!second.graphWidget()->isHierarchical());
    QCOMPARE(second.recentFiles(), QStringList{model});
    QCOMPARE(second.size(), QSize(1100, 700));
    second.show();
    QVERIFY(QTest::qWaitForWindowExposed(&second));
    QVERIFY(!dock(second, "mlirDock")->isVisible());
    QVERIFY(dock(second, "moduleTreeDock")->isVisible());
  }
  // Clear Recent Files is saved too.
  QMenu* recent = nullptr;
  for (QMenu* menu : window->findChildren<QMenu*>())
    if (menu->title().remove(QLatin1Char('&')) == QStringLiteral("Recent Files")) recent = menu;
  QVERIFY(recent);
  recent->actions().constLast()->trigger(); // "Clear Recent Files"
  const QVariant cleared = onDisk(QStringLiteral("recentFiles"));
  QVERIFY(!cleared.isNull() && !cleared.toString().contains(model));
  delete window; // no closeEvent
}

// An artifact that does not validate (or is no artifact at all) is not added to
// Recent Files; one that validates is.
void TestPanelsWindow::onlyValidArtifactsBecomeRecent() {
  MainWindow window;
  QVERIFY(showActive(window));
  auto openAndLoad = [&](const QString& path) {
    window.openArtifact(path);
    lattice::studio::ArtifactView* view = window.artifactView(path);
    return view && waitFor([view] { return !view->isLoading() && view->document(); }, 30000);
  };
  QTemporaryDir dir;
  // A copy of a valid artifact whose graph breaks a rule (an unknown op), and a folder of notes.
  const QString broken = dir.filePath(QStringLiteral("broken.lattice"));
  QVERIFY(QDir().mkpath(broken));
  const QString valid = conformanceArtifact(QStringLiteral("sparse_classifier"));
  QString text = QString::fromUtf8(readAll(valid + QStringLiteral("/graph.mlir")));
  QVERIFY(text.contains(QStringLiteral("lattice.conv3d")));
  text.replace(QStringLiteral("lattice.conv3d"), QStringLiteral("lattice.no_such_op"));
  QFile out(broken + QStringLiteral("/graph.mlir"));
  QVERIFY(out.open(QIODevice::WriteOnly));
  out.write(text.toUtf8());
  out.close();
  QVERIFY(QFile::copy(valid + QStringLiteral("/weights.safetensors"),
                      broken + QStringLiteral("/weights.safetensors")));
  const QString notes = dir.filePath(QStringLiteral("notes"));
  QVERIFY(QDir().mkpath(notes));

  QVERIFY(openAndLoad(broken));
  QVERIFY(!window.artifactView(broken)->document()->valid());
  QVERIFY(openAndLoad(notes));
  QVERIFY(window.recentFiles().isEmpty());
  QVERIFY(QSettings().value(QStringLiteral("recentFiles")).toStringList().isEmpty());

  QVERIFY(openAndLoad(valid));
  QVERIFY(window.artifactView(valid)->document()->valid());
  QCOMPARE(window.recentFiles(), QStringList{valid});
  QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList(), QStringList{valid});
}

// File ▸ Open Artifact… starts in the folder of the last export, that export
// selected; after opening another artifact, at that one; in a new window, where the last ended.
void TestPanelsWindow::openArtifactStartsAtTheLastExport() {
  QTemporaryDir dir;
  const QString exported = dir.filePath(QStringLiteral("exports/net.lattice"));
  QVERIFY(QDir().mkpath(exported));
  auto dialogStart = [this](MainWindow& window) {
    std::pair<QString, QStringList> seen;
    QTimer::singleShot(0, this, [&seen] {
      auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!dialog) {
        qWarning("no file dialog is up");
        return;
      }
      seen = {QDir(dialog->directory()).absolutePath(), dialog->selectedFiles()};
      dialog->reject();
    });
    window.action(QStringLiteral("file.openArtifact"))->trigger();
    return seen;
  };
  const QString other = conformanceArtifact(QStringLiteral("sparse_classifier"));
  {
    MainWindow window;
    QVERIFY(showActive(window));
    window.session()->recordExport(exported);
    auto [folder, selected] = dialogStart(window);
    QCOMPARE(folder, QFileInfo(exported).absolutePath());
    QCOMPARE(selected, QStringList{QFileInfo(exported).absoluteFilePath()});
    window.openArtifact(other);
    QVERIFY(waitFor([&] { return window.artifactView(other)->document() != nullptr; }, 30000));
    std::tie(folder, selected) = dialogStart(window);
    QCOMPARE(folder, QFileInfo(other).absolutePath());
    QCOMPARE(selected, QStringList{QFileInfo(other).absoluteFilePath()});
    window.session()->recordExport(exported); // a newer export wins again
    std::tie(folder, selected) = dialogStart(window);
    QCOMPARE(folder, QFileInfo(exported).absolutePath());
  }
  MainWindow next; // remembered from the settings
  QVERIFY(showActive(next));
  QCOMPARE(dialogStart(next).first, QFileInfo(exported).absolutePath());
}

// View ▸ Find (Ctrl+F) works on an artifact tab: it opens that tab's Find bar, whose
// matches are the artifact's ops, and Enter selects them; on the model tab it is the graph's.
void TestPanelsWindow::findWorksInArtifactTabs() {
  MainWindow window;
  QVERIFY(showActive(window));
  const QString path = conformanceArtifact(QStringLiteral("sparse_classifier"));
  window.openArtifact(path);
  lattice::studio::ArtifactView* view = window.artifactView(path);
  QVERIFY(waitFor([&] { return view->document() && !view->graphView()->isLayoutRunning(); }, 30000));
  QAction* find = window.action(QStringLiteral("view.find"));
  QVERIFY(find->isEnabled());
  QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
  QVERIFY(view->searchBar()->isVisible());
  QVERIFY(view->searchBar()->lineEdit()->hasFocus());
  QVERIFY(!window.graphWidget()->searchBar()->isVisible());
  // The matches are the op lines of graph.mlir (one op per ` = lattice.` line) that mention
  // conv3d: the convolution, and the weight whose type and layout name it.
  const QStringList lines =
      QString::fromUtf8(readAll(path + QStringLiteral("/graph.mlir"))).split(QLatin1Char('\n'));
  QList<int> convLines;
  for (int i = 0; i < lines.size(); ++i)
    if (lines[i].contains(QStringLiteral(" = lattice.")) && lines[i].contains(QStringLiteral("conv3d")))
      convLines << i + 1;
  QVERIFY(convLines.size() >= 2);
  QTest::keyClicks(view->searchBar()->lineEdit(), QStringLiteral("conv3d"));
  QCOMPARE(int(view->searchHits().size()), convLines.size());
  QTest::keyClick(view->searchBar()->lineEdit(), Qt::Key_Return);
  QVERIFY(view->selectedNode() >= 0);
  QCOMPARE(view->document()->opGraph->nodes()[std::size_t(view->selectedNode())].firstLine,
           convLines.front());
  QCOMPARE(view->mlirView()->highlightedLines(), std::make_pair(convLines.front(), convLines.front()));
  QTest::keyClick(view->searchBar()->lineEdit(), Qt::Key_Return);
  QCOMPARE(view->document()->opGraph->nodes()[std::size_t(view->selectedNode())].firstLine, convLines[1]);
  QTest::keyClick(view->searchBar()->lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
  QCOMPARE(view->document()->opGraph->nodes()[std::size_t(view->selectedNode())].firstLine,
           convLines.front());
  // The matches are marked in the graph.
  int marked = 0;
  for (int n = 0; n < int(view->document()->opGraph->nodes().size()); ++n)
    marked += view->graphView()->nodeItem(n)->isSearchHit() ? 1 : 0;
  QCOMPARE(marked, convLines.size());

  window.tabs()->setCurrentIndex(0); // the model tab (no model): Find is the graph's
  QVERIFY(find->isEnabled());
  find->trigger();
  QVERIFY(window.graphWidget()->searchBar()->isVisible());
}

QTEST_MAIN(TestPanelsWindow)
#include "tst_panels_window.moc"
