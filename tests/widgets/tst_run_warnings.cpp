// The studio names a finished run's outputs that hold NaN or ±inf, as `lattice-cli run` does: the
// artifact run bar in its result line, the numeric run of a model in the status bar. Worked by
// hand: a 1×1×1 subm conv with weight 1 over features [NaN, 2, inf] gives [NaN, 2, inf], so its
// output holds 1 NaN and 1 Inf of 3 values; a NaN feature of example:chain:2's input reaches its
// output through conv, norm and activation (relu keeps a NaN).

#include "MainWindow.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "numeric/NumericRun.h"

#include "../unit/RuntimeTestSupport.h"
#include "ArtifactViewTestSupport.h"

#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <limits>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

/// An inputs file for `x_coords` / `x_features` (rows × channels) / `x_active`.
bool writeInputs(const QString& path, const std::vector<std::int32_t>& coords, const std::vector<float>& features,
                 std::int64_t channels) {
  const std::int64_t rows = static_cast<std::int64_t>(coords.size() / 4);
  return bool(writeSafetensors(path.toStdString(),
                               {{"x_coords", rt::i32Tensor({rows, 4}, coords)},
                                {"x_features", rt::f32Tensor({rows, channels}, features)},
                                {"x_active", rt::i32Tensor({1}, {static_cast<std::int32_t>(rows)})}},
                               std::nullopt));
}

} // namespace

class TestRunWarnings : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() { isolateSettings(QStringLiteral("tst_run_warnings")); }

  void artifactRunBarWarns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    rt::Graph g;
    g.sparseInput("x", 1);
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {1});
    g.op("%y = lattice.subm_conv3d %x, %w {kernel_size = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, "
         "accumulation = \"canonical_f32\"} : ($S, $WC) -> $S");
    g.output("y", "$S");
    const QString artifact = dir.filePath(QStringLiteral("nan.lattice"));
    QVERIFY(QDir().mkpath(artifact));
    QFile text(artifact + QStringLiteral("/graph.mlir"));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write(QByteArray::fromStdString(g.text()));
    text.close();
    QVERIFY(bool(writeSafetensors(QString(artifact + QStringLiteral("/weights.safetensors")).toStdString(), g.weights(),
                                  std::nullopt)));
    const QString inputs = dir.filePath(QStringLiteral("inputs.safetensors"));
    QVERIFY(writeInputs(inputs, {0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0}, {kNaN, 2, kInf}, 1));
    const QString warning = QStringLiteral("output 'output' holds 1 NaN and 1 Inf of 3 values");

    ArtifactRunRequest request;
    request.artifact = artifact.toStdString();
    request.inputs = RunInputSpec::fromFile(inputs.toStdString());
    std::atomic<bool> cancel{false};
    std::atomic<int> progress{0}, total{0};
    const ArtifactRunResult result = runArtifact(request, cancel, progress, total);
    QVERIFY2(result.error.empty(), result.error.c_str());
    QCOMPARE(result.warnings, std::vector<std::string>{warning.toStdString()});

    ArtifactView view;
    QVERIFY(openAndSettle(view, artifact));
    ArtifactRunBar* bar = view.runBar();
    bar->setInputsFile(inputs);
    bar->run();
    QVERIFY(waitFor([&] { return !bar->isRunning(); }));
    const QLabel* status = bar->findChild<QLabel*>(QStringLiteral("artifactRunStatus"));
    QVERIFY(status);
    QVERIFY2(status->text().contains(QStringLiteral("<b>warning:</b> ") + warning), qPrintable(status->text()));

    // Finite inputs: no warning.
    bar->setInputsFile(QString());
    bar->run();
    QVERIFY(waitFor([&] { return !bar->isRunning(); }));
    QVERIFY(bar->result() && bar->result()->warnings.empty());
    QVERIFY2(!status->text().contains(QStringLiteral("warning")), qPrintable(status->text()));
  }

  void numericRunWarns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString inputs = dir.filePath(QStringLiteral("inputs.safetensors"));
    std::vector<float> features(2 * 16, 0.5f);
    features[0] = kNaN;
    QVERIFY(writeInputs(inputs, {0, 0, 0, 0, 0, 1, 0, 0}, features, 16));
    MainWindow window;
    QVERIFY(openAndWait(*window.session(), QStringLiteral("example:chain:2")));
    NumericRun* run = window.numericRun();
    NumericRun::InputChoice choice;
    choice.source = NumericRun::InputSource::File;
    choice.file = inputs;
    run->setInputChoice(choice);
    run->run();
    QVERIFY(waitFor([&] { return run->state() == NumericRun::State::Finished; }));
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("; warning: output '")) && message.contains(QStringLiteral(" NaN of ")),
             qPrintable(message));
  }
};

QTEST_MAIN(TestRunWarnings)
#include "tst_run_warnings.moc"
