// Export dialog: driven programmatically (fields, startExport, QSignalSpy), it writes each
// conformance archive's expected.lattice byte for byte into a temporary directory, and for the
// built-in examples exactly what saveLatticeModelArtifact (`lattice-cli lower`) writes; edited
// options reach the artifact (output names and batch size, checked against the expected text
// with those two values replaced by hand); a cancelled export leaves the previous artifact
// untouched and no temporary directory behind; options persist per model in QSettings; the
// input ABI table validates its edits; what the save warns about (a user's folder named like a
// save's leftover, left alone) is in the result and on the summary page.

#include "StudioSession.h"
#include "lowering/Lowering.h"
#include "model/LoadModel.h"
#include "panels/ExportDialog.h"
#include "panels/ExportJob.h"
#include "panels/InputSpecModel.h"

#include "WidgetTestSupport.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QTimer>
#include <QPushButton>
#include <QSemaphore>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using lattice::studio::ExportDialog;
using lattice::studio::InputSpecModel;
using lattice::studio::StudioSession;

using namespace lattice::widgettest;

namespace {

/// Starts the export and waits for its end; true when artifactExported came.
bool exportAndWait(ExportDialog& dialog) {
  QSignalSpy exported(&dialog, &ExportDialog::artifactExported);
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  dialog.startExport();
  for (int i = 0; i < 1200 && exported.isEmpty() && failed.isEmpty(); ++i)
    QTest::qWait(50);
  if (!failed.isEmpty()) qWarning("export failed: %s", qPrintable(failed.front().front().toString()));
  return !exported.isEmpty();
}

} // namespace

class TestPanelsExport : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void init();
  void exportsExpectedArtifact_data();
  void exportsExpectedArtifact();
  void exportsLikeTheCli_data();
  void exportsLikeTheCli();
  void editedOptionsReachTheArtifact();
  void cancelKeepsPreviousArtifact();
  void optionsPersistPerModel();
  void inputTableValidatesEdits();
  void invalidFieldsFailAtOnce();
  void foreignFolderIsReplacedOnlyWhenConfirmed_data();
  void foreignFolderIsReplacedOnlyWhenConfirmed();
  void hiddenDialogNeverReplacesAForeignFolder();
  void saveWarningsReachTheSummary();

private:
  QTemporaryDir m_settingsDir;
};

