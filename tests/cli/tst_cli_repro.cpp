// The crafted reproducers (tests/data/repro, from ../shared/repro) through
// lattice-cli: each untrusted checkpoint, TorchScript file and .ltfx archive must end in exit
// code 1 with exactly one line on stderr that names the file, never a crash or an abort.
// `checkpoints` runs `info example:sparse_resnet21d --weights FILE`, `models` runs `info FILE`,
// `archives` runs info, trace and lower on archives made from crafted model.json files.
// The hostile but well-formed runtime inputs of tests/data/repro/hostile end in a clear error
// or a correct result, never a silently wrong number.

#include "CliRunner.h"

#include "tensor/Safetensors.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kRepro = QStringLiteral(LATTICE_TEST_DATA_DIR "/repro");

QString repro(const QString& name) { return kRepro + QLatin1Char('/') + name; }
QString hostile(const QString& name) { return kRepro + QStringLiteral("/hostile/") + name; }

/// The tensor `key` of a safetensors file as floats (empty when absent).
std::vector<float> floatsIn(const QString& file, const std::string& key, std::vector<std::int64_t>* shape = nullptr) {
  lattice::Expected<lattice::SafetensorsFile> f = lattice::SafetensorsFile::open(file.toStdString());
  if (!f) return {};
  for (const lattice::NamedTensor& t : f->tensors()) {
    if (t.key != key) continue;
    if (shape) *shape = t.tensor.shape();
    lattice::Expected<std::vector<float>> v = lattice::toFloatVector(t.tensor);
    return v ? *v : std::vector<float>{};
  }
  return {};
}

/// The tensor `key` of a safetensors file as integers (empty when absent).
std::vector<std::int64_t> intsIn(const QString& file, const std::string& key) {
  lattice::Expected<lattice::SafetensorsFile> f = lattice::SafetensorsFile::open(file.toStdString());
  if (!f) return {};
  for (const lattice::NamedTensor& t : f->tensors()) {
    if (t.key != key) continue;
    lattice::Expected<std::vector<std::int64_t>> v = lattice::toIntVector(t.tensor);
    return v ? *v : std::vector<std::int64_t>{};
  }
  return {};
}

/// Exit 1, one stderr line naming `file`, nothing that looks like a crash or sanitizer report.
void checkRefused(const CliRun& r, const QString& file) {
  QVERIFY2(r.code == 1, qPrintable(QStringLiteral("exit %1, stderr: %2").arg(r.code).arg(r.err)));
  const QString err = r.err.trimmed();
  QVERIFY2(!err.isEmpty(), "no error line");
  QVERIFY2(err.count(QLatin1Char('\n')) == 0, qPrintable(QStringLiteral("more than one line:\n") + r.err));
  QVERIFY2(err.contains(file), qPrintable(err + QStringLiteral(" does not name ") + file));
  QVERIFY2(!err.contains(QStringLiteral("Sanitizer")) && !err.contains(QStringLiteral("terminate called")),
           qPrintable(err));
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

} // namespace

