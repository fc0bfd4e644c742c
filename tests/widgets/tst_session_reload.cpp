// Files that change under an open model or artifact. The weights of an open model (an .ltfx
// archive) and of an open artifact are truncated and rewritten in place, as
// safetensors.save_file and torch.save rewrite them, while the studio steps, runs and exports:
// nothing crashes (the weights were read into memory when they opened), every failure is a
// message naming the file. The window notices (FileChangeWatcher: in-place writes, replacements
// by rename, deletions, a whole folder swapped, a burst of writes reported once), shows the
// changed-on-disk bar with Reload / Ignore, and File ▸ Reload (Ctrl+Shift+R, a key no other
// action has) reads the files again: a failed reload keeps the model shown, a model re-exported
// with fewer nodes shows the new count, and breakpoints, leaf overrides and run inputs are kept
// where their nodes and modules still exist.

#include "MainWindow.h"
#include "StudioSession.h"
#include "LeafEdits.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareView.h"
#include "lowering/Lowering.h"
#include "model/Archive.h"
#include "model/LoadModel.h"
#include "numeric/NumericRun.h"
#include "verify/ArtifactValidation.h"

#include "WidgetTestSupport.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFrame>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::ArtifactRunBar;
using lattice::studio::ArtifactView;
using lattice::studio::CompareView;
using lattice::studio::FileChangeWatcher;
using lattice::studio::LeafEdits;
using lattice::studio::MainWindow;
using lattice::studio::NumericRun;
using lattice::studio::StudioSession;
using State = StudioSession::InterpreterState;

using namespace lattice::widgettest;

namespace {

constexpr int kSettleMs = 60;

/// Writes `example:chain:N` as an .ltfx archive at `path` (3N + 2 nodes).
bool writeChain(const QString& path, int blocks) {
  lattice::Expected<lattice::Model> model = lattice::loadModel("example:chain:" + std::to_string(blocks));
  return model && lattice::writeArchive(*model, path.toStdString()).ok();
}

/// Lowers `example:chain:N` into the artifact folder `dir`.
bool writeChainArtifact(const QString& dir, int blocks) {
  lattice::Expected<lattice::Model> model = lattice::loadModel("example:chain:" + std::to_string(blocks));
  return model && lattice::saveLatticeModelArtifact(*model, dir.toStdString()).ok();
}

/// Rewrites `path` in place (same inode), as safetensors.save_file does: truncated, then
/// `bytes` written.
bool rewriteInPlace(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(bytes) == bytes.size() && f.flush();
}

/// Replaces `path` by a new file renamed over it (an atomic save).
bool replaceByRename(const QString& path, const QByteArray& bytes) {
  const QString temp = path + QStringLiteral(".new");
  QFile f(temp);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size()) return false;
  f.close();
  return std::rename(QFile::encodeName(temp).constData(), QFile::encodeName(path).constData()) == 0;
}

QFrame* bar(MainWindow& w) {
  return w.changedOnDiskBar();
}

QString barText(MainWindow& w) {
  auto* label = w.changedOnDiskBar()->findChild<QLabel*>(QStringLiteral("changedOnDiskText"));
  return label ? label->text() : QString();
}

QPushButton* barButton(MainWindow& w, const char* name) {
  return w.changedOnDiskBar()->findChild<QPushButton*>(QString::fromLatin1(name));
}

bool barShown(MainWindow& w) {
  return !bar(w)->isHidden();
}

/// The status bar's model line ("path  ·  17 nodes  ·  …").
QString modelLine(MainWindow& w) {
  for (QLabel* label : w.statusBar()->findChildren<QLabel*>())
    if (label->text().contains(QStringLiteral(" nodes"))) return label->text();
  return {};
}

