// File ▸ Load Weights… through the session and the main window. A checkpoint
// written here gives every F32 tensor of sparse_classifier one constant of its own; after
// loading it the exported weights.safetensors holds exactly those constants (whatever layout
// the export chooses, every element of a constant tensor is that constant), while an export made
// before does not. A checkpoint with one wrong shape is refused unless applied partially, and
// then only the matching keys change. Unreadable files give errors (and message boxes) naming
// the file; the window title and status bar name the loaded weights.

#include "MainWindow.h"
#include "StudioSession.h"
#include "panels/ExportJob.h"
#include "tensor/Safetensors.h"

#include "WidgetTestSupport.h"

#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <cstring>
#include <map>

using namespace lattice;
using namespace lattice::studio;

using namespace lattice::widgettest;

namespace {

QString modelPath() {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/sparse_classifier/model.ltfx");
}


/// Exports the session's model into `dir`; the error or "".
QString exportTo(StudioSession& session, const QString& dir) {
  ExportJob job;
  QSignalSpy finished(&job, &ExportJob::exportFinished);
  if (!job.start(*session.model(), dir, session.exportOptions(), session.tracer()))
    return QStringLiteral("busy");
  if (!waitFor([&] { return !finished.isEmpty(); }, 120000)) return QStringLiteral("timeout");
  return job.result().ok ? QString() : job.result().message;
}

TensorData constantF32(const std::vector<int64_t>& shape, float value) {
  const int64_t n = shapeNumel(shape);
  std::vector<uint8_t> bytes(static_cast<std::size_t>(n) * 4);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(bytes.data() + i * 4, &value, 4);
  return TensorData::owning(DType::F32, shape, std::move(bytes));
}

/// A checkpoint of every model tensor: F32 ones replaced by 0.125 * (1 + their position),
/// others copied. Returns the constants by key.
std::map<std::string, float> writeConstantCheckpoint(const Model& model, const QString& path,
                                                     const std::string& wrongShapeKey = {}) {
  std::map<std::string, float> constants;
  std::vector<NamedTensor> tensors;
  int position = 0;
  for (const auto& [key, tensor] : model.tensors()) {
    if (tensor.dtype() != DType::F32) {
      tensors.push_back({key, tensor});
      continue;
    }
    const float value = 0.125f * static_cast<float>(++position);
    std::vector<int64_t> shape = tensor.shape();
    if (key == wrongShapeKey)
      shape.front() += 1;
    else
      constants[key] = value;
    tensors.push_back({key, constantF32(shape, value)});
  }
  const Status written = writeSafetensors(path.toStdString(), tensors, std::nullopt);
  if (!written) qWarning("%s", written.message().c_str());
  return constants;
}

/// Keys of `file` whose every element equals constants[key].
QStringList constantKeys(const QString& file, const std::map<std::string, float>& constants) {
  QStringList out;
  Expected<SafetensorsFile> weights = SafetensorsFile::open(file.toStdString());
  if (!weights) return out;
  for (const NamedTensor& t : weights->tensors()) {
    const auto c = constants.find(t.key);
    if (c == constants.end() || t.tensor.dtype() != DType::F32) continue;
    bool all = t.tensor.numel() > 0;
    for (int64_t i = 0; i < t.tensor.numel() && all; ++i) {
      float v;
      std::memcpy(&v, t.tensor.data() + i * 4, 4);
      all = v == c->second;
    }
    if (all) out << QString::fromStdString(t.key);
  }
  out.sort();
  return out;
}

/// Closes the next message box when it appears and hands back its text (polls every 20 ms; each
/// poll schedules the next, so nothing outlives the box).
void captureNextMessageBox(QString* text) {
  QTimer::singleShot(20, [text] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      *text = box->text() + QLatin1Char('\n') + box->informativeText();
      box->reject();
      return;
    }
    captureNextMessageBox(text);
  });
}

} // namespace

