// The artifact reader (core/mlir MlirLexer/MlirParser, ArtifactPrinter): writer-form files
// print back byte for byte, free layouts (line breaks, comments, quoted keywords, other literal
// spellings) parse into the same graph and print canonically, every piece carries its
// line:column, and malformed input ends in one `file:line:col: error: message` (never a crash,
// a hang or unbounded memory).

#include "dialect/MlirTypes.h"
#include "mlir/ArtifactPrinter.h"
#include "mlir/MlirParser.h"

#include <QtTest/QtTest>

#include <fstream>
#include <sstream>

using namespace lattice;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::string kData = std::string(LATTICE_TEST_DATA_DIR) + "/conformance/";
const std::string kDigest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad";

// The writer-form header (format spec sec. 3) for one sparse-tensor argument triple.
std::string header(const std::string& inputs, const std::string& roles) {
  return "module attributes {\n"
         "  lattice.ir_version = 2,\n"
         "  lattice.schema_digest = \"" +
         kDigest +
         "\",\n"
         "  lattice.input_names = " +
         inputs +
         ",\n"
         "  lattice.input_roles = " +
         roles +
         ",\n"
         "  lattice.output_names = [\"output0\"],\n"
         "  lattice.output_roles = [\"tensor\"],\n"
         "  lattice.weight_file = \"weights.safetensors\"\n"
         "} {\n";
}

ArtifactGraph parseOk(const std::string& text, const char* name = "test.mlir") {
  ArtifactParseResult r = parseArtifactGraph(text, name);
  if (!r.ok()) qWarning("%s", r.error.str().c_str());
  return r.ok() ? std::move(*r.graph) : ArtifactGraph{};
}

std::string parseError(const std::string& text, const ReaderLimits& limits = {}) {
  ArtifactParseResult r = parseArtifactGraph(text, "bad.mlir", limits);
  return r.ok() ? std::string("<parsed>") : r.error.str();
}

// A minimal module around `body` (one function argument %x: tensor<?x4xf32>).
std::string wrap(const std::string& body, const std::string& resultType = "tensor<?x4xf32>") {
  return "module attributes {lattice.ir_version = 2} {\n"
         "  func.func @forward(%x: tensor<?x4xf32>) -> " +
         resultType + " {\n" + body + "\n  }\n}\n";
}

} // namespace