/// With LATTICE_RELOAD_SCREENSHOTS=DIR (run under Xvfb on the xcb platform), the window as the
/// test sees it is saved as DIR/NAME.png: how the changed-on-disk bar looks.
void screenshot(MainWindow& w, const QString& name) {
  const QString dir = qEnvironmentVariable("LATTICE_RELOAD_SCREENSHOTS");
  if (dir.isEmpty()) return;
  if (!w.isVisible()) {
    w.resize(1500, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
  }
  QTest::qWait(500);
  QVERIFY(w.grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

bool openModelAndWait(MainWindow& w, const QString& reference) {
  QSignalSpy loaded(w.session(), &StudioSession::modelLoaded);
  w.openModel(reference);
  return waitFor([&] { return !loaded.isEmpty(); }, 60000) && w.session()->graph();
}

ArtifactView* openArtifactAndWait(MainWindow& w, const QString& path) {
  w.openArtifact(path);
  ArtifactView* view = w.artifactView(path);
  if (!view) return nullptr;
  if (!waitFor([&] { return !view->isLoading() && view->document(); })) return nullptr;
  return view;
}

/// Reloads the current tab with File ▸ Reload and waits for the model's load to end.
bool reloadModelAndWait(MainWindow& w) {
  QSignalSpy loaded(w.session(), &StudioSession::modelLoaded);
  QSignalSpy failed(w.session(), &StudioSession::modelLoadFailed);
  w.action(QStringLiteral("file.reload"))->trigger();
  return waitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 60000) && !loaded.isEmpty();
}

} // namespace

class TestSessionReload : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void init();
  void reloadShortcutIsFreeAndInTheFileMenu();
  void watcherReportsWritesReplacementsAndDeletions();
  void watcherFollowsAFolderSwappedWhole();
  void truncatedModelWeightsNeverCrash();
  void truncatedArtifactWeightsNeverCrash();
  void ignoreKeepsWhatIsShown();
  void reloadKeepsWhatStillApplies();
  void exportedArtifactTabFollows();

private:
  QTemporaryDir m_settingsDir;
  QTemporaryDir m_data;
};

void TestSessionReload::initTestCase() {
  QVERIFY(m_settingsDir.isValid());
  QVERIFY(m_data.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_session_reload"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
}

void TestSessionReload::init() {
  QSettings().clear();
}

void TestSessionReload::reloadShortcutIsFreeAndInTheFileMenu() {
  MainWindow w;
  QAction* reload = w.action(QStringLiteral("file.reload"));
  QVERIFY(reload);
  QCOMPARE(reload->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+R")));
  // Every key of the window belongs to one action only (Ctrl+R stays Run on Inputs).
  QHash<QString, QString> owner;
  for (QAction* a : w.shortcutActions())
    for (const QKeySequence& key : a->shortcuts()) {
      const QString k = key.toString(QKeySequence::PortableText);
      QVERIFY2(!owner.contains(k), qPrintable(k + QStringLiteral(": ") + owner.value(k) + QStringLiteral(" and ") +
                                              a->objectName()));
      owner.insert(k, a->objectName());
    }
  QCOMPARE(owner.value(QStringLiteral("Ctrl+R")), QStringLiteral("debug.runInputs"));
  bool inFileMenu = false;
  for (QAction* menu : w.menuBar()->actions())
    if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QStringLiteral("File"))
      inFileMenu = menu->menu()->actions().contains(reload);
  QVERIFY(inFileMenu);
  QVERIFY(!reload->isEnabled()); // nothing open
}

void TestSessionReload::watcherReportsWritesReplacementsAndDeletions() {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("weights.safetensors"));
  const QString absent = dir.filePath(QStringLiteral("inputs.safetensors"));
  QVERIFY(rewriteInPlace(file, QByteArray(64, 'a')));
  FileChangeWatcher watcher;
  watcher.setSettleTime(200);
  QSignalSpy changed(&watcher, &FileChangeWatcher::changed);
  watcher.watch(QStringList{file, absent});
  QTest::qWait(300);
  QVERIFY(changed.isEmpty());

  // A burst of in-place writes (a training script saving a large file) is one report.
  for (int i = 0; i < 10; ++i) {
    QVERIFY(rewriteInPlace(file, QByteArray(64 + i, 'b')));
    QTest::qWait(20);
  }
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  QTest::qWait(400);
  QCOMPARE(changed.size(), 1);
  QCOMPARE(changed.front().front().toStringList(), QStringList{file});
  QVERIFY(watcher.hasPendingChange());

  // Ignore: what is there now counts as read; a replacement by rename is a new change, and
  // the watch follows the new file (an in-place write to it is reported too).
  watcher.setSettleTime(kSettleMs);
  watcher.acceptCurrent();
  QVERIFY(!watcher.hasPendingChange());
  changed.clear();
  QVERIFY(replaceByRename(file, QByteArray(80, 'c')));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  watcher.acceptCurrent();
  changed.clear();
  QVERIFY(rewriteInPlace(file, QByteArray(81, 'd')));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  QCOMPARE(changed.front().front().toStringList(), QStringList{file});

  // A file that appears is a change; a deleted one is too.
  watcher.acceptCurrent();
  changed.clear();
  QVERIFY(rewriteInPlace(absent, QByteArray(8, 'e')));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  QCOMPARE(changed.front().front().toStringList(), QStringList{absent});
  watcher.acceptCurrent();
  changed.clear();
  QVERIFY(QFile::remove(file));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  QCOMPARE(changed.front().front().toStringList(), QStringList{file});
  QCOMPARE(watcher.changedFiles(), QStringList{file});
}

