// The studio window with its panels (issue #4's "Done when"): on example:sparse_resunet42, F10
// steps the interpreter with values and MLIR appearing, and File ▸ Export Artifact… (the export
// dialog, driven while it is modal) writes an artifact equal byte for byte to what
// saveLatticeModelArtifact — `lattice-cli lower` — writes for the same model. A long run
// (Continue on the chain example) goes on in slices while the event loop keeps turning, shows its
// progress in the status bar and ends with the complete graph.mlir in the MLIR panel; with
// LATTICE_LARGE_RUN=N it runs example:chain:N and reports the time and the longest event-loop
// stall. Artifact and compare tabs hide the model's panels and give them back, in the layout
// the user left, on the model tab; a window opened on an artifact alone shows no empty model tab.

#include "MainWindow.h"
#include "StudioSession.h"
#include "artifact/Lowering.h"
#include "graph/GraphWidget.h"
#include "model/Examples.h"
#include "panels/ExportDialog.h"
#include "panels/InterpreterPanel.h"
#include "panels/MlirPanel.h"
#include "panels/Panels.h"
#include "panels/ValueTableModel.h"

#include "WidgetTestSupport.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
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

/// Installs the studio's panels, shows the window at `size` and waits until it is exposed.
bool showWithPanels(MainWindow& window, QSize size = QSize(1400, 900)) {
  lattice::studio::installPanels(window);
  window.resize(size);
  window.show();
  return QTest::qWaitForWindowExposed(&window);
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
  QVERIFY(showWithPanels(window));
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

// Issue 18.8: F5 starts when idle and continues when paused, as in every debugger; Restart is
// Ctrl+Shift+F5. The status bar counts "1 breakpoint".
void TestPanelsWindow::f5ContinuesWhenPausedAndRestartStartsOver() {
  MainWindow window;
  QVERIFY(showWithPanels(window));
  QVERIFY(openAndWait(window, QStringLiteral("example:chain:2")));
  StudioSession* session = window.session();
  QCOMPARE(window.action(QStringLiteral("debug.restart"))->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+F5")));

  QTest::keyClick(&window, Qt::Key_F5); // start: paused on the first node
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
  QVERIFY(showWithPanels(window));
  QVERIFY(openAndWait(window, reference));
  StudioSession* session = window.session();
  auto* mlir = window.findChild<MlirPanel*>();
  auto* interpreter = window.findChild<InterpreterPanel*>();

  window.action(QStringLiteral("debug.start"))->trigger();
  QCOMPARE(session->interpreterState(), State::Paused);
  const int total = 1 + 3 * blocks + 1;
  QCOMPARE(session->totalNodes(), total);

  // A probe that re-posts itself as a queued call runs once per event-loop turn, as pending
  // input and paint events do: the longest gap between its runs is the longest stall.
  QElapsedTimer clock;
  qint64 lastTick = 0;
  qint64 longestGap = 0;
  bool sawProgress = false;
  bool probing = true;
  std::function<void()> probe = [&] {
    const qint64 now = clock.elapsed();
    longestGap = std::max(longestGap, now - lastTick);

    lastTick = now;
    if (session->isRunning() && statusText(window).contains(QStringLiteral("running… node")))
      sawProgress = true;
    if (probing) QMetaObject::invokeMethod(this, probe, Qt::QueuedConnection);
  };
  QSignalSpy stepped(session, &StudioSession::interpreterStepped);
  QSignalSpy running(session, &StudioSession::runningChanged);
  clock.start();
  QMetaObject::invokeMethod(this, probe, Qt::QueuedConnection);
  QTest::keyClick(&window, Qt::Key_F8); // Debug ▸ Continue
  QVERIFY(session->isRunning());
  QVERIFY(!window.action(QStringLiteral("debug.step"))->isEnabled());
  QVERIFY(window.action(QStringLiteral("debug.interrupt"))->isEnabled());
  for (int i = 0; i < 6000 && session->isRunning(); ++i)
    QTest::qWait(10);
  const qint64 elapsed = clock.elapsed();
  probing = false;
  QTest::qWait(1); // the last probe call runs out
  QVERIFY(!session->isRunning());
  QCOMPARE(session->interpreterState(), State::Finished);
  QCOMPARE(session->executedNodes().size(), total);
  QCOMPARE(interpreter->valueModel()->rowCount(), total);
  QVERIFY(sawProgress);
  QVERIFY(stepped.count() > 1); // several slices, each refreshing the panels once
  QCOMPARE(running.count(), 2);
  qInfo("%s: %d nodes run in %lld ms in %lld slices; the event loop was never blocked longer than %lld ms",
        qPrintable(reference), total, static_cast<long long>(elapsed),
        static_cast<long long>(stepped.count()), static_cast<long long>(longestGap));
  // Generous for a loaded 2-core machine; slices are ~15 ms.
  QVERIFY2(longestGap < 1500, qPrintable(QStringLiteral("stalled %1 ms").arg(longestGap)));
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
  QVERIFY(showWithPanels(window));
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
  lattice::studio::installPanels(again);
  again.show();
  QVERIFY(QTest::qWaitForWindowExposed(&again));
  QVERIFY(dock(again, "moduleTreeDock")->isVisible());
  QVERIFY(dock(again, "interpreterDock")->isVisible());
  QVERIFY(!dock(again, "mlirDock")->isVisible());
}

void TestPanelsWindow::artifactOnlyWindow() {
  MainWindow window;
  QVERIFY(showWithPanels(window, QSize(1200, 800)));
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

QTEST_MAIN(TestPanelsWindow)
#include "tst_panels_window.moc"