class TestCliRepro : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void checkpoints_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("recursive rebuild") << "ckpt_recursive_rebuild.pt" << "nested too deeply";
    QTest::newRow("size x stride overflow") << "ckpt_size_stride_overflow.pt" << "is too small";
    QTest::newRow("state_dict use after free") << "ckpt_state_dict_uaf.pt" << "no tensor of the checkpoint matches the model";
    QTest::newRow("stride 0, size 1e9") << "ckpt_stride0_1e9.pt" << "non-contiguous tensor";
    QTest::newRow("bad version record") << "ckpt_bad_version_libtorch_leak.pt" << "not a torch.save checkpoint";
  }
  void checkpoints() {
    QFETCH(QString, name);
    QFETCH(QString, mentions);
    const QString file = repro(name);
    const CliRun r = runCli({QStringLiteral("info"), QStringLiteral("example:sparse_resnet21d"),
                             QStringLiteral("--weights"), file});
    checkRefused(r, file);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
  }

  void models_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("data.pkl tensor larger than its storage") << "pt_datapkl_bad_size.pt" << "is too small";
    QTest::newRow("number overflow in an archive") << "ltfx_number_overflow.ltfx" << "number overflow";
    QTest::newRow("truncated TorchScript code") << "pt_code_truncated.pt" << "not a TorchScript archive: ";
    QTest::newRow("bad version record as a model") << "ckpt_bad_version_libtorch_leak.pt" << "not a TorchScript archive";
  }
  void models() {
    QFETCH(QString, name);
    QFETCH(QString, mentions);
    const QString file = repro(name);
    const CliRun r = runCli({QStringLiteral("info"), file});
    checkRefused(r, file);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
  }

  void archives_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("kind");
    for (const char* command : {"info", "trace", "lower"})
      for (const char* kind : {"fuzz_crash", "deep_nesting"})
        QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(command), QLatin1String(kind))))
            << QString::fromLatin1(command) << QString::fromLatin1(kind);
  }
  void archives() {
    QFETCH(QString, command);
    QFETCH(QString, kind);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString dir = tmp.filePath(QStringLiteral("crafted.ltfx"));
    QVERIFY(QDir().mkpath(dir));
    QByteArray json;
    QString mentions;
    if (kind == QLatin1String("fuzz_crash")) {
      QFile f(repro(QStringLiteral("archive_fuzz_crash.json")));
      QVERIFY(f.open(QIODevice::ReadOnly));
      json = f.readAll();
      mentions = QStringLiteral("number overflow parsing '1e708'");
    } else {
      // A value nested 2000 deep. The top-level object is level 1, so the 256th '[' opens level
      // 257: it is at byte prefix.size() + 255, column prefix.size() + 256.
      const QByteArray prefix = "{\"format\": \"lattice-fx-archive\", \"attrs\": ";
      json = prefix + QByteArray(2000, '[') + QByteArray(2000, ']') + "}";
      mentions = QStringLiteral("model.json:1:%1: invalid JSON: nesting deeper than 256 levels").arg(prefix.size() + 256);
    }
    writeFile(dir + QStringLiteral("/model.json"), json);
    QStringList args{command, dir};
    if (command == QLatin1String("lower")) args << QStringLiteral("-o") << tmp.filePath(QStringLiteral("out"));
    const CliRun r = runCli(args);
    checkRefused(r, dir);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
  }

  // A subm conv with dilation 2^63 − 1: `validate` refuses it at the op, naming the attribute,
  // and `run` refuses to run it. The control with dilation 10^6 runs: its weights sit on kernel
  // row 0 only (offset −2·10^6 on x), which reaches no input row, so every output value is 0, on
  // the input's own rows.
  void dilationOverflow() {
    const QString bad = hostile(QStringLiteral("subm_dil_intmax_k5_row0"));
    const QString control = hostile(QStringLiteral("subm_dil_1e6_k5_row0"));
    const QString inputs = hostile(QStringLiteral("in_resnet21d_1000.safetensors"));
    const QString message = QStringLiteral("'lattice.subm_conv3d' op kernel_size × dilation on axis x (5 × "
                                           "9223372036854775807) exceeds 2147483647");
    CliRun r = runCli({QStringLiteral("validate"), bad});
    QVERIFY2(r.code == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(bad + QStringLiteral("/graph.mlir:17:12: error: ") + message), qPrintable(r.err));
    r = runCli({QStringLiteral("run"), bad, QStringLiteral("--inputs"), inputs});
    checkRefused(r, bad);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString out = tmp.filePath(QStringLiteral("out.safetensors"));
    r = runCli({QStringLiteral("run"), control, QStringLiteral("--inputs"), inputs, QStringLiteral("-o"), out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    std::vector<std::int64_t> shape;
    const std::vector<float> features = floatsIn(out, "out.features", &shape);
    QCOMPARE(shape, (std::vector<std::int64_t>{1000, 4}));
    QVERIFY(std::all_of(features.begin(), features.end(), [](float v) { return v == 0.0f; }));
    QCOMPARE(intsIn(out, "out.coords"), intsIn(inputs, "x_coords"));
  }

  // NaN features propagate through example:sparse_resnet21d as through PyTorch, worked by hand:
  // with every input feature NaN every output value is NaN (each output row sums at least one
  // edge, and NaN·w is NaN for any weight); with only the first row's first channel NaN, the
  // first row of output_0 (the input's own support, in input order) is NaN in every channel.
  void nanFeaturesPropagate() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString all = tmp.filePath(QStringLiteral("all.safetensors")), one = tmp.filePath(QStringLiteral("one.safetensors"));
    CliRun r = runCli({QStringLiteral("run"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("--inputs"),
                       hostile(QStringLiteral("feat_nan_all.safetensors")), QStringLiteral("-o"), all});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    for (int i = 0; i < 5; ++i) {
      const std::vector<float> f = floatsIn(all, "output_" + std::to_string(i) + ".features");
      QVERIFY(!f.empty());
      QVERIFY2(std::all_of(f.begin(), f.end(), [](float v) { return std::isnan(v); }), qPrintable(QString::number(i)));
    }
    r = runCli({QStringLiteral("run"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("--inputs"),
                hostile(QStringLiteral("feat_nan_one.safetensors")), QStringLiteral("-o"), one});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    std::vector<std::int64_t> shape;
    const std::vector<float> f = floatsIn(one, "output_0.features", &shape);
    QCOMPARE(shape, (std::vector<std::int64_t>{1000, 16}));
    QVERIFY(std::all_of(f.begin(), f.begin() + 16, [](float v) { return std::isnan(v); }));
  }

  // `run` and `check` name the inputs and outputs that hold NaN or ±inf on stderr, with counts.
  // Worked by hand: feat_nan_all holds 4000 NaN of its 4000 features, and every output value is
  // then NaN; feat_nan_one holds 1 NaN, which makes at least the first row of output_0 NaN;
  // feat_inf_one holds 1 Inf. The clean inputs warn about nothing.
  void nonFiniteValuesWarn() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString model = QStringLiteral("example:sparse_resnet21d");
    const QString out = tmp.filePath(QStringLiteral("out.safetensors"));
    CliRun r = runCli({QStringLiteral("run"), model, QStringLiteral("--inputs"),
                       hostile(QStringLiteral("feat_nan_all.safetensors")), QStringLiteral("-o"), out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QStringList expected{QStringLiteral("lattice-cli run: warning: input 'x_features' holds 4000 NaN of 4000 values")};
    for (int i = 0; i < 5; ++i) {
      std::vector<std::int64_t> shape;
      floatsIn(out, "output_" + std::to_string(i) + ".features", &shape);
      QCOMPARE(shape.size(), std::size_t(2));
      const qint64 n = shape[0] * shape[1];
      expected << QStringLiteral("lattice-cli run: warning: output 'output_%1' holds %2 NaN of %2 values").arg(i).arg(n);
    }
    QCOMPARE(r.err.trimmed().split(QLatin1Char('\n')), expected);

    r = runCli({QStringLiteral("run"), model, QStringLiteral("--inputs"), hostile(QStringLiteral("feat_inf_one.safetensors"))});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.startsWith(QStringLiteral("lattice-cli run: warning: input 'x_features' holds 1 Inf of 4000 values\n")),
             qPrintable(r.err));

    // check ARTIFACT: the expected outputs are the clean inputs' outputs.
    const QString artifact = tmp.filePath(QStringLiteral("A_resnet21d"));
    const QString clean = hostile(QStringLiteral("in_resnet21d_1000.safetensors"));
    const QString golden = tmp.filePath(QStringLiteral("expected.safetensors"));
    r = runCli({QStringLiteral("lower"), model, QStringLiteral("-o"), artifact});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = runCli({QStringLiteral("run"), artifact, QStringLiteral("--inputs"), clean, QStringLiteral("-o"), golden});
    QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
    r = runCli({QStringLiteral("check"), artifact, QStringLiteral("--inputs"), clean, QStringLiteral("--expected"), golden});
    QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
    r = runCli({QStringLiteral("check"), artifact, QStringLiteral("--inputs"), hostile(QStringLiteral("feat_nan_one.safetensors")),
                QStringLiteral("--expected"), golden});
    QVERIFY2(r.code == 1, qPrintable(r.err));
    QVERIFY2(r.err.startsWith(QStringLiteral("lattice-cli check: warning: input 'x_features' holds 1 NaN of 4000 values\n"
                                             "lattice-cli check: warning: output 'output_0' holds ")),
             qPrintable(r.err));
  }

  // Duplicate active coordinates are refused when the inputs are bound, naming the input, both
  // rows and the coordinate: in both files rows 0 and 1 hold (0, 22, 47, 46) (read from the
  // files with Python when they were copied).
  void duplicateCoordinates_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("every row the same") << QStringLiteral("dup_all_rows.safetensors");
    QTest::newRow("half of the rows repeated") << QStringLiteral("dup_half_rows.safetensors");
  }
  void duplicateCoordinates() {
    QFETCH(QString, file);
    const CliRun r = runCli({QStringLiteral("run"), QStringLiteral("example:sparse_resnet21d"), QStringLiteral("--inputs"),
                             hostile(file)});
    checkRefused(r, QStringLiteral("example:sparse_resnet21d"));
    QVERIFY2(r.err.contains(QStringLiteral("input 'x_coords' repeats coordinate (0, 22, 47, 46) in active rows 0 and 1")),
             qPrintable(r.err));
  }

  // An inputs file with 20 000 tensor names the artifact does not know: one short error line that
  // lists the first ten names in order and counts the rest.
  void unknownInputNamesAreCapped() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString file = tmp.filePath(QStringLiteral("unknown.safetensors"));
    std::vector<lattice::NamedTensor> tensors;
    char name[32];
    for (int i = 0; i < 20000; ++i) {
      std::snprintf(name, sizeof name, "unknown_%05d", i);
      tensors.push_back({name, lattice::TensorData::owning(lattice::DType::F32, {0}, {})});
    }
    QVERIFY(bool(lattice::writeSafetensors(file.toStdString(), tensors, std::nullopt)));
    const CliRun r = runCli({QStringLiteral("run"), hostile(QStringLiteral("subm_dil_1e6_k5_row0")),
                             QStringLiteral("--inputs"), file});
    checkRefused(r, hostile(QStringLiteral("subm_dil_1e6_k5_row0")));
    QVERIFY2(r.err.size() < 400, qPrintable(QString::number(r.err.size())));
    QVERIFY2(r.err.contains(QStringLiteral("unexpected artifact inputs: unknown_00000, unknown_00001, unknown_00002, "
                                           "unknown_00003, unknown_00004, unknown_00005, unknown_00006, "
                                           "unknown_00007, unknown_00008, unknown_00009, … and 19990 more")),
             qPrintable(r.err));
  }
};

QTEST_APPLESS_MAIN(TestCliRepro)
#include "tst_cli_repro.moc"