void TestSessionReload::watcherFollowsAFolderSwappedWhole() {
  // An artifact replaced as the atomic save replaces it: a new folder renamed into place.
  QTemporaryDir dir;
  const QString art = dir.filePath(QStringLiteral("a.lattice"));
  QVERIFY(QDir().mkpath(art));
  const QString weights = art + QStringLiteral("/weights.safetensors");
  QVERIFY(rewriteInPlace(weights, QByteArray(16, 'a')));
  FileChangeWatcher watcher;
  watcher.setSettleTime(kSettleMs);
  QSignalSpy changed(&watcher, &FileChangeWatcher::changed);
  watcher.watch(QStringList{weights});
  const QString fresh = dir.filePath(QStringLiteral(".a.lattice-new"));
  QVERIFY(QDir().mkpath(fresh));
  QVERIFY(rewriteInPlace(fresh + QStringLiteral("/weights.safetensors"), QByteArray(16, 'b')));
  QVERIFY(QDir(art).removeRecursively());
  QVERIFY(QDir().rename(fresh, art));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
  QCOMPARE(changed.front().front().toStringList(), QStringList{weights});
  // The new file is watched: writing it again is reported again.
  watcher.acceptCurrent();
  changed.clear();
  QVERIFY(rewriteInPlace(weights, QByteArray(24, 'c')));
  QVERIFY(waitFor([&] { return !changed.isEmpty(); }, 5000));
}

