// End-to-end tests of lattice-cli: exit codes, trace formats, info, save-example.
#include "CliRunner.h"

#include <QtTest/QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <unistd.h>

#include <algorithm>

using lattice::testing::CliRun;
using lattice::testing::runCli;

namespace {

QString conformanceModel(const char* name) {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/") + QLatin1String(name) +
         QStringLiteral("/model.ltfx");
}

} // namespace

class TestCli : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void usageErrorsExitTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("no arguments") << QStringList{};
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")};
    QTest::newRow("trace without model") << QStringList{QStringLiteral("trace")};
    QTest::newRow("unknown option") << QStringList{QStringLiteral("trace"), QStringLiteral("example:chain:2"),
                                                   QStringLiteral("--bogus")};
    QTest::newRow("bad format") << QStringList{QStringLiteral("trace"), QStringLiteral("example:chain:2"),
                                               QStringLiteral("--format"), QStringLiteral("dot")};
    QTest::newRow("option without value") << QStringList{QStringLiteral("trace"), QStringLiteral("example:chain:2"),
                                                         QStringLiteral("--format")};
  }
  void usageErrorsExitTwo() {
    QFETCH(QStringList, args);
    const CliRun r = runCli(args);
    QCOMPARE(r.code, 2);
    QVERIFY(!r.err.isEmpty());
  }

  void badInputExitsOneWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("missing archive") << QStringList{QStringLiteral("info"), QStringLiteral("/nonexistent/m.ltfx")}
                                     << QStringLiteral("/nonexistent/m.ltfx");
    QTest::newRow("unknown example") << QStringList{QStringLiteral("trace"), QStringLiteral("example:nope")}
                                     << QStringLiteral("nope");
    QTest::newRow("unknown leaf path") << QStringList{QStringLiteral("trace"), QStringLiteral("example:chain:2"),
                                                      QStringLiteral("--leaf"), QStringLiteral("no.such")}
                                       << QStringLiteral("no.such");
  }
  void badInputExitsOneWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const CliRun r = runCli(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
  }

  void traceFxFormatOfConformanceArchive() {
    // Written by hand from sparse_classifier/model.ltfx: every child is a supported lattice
    // module (or torch.nn.Linear), so all stay leaves of a straight chain.
    const QString expected = QStringLiteral(
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %stem : [num_users=1] = call_module[target=stem](args = (%x,), kwargs = {})\n"
        "    %norm : [num_users=1] = call_module[target=norm](args = (%stem,), kwargs = {})\n"
        "    %act : [num_users=1] = call_module[target=act](args = (%norm,), kwargs = {})\n"
        "    %pool : [num_users=1] = call_module[target=pool](args = (%act,), kwargs = {})\n"
        "    %global_pool : [num_users=1] = call_module[target=global_pool](args = (%pool,), kwargs = {})\n"
        "    %head : [num_users=1] = call_module[target=head](args = (%global_pool,), kwargs = {})\n"
        "    return head\n");
    const CliRun r = runCli({QStringLiteral("trace"), conformanceModel("sparse_classifier")});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, expected);
  }

  void traceTabularOfUNetHas171Rows() {
    const CliRun r = runCli({QStringLiteral("trace"), QStringLiteral("example:sparse_resunet42"),
                       QStringLiteral("--format"), QStringLiteral("tabular")});
    QCOMPARE(r.code, 0);
    const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2 + 171); // header, rule, one row per node
    QVERIFY(lines.at(0).startsWith(QStringLiteral("opcode")));
    QVERIFY(lines.at(2).startsWith(QStringLiteral("placeholder")));
    QVERIFY(lines.last().startsWith(QStringLiteral("output")));
    int callModule = 0, callFunction = 0;
    for (const QString& line : lines) {
      callModule += line.startsWith(QStringLiteral("call_module"));
      callFunction += line.startsWith(QStringLiteral("call_function"));
    }
    QCOMPARE(callModule, 149);
    QCOMPARE(callFunction, 20);
  }

  void traceJsonIsTheArchiveNodeEncoding() {
    const CliRun r = runCli({QStringLiteral("trace"), QStringLiteral("example:chain:3"), QStringLiteral("--format"),
                       QStringLiteral("json")});
    QCOMPARE(r.code, 0);
    const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonArray nodes = root.value(QStringLiteral("nodes")).toArray();
    QCOMPARE(nodes.size(), 3 * 3 + 2);
    QCOMPARE(nodes.first().toObject().value(QStringLiteral("op")).toString(), QStringLiteral("placeholder"));
    QCOMPARE(nodes.last().toObject().value(QStringLiteral("op")).toString(), QStringLiteral("output"));
    const QJsonObject second = nodes.at(1).toObject();
    QCOMPARE(second.value(QStringLiteral("op")).toString(), QStringLiteral("call_module"));
    QCOMPARE(second.value(QStringLiteral("args")).toArray().first().toObject().value(QStringLiteral("node")).toString(),
             QStringLiteral("x"));
  }

  void expandAndLeafOverridesChangeTheTrace() {
    // Forcing the first block's Sequential to be a leaf replaces its three nodes with one.
    const CliRun plain = runCli({QStringLiteral("info"), QStringLiteral("example:chain:2")});
    const CliRun collapsed = runCli({QStringLiteral("info"), QStringLiteral("example:chain:2"), QStringLiteral("--leaf"),
                               QStringLiteral("blocks.0")});
    QCOMPARE(plain.code, 0);
    QCOMPARE(collapsed.code, 0);
    QVERIFY2(plain.out.contains(QStringLiteral("nodes:       8 ")), qPrintable(plain.out));
    QVERIFY2(collapsed.out.contains(QStringLiteral("nodes:       6 ")), qPrintable(collapsed.out));
  }

  void saveExampleThenInfoReadsItBack() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("resnet.ltfx"));
    const CliRun saved = runCli({QStringLiteral("save-example"), QStringLiteral("sparse_resnet21d"), path});
    QCOMPARE(saved.code, 0);
    QVERIFY(QFile::exists(path + QStringLiteral("/model.json")));
    QVERIFY(QFile::exists(path + QStringLiteral("/weights.safetensors")));
    const CliRun info = runCli({QStringLiteral("info"), path});
    QCOMPARE(info.code, 0);
    // lowering.md §8.2: 2,693,920 parameters in 63 tensors; 81 traced nodes (71 call_module, 8 call_function).
    QVERIFY2(info.out.contains(QStringLiteral("2,693,920 elements in 63 tensors")), qPrintable(info.out));
    QVERIFY2(info.out.contains(QStringLiteral("nodes:       81 (placeholder 1, call_module 71, call_function 8, output 1)")),
             qPrintable(info.out));
    // The archive traces to the same graph as the built-in.
    const CliRun fromArchive = runCli({QStringLiteral("trace"), path});
    const CliRun builtIn = runCli({QStringLiteral("trace"), QStringLiteral("example:sparse_resnet21d")});
    QCOMPARE(fromArchive.code, 0);
    QCOMPARE(fromArchive.out, builtIn.out);
  }

  void versionPrintsTheToolAndItsVersion() {
    const CliRun r = runCli({QStringLiteral("--version")});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QStringLiteral("lattice-cli 0.1.0\n"));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
