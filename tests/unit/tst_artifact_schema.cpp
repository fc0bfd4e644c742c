// Tests for the SHA-256 implementation (FIPS 180-2 example vectors, padding boundaries) and the
// dialect schema table: its canonical JSON must equal lattice-dialect-schema.json byte for byte
// and its digest the published IR v2 digest (format spec sec. 1, 12).

#include "dialect/DialectSchema.h"
#include "support/Sha256.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

using namespace lattice;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::string kSchemaJsonPath =
    std::string(LATTICE_TEST_DATA_DIR) + "/spec/lattice-dialect-schema.json";

} // namespace

class TestArtifactSchema : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void sha256_data();
  void sha256();
  void sha256Incremental();
  void sha256MillionA();
  void digestEqualsPublishedConstant();
  void canonicalJsonEqualsSpecFile();
  void canonicalJsonShape();
  void opOrderIsRegistrationOrder();
  void attributeOrders_data();
  void attributeOrders();
  void operandsAndResults();
  void enumValueSets();
};

void TestArtifactSchema::sha256_data() {
  QTest::addColumn<QByteArray>("message");
  QTest::addColumn<QString>("digest");
  // FIPS 180-2 appendix B examples.
  QTest::newRow("empty") << QByteArray("")
                         << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  QTest::newRow("abc") << QByteArray("abc")
                       << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                            << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
  QTest::newRow("896 bits")
      << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                    "klmnopqrlmnopqrsmnopqrstnopqrstu")
      << "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
  // Padding boundaries (55/56 bytes: the length fits / does not fit the last block), from
  // Python's hashlib.
  QTest::newRow("a*55") << QByteArray(55, 'a')
                        << "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318";
  QTest::newRow("a*56") << QByteArray(56, 'a')
                        << "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a";
  QTest::newRow("a*57") << QByteArray(57, 'a')
                        << "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6";
  QTest::newRow("a*63") << QByteArray(63, 'a')
                        << "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34";
  QTest::newRow("a*64") << QByteArray(64, 'a')
                        << "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb";
  QTest::newRow("a*65") << QByteArray(65, 'a')
                        << "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0";
  QTest::newRow("a*119") << QByteArray(119, 'a')
                         << "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb";
  QTest::newRow("a*120") << QByteArray(120, 'a')
                         << "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c";
}

void TestArtifactSchema::sha256() {
  QFETCH(QByteArray, message);
  QFETCH(QString, digest);
  QCOMPARE(QString::fromStdString(sha256Hex(std::string_view(message.constData(), message.size()))), digest);
}