void TestSessionReload::truncatedModelWeightsNeverCrash() {
  const QString archive = m_data.filePath(QStringLiteral("truncated.ltfx"));
  QVERIFY(writeChain(archive, 4));
  const QString weights = archive + QStringLiteral("/weights.safetensors");
  const QByteArray original = readAll(weights);
  QVERIFY(!original.isEmpty());

  MainWindow w;
  w.session()->modelWatcher()->setSettleTime(kSettleMs);
  QVERIFY(openModelAndWait(w, archive));
  StudioSession* s = w.session();
  const int nodes = int(s->graph()->size());
  QCOMPARE(nodes, 14);
  w.session()->step();
  w.session()->step();
  QCOMPARE(s->executedNodes().size(), 1);

  // The training script truncates the file and has written half of it.
  QVERIFY(rewriteInPlace(weights, original.left(original.size() / 2)));

  // Stepping, running on inputs and exporting use what was read: no fault, no error.
  for (int i = 0; i < 4; ++i)
    s->step();
  QCOMPARE(s->interpreterState(), State::Paused);
  s->continueRun();
  QVERIFY(waitFor([&] { return !s->isRunning(); }));
  QCOMPARE(s->interpreterState(), State::Finished);
  NumericRun* numeric = w.numericRun();
  numeric->run();
  QVERIFY(waitFor([&] { return !numeric->isRunning(); }));
  QVERIFY2(numeric->state() == NumericRun::State::Finished, qPrintable(numeric->lastError()));
  const QString exported = m_data.filePath(QStringLiteral("from-truncated.lattice"));
  QVERIFY(lattice::saveLatticeModelArtifact(*s->model(), exported.toStdString(), s->exportOptions()).ok());
  QVERIFY(lattice::validateArtifact(exported.toStdString()).ok());

  // The bar says so, naming the file.
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
  QVERIFY2(barText(w).contains(QStringLiteral("weights.safetensors")), qPrintable(barText(w)));
  QVERIFY(barText(w).contains(QStringLiteral("changed on disk")));
  screenshot(w, QStringLiteral("model-changed"));

  // Reloading the half-written file fails with a message naming it; the model shown stays whole.
  QSignalSpy failed(s, &StudioSession::modelLoadFailed);
  QVERIFY(!reloadModelAndWait(w));
  QCOMPARE(failed.size(), 1);
  const QString message = failed.front().front().toString();
  QVERIFY2(message.contains(weights) && message.contains(QStringLiteral("truncated")), qPrintable(message));
  QVERIFY(barShown(w));
  QVERIFY2(barText(w).contains(QStringLiteral("failed")), qPrintable(barText(w)));
  screenshot(w, QStringLiteral("model-reload-failed"));
  QVERIFY(s->model() && s->graph());
  QCOMPARE(int(s->graph()->size()), nodes);
  s->startInterpreter();
  s->continueRun();
  QVERIFY(waitFor([&] { return !s->isRunning(); }));
  QCOMPARE(s->interpreterState(), State::Finished);

  // Truncated to nothing while a run goes on, then deleted: still nothing faults.
  numeric->run();
  QVERIFY(rewriteInPlace(weights, QByteArray()));
  QVERIFY(waitFor([&] { return !numeric->isRunning(); }));
  QCOMPARE(numeric->state(), NumericRun::State::Finished);
  QVERIFY(QFile::remove(weights));
  QVERIFY(waitFor([&] { return barText(w).contains(QStringLiteral("deleted")); }, 5000));
  QVERIFY(!reloadModelAndWait(w));
  QVERIFY2(barText(w).contains(QStringLiteral("failed")), qPrintable(barText(w)));

  // Written completely: reported again, and Reload (the bar's button) reads it.
  QVERIFY(rewriteInPlace(weights, original));
  QVERIFY(waitFor([&] { return barText(w).contains(QStringLiteral("changed on disk")); }, 5000));
  QSignalSpy reloaded(s, &StudioSession::modelReloaded);
  barButton(w, "changedOnDiskReload")->click();
  QVERIFY(waitFor([&] { return !reloaded.isEmpty(); }, 60000));
  QVERIFY(!barShown(w));
  QCOMPARE(int(s->graph()->size()), nodes);
}