void TestPanelsExport::initTestCase() {
  // Keep the user's settings out of it.
  QVERIFY(m_settingsDir.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeTests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_panels_export"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
}

void TestPanelsExport::init() {
  QSettings().clear(); // each test starts from the archives' own options
}

void TestPanelsExport::exportsExpectedArtifact_data() {
  QTest::addColumn<QString>("dir");
  const QStringList cases = QDir(conformanceDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  QVERIFY(!cases.isEmpty());
  for (const QString& c : cases)
    QTest::newRow(qPrintable(c)) << QDir(conformanceDir()).filePath(c);
}

void TestPanelsExport::exportsExpectedArtifact() {
  QFETCH(QString, dir);
  QTemporaryDir out;
  QVERIFY(out.isValid());
  StudioSession session;
  QVERIFY(openAndWait(session, dir + QStringLiteral("/model.ltfx")));
  ExportDialog dialog(&session);
  QAbstractItemModelTester tester(dialog.inputModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  // The ABI comes from the archive's example_inputs.
  QCOMPARE(dialog.inputModel()->rowCount(), int(session.model()->exampleInputs.size()));
  const QString target = out.filePath(QStringLiteral("model.lattice"));
  dialog.setTargetDirectory(target);
  QVERIFY(exportAndWait(dialog));
  QVERIFY(dialog.showsSummary());
  QCOMPARE(readAll(target + QStringLiteral("/graph.mlir")),
           readAll(dir + QStringLiteral("/expected.lattice/graph.mlir")));
  const QByteArray weights = readAll(target + QStringLiteral("/weights.safetensors"));
  QVERIFY(!weights.isEmpty());
  QCOMPARE(weights, readAll(dir + QStringLiteral("/expected.lattice/weights.safetensors")));

  // The summary's button asks to open what was written.
  QSignalSpy open(&dialog, &ExportDialog::openArtifactRequested);
  QPushButton* button = nullptr;
  for (QPushButton* b : dialog.findChildren<QPushButton*>())
    if (b->text() == QStringLiteral("Open Artifact")) button = b;
  QVERIFY(button);
  button->click();
  QCOMPARE(open.count(), 1);
  QCOMPARE(open.front().front().toString(), target);
}

void TestPanelsExport::exportsLikeTheCli_data() {
  QTest::addColumn<QString>("reference");
  QTest::newRow("sparse_resunet42") << QStringLiteral("example:sparse_resunet42");
  QTest::newRow("sparse_resnet21d") << QStringLiteral("example:sparse_resnet21d");
}

void TestPanelsExport::exportsLikeTheCli() {
  QFETCH(QString, reference);
  QTemporaryDir out;
  QVERIFY(out.isValid());
  StudioSession session;
  QVERIFY(openAndWait(session, reference));
  ExportDialog dialog(&session);
  const QString target = out.filePath(QStringLiteral("dialog.lattice"));
  dialog.setTargetDirectory(target);
  QVERIFY(exportAndWait(dialog));

  // What `lattice-cli lower REFERENCE -o cli.lattice` does: a fresh model, default options.
  lattice::Expected<lattice::Model> model = lattice::loadModel(reference.toStdString());
  QVERIFY(model.ok());
  const QString cli = out.filePath(QStringLiteral("cli.lattice"));
  QVERIFY(lattice::saveLatticeModelArtifact(*model, cli.toStdString()).ok());
  const QByteArray mlir = readAll(target + QStringLiteral("/graph.mlir"));
  QVERIFY(mlir.startsWith("module"));
  QCOMPARE(mlir, readAll(cli + QStringLiteral("/graph.mlir")));
  const QByteArray weights = readAll(target + QStringLiteral("/weights.safetensors"));
  QVERIFY(weights.size() > 1'000'000);
  QVERIFY(weights == readAll(cli + QStringLiteral("/weights.safetensors")));
}

void TestPanelsExport::editedOptionsReachTheArtifact() {
  const QString caseDir = conformanceDir() + QStringLiteral("/sparse_classifier");
  QTemporaryDir out;
  StudioSession session;
  QVERIFY(openAndWait(session, caseDir + QStringLiteral("/model.ltfx")));
  ExportDialog dialog(&session);
  dialog.setTargetDirectory(out.filePath(QStringLiteral("edited.lattice")));
  dialog.setOutputNames({QStringLiteral("logits")});
  dialog.setBatchSize(4);
  QVERIFY(exportAndWait(dialog));
  // By hand from the expected text: the output name and the global pool's batch size change,
  // nothing else (the weights do not depend on either).
  QString expected = QString::fromUtf8(readAll(caseDir + QStringLiteral("/expected.lattice/graph.mlir")));
  QVERIFY(expected.contains(QStringLiteral("lattice.output_names = [\"output\"]")));
  QVERIFY(expected.contains(QStringLiteral("batch_size = 2}")));
  expected.replace(QStringLiteral("lattice.output_names = [\"output\"]"),
                   QStringLiteral("lattice.output_names = [\"logits\"]"));
  expected.replace(QStringLiteral("batch_size = 2}"), QStringLiteral("batch_size = 4}"));
  QCOMPARE(QString::fromUtf8(readAll(out.filePath(QStringLiteral("edited.lattice/graph.mlir")))), expected);
  QCOMPARE(readAll(out.filePath(QStringLiteral("edited.lattice/weights.safetensors"))),
           readAll(caseDir + QStringLiteral("/expected.lattice/weights.safetensors")));
}

void TestPanelsExport::cancelKeepsPreviousArtifact() {
  const QString caseDir = conformanceDir() + QStringLiteral("/sparse_classifier");
  QTemporaryDir out;
  StudioSession session;
  QVERIFY(openAndWait(session, caseDir + QStringLiteral("/model.ltfx")));
  ExportDialog dialog(&session);
  const QString target = out.filePath(QStringLiteral("model.lattice"));
  dialog.setTargetDirectory(target);
  QVERIFY(exportAndWait(dialog)); // the previous artifact

  // Hold the second export after graph.mlir is written (before any weight progress), cancel,
  // then let it go on: its first progress report must refuse.
  QSemaphore reached;
  QSemaphore release;
  dialog.job()->setFaultHook([&](std::string_view point, uint64_t) {
    if (point == "after-graph") {
      reached.release();
      release.acquire();
    }
    return false;
  });
  dialog.setOutputNames({QStringLiteral("other")}); // a different artifact, were it written
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  QSignalSpy exported(&dialog, &ExportDialog::artifactExported);
  dialog.startExport();
  QVERIFY(dialog.isExporting());
  QVERIFY(reached.tryAcquire(1, 60000));
  dialog.cancelExport();
  release.release();
  QVERIFY(failed.wait(60000));
  QCOMPARE(exported.count(), 0);
  QVERIFY(dialog.job()->result().cancelled);
  QVERIFY2(failed.front().front().toString().contains(QStringLiteral("cancelled")),
           qPrintable(failed.front().front().toString()));
  QVERIFY(!dialog.isExporting());

  QCOMPARE(readAll(target + QStringLiteral("/graph.mlir")),
           readAll(caseDir + QStringLiteral("/expected.lattice/graph.mlir")));
  QCOMPARE(readAll(target + QStringLiteral("/weights.safetensors")),
           readAll(caseDir + QStringLiteral("/expected.lattice/weights.safetensors")));
  // Nothing else in the parent: no temporary or backup directory left.
  const QStringList entries =
      QDir(out.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
  QCOMPARE(entries, QStringList{QStringLiteral("model.lattice")});
}

void TestPanelsExport::optionsPersistPerModel() {
  const QString model = conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx");
  QTemporaryDir out;
  StudioSession session;
  QVERIFY(openAndWait(session, model));
  const QString target = out.filePath(QStringLiteral("persisted.lattice"));
  {
    ExportDialog dialog(&session);
    dialog.setTargetDirectory(target);
    dialog.setOutputNames({QStringLiteral("scores")});
    QVERIFY(dialog.inputModel()->setData(dialog.inputModel()->index(0, InputSpecModel::StrideColumn),
                                         QStringLiteral("2, 2, 2")));
    QVERIFY(exportAndWait(dialog));
  }
  // A new dialog for the same model starts from what was used.
  ExportDialog again(&session);
  QCOMPARE(again.targetDirectory(), target);
  auto options = again.exportOptions();
  QVERIFY(options.ok());
  QVERIFY(options->outputNames);
  QCOMPARE(options->outputNames->size(), std::size_t(1));
  QCOMPARE(options->outputNames->front(), std::string("scores"));
  QVERIFY(options->inputs);
  QCOMPARE(options->inputs->front().stride, (std::array<int64_t, 3>{2, 2, 2}));
  QCOMPARE(*options->batchSize, int64_t(2)); // the archive's hint, kept

  // Another model starts from its archive, in the last parent directory.
  StudioSession other;
  QVERIFY(openAndWait(other, conformanceDir() + QStringLiteral("/sparse_reindex/model.ltfx")));
  ExportDialog fresh(&other);
  QCOMPARE(fresh.targetDirectory(), out.filePath(QStringLiteral("sparse_reindex.lattice")));
  auto freshOptions = fresh.exportOptions();
  QVERIFY(freshOptions.ok());
  QVERIFY(!freshOptions->outputNames);
  QCOMPARE(freshOptions->inputs->size(), std::size_t(2));
}

void TestPanelsExport::inputTableValidatesEdits() {
  InputSpecModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  lattice::InputSpec sparse;
  sparse.name = "x";
  sparse.dtype = "f32";
  sparse.channels = 3;
  lattice::InputSpec dense;
  dense.name = "points";
  dense.kind = lattice::InputSpec::Kind::Dense;
  dense.type = "tensor<?x3xf32>";
  model.setSpecs({sparse, dense});
  QCOMPARE(model.rowCount(), 2);
  auto at = [&](int row, int column) { return model.index(row, column); };

  QCOMPARE(at(0, InputSpecModel::StrideColumn).data().toString(), QStringLiteral("1, 1, 1"));
  QCOMPARE(at(1, InputSpecModel::DTypeColumn).data().toString(), QStringLiteral("f32")); // from the type
  QVERIFY(!(model.flags(at(0, InputSpecModel::NameColumn)) & Qt::ItemIsEditable));
  QVERIFY(!(model.flags(at(0, InputSpecModel::TypeColumn)) & Qt::ItemIsEditable));
  QVERIFY(!(model.flags(at(1, InputSpecModel::StrideColumn)) & Qt::ItemIsEditable));

  QVERIFY(!model.setData(at(0, InputSpecModel::ChannelsColumn), QStringLiteral("-2")));
  QVERIFY(!model.setData(at(0, InputSpecModel::ChannelsColumn), QStringLiteral("three")));
  QCOMPARE(*model.specs()[0].channels, int64_t(3));
  QVERIFY(model.setData(at(0, InputSpecModel::ChannelsColumn), QStringLiteral("?")));
  QVERIFY(!model.specs()[0].channels);
  QVERIFY(!model.setData(at(0, InputSpecModel::DTypeColumn), QStringLiteral("f64")));
  QVERIFY(model.setData(at(0, InputSpecModel::DTypeColumn), QStringLiteral("f16")));
  QCOMPARE(model.specs()[0].dtype, std::string("f16"));
  QVERIFY(!model.setData(at(0, InputSpecModel::StrideColumn), QStringLiteral("1, 2")));
  QVERIFY(!model.setData(at(0, InputSpecModel::StrideColumn), QStringLiteral("0")));
  QVERIFY(model.setData(at(0, InputSpecModel::StrideColumn), QStringLiteral("2")));
  QCOMPARE(model.specs()[0].stride, (std::array<int64_t, 3>{2, 2, 2}));
  QVERIFY(!model.setData(at(1, InputSpecModel::TypeColumn), QStringLiteral("?x3xf32")));
  QVERIFY(model.setData(at(1, InputSpecModel::TypeColumn), QStringLiteral("tensor<?x3xi32>")));
  QCOMPARE(at(1, InputSpecModel::DTypeColumn).data().toString(), QStringLiteral("i32"));

  // Kind switches carry dtype and channels over.
  QVERIFY(model.setData(at(0, InputSpecModel::ChannelsColumn), QStringLiteral("5")));
  QVERIFY(model.setData(at(0, InputSpecModel::KindColumn), QStringLiteral("dense")));
  QCOMPARE(model.specs()[0].type, std::string("tensor<?x5xf16>"));
  QVERIFY(model.setData(at(0, InputSpecModel::KindColumn), QStringLiteral("sparse")));
  QCOMPARE(model.specs()[0].dtype, std::string("f16"));
  QCOMPARE(model.specs()[0].stride, (std::array<int64_t, 3>{1, 1, 1}));
  QVERIFY(!model.setData(at(0, InputSpecModel::KindColumn), QStringLiteral("ragged")));
}

void TestPanelsExport::invalidFieldsFailAtOnce() {
  StudioSession session;
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  ExportDialog dialog(&session);
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  dialog.setTargetDirectory(QString());
  dialog.startExport();
  QCOMPARE(failed.count(), 1);
  QVERIFY(!dialog.isExporting());
  QTemporaryDir out;
  dialog.setTargetDirectory(out.filePath(QStringLiteral("x.lattice")));
  dialog.setOutputNames({QStringLiteral("a"), QString()});
  dialog.startExport();
  QCOMPARE(failed.count(), 2);
  QCOMPARE(failed.back().front().toString(), QStringLiteral("output names must not be empty"));
  // The lowering's own errors arrive from the worker: too many outputs for a one-output model.
  dialog.setOutputNames({QStringLiteral("a"), QStringLiteral("b")});
  dialog.startExport();
  QVERIFY(failed.wait(60000));
  QCOMPARE(failed.count(), 3);
  QVERIFY2(failed.back().front().toString().contains(QStringLiteral("output names must match")),
           qPrintable(failed.back().front().toString()));
  QVERIFY(!QFileInfo::exists(out.filePath(QStringLiteral("x.lattice"))));
}


// Exporting onto a folder that holds the user's files asks first, lists what would
// be deleted, defaults to No; No keeps every file, Yes replaces the folder with the artifact.
void TestPanelsExport::foreignFolderIsReplacedOnlyWhenConfirmed_data() {
  QTest::addColumn<bool>("yes");
  QTest::newRow("No keeps the folder") << false;
  QTest::newRow("Yes replaces it") << true;
}

void TestPanelsExport::foreignFolderIsReplacedOnlyWhenConfirmed() {
  QFETCH(bool, yes);
  QTemporaryDir out;
  const QString target = out.filePath(QStringLiteral("mine"));
  QVERIFY(QDir().mkpath(target + QStringLiteral("/sub")));
  for (const QString& name : {QStringLiteral("readme.txt"), QStringLiteral("sub/important.csv")}) {
    QFile f(target + QLatin1Char('/') + name);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("user data");
  }
  StudioSession session;
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  ExportDialog dialog(&session);
  dialog.setTargetDirectory(target);
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));

  QString detailed;
  bool defaultIsNo = false;
  bool asked = false;
  QTimer::singleShot(0, this, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box || box->objectName() != QStringLiteral("replaceFolderQuestion")) return;
    asked = true;
    detailed = box->detailedText();
    defaultIsNo = box->defaultButton() == box->button(QMessageBox::No);
    box->button(yes ? QMessageBox::Yes : QMessageBox::No)->click();
  });
  QSignalSpy exported(&dialog, &ExportDialog::artifactExported);
  dialog.startExport();
  QVERIFY(asked);
  QVERIFY(defaultIsNo);
  QVERIFY2(detailed.contains(QStringLiteral("readme.txt")) && detailed.contains(QStringLiteral("sub/")) &&
               detailed.contains(QStringLiteral("sub/important.csv")),
           qPrintable(detailed));
  if (!yes) {
    QVERIFY(!dialog.isExporting());
    QCOMPARE(readAll(target + QStringLiteral("/readme.txt")), QByteArray("user data"));
    QCOMPARE(readAll(target + QStringLiteral("/sub/important.csv")), QByteArray("user data"));
    return;
  }
  QVERIFY(exported.wait(60000) || !exported.isEmpty());
  QCOMPARE(QDir(target).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
           (QStringList{QStringLiteral("graph.mlir"), QStringLiteral("weights.safetensors")}));
  QCOMPARE(readAll(target + QStringLiteral("/graph.mlir")),
           readAll(conformanceDir() + QStringLiteral("/sparse_classifier/expected.lattice/graph.mlir")));
}