class TestMlirReader : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // Format spec sec. 3: a writer-form graph.mlir prints back to the same bytes.
  void writerFormRoundTrips_data() {
    QTest::addColumn<QString>("path");
    const QStringList cases =
        QDir(QString::fromStdString(kData + "models")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(cases.size(), 7);
    for (const QString& c : cases)
      QTest::newRow(qPrintable(c)) << QString::fromStdString(kData + "models/") + c +
                                          "/expected.lattice/graph.mlir";
  }
  void writerFormRoundTrips() {
    QFETCH(QString, path);
    const std::string text = readFile(path.toStdString());
    QVERIFY(!text.empty());
    ArtifactParseResult r = parseArtifactGraph(text, "graph.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    QCOMPARE(QByteArray::fromStdString(printArtifactGraph(*r.graph)), QByteArray::fromStdString(text));
  }

  // Every hand-written valid fixture parses (multi-line ops and types, comments, blank lines),
  // and printing is a fixed point: print(parse(print(g))) == print(g).
  void freeLayoutParses_data() {
    QTest::addColumn<QString>("path");
    const QString dir = QString::fromStdString(kData + "dialect/valid/");
    for (const QString& f : QDir(dir).entryList({QStringLiteral("*.mlir")}, QDir::Files))
      QTest::newRow(qPrintable(f)) << dir + f;
  }
  void freeLayoutParses() {
    QFETCH(QString, path);
    ArtifactParseResult r = parseArtifactGraph(readFile(path.toStdString()), "valid.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    const std::string printed = printArtifactGraph(*r.graph);
    ArtifactParseResult again = parseArtifactGraph(printed, "printed.mlir");
    QVERIFY2(again.ok(), again.error.str().c_str());
    QCOMPARE(printArtifactGraph(*again.graph), printed);
  }

  // conv3d_basic.mlir in free layout prints as the writer would print it (sec. 3, 6).
  void freeLayoutPrintsInWriterForm() {
    const std::string s = sparseTensorType("f16");
    const std::string expected =
        header("[\"input0\", \"input1\", \"input2\"]", "[\"tensor\", \"tensor\", \"tensor\"]") +
        "  func.func @forward(\n"
        "    %coords: tensor<?x4xi32>,\n"
        "    %features: tensor<?x32xf16>,\n"
        "    %active: tensor<1xi32>\n"
        "  ) -> " +
        s +
        " {\n"
        "    %input = lattice.sparse.make %coords, %features, %active {stride = array<i64: 1, 1, 1>, "
        "coord_order = #lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x32xf16>, tensor<1xi32>) "
        "-> " +
        s +
        "\n"
        "    %weight = lattice.weight @stem.weight {storage_key = \"stem.weight\", layout = "
        "#lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>} : "
        "!lattice.weight<conv3d, f16>\n"
        "    %out = lattice.conv3d %input, %weight {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: "
        "1, 1, 1>, "
        "padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : "
        "(" +
        s + ", !lattice.weight<conv3d, f16>) -> " + s +
        "\n"
        "    return %out : " +
        s +
        "\n"
        "  }\n"
        "}\n";
    const ArtifactGraph g = parseOk(readFile(kData + "dialect/valid/conv3d_basic.mlir"));
    QCOMPARE(QByteArray::fromStdString(printArtifactGraph(g)), QByteArray::fromStdString(expected));
  }

  // The graph's pieces and their positions, read by hand from conv3d_basic.mlir.
  void graphStructureAndLocations() {
    const ArtifactGraph g = parseOk(readFile(kData + "dialect/valid/conv3d_basic.mlir"), "conv3d_basic.mlir");
    QCOMPARE(g.fileName, std::string("conv3d_basic.mlir"));
    QCOMPARE(g.moduleLoc, (SourceLoc{2, 1}));
    QCOMPARE(g.moduleAttributes.size(), std::size_t(7));
    QCOMPARE(g.moduleAttributes[0].name, std::string("lattice.ir_version"));
    QCOMPARE(g.moduleAttributes[0].loc, (SourceLoc{3, 3}));
    QVERIFY(g.moduleAttributes[0].value.isI64());
    QCOMPARE(g.moduleAttributes[0].value.integer, std::int64_t(2));
    const ArtifactAttribute* names = g.moduleAttribute("lattice.input_names");
    QVERIFY(names);
    QCOMPARE(names->value.kind, ArtifactAttrValue::Kind::Array);
    QCOMPARE(names->value.elements.size(), std::size_t(3));
    QCOMPARE(names->value.elements[2].text, std::string("input2"));

    QCOMPARE(g.functions.size(), std::size_t(1));
    const ArtifactFunction& f = g.functions[0];
    QCOMPARE(f.name, std::string("forward"));
    QCOMPARE(f.loc, (SourceLoc{11, 3}));
    QCOMPARE(f.nameLoc, (SourceLoc{11, 13}));
    QVERIFY(f.hasBody);
    QCOMPARE(f.blockCount, std::size_t(1));
    QCOMPARE(f.arguments.size(), std::size_t(3));
    QCOMPARE(f.arguments[1].name, std::string("features"));
    QCOMPARE(f.arguments[1].loc, (SourceLoc{13, 5}));
    QCOMPARE(f.arguments[1].type.shape, (std::vector<std::int64_t>{kDynamicExtent, 32}));
    QCOMPARE(f.arguments[1].type.elementType, std::string("f16"));
    QCOMPARE(f.resultTypes.size(), std::size_t(1));
    QVERIFY(f.resultTypes[0].isSparse());
    QCOMPARE(f.resultTypes[0].rank, std::uint64_t(3));
    QCOMPARE(f.resultTypes[0].dtype, std::string("f16"));
    QCOMPARE(f.resultTypes[0].loc, (SourceLoc{15, 8}));

    QCOMPARE(f.ops.size(), std::size_t(3));
    const ArtifactOp& make = f.ops[0];
    QCOMPARE(make.name, std::string("lattice.sparse.make"));
    QCOMPARE(make.shortName(), std::string_view("sparse.make"));
    QCOMPARE(make.loc, (SourceLoc{19, 14})); // an op is located at its name, as in MLIR
    QCOMPARE(make.results[0].loc, (SourceLoc{19, 5}));
    QCOMPARE(make.nameLoc, (SourceLoc{19, 14}));
    QCOMPARE(make.operands.size(), std::size_t(3));
    QCOMPARE(make.operands[2].name, std::string("active"));
    QCOMPARE(make.operands[2].loc, (SourceLoc{19, 54}));
    QCOMPARE(make.attributes.size(), std::size_t(2));
    QCOMPARE(make.attributes[1].name, std::string("coord_order"));
    QCOMPARE(make.attributes[1].loc, (SourceLoc{21, 8}));
    QCOMPARE(make.attributes[1].value.kind, ArtifactAttrValue::Kind::Enum);
    QCOMPARE(make.attributes[1].value.mnemonic, std::string("coord"));
    QCOMPARE(make.attributes[1].value.text, std::string("batch_x_y_z"));
    QCOMPARE(make.attribute("stride")->value.i64s, (I64Array{1, 1, 1}));

    const ArtifactOp& weight = f.ops[1];
    QVERIFY(weight.hasSymbol);
    QCOMPARE(weight.symbol, std::string("stem.weight"));
    QCOMPARE(weight.symbolLoc, (SourceLoc{28, 30}));
    QCOMPARE(weight.attribute("storage_key")->value.text, std::string("stem.weight"));
    QCOMPARE(weight.attribute("packing")->value.packing.kind, std::string("dense"));
    QVERIFY(weight.results[0].type.isWeight());
    QCOMPARE(weight.results[0].type.family, std::string("conv3d"));

    const ArtifactOp& conv = f.ops[2];
    QCOMPARE(conv.results[0].name, std::string("out"));
    QCOMPARE(conv.operandTypes.size(), std::size_t(2));
    QCOMPARE(conv.attribute("accumulation")->value.text, std::string("canonical_f32"));
    QCOMPARE(conv.attribute("accumulation")->loc, (SourceLoc{38, 40}));
    QCOMPARE(f.ret.loc, (SourceLoc{49, 5}));
    QCOMPARE(f.ret.operands[0].name, std::string("out"));
  }

  // The multi-line quantized packing of quantized_weight_conv3d.mlir (lines 31-34).
  void quantizedPacking() {
    const ArtifactGraph g = parseOk(readFile(kData + "dialect/valid/quantized_weight_conv3d.mlir"));
    const ArtifactAttrValue& p = g.functions[0].ops[1].attribute("packing")->value;
    QCOMPARE(p.kind, ArtifactAttrValue::Kind::Packing);
    QVERIFY(p.packingLongForm);
    QCOMPARE(p.packing.kind, std::string("int4"));
    QCOMPARE(p.packing.groupSize, std::int64_t(32));
    QCOMPARE(p.packing.scaleDtype, std::string("f16"));
    QCOMPARE(p.packing.mode, std::string("affine"));
    QCOMPARE(p.loc, (SourceLoc{31, 18}));
    QCOMPARE(p.str(),
             std::string("#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>"));
    QCOMPARE(g.functions[0].ops[1].results[0].type.dtype, std::string("i4"));
  }

  // Other spellings of the same values (format spec sec. 4, 5, 10) print canonically.
  void literalSpellingsPrintCanonically_data() {
    QTest::addColumn<QString>("written");
    QTest::addColumn<QString>("printed");
    // sec. 5.1: f32 values print with the %.12f-trim rule.
    QTest::newRow("exponent f32") << "1.0e-05 : f32"
                                  << "0.00001 : f32";
    QTest::newRow("1e-8") << "1.0e-8 : f32"
                          << "0.00000001 : f32";
    QTest::newRow("negative") << "-0.75 : f32"
                              << "-0.75 : f32";
    QTest::newRow("integral") << "20.000 : f32"
                              << "20.0 : f32";
    QTest::newRow("hex f32 bits") << "0x3F800000 : f32"
                                  << "1.0 : f32";
    QTest::newRow("hex f32 0.5") << "0x3F000000 : f32"
                                 << "0.5 : f32";
    QTest::newRow("i64 suffix dropped") << "2 : i64"
                                        << "2";
    QTest::newRow("negative integer") << "-2"
                                      << "-2";
    QTest::newRow("i32 kept") << "7 : i32"
                              << "7 : i32";
    QTest::newRow("quoted enum") << "#lattice.pool_mode<\"avg\">"
                                 << "#lattice.pool_mode<avg>";
    QTest::newRow("spaced array") << "array<i64:1,  -2 ,3>"
                                  << "array<i64: 1, -2, 3>";
    QTest::newRow("f64 array") << "array<f64: 0.1, 1.0e-05, 100.>"
                               << "array<f64: 0.1, 1.0e-05, 100.0>";
    QTest::newRow("escaped string") << "\"a\\\"b\\\\c\""
                                    << "\"a\\\"b\\\\c\"";
    QTest::newRow("hex escape") << "\"a\\09b\""
                                << "\"a\\09b\"";
    QTest::newRow("raw utf-8 kept") << QStringLiteral("\"caf\u00e9\"") << QStringLiteral("\"caf\u00e9\"");
    QTest::newRow("escaped utf-8 printed raw") << "\"caf\\C3\\A9\"" << QStringLiteral("\"caf\u00e9\"");
    QTest::newRow("invalid byte stays escaped") << "\"a\\FFb\"" << "\"a\\FFb\"";
    QTest::newRow("string array") << "[ \"x\" ,\"y\" ]"
                                  << "[\"x\", \"y\"]";
    QTest::newRow("empty array") << "[]"
                                 << "[]";
    QTest::newRow("bool") << "true"
                          << "true";
    QTest::newRow("symbol") << "@\"odd name\""
                            << "@\"odd name\"";
    QTest::newRow("dense packing long form")
        << "#lattice.packing<dense, group_size = 0, scale_dtype = f32, mode = \"\">"
        << "#lattice.packing<dense, group_size = 0, scale_dtype = f32, mode = \"\">";
  }
  void literalSpellingsPrintCanonically() {
    QFETCH(QString, written);
    QFETCH(QString, printed);
    const std::string text = "module attributes {v = " + written.toStdString() + "} {\n}\n";
    const ArtifactGraph g = parseOk(text);
    QCOMPARE(g.moduleAttributes.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(g.moduleAttributes[0].value.str()), printed);
  }

  void typeSpellings_data() {
    QTest::addColumn<QString>("written");
    QTest::addColumn<QString>("printed");
    QTest::newRow("spaced dims") << "tensor<? x 4 x i32>"
                                 << "tensor<?x4xi32>";
    QTest::newRow("rank 0") << "tensor<f32>"
                            << "tensor<f32>";
    QTest::newRow("zero extent") << "tensor<0x4xi32>"
                                 << "tensor<0x4xi32>";
    QTest::newRow("unranked") << "tensor<*xf16>"
                              << "tensor<*xf16>";
    QTest::newRow("dynamic") << "tensor<?x?xf32>"
                             << "tensor<?x?xf32>";
    QTest::newRow("quoted sparse keywords")
        << "!lattice.sparse_tensor<rank=3,coord=\"batch_x_y_z\",feature = \"row_channel\" , dtype=f32>"
        << "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";
    QTest::newRow("comment inside") << "!lattice.weight< // family\n conv3d, // dtype\n f16 >"
                                    << "!lattice.weight<conv3d, f16>";
    QTest::newRow("quoted odd keyword") << "!lattice.weight<\"a b\", i4>"
                                        << "!lattice.weight<\"a b\", i4>";
  }
  void typeSpellings() {
    QFETCH(QString, written);
    QFETCH(QString, printed);
    const std::string text = "func.func @forward(%x: " + written.toStdString() + ") {\n  return\n}\n";
    const ArtifactGraph g = parseOk(text);
    QCOMPARE(g.functions.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(g.functions[0].arguments[0].type.str()), printed);
  }

  // A foreign op in MLIR's custom `func.call` form parses (the verifier rejects it: M17).
  void foreignOpParsesAndPrints() {
    const ArtifactGraph g = parseOk(readFile(kData + "dialect/invalid/non_lattice_entry_op.mlir"));
    const ArtifactOp& call = g.functions[0].ops[0];
    QVERIFY(!call.isLattice());
    QCOMPARE(call.name, std::string("func.call"));
    QCOMPARE(call.symbol, std::string("forward"));
    QVERIFY(call.parenthesizedOperands);
    QCOMPARE(printOp(call),
             std::string("%out = func.call @forward(%x) : (tensor<?x4xi32>) -> tensor<?x4xi32>"));
  }

  void blockLabelsCountBlocks() {
    const ArtifactGraph g =
        parseOk(wrap("  ^bb0:\n    return %x : tensor<?x4xf32>\n  ^bb1:\n    return %x : tensor<?x4xf32>"));
    QCOMPARE(g.functions[0].blockCount, std::size_t(2));
  }

  // Class P errors (validation spec sec. 3) and lexical errors, with the position MLIR reports.
  void parseErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    const std::string s =
        "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";
    QTest::newRow("unknown lattice op")
        << QString::fromStdString(
               wrap("    %y = lattice.quantized_conv3d %x : (tensor<?x4xf32>) -> tensor<?x4xf32>"))
        << "bad.mlir:3:10: error: custom op 'lattice.quantized_conv3d' is unknown";
    QTest::newRow("sparse key order")
        << "func.func @f(%x: !lattice.sparse_tensor<coord = batch_x_y_z, rank = 3>) {\n return\n}\n"
        << "bad.mlir:1:41: error: expected 'rank'";
    QTest::newRow("sparse key missing") << "func.func @f(%x: !lattice.sparse_tensor<rank = 3, coord = "
                                           "batch_x_y_z, dtype = f32>) {\n return\n}\n"
                                        << "bad.mlir:1:72: error: expected 'feature'";
    QTest::newRow("short quantized packing") << "module attributes {p = #lattice.packing<int4>} {\n}\n"
                                             << "bad.mlir:1:45: error: expected ','";
    QTest::newRow("unknown lattice attribute") << "module attributes {p = #lattice.colour<red>} {\n}\n"
                                               << "bad.mlir:1:24: error: unknown lattice attribute 'colour'";
    QTest::newRow("unknown lattice type") << "func.func @f(%x: !lattice.matrix<f32>) {\n return\n}\n"
                                          << "bad.mlir:1:18: error: unknown lattice type 'matrix'";
    QTest::newRow("operand/type count")
        << QString::fromStdString(wrap("    %y = lattice.softmax %x {axis = -1} : (tensor<?x4xf32>, "
                                       "tensor<?x4xf32>) -> tensor<?x4xf32>"))
        << "bad.mlir:3:43: error: 1 operands present, but expected 2";
    QTest::newRow("decompose result count")
        << QString::fromStdString(wrap("    %a, %b = lattice.sparse.decompose %x : " + s +
                                       " -> (tensor<?x4xi32>, tensor<1xi32>)"))
        << "bad.mlir:3:137: error: 'lattice.sparse.decompose' needs exactly 3 result types, got 2";
    QTest::newRow("result binding count")
        << QString::fromStdString(
               wrap("    %a, %b = lattice.softmax %x {axis = -1} : (tensor<?x4xf32>) -> tensor<?x4xf32>"))
        << "bad.mlir:3:5: error: operation defines 1 results but was provided 2 to bind";
    QTest::newRow("duplicate attribute")
        << QString::fromStdString(wrap(
               "    %y = lattice.softmax %x {axis = -1, axis = 1} : (tensor<?x4xf32>) -> tensor<?x4xf32>"))
        << "bad.mlir:3:41: error: duplicate key 'axis' in dictionary attribute";
    QTest::newRow("decimal integer for f32")
        << "module attributes {eps = 1 : f32} {\n}\n"
        << "bad.mlir:1:26: error: unexpected decimal integer literal for a floating point value";
    QTest::newRow("float for integer type")
        << "module attributes {n = 1.5 : i64} {\n}\n"
        << "bad.mlir:1:24: error: floating point value not valid for specified type";
    QTest::newRow("integer overflow") << "module attributes {n = 9223372036854775808} {\n}\n"
                                      << "bad.mlir:1:24: error: integer constant out of range for attribute";
    QTest::newRow("float overflow") << "module attributes {n = 1.0e999 : f32} {\n}\n"
                                    << "bad.mlir:1:24: error: floating point literal out of range";
    QTest::newRow("unterminated string") << "module attributes {s = \"abc\n} {\n}\n"
                                         << "bad.mlir:1:24: error: expected '\"' in string literal";
    QTest::newRow("bad escape") << "module attributes {s = \"a\\qb\"} {\n}\n"
                                << "bad.mlir:1:24: error: unknown escape in string literal";
    QTest::newRow("stray character") << "module attributes {s = 1} {\n  ~\n}\n"
                                     << "bad.mlir:2:3: error: unexpected character '~'";
    QTest::newRow("no terminator") << "func.func @forward() {\n}\n"
                                   << "bad.mlir:2:1: error: block with no terminator";
    QTest::newRow("op after return") << QString::fromStdString(
                                            wrap("    return %x : tensor<?x4xf32>\n    %y = lattice.softmax "
                                                 "%x {axis = -1} : (tensor<?x4xf32>) -> tensor<?x4xf32>"))
                                     << "bad.mlir:4:5: error: expected '}' or a block label after 'return'";
    QTest::newRow("missing close")
        << "module attributes {a = 1} {\n  func.func @forward() {\n    return\n  }\n"
        << "bad.mlir:5:1: error: expected 'func.func' or '}' (the file ends here: is it truncated?)";
    QTest::newRow("cut inside an op")
        << "module {\n  func.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n    %y = "
           "lattice.softmax %x {axis = "
        << "bad.mlir:3:37: error: expected attribute value (the file ends here: is it truncated?)";
    QTest::newRow("trailing garbage") << "module {\n}\n}\n"
                                      << "bad.mlir:3:1: error: expected end of file after the module";
    QTest::newRow("unsupported dialect type") << "func.func @f(%x: !foo.bar) {\n return\n}\n"
                                              << "bad.mlir:1:18: error: unsupported dialect type '!foo.bar'";
    QTest::newRow("bad element type") << "func.func @f(%x: tensor<?x4xfoo>) {\n return\n}\n"
                                      << "bad.mlir:1:29: error: expected tensor element type";
    QTest::newRow("generic op form")
        << QString::fromStdString(
               wrap("    %y = \"lattice.softmax\"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>"))
        << "bad.mlir:3:10: error: the generic operation form is not supported";
    QTest::newRow("invalid utf-8") << QString::fromLatin1("module attributes {s = \"\xff\"} {\n}\n")
                                   << "bad.mlir:1:25: error: invalid UTF-8 byte sequence";
  }
  void parseErrors() {
    QFETCH(QString, text);
    QFETCH(QString, error);
    // The UTF-8 row carries a raw 0xFF byte: rebuild it byte for byte.
    const std::string bytes = QTest::currentDataTag() == QByteArray("invalid utf-8")
                                  ? text.toLatin1().toStdString()
                                  : text.toStdString();
    QCOMPARE(QString::fromStdString(parseError(bytes)), error);
  }

  // Bounded input: size and nesting limits give one error instead of unbounded work.
  void limits() {
    ReaderLimits small;
    small.maxBytes = 16;
    QCOMPARE(QString::fromStdString(parseError("module attributes {a = 1} {\n}\n", small)),
             QStringLiteral("bad.mlir: error: file is larger than the reader limit (30 > 16 bytes)"));
    std::string deep = "module attributes {a = ";
    for (int i = 0; i < 100000; ++i)
      deep += '[';
    QVERIFY(QString::fromStdString(parseError(deep))
                .startsWith(QStringLiteral("bad.mlir:1:56: error: nesting too deep (more than 32 levels)")));
    // 32 levels are fine.
    std::string ok = "module attributes {a = " + std::string(32, '[') + std::string(32, ']') + "} {\n}\n";
    QCOMPARE(QString::fromStdString(parseError(ok)), QStringLiteral("<parsed>"));
  }

  // Every prefix of a valid file that cuts into the module fails to parse cleanly (the
  // module's closing brace is missing; a prefix holding only the leading comment is an empty
  // module), and every single-byte corruption either parses or fails with a positioned error.
  void truncationsAndCorruptionsFailCleanly() {
    const std::string text = readFile(kData + "dialect/valid/sparse_reindex.mlir");
    const std::size_t lastBrace = text.rfind('}');
    for (std::size_t n = text.find("module") + 1; n < lastBrace; ++n) {
      ArtifactParseResult r = parseArtifactGraph(std::string_view(text).substr(0, n), "prefix.mlir");
      if (r.ok()) QFAIL(qPrintable(QStringLiteral("prefix of %1 bytes parsed").arg(n)));
      QCOMPARE(r.error.file, std::string("prefix.mlir"));
      QVERIFY(r.error.loc.valid());
    }
    const char replacements[] = {'{', '}', '<', '>', '"', '%', ',', '0', '\n', 'x', '@', '#', '!', '-'};
    std::size_t failures = 0;
    for (std::size_t i = 0; i < text.size(); i += 7) {
      for (char c : replacements) {
        std::string mutated = text;
        mutated[i] = c;
        ArtifactParseResult r = parseArtifactGraph(mutated, "mutated.mlir");
        if (!r.ok()) {
          ++failures;
          QVERIFY(r.error.loc.valid());
        }
      }
    }
    QVERIFY(failures > 0);
  }

  void readFileErrors() {
    ArtifactParseResult r = readArtifactGraphFile("/nonexistent/graph.mlir");
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error.str()),
             QStringLiteral("/nonexistent/graph.mlir: error: cannot read file: no such file"));
  }
};

QTEST_APPLESS_MAIN(TestMlirReader)
#include "tst_mlir_reader.moc"
