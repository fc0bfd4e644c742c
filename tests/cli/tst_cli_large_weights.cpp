// Weights files larger than the memory lattice-cli may take: an artifact whose
// weights.safetensors is a sparse file declaring more bytes than the machine's RAM and swap
// (the weights are read into memory, never mapped) ends in exit code 1 with one line naming the
// file and its size, from `validate`, `run` and `diff`; never an abort (std::bad_alloc) or a
// crash.

#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <sys/sysinfo.h>
#include <unistd.h>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

const char* const kSparse =
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";

/// An artifact with one 1×1×1 conv whose weight declares `rows` output channels (f32, C_in 4):
/// graph.mlir written out, weights.safetensors a header and a hole.
bool writeHugeArtifact(const QString& dir, uint64_t rows) {
  if (!QDir().mkpath(dir)) return false;
  const QString sp = QString::fromLatin1(kSparse);
  const QString graph =
      QStringLiteral(
          "module attributes {\n"
          "  lattice.ir_version = 2,\n"
          "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",\n"
          "  lattice.input_names = [\"x_coords\", \"x_features\", \"x_active\"],\n"
          "  lattice.input_roles = [\"sparse_coords\", \"sparse_features\", \"sparse_active\"],\n"
          "  lattice.output_names = [\"out\"],\n"
          "  lattice.output_roles = [\"sparse_tensor\"],\n"
          "  lattice.weight_file = \"weights.safetensors\"\n"
          "} {\n"
          "  func.func @forward(\n"
          "    %x_coords: tensor<?x4xi32>,\n"
          "    %x_features: tensor<?x4xf32>,\n"
          "    %x_active: tensor<1xi32>\n"
          "  ) -> (SP) {\n"
          "    %x = lattice.sparse.make %x_coords, %x_features, %x_active {stride = array<i64: 1, 1, 1>, "
          "coord_order = #lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>) -> SP\n"
          "    %w = lattice.weight @w {storage_key = \"w\", layout = #lattice.weight_layout<conv3d_o_xyz_i>, "
          "packing = #lattice.packing<dense>} : !lattice.weight<conv3d, f32>\n"
          "    %out = lattice.subm_conv3d %x, %w {kernel_size = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, "
          "accumulation = \"canonical_f32\"} : (SP, !lattice.weight<conv3d, f32>) -> SP\n"
          "    return %out : SP\n"
          "  }\n"
          "}\n")
          .replace(QStringLiteral("SP"), sp);
  QFile g(dir + QStringLiteral("/graph.mlir"));
  if (!g.open(QIODevice::WriteOnly) || g.write(graph.toUtf8()) < 0) return false;
  g.close();
  const uint64_t bytes = rows * 4 * 4;
  QByteArray header = QStringLiteral("{\"__metadata__\":{\"format\":\"pt\"},\"w\":{\"dtype\":\"F32\",\"shape\":[%1,1,1,1,4],"
                                     "\"data_offsets\":[0,%2]}}")
                          .arg(rows)
                          .arg(bytes)
                          .toLatin1();
  while (header.size() % 8) header.append(' ');
  QByteArray file;
  for (int i = 0; i < 8; ++i)
    file.append(char((uint64_t(header.size()) >> (8 * i)) & 0xff));
  file.append(header);
  const QString weights = dir + QStringLiteral("/weights.safetensors");
  QFile w(weights);
  if (!w.open(QIODevice::WriteOnly) || w.write(file) != file.size()) return false;
  w.close();
  return ::truncate(QFile::encodeName(weights).constData(), off_t(uint64_t(file.size()) + bytes)) == 0;
}

} // namespace

class TestCliLargeWeights : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void refusedWithTheirSize_data() {
    QTest::addColumn<QString>("command");
    QTest::newRow("validate") << "validate";
    QTest::newRow("run") << "run";
    QTest::newRow("diff") << "diff";
  }
  void refusedWithTheirSize() {
    QFETCH(QString, command);
    struct sysinfo info {};
    QVERIFY(sysinfo(&info) == 0);
    const uint64_t memory = (uint64_t(info.totalram) + info.totalswap) * info.mem_unit;
    QTemporaryDir dir;
    const QString art = dir.filePath(QStringLiteral("huge.lattice"));
    if (!writeHugeArtifact(art, memory / 16 + (uint64_t(1) << 26))) QSKIP("no sparse file of that size here");
    const QString weights = art + QStringLiteral("/weights.safetensors");
    QStringList args{command, art};
    if (command == QLatin1String("run")) args << QStringLiteral("--random-inputs") << QStringLiteral("10");
    if (command == QLatin1String("diff")) args << art;
    const CliRun r = runCli(args);
    QVERIFY2(r.code == 1 || (command == QLatin1String("diff") && r.code == 2),
             qPrintable(QStringLiteral("exit %1, stderr: %2").arg(r.code).arg(r.err)));
    const QString all = r.out + r.err;
    QVERIFY2(all.contains(weights + QStringLiteral(": the file holds ")), qPrintable(all));
    QVERIFY2(all.contains(QString::number(QFileInfo(weights).size()) + QStringLiteral(" bytes")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("cannot be read into memory")), qPrintable(all));
    QVERIFY2(!all.contains(QStringLiteral("bad_alloc")) && !all.contains(QStringLiteral("Sanitizer")), qPrintable(all));
  }
};

QTEST_GUILESS_MAIN(TestCliLargeWeights)
#include "tst_cli_large_weights.moc"