void TestArtifactSchema::sha256Incremental() {
  // Feeding in uneven pieces must give the same digest as the FIPS one-shot value.
  const std::string message =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
      "klmnopqrlmnopqrsmnopqrstnopqrstu";
  for (std::size_t piece : {1u, 3u, 7u, 63u, 64u, 65u}) {
    Sha256 hasher;
    for (std::size_t at = 0; at < message.size(); at += piece)
      hasher.update(std::string_view(message).substr(at, piece));
    QCOMPARE(QString::fromStdString(Sha256::toHex(hasher.finish())),
             QStringLiteral("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
  }
}

void TestArtifactSchema::sha256MillionA() {
  Sha256 hasher;
  const std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i)
    hasher.update(thousand);
  QCOMPARE(QString::fromStdString(Sha256::toHex(hasher.finish())),
           QStringLiteral("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

void TestArtifactSchema::digestEqualsPublishedConstant() {
  QCOMPARE(QString::fromStdString(schemaDigest()),
           QStringLiteral("1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad"));
  QCOMPARE(std::string(kDialectSchemaDigest), schemaDigest());
}

void TestArtifactSchema::canonicalJsonEqualsSpecFile() {
  const std::string expected = readFile(kSchemaJsonPath);
  if (expected.empty()) QFAIL("tests/data/spec/lattice-dialect-schema.json is missing");
  const std::string actual = canonicalSchemaJson();
  if (actual != expected) {
    std::size_t at = 0;
    while (at < actual.size() && at < expected.size() && actual[at] == expected[at])
      ++at;
    const std::size_t from = at > 80 ? at - 80 : 0;
    QFAIL(qPrintable(QStringLiteral("first difference at byte %1\n  table: %2\n  spec:  %3")
                         .arg(at)
                         .arg(QString::fromStdString(actual.substr(from, 160)))
                         .arg(QString::fromStdString(expected.substr(from, 160)))));
  }
}

void TestArtifactSchema::canonicalJsonShape() {
  // Sec. 12: 16 760 bytes, no whitespace, sorted top-level keys.
  const std::string json = canonicalSchemaJson();
  QCOMPARE(json.size(), std::size_t(16760));
  QVERIFY(json.find(' ') == std::string::npos);
  QVERIFY(json.find('\n') == std::string::npos);
  QVERIFY(json.rfind("{\"attrs\":[{\"mnemonic\":\"coord\",\"name\":\"Coord\",\"parameters\":", 0) == 0);
  QVERIFY(json.find("\"namespace\":\"lattice\",\"ops\":[{\"assembly\":\"weight\"") != std::string::npos);
  QVERIFY(json.find("],\"types\":[{\"mnemonic\":\"sparse_tensor\",\"name\":\"SparseTensor\"") !=
          std::string::npos);
}

void TestArtifactSchema::opOrderIsRegistrationOrder() {
  // Sec. 12 registration order.
  const std::vector<std::string> expected = {"weight",
                                             "sparse.make",
                                             "sparse.decompose",
                                             "sparse.with_features",
                                             "sparse.reindex",
                                             "conv3d",
                                             "subm_conv3d",
                                             "normalized_subm_conv3d",
                                             "target_conv3d",
                                             "conv_transpose3d",
                                             "target_conv_transpose3d",
                                             "normalized_conv_transpose3d",
                                             "target_normalized_conv_transpose3d",
                                             "generative_conv_transpose3d",
                                             "normalized_generative_conv_transpose3d",
                                             "pool3d",
                                             "pool_transpose3d",
                                             "trilinear_upsample3d",
                                             "global_pool",
                                             "voxelize",
                                             "devoxelize",
                                             "linear",
                                             "embedding_lookup",
                                             "elementwise",
                                             "softmax",
                                             "activation",
                                             "batch_norm",
                                             "layer_norm",
                                             "rms_norm",
                                             "sparse.binary",
                                             "sparse.cat"};
  const DialectSchema& schema = dialectSchema();
  QCOMPARE(schema.ops.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    QCOMPARE(schema.ops[i].name, expected[i]);
    std::string python = expected[i];
    std::replace(python.begin(), python.end(), '.', '_');
    QCOMPARE(schema.ops[i].pythonName, python);
    QCOMPARE(schema.findOp(expected[i]), &schema.ops[i]);
  }
  QVERIFY(schema.findOp("quantized_conv3d") == nullptr);
  QCOMPARE(schema.attrs.size(), std::size_t(11));
  QCOMPARE(schema.types.size(), std::size_t(2));
}

void TestArtifactSchema::attributeOrders_data() {
  QTest::addColumn<QString>("op");
  QTest::addColumn<QString>("order");
  // Sec. 8.2 canonical orders.
  QTest::newRow("conv3d") << "conv3d"
                          << "kernel_size,stride,padding,dilation,accumulation";
  QTest::newRow("target_conv_transpose3d") << "target_conv_transpose3d"
                                           << "kernel_size,stride,padding,dilation,accumulation";
  QTest::newRow("subm") << "subm_conv3d"
                        << "kernel_size,dilation,accumulation";
  QTest::newRow("normalized_subm") << "normalized_subm_conv3d"
                                   << "kernel_size,dilation,eps,accumulation";
  QTest::newRow("normalized_transpose") << "normalized_conv_transpose3d"
                                        << "kernel_size,stride,padding,dilation,accumulation,eps";
  QTest::newRow("target_normalized_transpose") << "target_normalized_conv_transpose3d"
                                               << "kernel_size,stride,padding,dilation,accumulation,eps";
  QTest::newRow("generative") << "generative_conv_transpose3d"
                              << "kernel_size,stride,accumulation";
  QTest::newRow("normalized_generative") << "normalized_generative_conv_transpose3d"
                                         << "kernel_size,stride,eps,accumulation";
  QTest::newRow("pool3d") << "pool3d"
                          << "mode,kernel_size,stride,padding,dilation";
  QTest::newRow("pool_transpose3d") << "pool_transpose3d"
                                    << "kernel_size,stride,padding,dilation";
  QTest::newRow("sparse.make") << "sparse.make"
                               << "stride,coord_order";
  QTest::newRow("voxelize") << "voxelize"
                            << "voxel_size,origin,reduction,stride";
  QTest::newRow("devoxelize") << "devoxelize"
                              << "voxel_size,origin,interpolation";
  QTest::newRow("activation") << "activation"
                              << "kind,approximate,alpha,beta,threshold";
  QTest::newRow("sparse.binary") << "sparse.binary"
                                 << "op,join,lhs_fill,rhs_fill";
  QTest::newRow("global_pool") << "global_pool"
                               << "mode,batch_size";
  QTest::newRow("weight") << "weight"
                          << "storage_key,layout,packing";
  QTest::newRow("linear") << "linear"
                          << "";
  QTest::newRow("with_features") << "sparse.with_features"
                                 << "";
}

void TestArtifactSchema::attributeOrders() {
  QFETCH(QString, op);
  QFETCH(QString, order);
  const SchemaOp* schemaOp = dialectSchema().findOp(op.toStdString());
  QVERIFY(schemaOp);
  QStringList names;
  for (const SchemaOpAttribute& a : schemaOp->attributes) {
    names << QString::fromStdString(a.name);
    QVERIFY(a.required); // sec. 7: all attributes are required
  }
  QCOMPARE(names.join(QLatin1Char(',')), order);
}

void TestArtifactSchema::operandsAndResults() {
  const DialectSchema& schema = dialectSchema();
  const SchemaOp* weight = schema.findOp("weight");
  QCOMPARE(weight->assembly, SchemaAssembly::Weight);
  QCOMPARE(weight->operands.size(), std::size_t(1));
  QCOMPARE(weight->operands[0].kind, SchemaOperandKind::Symbol);
  QCOMPARE(weight->operands[0].type, SchemaValueType::Symbol);

  const SchemaOp* decompose = schema.findOp("sparse.decompose");
  QCOMPARE(decompose->assembly, SchemaAssembly::Decompose);
  QCOMPARE(decompose->results.size(), std::size_t(3));
  QCOMPARE(decompose->results[1].name, std::string("features"));

  const SchemaOp* targetConv = schema.findOp("target_conv3d");
  QCOMPARE(targetConv->operands.size(), std::size_t(4));
  QCOMPARE(targetConv->operands[1].name, std::string("target"));
  QVERIFY(targetConv->operands[3].optional);
  QCOMPARE(targetConv->findAttribute("accumulation")->kind, SchemaAttrKind::Str);
  QVERIFY(targetConv->findAttribute("eps") == nullptr);

  const SchemaOp* upsample = schema.findOp("trilinear_upsample3d");
  QVERIFY(upsample->operands[1].optional);
  QCOMPARE(schema.findOp("global_pool")->results[0].type, SchemaValueType::Tensor);
  QCOMPARE(schema.findOp("batch_norm")->operands.size(), std::size_t(5));
}

void TestArtifactSchema::enumValueSets() {
  // Sec. 7.1.
  const DialectSchema& schema = dialectSchema();
  QCOMPARE(
      schema.findAttr("weight_layout")->values,
      (std::vector<std::string>{"conv3d_o_xyz_i", "linear_o_i", "embedding_n_c", "channel_c", "bias_c"}));
  QCOMPARE(schema.findAttr("activation")->values,
           (std::vector<std::string>{"relu", "sigmoid", "gelu", "silu", "leaky_relu", "tanh", "softplus"}));
  QCOMPARE(schema.findAttr("packing")->values, (std::vector<std::string>{"dense", "int4", "int8"}));
  QCOMPARE(schema.findAttr("packing")->parameters.size(), std::size_t(4));
  QCOMPARE(schema.findAttr("point_interpolation")->values, (std::vector<std::string>{"nearest", "linear"}));
  for (const SchemaAttrDef& def : schema.attrs) {
    if (def.mnemonic == "packing") continue;
    // Every enum-like attribute kind has its definition under the same mnemonic.
    bool matched = false;
    for (const SchemaOp& op : schema.ops) {
      for (const SchemaOpAttribute& a : op.attributes) {
        if (schemaName(a.kind) == def.mnemonic) {
          QVERIFY(isEnumAttrKind(a.kind));
          matched = true;
        }
      }
    }
    QVERIFY2(matched || def.mnemonic == "feature_layout", def.mnemonic.c_str());
  }
}

QTEST_APPLESS_MAIN(TestArtifactSchema)
#include "tst_artifact_schema.moc"