class TestSessionWeights : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void loadedWeightsReachTheExport();
  void mismatchedCheckpointNeedsPartial();
  void unreadableCheckpointsNameTheFile();
  void newModelForgetsTheWeights();
  void mainWindowShowsLoadedWeights();
  void mainWindowErrorBoxNamesTheFile();
};

void TestSessionWeights::initTestCase() {
  isolateSettings(QStringLiteral("tst_session_weights"));
}

void TestSessionWeights::loadedWeightsReachTheExport() {
  StudioSession session;
  QVERIFY(openAndWait(session, modelPath()));
  QTemporaryDir tmp;
  const QString checkpoint = tmp.filePath(QStringLiteral("constants.safetensors"));
  const std::map<std::string, float> constants = writeConstantCheckpoint(*session.model(), checkpoint);
  QVERIFY(constants.size() >= 8); // stem, norm (4) and head tensors

  QCOMPARE(exportTo(session, tmp.filePath(QStringLiteral("before.lattice"))), QString());
  QCOMPARE(constantKeys(tmp.filePath(QStringLiteral("before.lattice/weights.safetensors")), constants),
           QStringList());

  QSignalSpy loaded(&session, &StudioSession::weightsLoaded);
  session.startInterpreter();
  const Expected<CheckpointReport> report = session.loadWeights(checkpoint, false);
  QVERIFY2(report, report ? "" : report.message().c_str());
  QVERIFY(report->clean());
  QCOMPARE(report->matched, report->modelTensors);
  QCOMPARE(loaded.size(), 1);
  QCOMPARE(session.weightsSource(), checkpoint);
  QCOMPARE(session.interpreterState(), StudioSession::InterpreterState::NotStarted); // reset

  QCOMPARE(exportTo(session, tmp.filePath(QStringLiteral("after.lattice"))), QString());
  QStringList expected;
  for (const auto& [key, value] : constants)
    expected << QString::fromStdString(key);
  expected.sort();
  // Every F32 tensor of the dense export is a model tensor under the same key here.
  QCOMPARE(constantKeys(tmp.filePath(QStringLiteral("after.lattice/weights.safetensors")), constants),
           expected);
}

void TestSessionWeights::mismatchedCheckpointNeedsPartial() {
  StudioSession session;
  QVERIFY(openAndWait(session, modelPath()));
  QTemporaryDir tmp;
  const QString path = tmp.filePath(QStringLiteral("wrong.safetensors"));
  const std::map<std::string, float> constants =
      writeConstantCheckpoint(*session.model(), path, "head.weight");
  const TensorData headBefore = session.model()->tensors().at("head.weight");
  const TensorData stemBefore = session.model()->tensors().at("stem.bias");

  Expected<Checkpoint> checkpoint = readCheckpoint(path.toStdString());
  QVERIFY(checkpoint);
  const CheckpointReport report = session.compareWeights(*checkpoint);
  QCOMPARE(report.issues.size(), std::size_t(1));
  QCOMPARE(report.issues.front().kind, CheckpointIssue::Kind::Mismatch);
  QCOMPARE(report.issues.front().key, std::string("head.weight"));

  QSignalSpy loaded(&session, &StudioSession::weightsLoaded);
  const Expected<CheckpointReport> refused = session.applyWeights(*checkpoint, false);
  QVERIFY(!refused);
  QVERIFY(loaded.isEmpty());
  QVERIFY(session.weightsSource().isEmpty());
  QVERIFY(session.model()->tensors().at("stem.bias") == stemBefore); // unchanged

  const Expected<CheckpointReport> partial = session.applyWeights(*checkpoint, true);
  QVERIFY2(partial, partial ? "" : partial.message().c_str());
  QCOMPARE(partial->matched, report.modelTensors - 1);
  QCOMPARE(loaded.size(), 1);
  QVERIFY(session.model()->tensors().at("head.weight") == headBefore); // the mismatched key stays
  QVERIFY(session.model()->tensors().at("stem.bias") != stemBefore);
  QVERIFY(session.model()->tensors().at("stem.bias") == constantF32({4}, constants.at("stem.bias")));
}