void TestSessionReload::truncatedArtifactWeightsNeverCrash() {
  const QString art = m_data.filePath(QStringLiteral("truncated.lattice"));
  QVERIFY(writeChainArtifact(art, 3));
  const QString weights = art + QStringLiteral("/weights.safetensors");
  const QByteArray original = readAll(weights);
  MainWindow w;
  ArtifactView* view = openArtifactAndWait(w, art);
  QVERIFY(view);
  QVERIFY(view->document()->valid());
  w.fileWatcher(view)->setSettleTime(kSettleMs);
  ArtifactRunBar* runBar = view->runBar();

  // Truncated while a run reads the artifact, then rewritten while another runs: both end.
  runBar->run();
  QVERIFY(rewriteInPlace(weights, QByteArray()));
  QVERIFY(waitFor([&] { return !runBar->isRunning(); }));
  QVERIFY(runBar->result());
  runBar->run();
  QVERIFY(rewriteInPlace(weights, original.left(100)));
  QVERIFY(waitFor([&] { return !runBar->isRunning(); }));
  QVERIFY(runBar->result());

  // A run on the truncated file says what is wrong with which file.
  runBar->run();
  QVERIFY(waitFor([&] { return !runBar->isRunning(); }));
  const QString error = QString::fromStdString(runBar->result()->error);
  QVERIFY2(error.contains(QStringLiteral("weights.safetensors")) && error.contains(QStringLiteral("truncated")),
           qPrintable(error));

  // The tab still shows what it read (weights table and all), and the bar the change.
  QVERIFY(view->document()->artifact && view->document()->artifact->weights);
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
  QVERIFY2(barText(w).contains(QStringLiteral("weights.safetensors")), qPrintable(barText(w)));
  screenshot(w, QStringLiteral("artifact-changed"));

  // Reload reads the truncated file: the graph and text stay, the error is a diagnostic.
  QSignalSpy loaded(view, &ArtifactView::documentLoaded);
  w.action(QStringLiteral("file.reload"))->trigger();
  QVERIFY(!barShown(w));
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(!view->document()->artifact);
  QVERIFY(view->document()->opGraph);
  QVERIFY2(view->document()->loadError.contains(QStringLiteral("truncated")), qPrintable(view->document()->loadError));
  QVERIFY(!view->document()->valid());
  screenshot(w, QStringLiteral("artifact-reloaded-truncated"));

  // Rewritten whole: the bar again, Reload, valid, and a run succeeds.
  QVERIFY(rewriteInPlace(weights, original));
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
  loaded.clear();
  barButton(w, "changedOnDiskReload")->click();
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(view->document()->valid());
  runBar->run();
  QVERIFY(waitFor([&] { return !runBar->isRunning(); }));
  QVERIFY2(runBar->result()->error.empty(), runBar->result()->error.c_str());

  // A comparison of the artifact with itself is watched too, and reloads.
  CompareView* compare = w.compareArtifacts(art, art);
  QVERIFY(waitFor([&] { return compare->diff() != nullptr; }));
  w.fileWatcher(compare)->setSettleTime(kSettleMs);
  QVERIFY(rewriteInPlace(weights, original.left(original.size() - 8)));
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
  QSignalSpy compareFailed(compare, &CompareView::compareFailed);
  w.action(QStringLiteral("file.reload"))->trigger();
  QVERIFY(waitFor([&] { return !compareFailed.isEmpty(); }));
  QVERIFY(compareFailed.front().front().toString().contains(QStringLiteral("truncated")));
  // The bar follows the tab: the artifact tab has its own change.
  w.tabs()->setCurrentWidget(view);
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
}

void TestSessionReload::ignoreKeepsWhatIsShown() {
  const QString archive = m_data.filePath(QStringLiteral("ignored.ltfx"));
  QVERIFY(writeChain(archive, 2));
  MainWindow w;
  w.session()->modelWatcher()->setSettleTime(kSettleMs);
  QVERIFY(openModelAndWait(w, archive));
  QVERIFY(w.action(QStringLiteral("file.reload"))->isEnabled());
  const QString json = archive + QStringLiteral("/model.json");
  const QByteArray text = readAll(json);
  QVERIFY(replaceByRename(json, text));
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
  QVERIFY(barText(w).contains(QStringLiteral("model.json")));
  barButton(w, "changedOnDiskIgnore")->click();
  QVERIFY(!barShown(w));
  QTest::qWait(3 * kSettleMs);
  QVERIFY(!barShown(w));
  // A later change is reported again.
  QVERIFY(rewriteInPlace(json, text));
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));
}

