// End-to-end tests of `lattice-cli validate`: it accepts every dialect/valid file and every
// expected.lattice (exit 0), rejects every dialect/invalid file for the reason its first line
// gives (exit 1, the diagnostic on stderr as file:line:col: error: message), reports bundle
// errors and all errors of a file, and refuses bad usage (exit 2).
#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const QString kConformance = QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/");

QString firstLine(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readLine()).trimmed();
}

} // namespace

class TestCliValidate : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void acceptsValidFilesAndExpectedArtifacts_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("verdict");
    const QString valid = kConformance + QStringLiteral("dialect/valid/");
    for (const QString& f : QDir(valid).entryList({QStringLiteral("*.mlir")}, QDir::Files))
      QTest::newRow(qPrintable(f)) << valid + f << QStringLiteral(", graph only)");
    const QString models = kConformance + QStringLiteral("models/");
    for (const QString& m : QDir(models).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
      QTest::newRow(qPrintable(m)) << models + m + QStringLiteral("/expected.lattice")
                                   << QStringLiteral(", weights checked)");
  }
  void acceptsValidFilesAndExpectedArtifacts() {
    QFETCH(QString, path);
    QFETCH(QString, verdict);
    const CliRun r = runCli({QStringLiteral("validate"), path});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.err, QString());
    QVERIFY(r.out.startsWith(path + QStringLiteral(": valid (")));
    QVERIFY(r.out.endsWith(verdict + QStringLiteral("\n")));
  }

  // The reason (first line of each file) and the diagnostic that states it.
  void rejectsInvalidFilesForTheirReason_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("activation_bad_kind") << "activation_bad_kind"
                                         << "activation kind is part of the stable ABI enum."
                                         << ":12:12: error: 'lattice.activation' op activation must be relu, "
                                            "sigmoid, gelu, silu, leaky_relu, tanh, or softplus";
    QTest::newRow("activation_bad_rank") << "activation_bad_rank"
                                         << "feature activations operate on rank-2 feature tensors."
                                         << ":12:12: error: 'lattice.activation' op input must have rank 2";
    QTest::newRow("conv_bad_weight_layout")
        << "conv_bad_weight_layout"
        << "lattice.conv3d requires a conv3d-compatible weight layout."
        << ":26:12: error: 'lattice.conv3d' op expected conv3d weight, got linear";
    QTest::newRow("devoxelize_bad_interpolation")
        << "devoxelize_bad_interpolation"
        << "interpolation must be nearest or linear."
        << ":24:17: error: 'lattice.devoxelize' op point interpolation must be nearest or linear";
    QTest::newRow("generative_with_padding")
        << "generative_with_padding"
        << "generative transpose convolution must not carry padding/dilation."
        << ":26:12: error: 'lattice.generative_conv_transpose3d' op must not carry padding or dilation";
    QTest::newRow("global_pool_bad_batch_size")
        << "global_pool_bad_batch_size"
        << "batch_size must be -1 for inferred size or non-negative."
        << ":20:12: error: 'lattice.global_pool' op batch_size must be -1 or non-negative";
    QTest::newRow("missing_ir_version")
        << "missing_ir_version"
        << "lattice artifact modules must declare the dialect ABI version."
        << ":2:1: error: lattice artifact module requires lattice.ir_version = 2";
    QTest::newRow("missing_weight_file")
        << "missing_weight_file"
        << "lattice artifact modules must declare the weight payload file."
        << ":2:1: error: lattice artifact module requires lattice.weight_file = \"weights.safetensors\"";
    QTest::newRow("non_lattice_entry_op")
        << "non_lattice_entry_op"
        << "executable artifact bodies may only contain lattice ops and return."
        << ":12:12: error: lattice artifact entry function may contain only lattice operations and "
           "func.return";
    QTest::newRow("norm_bad_eps") << "norm_bad_eps"
                                  << "normalization epsilon must be positive."
                                  << ":14:12: error: 'lattice.rms_norm' op eps must be positive";
    QTest::newRow("normalized_conv_bad_eps")
        << "normalized_conv_bad_eps"
        << "normalized convolution epsilon must be positive."
        << ":28:12: error: 'lattice.normalized_subm_conv3d' op eps must be positive";
    QTest::newRow("pool_bad_mode") << "pool_bad_mode"
                                   << "pooling mode must be sum, max, or avg."
                                   << ":21:12: error: 'lattice.pool3d' op pool mode must be sum, max, or avg";
    QTest::newRow("quantized_conv_op_rejected")
        << "quantized_conv_op_rejected"
        << "quantized conv must be lattice.conv3d with quantized weight type."
        << ":27:12: error: custom op 'lattice.quantized_conv3d' is unknown";
    QTest::newRow("sparse_binary_bad_op")
        << "sparse_binary_bad_op"
        << "sparse binary op must be one of the supported elementwise modes."
        << ":30:12: error: 'lattice.sparse.binary' op binary op must be add, sub, mul, maximum, or minimum";
    QTest::newRow("sparse_reindex_bad_result_dtype")
        << "sparse_reindex_bad_result_dtype"
        << "sparse reindex result features must keep the source dtype."
        << ":30:12: error: 'lattice.sparse.reindex' op result dtype must match input feature dtype";
    QTest::newRow("subm_with_stride")
        << "subm_with_stride"
        << "lattice.subm_conv3d must not carry stride or padding."
        << ":26:12: error: 'lattice.subm_conv3d' op must not carry stride or padding";
    QTest::newRow("trilinear_upsample_bad_stride")
        << "trilinear_upsample_bad_stride"
        << "trilinear upsampling stride must be positive."
        << ":18:12: error: 'lattice.trilinear_upsample3d' op stride values must be strictly positive";
    QTest::newRow("unsupported_ir_version") << "unsupported_ir_version"
                                            << "only lattice.ir_version = 2 is currently accepted."
                                            << ":3:3: error: unsupported lattice.ir_version: 1 (expected 2)";
    QTest::newRow("voxelize_bad_points")
        << "voxelize_bad_points"
        << "point tensor must have trailing xyz dimension 3."
        << ":17:15: error: 'lattice.voxelize' op points must have trailing dimension 3";
    QTest::newRow("wrong_entry_name")
        << "wrong_entry_name"
        << "the executable artifact entry point is named @forward."
        << ":11:13: error: lattice artifact entry function must be named @forward";
  }
  void rejectsInvalidFilesForTheirReason() {
    QFETCH(QString, file);
    QFETCH(QString, reason);
    QFETCH(QString, diagnostic);
    const QString path = kConformance + QStringLiteral("dialect/invalid/") + file + QStringLiteral(".mlir");
    QCOMPARE(firstLine(path), QStringLiteral("// Invalid: ") + reason);
    const CliRun r = runCli({QStringLiteral("validate"), path});
    QCOMPARE(r.code, 1);
    QCOMPARE(r.out, QString());
    QVERIFY2(r.err.split('\n').contains(path + diagnostic), qPrintable(r.err));
    QVERIFY(r.err.contains(path + QStringLiteral(": invalid (")));
  }
  void everyInvalidFileIsCovered() {
    QCOMPARE(QDir(kConformance + QStringLiteral("dialect/invalid/"))
                 .entryList({QStringLiteral("*.mlir")}, QDir::Files)
                 .size(),
             20);
  }

  // An artifact whose weights lack a tensor and hold an extra one: both are reported.
  void reportsEveryErrorOfAnArtifact() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("a.lattice"));
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(QFile::copy(kConformance +
                            QStringLiteral("models/canonical_kernel_layout/expected.lattice/graph.mlir"),
                        dir + QStringLiteral("/graph.mlir")));
    // sparse_classifier's weights: none of them is conv.weight, all of them are unreferenced.
    QVERIFY(QFile::copy(kConformance +
                            QStringLiteral("models/sparse_classifier/expected.lattice/weights.safetensors"),
                        dir + QStringLiteral("/weights.safetensors")));
    const CliRun r = runCli({QStringLiteral("validate"), dir});
    QCOMPARE(r.code, 1);
    const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0],
             dir + QStringLiteral(
                       "/graph.mlir:16:20: error: artifact weight is missing storage key 'conv.weight'"));
    QCOMPARE(lines[1],
             dir + QStringLiteral(
                       "/weights.safetensors: error: artifact contains unreferenced weights: head.bias, "
                       "head.weight, norm.bias, norm.running_mean, norm.running_var, norm.weight, "
                       "stem.bias, stem.weight"));
    QCOMPARE(lines[2], dir + QStringLiteral(": invalid (2 errors)"));
  }

  void bundleErrors() {
    QTemporaryDir tmp;
    const QString missing = tmp.filePath(QStringLiteral("nothing"));
    CliRun r = runCli({QStringLiteral("validate"), missing});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.startsWith(
        missing + QStringLiteral(": error: lattice artifact directory does not exist: ") + missing));
    const QString empty = tmp.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(empty));
    r = runCli({QStringLiteral("validate"), empty});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(empty + QStringLiteral(": error: lattice artifact is missing graph.mlir\n")));
    QVERIFY(
        r.err.contains(empty + QStringLiteral(": error: lattice artifact is missing weights.safetensors\n")));
  }

  // Several paths: exit 1 when any is invalid, each gets its verdict.
  void severalPaths() {
    const QString good = kConformance + QStringLiteral("dialect/valid/pool3d_basic.mlir");
    const QString bad = kConformance + QStringLiteral("dialect/invalid/pool_bad_mode.mlir");
    const CliRun r = runCli({QStringLiteral("validate"), good, bad});
    QCOMPARE(r.code, 1);
    QVERIFY(r.out.startsWith(good + QStringLiteral(": valid (")));
    QVERIFY(r.err.contains(bad + QStringLiteral(": invalid (1 error)")));
  }

  void usage() {
    const CliRun r = runCli({QStringLiteral("validate")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(QStringLiteral("lattice-cli validate:")));
    QVERIFY(runCli({QStringLiteral("--help")}).out.contains(QStringLiteral("validate PATH...")));
  }
};

QTEST_APPLESS_MAIN(TestCliValidate)
#include "tst_cli_validate.moc"
