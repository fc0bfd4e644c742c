// What the studio says matches what happened: a run the user cancelled reads "cancelled" (no red
// failure, no jump to a node, no diagnostic); File ▸ Open Artifact… takes a lone .mlir as
// lattice-cli does; Help ▸ Documentation shows the bundled README in a window when the desktop
// cannot open it; Export asks "Replace?" only about a target it can write; the recorded inputs
// and activations are spoken of only for a model that has them.

#include "MainWindow.h"
#include "OpenDialogs.h"
#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactView.h"
#include "charts/DataFlowChart.h"
#include "help/DocumentationWindow.h"
#include "numeric/NumericRun.h"
#include "numeric/RunInputsEditor.h"
#include "numeric/ValuesPanel.h"
#include "panels/DiagnosticsModel.h"
#include "panels/ExportDialog.h"
#include "panels/ExportJob.h"
#include "panels/InterpreterPanel.h"

#include "WidgetTestSupport.h"
#include "WorkerTestSupport.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QRadioButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

namespace {

QString conformanceArtifact(const QString& name) {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/") + name + QStringLiteral("/expected.lattice");
}

/// Closes every message box that appears while it lives, counting them.
class MessageBoxWatch {
public:
  MessageBoxWatch() {
    m_timer.setInterval(20);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
      for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
          ++m_count;
          box->reject();
        }
    });
    m_timer.start();
  }
  int count() const { return m_count; }

private:
  QTimer m_timer;
  int m_count = 0;
};

/// With LATTICE_FIT_SHOTS=DIR, saves what `w` shows as DIR/NAME.png (to look at).
void shot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LATTICE_FIT_SHOTS");
  if (!dir.isEmpty()) w->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

} // namespace

class TestSmallTruths : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_small_truths")); }
  void cleanup() { NumericRun::setPrepareHook({}); }
  void cancelledRunSaysCancelled();
  void openArtifactTakesALoneMlir();
  void documentationWindowWithoutUrlHandler();
  void replaceIsNotAskedForAnUnwritableTarget();
  void recordingsAreMentionedOnlyWhenThere();
};

void TestSmallTruths::cancelledRunSaysCancelled() {
  MainWindow window;
  window.resize(1200, 800);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  StudioSession* session = window.session();
  QVERIFY(openAndWait(*session, QStringLiteral("example:chain:3")));
  const QString selected = chainPrefix(3).at(4);
  session->selectNode(selected);
  QCOMPARE(session->selectedNode(), selected);
  auto* interpreter = window.findChild<InterpreterPanel*>();
  QVERIFY(interpreter);
  const int diagnosticsBefore = interpreter->diagnosticsModel()->rowCount();

  // The run is held while it lowers, then cancelled by the user.
  Latch latch;
  NumericRun::setPrepareHook([&latch] { latch.hold(); });
  NumericRun* run = window.numericRun();
  QSignalSpy failed(run, &NumericRun::failed);
  run->run();
  QVERIFY(waitFor([&] { return latch.held() == 1; }));
  NumericRun::setPrepareHook({});
  run->cancel();
  latch.release();
  QVERIFY(waitFor([&] { return !failed.isEmpty(); }));
  QCOMPARE(run->lastError(), NumericRun::tr("cancelled"));

  const QString message = window.statusBar()->currentMessage();
  QVERIFY2(message.contains(QStringLiteral("cancelled"), Qt::CaseInsensitive), qPrintable(message));
  QVERIFY2(!message.contains(QStringLiteral("failed"), Qt::CaseInsensitive), qPrintable(message));
  QCOMPARE(session->selectedNode(), selected);
  QCOMPARE(interpreter->diagnosticsModel()->rowCount(), diagnosticsBefore);
  QVERIFY(waitFor([&] { return !run->hasJobsInFlight(); }));
}

void TestSmallTruths::openArtifactTakesALoneMlir() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString artifact = conformanceArtifact(QStringLiteral("sparse_classifier"));
  const QString lone = dir.filePath(QStringLiteral("classifier.mlir"));
  QVERIFY(QFile::copy(artifact + QStringLiteral("/graph.mlir"), lone));
  QVERIFY(isArtifactPath(lone));

  // The chooser: a lone .mlir is chosen as it is; an artifact directory, or the graph.mlir in
  // one, is chosen as the directory.
  {
    ArtifactFileDialog dialog(nullptr, dir.path());
    dialog.selectFile(lone);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(lone).canonicalFilePath());
  }
  {
    ArtifactFileDialog dialog(nullptr, QFileInfo(artifact).absolutePath());
    dialog.selectFile(artifact + QStringLiteral("/graph.mlir"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(artifact).canonicalFilePath());
  }

  // What it chose opens in an artifact tab, with the graph of the file.
  MainWindow window;
  window.openArtifact(lone);
  ArtifactView* view = window.artifactView(lone);
  QVERIFY(view);
  QVERIFY(waitFor([&] { return view->document() && !view->isLoading(); }));
  QVERIFY2(view->document()->loadError.isEmpty(), qPrintable(view->document()->loadError));
  QVERIFY(view->document()->opGraph);
  QCOMPARE(window.tabs()->currentWidget(), view);
}

