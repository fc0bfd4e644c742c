// Tests of the TorchScript importer against models scripted by tests/torchscript/make_fixtures.py
// (run during the test build with Debian's python3-torch). Expectations are independent of the
// importer: torch.fx's symbolic_trace of the same Python modules (written beside each .pt), the
// weights as Python wrote them to safetensors, torch.nn's documented attributes and initial
// buffers, graphs worked out by hand from the fixture sources, and the source lines of the
// constructs the importer must refuse (found by their `# marker:` comments).
//
// Differences TorchScript cannot preserve (also listed in model/TorchScriptImporter.h):
// - a Tensor method with a torch function (`y.mean()`) becomes that function (`torch.mean`);
// - `x * number` is `torch.mul` (TorchScript cannot tell it from `torch.mul(x, number)`).

#include "model/LoadModel.h"
#include "model/torchscript/TorchScriptImporter.h"
#include "tensor/Safetensors.h"
#include "trace/Tracer.h"

#include <QtTest/QtTest>

#include <fstream>
#include <sstream>

using namespace lattice;

namespace {

const QString kFixtures = QStringLiteral(LATTICE_TORCH_FIXTURES_DIR);
const std::string kFixtureSource = std::string(LATTICE_TEST_DATA_DIR) + "/../torchscript/fixture_models.py";

#define REQUIRE_FIXTURES()                                                                                   \
  do {                                                                                                       \
    if (!QFile::exists(kFixtures + QStringLiteral("/fixtures.stamp")))                                       \
      QSKIP("TorchScript fixtures were not generated: the python3 found at configure time cannot import "   \
            "torch (install python3-torch and re-run cmake)");                                               \
  } while (false)

std::string fixture(const QString& name) {
  return QString(kFixtures + QLatin1Char('/') + name).toStdString();
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One node of torch.fx's graph: op, name, target, extra (placeholder default / output value).
struct FxRow {
  std::string op, name, target, extra;
};

std::vector<FxRow> readFxRows(const std::string& path) {
  std::vector<FxRow> rows;
  std::istringstream in(readText(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      cols.push_back(line.substr(start, tab - start));
    cols.push_back(line.substr(start));
    cols.resize(4);
    rows.push_back({cols[0], cols[1], cols[2], cols[3]});
  }
  return rows;
}

/// 1-based line of the fixture source holding `marker`.
int markerLine(const std::string& marker) {
  std::istringstream in(readText(kFixtureSource));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return -1;
}

Model importOrFail(const std::string& path) {
  auto model = importTorchScript(path);
  if (!model) qFatal("%s", model.message().c_str());
  return std::move(*model);
}

std::string recordText(const std::optional<TensorRecord>& r) {
  if (!r) return "None";
  std::string s = r->key + " " + std::string(dtypeName(r->dtype)) + " [";
  for (std::size_t i = 0; i < r->shape.size(); ++i) s += (i ? ", " : "") + std::to_string(r->shape[i]);
  return s + "]";
}

std::string slotsText(const std::vector<std::pair<std::string, std::optional<TensorRecord>>>& slots) {
  std::string s;
  for (const auto& [name, record] : slots) s += (s.empty() ? "" : "; ") + name + "=" + recordText(record);
  return s;
}

} // namespace

class TestTorchScript : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // --- torch.fx agreement -------------------------------------------------------------------

  void tracedGraphMatchesSymbolicTrace_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"nested_sequential", "residual", "flatten_head", "scaled", "mlp"})
      QTest::newRow(name) << QString::fromLatin1(name);
  }
  void tracedGraphMatchesSymbolicTrace() {
    REQUIRE_FIXTURES();
    QFETCH(QString, name);
    const Model model = importOrFail(fixture(name + QStringLiteral(".pt")));
    Tracer tracer; // torch.fx's default leaf policy, as symbolic_trace uses
    auto traced = tracer.trace(model);
    QVERIFY2(traced.ok(), traced ? "" : traced.message().c_str());
    const fx::Graph& graph = **traced;
    QVERIFY(graph.lint().ok());

    // Known differences: fx node name → (op, target) our graph has instead.
    const std::map<std::pair<QString, std::string>, std::pair<std::string, std::string>> differences = {
        {{QStringLiteral("flatten_head"), "mean"}, {"call_function", "torch.mean"}}, // fx: call_method mean
        {{QStringLiteral("scaled"), "mul"}, {"call_function", "torch.mul"}},         // fx: operator.mul
    };

    const std::vector<FxRow> expected = readFxRows(fixture(name + QStringLiteral(".fx.tsv")));
    QCOMPARE(graph.size(), expected.size());
    auto node = graph.nodes().begin();
    for (const FxRow& row : expected) {
      const fx::Node& n = *node++;
      const std::string where = name.toStdString() + ": node '" + row.name + "'";
      QVERIFY2(n.name() == row.name, (where + ": ours is named '" + n.name() + "'").c_str());
      std::pair<std::string, std::string> opTarget{row.op, row.target};
      if (auto it = differences.find({name, row.name}); it != differences.end()) opTarget = it->second;
      QVERIFY2(std::string(fx::opName(n.op())) == opTarget.first && n.target() == opTarget.second,
               (where + ": ours is " + std::string(fx::opName(n.op())) + " " + n.target()).c_str());
      if (row.op == "placeholder") {
        const std::string ours = n.args().empty() ? "" : fx::pythonRepr(n.args()[0], false);
        QCOMPARE(ours, row.extra);
      }
      if (row.op == "output") QCOMPARE(fx::pythonStr(n.args()[0]), row.extra);
    }
  }

  // --- the module tree ---------------------------------------------------------------------

  void moduleTreeOfNestedSequential() {
    REQUIRE_FIXTURES();
    const Model model = importOrFail(fixture(QStringLiteral("nested_sequential.pt")));
    const std::string seq = "torch.nn.modules.container.Sequential";
    const std::string linear = "torch.nn.modules.linear.Linear";
    const std::string relu = "torch.nn.modules.activation.ReLU";
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"", seq}, {"0", seq}, {"0.0", linear}, {"0.1", "torch.nn.modules.batchnorm.BatchNorm1d"},
        {"0.2", relu}, {"1", seq}, {"1.0", linear}, {"1.1", seq}, {"1.1.0", relu},
        {"1.1.1", "torch.nn.modules.dropout.Dropout"}, {"2", linear}};
    QCOMPARE(model.modules().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const ModuleInfo& m = model.modules()[i];
      QCOMPARE(m.path, expected[i].first);
      QCOMPARE(m.type, expected[i].second);
      QCOMPARE(m.bases, std::vector<std::string>{"torch.nn.modules.module.Module"});
      QVERIFY2(m.training, m.path.c_str()); // saved in train mode
      // Sequentials are traced through, library leaves carry no graph.
      QCOMPARE(m.graph != nullptr, m.type == seq);
    }
    QCOMPARE(model.module("0")->children, (std::vector<std::string>{"0", "1", "2"}));
    QCOMPARE(model.module("1.1")->children, (std::vector<std::string>{"0", "1"}));
    QCOMPARE(model.root().signature.size(), std::size_t(1));
    QCOMPARE(model.root().signature[0].name, std::string("input"));
    QCOMPARE(model.source, fixture(QStringLiteral("nested_sequential.pt")));
  }

  void attributesComeFromInstanceAndClassConstants_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("attribute");
    QTest::addColumn<QString>("repr"); // Python repr of the value
    const QString nested = QStringLiteral("nested_sequential");
    QTest::newRow("Linear.in_features") << nested << "0.0" << "in_features" << "4";
    QTest::newRow("Linear.out_features") << nested << "0.0" << "out_features" << "8";
    QTest::newRow("BatchNorm.num_features") << nested << "0.1" << "num_features" << "8";
    QTest::newRow("BatchNorm.eps") << nested << "0.1" << "eps" << "1e-05";
    QTest::newRow("BatchNorm.momentum") << nested << "0.1" << "momentum" << "0.1";
    QTest::newRow("BatchNorm.affine") << nested << "0.1" << "affine" << "True";
    QTest::newRow("Dropout.p") << nested << "1.1.1" << "p" << "0.25";
    QTest::newRow("Dropout.inplace") << nested << "1.1.1" << "inplace" << "False";
    QTest::newRow("LayerNorm.normalized_shape")
        << "residual" << "blocks.0.norm" << "normalized_shape" << "(8,)";
    QTest::newRow("custom attribute") << "residual" << "blocks.1" << "channels" << "8";
  }
  void attributesComeFromInstanceAndClassConstants() {
    REQUIRE_FIXTURES();
    QFETCH(QString, file);
    QFETCH(QString, path);
    QFETCH(QString, attribute);
    QFETCH(QString, repr);
    const Model model = importOrFail(fixture(file + QStringLiteral(".pt")));
    const ModuleInfo* m = model.module(path.toStdString());
    QVERIFY(m);
    const fx::Value* v = m->attribute(attribute.toStdString());
    QVERIFY2(v, qPrintable(path + QLatin1Char('.') + attribute));
    QCOMPARE(fx::pythonRepr(*v, false), repr.toStdString());
    QVERIFY(!m->attribute("training")); // the flag, not an attribute
  }

  void typesHaveNoTorchScriptPrefixOrMangling() {
    REQUIRE_FIXTURES();
    const Model model = importOrFail(fixture(QStringLiteral("residual.pt")));
    QCOMPARE(model.root().type, std::string("fixture_models.ResidualNet"));
    QCOMPARE(model.module("blocks.0")->type, std::string("fixture_models.Residual"));
    QVERIFY(!model.root().training); // saved in eval mode
    for (const ModuleInfo& m : model.modules()) {
      QVERIFY2(m.type.find("__torch__") == std::string::npos, m.type.c_str());
      QVERIFY2(m.type.find("mangle") == std::string::npos, m.type.c_str());
      QVERIFY(!m.training);
    }
    // stem (4→8), the blocks' fc (8→8) and head (8→2) are distinct TorchScript types of one class.
    QCOMPARE(model.module("stem")->type, std::string("torch.nn.modules.linear.Linear"));
    QCOMPARE(model.module("head")->type, std::string("torch.nn.modules.linear.Linear"));
  }

  void parametersAndBuffersAreRecordedWithTheirKeys() {
    REQUIRE_FIXTURES();
    const Model model = importOrFail(fixture(QStringLiteral("nested_sequential.pt")));
    QCOMPARE(slotsText(model.module("0.0")->parameters),
             std::string("weight=0.0.weight F32 [8, 4]; bias=0.0.bias F32 [8]"));
    QCOMPARE(slotsText(model.module("2")->parameters), std::string("weight=2.weight F32 [2, 8]; bias=None"));
    QCOMPARE(slotsText(model.module("0.1")->buffers),
             std::string("running_mean=0.1.running_mean F32 [8]; running_var=0.1.running_var F32 [8]; "
                         "num_batches_tracked=0.1.num_batches_tracked I64 []"));
    // A fresh BatchNorm: running_var ones, running_mean zeros, no batches tracked.
    const TensorData* var = model.tensor("0.1.running_var");
    const TensorData* mean = model.tensor("0.1.running_mean");
    const TensorData* tracked = model.tensor("0.1.num_batches_tracked");
    QVERIFY(var && mean && tracked);
    for (int i = 0; i < 8; ++i) {
      QCOMPARE(var->as<float>()[i], 1.0f);
      QCOMPARE(mean->as<float>()[i], 0.0f);
    }
    QCOMPARE(tracked->as<int64_t>()[0], int64_t(0));
  }

  void weightsEqualWhatPythonWrote() {
    REQUIRE_FIXTURES();
    const Model model = importOrFail(fixture(QStringLiteral("mlp.pt")));
    auto expected = SafetensorsFile::open(fixture(QStringLiteral("mlp.safetensors")));
    QVERIFY2(expected.ok(), expected ? "" : expected.message().c_str());
    QCOMPARE(expected->tensors().size(), std::size_t(4));
    QCOMPARE(model.tensors().size(), std::size_t(4));
    for (const NamedTensor& t : expected->tensors()) {
      const TensorData* ours = model.tensor(t.key);
      QVERIFY2(ours, t.key.c_str());
      QVERIFY2(*ours == t.tensor, t.key.c_str());
    }
  }

  // --- one-level graphs ---------------------------------------------------------------------

  void oneLevelGraphs_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::newRow("residual block") << "residual" << "blocks.0"
        << "graph():\n"
           "    %x : [num_users=2] = placeholder[target=x]\n"
           "    %fc : [num_users=1] = call_module[target=fc](args = (%x,), kwargs = {})\n"
           "    %norm : [num_users=1] = call_module[target=norm](args = (%fc,), kwargs = {})\n"
           "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %norm), kwargs = {})\n"
           "    %act : [num_users=1] = call_module[target=act](args = (%add,), kwargs = {})\n"
           "    return act\n";
    // torch.flatten's end_dim=-1 is the schema default, so it is dropped; mean's dtype=None too.
    QTest::newRow("flatten head") << "flatten_head" << ""
        << "graph():\n"
           "    %x : [num_users=1] = placeholder[target=x]\n"
           "    %features : [num_users=1] = call_module[target=features](args = (%x,), kwargs = {})\n"
           "    %flatten : [num_users=2] = call_function[target=torch.flatten]"
           "(args = (%features, 1), kwargs = {})\n"
           "    %fc : [num_users=1] = call_module[target=fc](args = (%flatten,), kwargs = {})\n"
           "    %mean : [num_users=1] = call_function[target=torch.mean](args = (%flatten,), kwargs = {})\n"
           "    return (fc, mean)\n";
    QTest::newRow("default argument") << "scaled" << ""
        << "graph():\n"
           "    %x : [num_users=1] = placeholder[target=x]\n"
           "    %scale : [num_users=1] = placeholder[target=scale](default=2.0)\n"
           "    %fc : [num_users=1] = call_module[target=fc](args = (%x,), kwargs = {})\n"
           "    %mul : [num_users=1] = call_function[target=torch.mul](args = (%fc, %scale), kwargs = {})\n"
           "    return mul\n";
    QTest::newRow("sequential") << "nested_sequential" << "1.1"
        << "graph():\n"
           "    %input_1 : [num_users=1] = placeholder[target=input]\n"
           "    %_0 : [num_users=1] = call_module[target=0](args = (%input_1,), kwargs = {})\n"
           "    %_1 : [num_users=1] = call_module[target=1](args = (%_0,), kwargs = {})\n"
           "    return _1\n";
  }
  void oneLevelGraphs() {
    REQUIRE_FIXTURES();
    QFETCH(QString, file);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const Model model = importOrFail(fixture(file + QStringLiteral(".pt")));
    const ModuleInfo* m = model.module(path.toStdString());
    QVERIFY(m && m->graph);
    QCOMPARE(QString::fromStdString(m->graph->print()), expected);
  }

  void signatureKeepsNamesAndDefaults() {
    REQUIRE_FIXTURES();
    const Model model = importOrFail(fixture(QStringLiteral("scaled.pt")));
    const auto& sig = model.root().signature;
    QCOMPARE(sig.size(), std::size_t(2));
    QCOMPARE(sig[0].name, std::string("x")); // not TorchScript's "x.1"
    QVERIFY(!sig[0].defaultValue);
    QCOMPARE(sig[1].name, std::string("scale"));
    QVERIFY(sig[1].defaultValue && *sig[1].defaultValue == fx::Value::floating(2.0));
    QCOMPARE(sig[1].kind, ParamKind::PositionalOrKeyword);
  }

  void loadModelRoutesTorchScriptFiles() {
    REQUIRE_FIXTURES();
    auto model = loadModel(fixture(QStringLiteral("mlp.pt")));
    QVERIFY2(model.ok(), model ? "" : model.message().c_str());
    QCOMPARE(model->root().type, std::string("torch.nn.modules.container.Sequential"));
    // The .ltfx path is unchanged.
    auto archive =
        loadModel(std::string(LATTICE_TEST_DATA_DIR) + "/conformance/models/sparse_classifier/model.ltfx");
    QVERIFY2(archive.ok(), archive ? "" : archive.message().c_str());
  }

  // --- refused constructs and bad files -----------------------------------------------------

  void unsupportedConstructsNameModuleMethodAndLine_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("marker");
    QTest::addColumn<QStringList>("parts");
    QTest::newRow("prim::If") << "gate" << "# marker: prim::If"
        << QStringList{QStringLiteral("module 'inner' (fixture_models.Gate)"),
                       QStringLiteral("method 'forward'"), QStringLiteral("control flow (prim::If)")};
    QTest::newRow("non-forward call") << "helper" << "# marker: non-forward call"
        << QStringList{QStringLiteral("module 'inner' (fixture_models.Helper)"),
                       QStringLiteral("method 'forward'"), QStringLiteral("calls method 'twice'")};
  }
  void unsupportedConstructsNameModuleMethodAndLine() {
    REQUIRE_FIXTURES();
    QFETCH(QString, file);
    QFETCH(QString, marker);
    QFETCH(QStringList, parts);
    const std::string path = fixture(file + QStringLiteral(".pt"));
    auto model = importTorchScript(path);
    QVERIFY(!model.ok());
    const QString message = QString::fromStdString(model.message());
    QVERIFY2(message.startsWith(QString::fromStdString(path + ": ")), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    for (const QString& part : parts) QVERIFY2(message.contains(part), qPrintable(message));
    const int line = markerLine(marker.toStdString());
    QVERIFY(line > 0);
    QVERIFY2(message.contains(QStringLiteral("fixture_models.py:%1").arg(line)), qPrintable(message));
  }

  void badFilesGiveOneLineErrorsNamingTheFile_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("truncated zip") << "truncated" << "not a TorchScript archive: zip end of central directory not found";
    QTest::newRow("state_dict, not TorchScript") << "state_dict" << "not a TorchScript module";
    QTest::newRow("text file") << "text" << "not a PyTorch archive (not a zip file)";
    QTest::newRow("legacy pickle") << "legacy" << "legacy torch.save format";
    QTest::newRow("missing file") << "missing" << "cannot open file";
  }
  void badFilesGiveOneLineErrorsNamingTheFile() {
    REQUIRE_FIXTURES();
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    std::string path = tmp.filePath(QStringLiteral("model.pt")).toStdString();
    if (kind == QLatin1String("truncated")) {
      const std::string bytes = readText(fixture(QStringLiteral("mlp.pt")));
      std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    } else if (kind == QLatin1String("state_dict")) {
      path = fixture(QStringLiteral("mlp.seed1.state_dict.pt"));
    } else if (kind == QLatin1String("text")) {
      std::ofstream(path) << "this is not a model\n";
    } else if (kind == QLatin1String("legacy")) {
      std::ofstream(path, std::ios::binary) << std::string("\x80\x02\x8a\x0alegacy", 9);
    }
    auto model = importTorchScript(path);
    QVERIFY(!model.ok());
    const std::string& message = model.message();
    QVERIFY2(message.rfind(path + ": ", 0) == 0, message.c_str());
    QVERIFY2(message.size() > path.size() + 10, message.c_str());
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
  }

  // Crafted archives (tests/data/repro). The version record is checked before
  // LibTorch opens the zip (its reader leaks when its constructor throws), and a tensor's
  // size and stride are checked against its storage before contiguous() reads it.
  void reproducerArchivesAreRefused_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("bad version record") << "ckpt_bad_version_libtorch_leak.pt"
                                        << "not a TorchScript archive: version record 'J????3?' is not a number";
    QTest::newRow("tensor larger than its storage") << "pt_datapkl_bad_size.pt"
                                                    << "tensor 'a.weight': storage (36 bytes) is too small";
    // LibTorch's own message, after ours: TorchScript's parser rejects the truncated code.
    QTest::newRow("truncated code") << "pt_code_truncated.pt" << "not a TorchScript archive: ";
  }
  void reproducerArchivesAreRefused() {
    QFETCH(QString, name);
    QFETCH(QString, expected);
    const std::string path = std::string(LATTICE_TEST_DATA_DIR "/repro/") + name.toStdString();
    auto model = importTorchScript(path);
    QVERIFY(!model.ok());
    const std::string& message = model.message();
    QVERIFY2(message.rfind(path + ": " + expected.toStdString(), 0) == 0, message.c_str());
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestTorchScript)
#include "tst_torchscript.moc"