void TestSessionReload::reloadKeepsWhatStillApplies() {
  const QString archive = m_data.filePath(QStringLiteral("shrinks.ltfx"));
  QVERIFY(writeChain(archive, 5));
  MainWindow w;
  StudioSession* s = w.session();
  s->modelWatcher()->setSettleTime(kSettleMs);
  QVERIFY(openModelAndWait(w, archive));
  QCOMPARE(int(s->graph()->size()), 17);
  QVERIFY(modelLine(w).contains(QStringLiteral("17 nodes")));

  // Leaf overrides (one on a module the smaller model keeps, one on a module it loses),
  // breakpoints likewise, the selection, and the run inputs.
  LeafEdits* edits = LeafEdits::of(s);
  edits->set(QStringLiteral("blocks.0"), true);
  edits->set(QStringLiteral("blocks.4"), true);
  QCOMPARE(int(s->graph()->size()), 13);
  s->toggleBreakpoint(QStringLiteral("blocks_1_1"));
  s->toggleBreakpoint(QStringLiteral("blocks_3_0"));
  s->selectNode(QStringLiteral("blocks_1_0"));
  NumericRun::InputChoice choice;
  choice.points = 321;
  choice.seed = 7;
  choice.batchSize = 2;
  w.numericRun()->setInputChoice(choice);
  s->step();

  // The training script re-exports a smaller model into the same archive, in place.
  const QString smaller = m_data.filePath(QStringLiteral("smaller.ltfx"));
  QVERIFY(writeChain(smaller, 2));
  for (const char* name : {"model.json", "weights.safetensors"})
    QVERIFY(rewriteInPlace(archive + QLatin1Char('/') + QLatin1String(name),
                           readAll(smaller + QLatin1Char('/') + QLatin1String(name))));
  QVERIFY(waitFor([&] { return barShown(w); }, 5000));

  QSignalSpy reloaded(s, &StudioSession::modelReloaded);
  QVERIFY(reloadModelAndWait(w));
  QVERIFY(waitFor([&] { return !reloaded.isEmpty(); }));
  QVERIFY(!barShown(w));
  // blocks.0 is still one leaf: x, blocks_0, blocks_1_{0,1,2}, output.
  QCOMPARE(int(s->graph()->size()), 6);
  QVERIFY2(modelLine(w).contains(QStringLiteral("6 nodes")), qPrintable(modelLine(w)));
  QCOMPARE(s->modelReference(), archive);
  QCOMPARE(s->tracer().leafOverrides().size(), std::size_t(1));
  QVERIFY(s->isLeaf(QStringLiteral("blocks.0")));
  QCOMPARE(s->breakpoints(), QSet<QString>{QStringLiteral("blocks_1_1")});
  QCOMPARE(s->selectedNode(), QStringLiteral("blocks_1_0"));
  QCOMPARE(w.numericRun()->inputChoice(), choice);
  const QString summary = reloaded.front().front().toString();
  QVERIFY2(summary.contains(QStringLiteral("6 nodes (were 13)")), qPrintable(summary));
  QVERIFY2(summary.contains(QStringLiteral("breakpoints: kept 1 of 2")), qPrintable(summary));
  QVERIFY2(summary.contains(QStringLiteral("leaf overrides: kept 1 of 2")), qPrintable(summary));
  QCOMPARE(s->interpreterState(), State::NotStarted);
  // The leaf edits can still be undone: blocks.0 goes back to the tracer's own decision.
  QVERIFY(edits->canUndo());
  while (edits->canUndo())
    edits->undo();
  QCOMPARE(int(s->graph()->size()), 8);

  // Breakpoints stop the run where they still apply.
  s->continueRun();
  QVERIFY(waitFor([&] { return !s->isRunning(); }));
  QCOMPARE(s->currentNode(), QStringLiteral("blocks_1_1"));
}

void TestSessionReload::exportedArtifactTabFollows() {
  // An export into the folder an artifact tab shows (the studio's own write) reloads that tab.
  const QString art = m_data.filePath(QStringLiteral("exported.lattice"));
  QVERIFY(writeChainArtifact(art, 2));
  MainWindow w;
  ArtifactView* view = openArtifactAndWait(w, art);
  QVERIFY(view);
  w.fileWatcher(view)->setSettleTime(kSettleMs);
  const int ops = int(view->document()->opGraph->nodes().size());
  QVERIFY(openModelAndWait(w, QStringLiteral("example:chain:3")));
  QVERIFY(lattice::saveLatticeModelArtifact(*w.session()->model(), art.toStdString()).ok());
  QSignalSpy loaded(view, &ArtifactView::documentLoaded);
  w.session()->recordExport(art);
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY(int(view->document()->opGraph->nodes().size()) > ops);
  w.tabs()->setCurrentWidget(view);
  QTest::qWait(4 * kSettleMs);
  QVERIFY(!barShown(w));
}

QTEST_MAIN(TestSessionReload)
#include "tst_session_reload.moc"