void TestSmallTruths::documentationWindowWithoutUrlHandler() {
  MainWindow window;
  QList<QUrl> asked;
  // A desktop that opens the file: no window.
  window.setUrlOpener([&asked](const QUrl& url) {
    asked << url;
    return true;
  });
  window.action(QStringLiteral("help.documentation"))->trigger();
  QCOMPARE(asked.size(), 1);
  QVERIFY(asked.front().isLocalFile());
  QVERIFY(asked.front().toLocalFile().endsWith(QStringLiteral("README.md")));
  QVERIFY(!window.documentationWindow());

  // No handler: the studio shows the same file itself.
  window.setUrlOpener([&asked](const QUrl& url) {
    asked << url;
    return false;
  });
  window.action(QStringLiteral("help.documentation"))->trigger();
  QCOMPARE(asked.size(), 2);
  DocumentationWindow* docs = window.documentationWindow();
  QVERIFY(docs);
  QVERIFY(docs->isVisible());
  QCOMPARE(QFileInfo(docs->file()).canonicalFilePath(), QFileInfo(asked.back().toLocalFile()).canonicalFilePath());
  // The browser shows the README's text (its first heading, read from the file).
  QFile readme(docs->file());
  QVERIFY(readme.open(QIODevice::ReadOnly));
  QString heading;
  for (const QString& line : QString::fromUtf8(readme.readAll()).split(QLatin1Char('\n')))
    if (line.startsWith(QStringLiteral("# "))) {
      heading = line.mid(2).trimmed();
      break;
    }
  QVERIFY(!heading.isEmpty());
  QVERIFY2(docs->browser()->toPlainText().contains(heading), qPrintable(heading));
  QVERIFY(QTest::qWaitForWindowExposed(docs));
  shot(docs, QStringLiteral("documentation"));
  // F1 again raises the same window.
  window.action(QStringLiteral("help.documentation"))->trigger();
  QCOMPARE(window.documentationWindow(), docs);
}

void TestSmallTruths::replaceIsNotAskedForAnUnwritableTarget() {
  StudioSession session;
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QFile file(dir.filePath(QStringLiteral("plain-file")));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.close();

  // Unwritable targets, as root too: a folder under a plain file, and an existing folder whose
  // entries cannot be removed (a process's /proc directory).
  const QStringList unwritable = {dir.filePath(QStringLiteral("plain-file/out.lattice")), QStringLiteral("/proc/1")};
  for (const QString& target : unwritable) {
    QVERIFY2(!exportTargetProblem(target).isEmpty(), qPrintable(target));
    ExportDialog dialog(&session);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.setTargetDirectory(target);
    QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
    MessageBoxWatch boxes;
    dialog.startExport();
    QVERIFY(waitFor([&] { return !failed.isEmpty(); }, 5000));
    QCOMPARE(boxes.count(), 0);
    QVERIFY2(failed.front().front().toString().contains(target), qPrintable(failed.front().front().toString()));
  }

  // A writable existing artifact: no problem, so the question is asked (and No keeps it).
  const QString existing = dir.filePath(QStringLiteral("existing.lattice"));
  QVERIFY(QDir().mkpath(existing));
  QVERIFY(QFile::copy(conformanceArtifact(QStringLiteral("sparse_classifier")) + QStringLiteral("/graph.mlir"),
                      existing + QStringLiteral("/graph.mlir")));
  QCOMPARE(exportTargetProblem(existing), QString());
  QCOMPARE(exportTargetProblem(dir.filePath(QStringLiteral("new/deeper/out.lattice"))), QString());
  ExportDialog dialog(&session);
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  dialog.setTargetDirectory(existing);
  shot(&dialog, QStringLiteral("export-dialog"));
  MessageBoxWatch boxes;
  dialog.startExport();
  QVERIFY(waitFor([&] { return boxes.count() == 1; }, 5000));
}

void TestSmallTruths::recordingsAreMentionedOnlyWhenThere() {
  for (const QString& reference :
       {QStringLiteral("example:chain:2"), QStringLiteral(LATTICE_TEST_DATA_DIR "/real-torch-lattice/transposed.ltfx")}) {
    StudioSession session;
    NumericRun run(&session);
    QVERIFY(openAndWait(session, reference));
    RunInputsEditor editor(&run);
    ValuesPanel panel(&session, &run);
    const bool recorded = run.hasRecordedActivations();
    QCOMPARE(recorded, reference.endsWith(QStringLiteral(".ltfx")));
    auto* recordedInputs = editor.findChild<QRadioButton*>(QStringLiteral("sourceRecorded"));
    QVERIFY(recordedInputs);
    QCOMPARE(!recordedInputs->isHidden(), run.hasRecordedInputs());
    auto* chart = panel.findChild<DataFlowChart*>();
    QVERIFY(chart);
    QStringList texts{chart->title(), chart->message()};
    for (const QLabel* label : panel.findChildren<QLabel*>())
      if (label->isVisibleTo(&panel)) texts << label->text();
    const bool mentions = texts.join(QLatin1Char(' ')).contains(QStringLiteral("record"), Qt::CaseInsensitive);
    QVERIFY2(mentions == recorded, qPrintable(reference + QStringLiteral(": ") + texts.join(QStringLiteral(" | "))));
  }
}

QTEST_MAIN(TestSmallTruths)
#include "tst_small_truths.moc"