void TestPanelsExport::hiddenDialogNeverReplacesAForeignFolder() {
  QTemporaryDir out;
  const QString target = out.filePath(QStringLiteral("mine"));
  QVERIFY(QDir().mkpath(target));
  QFile f(target + QStringLiteral("/readme.txt"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("user data");
  f.close();
  StudioSession session;
  QVERIFY(openAndWait(session, conformanceDir() + QStringLiteral("/sparse_classifier/model.ltfx")));
  ExportDialog dialog(&session);
  dialog.setTargetDirectory(target);
  QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
  dialog.startExport();
  QCOMPARE(failed.count(), 1); // at once, before any lowering
  QCOMPARE(failed.front().front().toString(),
           target + QStringLiteral(": not replaced: it holds files that are not part of a lattice artifact: readme.txt"));
  QVERIFY(!dialog.isExporting());
  QCOMPARE(readAll(target + QStringLiteral("/readme.txt")), QByteArray("user data"));
}

void TestPanelsExport::saveWarningsReachTheSummary() {
  // A user's folder beside the target named like what an interrupted save leaves
  // (`.NAME-XXXXXX.previous`, ArtifactSave.h), with no save's record: the export writes the
  // artifact, leaves the folder and its file alone and says so.
  QTemporaryDir out;
  const QString target = out.filePath(QStringLiteral("model.lattice"));
  const QString lookalike = out.filePath(QStringLiteral(".model.lattice-qwerty.previous"));
  QVERIFY(QDir().mkpath(lookalike));
  QFile f(lookalike + QStringLiteral("/notes.txt"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("user data");
  f.close();
  const QString caseDir = conformanceDir() + QStringLiteral("/sparse_classifier");
  StudioSession session;
  QVERIFY(openAndWait(session, caseDir + QStringLiteral("/model.ltfx")));
  ExportDialog dialog(&session);
  dialog.setTargetDirectory(target);
  QVERIFY(exportAndWait(dialog));
  QCOMPARE(readAll(target + QStringLiteral("/graph.mlir")),
           readAll(caseDir + QStringLiteral("/expected.lattice/graph.mlir")));
  QCOMPARE(readAll(lookalike + QStringLiteral("/notes.txt")), QByteArray("user data"));

  const QStringList warnings = dialog.job()->result().warnings;
  QCOMPARE(warnings.size(), 1);
  QVERIFY2(warnings.front().startsWith(QDir::cleanPath(lookalike) + QStringLiteral(": left alone: ")),
           qPrintable(warnings.front()));
  QVERIFY(dialog.showsSummary());
  bool shown = false;
  for (const QLabel* label : dialog.findChildren<QLabel*>())
    shown |= label->isVisibleTo(&dialog) && label->text().contains(QStringLiteral("Warnings")) &&
             label->text().contains(warnings.front().toHtmlEscaped());
  QVERIFY(shown);

  // An export without such a folder warns about nothing.
  QVERIFY(QDir(lookalike).removeRecursively());
  QVERIFY(exportAndWait(dialog));
  QVERIFY(dialog.job()->result().warnings.isEmpty());
}

QTEST_MAIN(TestPanelsExport)
#include "tst_panels_export.moc"