void TestSessionWeights::unreadableCheckpointsNameTheFile() {
  StudioSession session;
  QTemporaryDir tmp;
  const QString missing = tmp.filePath(QStringLiteral("missing.safetensors"));
  QVERIFY(!session.loadWeights(missing, false)); // no model yet
  QVERIFY(openAndWait(session, modelPath()));
  const Expected<CheckpointReport> absent = session.loadWeights(missing, false);
  QVERIFY(!absent);
  QVERIFY2(QString::fromStdString(absent.message()).contains(QStringLiteral("missing.safetensors")),
           absent.message().c_str());
  const QString garbage = tmp.filePath(QStringLiteral("garbage.pt"));
  {
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a checkpoint at all");
  }
  const Expected<CheckpointReport> bad = session.loadWeights(garbage, false);
  QVERIFY(!bad);
  QVERIFY2(QString::fromStdString(bad.message()).contains(QStringLiteral("garbage.pt")),
           bad.message().c_str());
  QVERIFY(session.weightsSource().isEmpty());
}

void TestSessionWeights::newModelForgetsTheWeights() {
  StudioSession session;
  QVERIFY(openAndWait(session, modelPath()));
  QTemporaryDir tmp;
  const QString path = tmp.filePath(QStringLiteral("c.safetensors"));
  writeConstantCheckpoint(*session.model(), path);
  QVERIFY(session.loadWeights(path, false));
  QVERIFY(!session.weightsSource().isEmpty());
  QVERIFY(openAndWait(session, modelPath()));
  QVERIFY(session.weightsSource().isEmpty());
}

void TestSessionWeights::mainWindowShowsLoadedWeights() {
  MainWindow window;
  QVERIFY(!window.action(QStringLiteral("file.loadWeights"))->isEnabled());
  QVERIFY(openAndWait(*window.session(), modelPath()));
  QVERIFY(window.action(QStringLiteral("file.loadWeights"))->isEnabled());
  QTemporaryDir tmp;
  const QString path = tmp.filePath(QStringLiteral("clean.safetensors"));
  writeConstantCheckpoint(*window.session()->model(), path);
  QSignalSpy loaded(window.session(), &StudioSession::weightsLoaded);
  window.loadWeights(path); // a clean checkpoint applies without a question
  QVERIFY(waitFor([&] { return !loaded.isEmpty(); }));
  QVERIFY2(window.windowTitle().contains(QStringLiteral("clean.safetensors")),
           qPrintable(window.windowTitle()));
  bool statusNames = false;
  for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
    statusNames = statusNames || label->text().contains(QStringLiteral("weights: clean.safetensors"));
  QVERIFY(statusNames);
}

void TestSessionWeights::mainWindowErrorBoxNamesTheFile() {
  MainWindow window;
  window.show();
  QVERIFY(openAndWait(*window.session(), modelPath()));
  QTemporaryDir tmp;
  const QString garbage = tmp.filePath(QStringLiteral("broken.safetensors"));
  {
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x10\x00\x00\x00\x00\x00\x00\x00{not json", 17);
  }
  QString text;
  captureNextMessageBox(&text);
  window.loadWeights(garbage);
  QVERIFY(waitFor([&] { return !text.isEmpty(); }));
  QVERIFY2(text.contains(garbage), qPrintable(text));
  QVERIFY(window.session()->weightsSource().isEmpty());

  // A mismatched checkpoint asks; declining leaves the model's weights.
  const QString wrong = tmp.filePath(QStringLiteral("wrong.safetensors"));
  writeConstantCheckpoint(*window.session()->model(), wrong, "head.weight");
  text.clear();
  captureNextMessageBox(&text);
  window.loadWeights(wrong);
  QVERIFY(waitFor([&] { return !text.isEmpty(); }));
  QVERIFY2(text.contains(QStringLiteral("wrong.safetensors")) && text.contains(QStringLiteral("mismatched")),
           qPrintable(text));
  QTest::qWait(50);
  QVERIFY(window.session()->weightsSource().isEmpty());
}

QTEST_MAIN(TestSessionWeights)
#include "tst_session_weights.moc"
