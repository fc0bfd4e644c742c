// End-to-end tests of TorchScript models and `--weights FILE [--allow-partial]` in lattice-cli:
// `trace model.pt` prints what torch.fx prints for the same Python module, mismatched
// checkpoints are refused with the key named, and a checkpoint swap changes an export's weights
// and nothing else (graph.mlir byte-identical; the weights equal those of a model that had the
// checkpoint's values all along).

#include "CliRunner.h"
#include "model/Archive.h"
#include "model/Examples.h"
#include "tensor/Safetensors.h"

#include <QtTest/QtTest>

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace lattice;

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kFixtures = QStringLiteral(LATTICE_TORCH_FIXTURES_DIR);

#define REQUIRE_FIXTURES()                                                                                   \
  do {                                                                                                       \
    if (!QFile::exists(kFixtures + QStringLiteral("/fixtures.stamp")))                                       \
      QSKIP("TorchScript fixtures were not generated: the python3 found at configure time cannot import "   \
            "torch (install python3-torch and re-run cmake)");                                               \
  } while (false)

QString fixture(const QString& name) { return kFixtures + QLatin1Char('/') + name; }

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QString kMlpInput = QStringLiteral("input:dense:tensor<?x4xf32>");

} // namespace

class TestCliWeights : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void traceOfTorchScriptEqualsTorchFx_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"nested_sequential", "residual", "mlp"})
      QTest::newRow(name) << QString::fromLatin1(name);
  }
  void traceOfTorchScriptEqualsTorchFx() {
    REQUIRE_FIXTURES();
    QFETCH(QString, name);
    const CliRun r = runCli({QStringLiteral("trace"), fixture(name + QStringLiteral(".pt"))});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    // torch 1.13 prints the user count as `#users`; newer torch (and we) `num_users`.
    QString expected = QString::fromUtf8(readAll(fixture(name + QStringLiteral(".fx.txt"))));
    expected.replace(QStringLiteral("[#users="), QStringLiteral("[num_users="));
    QCOMPARE(r.out.trimmed(), expected.trimmed());
  }

  void weightsOptionAppliesACheckpoint() {
    REQUIRE_FIXTURES();
    const CliRun r = runCli({QStringLiteral("info"), fixture(QStringLiteral("mlp.pt")), QStringLiteral("--weights"),
                       fixture(QStringLiteral("mlp.seed1.state_dict.pt"))});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    // Linear(4, 8) + Linear(8, 3): 32 + 8 + 24 + 3 = 67 elements in 4 tensors.
    QVERIFY2(r.out.contains(QStringLiteral("parameters:  67 elements in 4 tensors")), qPrintable(r.out));
  }

  void mismatchedCheckpointIsRefused_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("trace") << "trace";
    QTest::newRow("info") << "info";
    QTest::newRow("lower") << "lower";
  }
  void mismatchedCheckpointIsRefused() {
    REQUIRE_FIXTURES();
    QFETCH(QString, command);
    QTemporaryDir tmp;
    QStringList args{command, fixture(QStringLiteral("mlp.pt")), QStringLiteral("--weights"),
                     fixture(QStringLiteral("mlp.wrong_shapes.pt"))};
    if (command == QLatin1String("lower"))
      args << QStringLiteral("--input") << kMlpInput << QStringLiteral("-o")
           << tmp.filePath(QStringLiteral("out"));
    const CliRun r = runCli(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(
        r.err.contains(QStringLiteral("'0.weight': shape [6, 4] in the checkpoint, [8, 4] in the model")),
        qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("--allow-partial")), qPrintable(r.err));
    QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("out"))));
  }

  void allowPartialWarnsAndContinues() {
    REQUIRE_FIXTURES();
    const CliRun r = runCli({QStringLiteral("info"), fixture(QStringLiteral("mlp.pt")), QStringLiteral("--weights"),
                       fixture(QStringLiteral("mlp.partial.pt")), QStringLiteral("--allow-partial")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("warning: ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("'2.bias': missing from the checkpoint")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("'extra.weight': not a parameter or buffer of the model")),
             qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 2);
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("--allow-partial without --weights") << QStringList{
        QStringLiteral("trace"), QStringLiteral("example:chain:1"), QStringLiteral("--allow-partial")};
    QTest::newRow("--weights without a value") << QStringList{
        QStringLiteral("info"), QStringLiteral("example:chain:1"), QStringLiteral("--weights")};
  }
  void usageErrors() {
    QFETCH(QStringList, args);
    QCOMPARE(runCli(args).code, 2);
  }

  // A TorchScript file has no example inputs; the error says to pass --input.
  void torchScriptWithoutInputsSaysToPassThem() {
    REQUIRE_FIXTURES();
    QTemporaryDir tmp;
    const CliRun r = runCli({QStringLiteral("lower"), fixture(QStringLiteral("mlp.pt")), QStringLiteral("-o"),
                             tmp.filePath(QStringLiteral("out"))});
    QCOMPARE(r.code, 1);
    // nn.Sequential's forward is forward(input): the examples use that name.
    QVERIFY2(
        r.err.contains(QStringLiteral("example_inputs must be a non-empty tuple; the model has no example "
                                      "inputs: pass them with --input, one per forward input (input) in "
                                      "order, e.g. --input input:sparse:f32:4 ")),
        qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral(" or --input 'input:dense:tensor<?x4xf32>' (dense)")),
             qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    QVERIFY(!QFileInfo::exists(tmp.filePath(QStringLiteral("out"))));

    // Every example in the message is --input syntax lattice-cli takes (the shell's quotes
    // removed): passed back, none is a usage error and the missing-inputs error is gone. The
    // dense one fits the MLP (Linear(4, 8) first), so it exports.
    static const QRegularExpression example(
        QStringLiteral("--input (?:'([^']+)'|([A-Za-z_][A-Za-z0-9_]*:[^\\s']+))"));
    QStringList examples;
    for (auto it = example.globalMatch(r.err); it.hasNext();) {
      const QRegularExpressionMatch m = it.next();
      examples << (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1));
    }
    QCOMPARE(examples, (QStringList{QStringLiteral("input:sparse:f32:4"),
                                    QStringLiteral("input:dense:tensor<?x4xf32>")}));
    for (const QString& input : std::as_const(examples)) {
      const QString out = tmp.filePath(QStringLiteral("with-") + QString::number(examples.indexOf(input)));
      const CliRun again = runCli({QStringLiteral("lower"), fixture(QStringLiteral("mlp.pt")),
                                   QStringLiteral("--input"), input, QStringLiteral("-o"), out});
      QVERIFY2(again.code != 2, qPrintable(again.err));
      QVERIFY2(!again.err.contains(QStringLiteral("example_inputs")), qPrintable(again.err));
      if (input.contains(QStringLiteral(":dense:"))) {
        QVERIFY2(again.code == 0, qPrintable(again.err));
        QVERIFY(QFileInfo::exists(out + QStringLiteral("/graph.mlir")));
      }
    }
  }

  void checkpointSwapChangesOnlyTheWeights() {
    REQUIRE_FIXTURES();
    QTemporaryDir tmp;
    const QString a = tmp.filePath(QStringLiteral("a")), b = tmp.filePath(QStringLiteral("b"));
    const QString model = fixture(QStringLiteral("mlp.pt"));
    CliRun r =
        runCli({QStringLiteral("lower"), model, QStringLiteral("--input"), kMlpInput, QStringLiteral("-o"), a});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({QStringLiteral("lower"), model, QStringLiteral("--input"), kMlpInput,
             QStringLiteral("--weights"), fixture(QStringLiteral("mlp.seed1.state_dict.pt")),
             QStringLiteral("-o"), b});
    QVERIFY2(r.code == 0, qPrintable(r.err));

    const QByteArray mlirA = readAll(a + QStringLiteral("/graph.mlir"));
    QVERIFY(!mlirA.isEmpty());
    QCOMPARE(readAll(b + QStringLiteral("/graph.mlir")), mlirA);

    auto wa = SafetensorsFile::open(QString(a + QStringLiteral("/weights.safetensors")).toStdString());
    auto wb = SafetensorsFile::open(QString(b + QStringLiteral("/weights.safetensors")).toStdString());
    QVERIFY(wa.ok() && wb.ok());
    QCOMPARE(wa->tensors().size(), wb->tensors().size());
    QVERIFY(!wa->tensors().empty());
    // Linear weights are stored dense in torch's (out, in) layout under their state_dict keys
    // (`linear_o_i`, `bias_c`), so each must equal the tensor Python saved.
    auto seed0 = SafetensorsFile::open(fixture(QStringLiteral("mlp.safetensors")).toStdString());
    auto seed1 = SafetensorsFile::open(fixture(QStringLiteral("mlp.seed1.safetensors")).toStdString());
    QVERIFY(seed0.ok() && seed1.ok());
    for (std::size_t i = 0; i < wa->tensors().size(); ++i) {
      const NamedTensor& ta = wa->tensors()[i];
      const NamedTensor& tb = wb->tensors()[i];
      QCOMPARE(tb.key, ta.key);
      QVERIFY2(seed0->find(ta.key) && *seed0->find(ta.key) == ta.tensor, ta.key.c_str());
      QVERIFY2(seed1->find(tb.key) && *seed1->find(tb.key) == tb.tensor, tb.key.c_str());
      QVERIFY2(tb.tensor != ta.tensor, ta.key.c_str());
    }
  }

  // No PyTorch needed: an archive plus a safetensors checkpoint exports exactly like an archive
  // that held the checkpoint's values.
  void safetensorsSwapEqualsAModelWithThoseWeights() {
    QTemporaryDir tmp;
    const QString base = tmp.filePath(QStringLiteral("base.ltfx"));
    const QString reference = tmp.filePath(QStringLiteral("reference.ltfx"));
    const QString weights = tmp.filePath(QStringLiteral("seed9.safetensors"));
    const Model seed9 = makeChain(1, 9);
    QVERIFY(writeArchive(makeChain(1, 0), base.toStdString()).ok());
    QVERIFY(writeArchive(seed9, reference.toStdString()).ok());
    std::vector<NamedTensor> tensors;
    for (const auto& [key, tensor] : seed9.tensors()) tensors.push_back({key, tensor});
    QVERIFY(writeSafetensors(weights.toStdString(), tensors, std::nullopt).ok());

    const QString plain = tmp.filePath(QStringLiteral("plain")),
                  swapped = tmp.filePath(QStringLiteral("swapped")),
                  expected = tmp.filePath(QStringLiteral("expected"));
    CliRun r = runCli({QStringLiteral("lower"), base, QStringLiteral("-o"), plain});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli(
        {QStringLiteral("lower"), base, QStringLiteral("--weights"), weights, QStringLiteral("-o"), swapped});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({QStringLiteral("lower"), reference, QStringLiteral("-o"), expected});
    QVERIFY2(r.code == 0, qPrintable(r.err));

    const QByteArray mlir = readAll(plain + QStringLiteral("/graph.mlir"));
    QVERIFY(!mlir.isEmpty());
    QCOMPARE(readAll(swapped + QStringLiteral("/graph.mlir")), mlir);
    QCOMPARE(readAll(expected + QStringLiteral("/graph.mlir")), mlir);
    const QByteArray swappedWeights = readAll(swapped + QStringLiteral("/weights.safetensors"));
    QCOMPARE(swappedWeights, readAll(expected + QStringLiteral("/weights.safetensors")));
    QVERIFY(swappedWeights != readAll(plain + QStringLiteral("/weights.safetensors")));
  }
};

QTEST_APPLESS_MAIN(TestCliWeights)
#include "tst_cli_weights.moc"
