// Tests for the attribute and type texts of the MLIR writer: f32 `_decimal_float` and f64
// `repr` formatting (format spec sec. 5.1, 5.2), attribute texts per schema kind (sec. 5), their
// errors (hazards H1-H3), STRARRAY (sec. 3.1) and type texts (sec. 4).

#include "dialect/MlirAttributes.h"
#include "dialect/MlirTypes.h"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include <limits>

using namespace lattice;

Q_DECLARE_METATYPE(lattice::AttrValue)

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

} // namespace

class TestMlirAttributes : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void decimalFloat_data();
  void decimalFloat();
  void decimalFloatMatchesPrintf();
  void pythonRepr_data();
  void pythonRepr();
  void attrValues_data();
  void attrValues();
  void attrValueErrors_data();
  void attrValueErrors();
  void stringArray();
  void types();
};

void TestMlirAttributes::decimalFloat_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("text");
  // Sec. 5.1 table.
  QTest::newRow("1e-5") << 1e-5 << "0.00001";
  QTest::newRow("float32(1e-5)") << double(1e-5f) << "0.00001";
  QTest::newRow("0.1") << 0.1 << "0.1";
  QTest::newRow("float32(0.1)") << double(0.1f) << "0.10000000149";
  QTest::newRow("1.5") << 1.5 << "1.5";
  QTest::newRow("-1.25") << -1.25 << "-1.25";
  QTest::newRow("-0.75") << -0.75 << "-0.75";
  QTest::newRow("0.01") << 0.01 << "0.01";
  QTest::newRow("float32(0.01)") << double(0.01f) << "0.009999999776";
  QTest::newRow("3e38") << 3.0e38 << "300000000000000012135895401846682943488.0";
  QTest::newRow("20") << 20.0 << "20.0";
  QTest::newRow("100") << 100.0 << "100.0";
  QTest::newRow("1") << 1.0 << "1.0";
  QTest::newRow("0") << 0.0 << "0.0";
  QTest::newRow("-0") << -0.0 << "0.0";
  QTest::newRow("1e-8") << 1e-8 << "0.00000001";
  QTest::newRow("1e-12") << 1e-12 << "0.000000000001";
  QTest::newRow("1e-13") << 1e-13 << "0.0";
  QTest::newRow("5e-13") << 5e-13 << "0.0";
  QTest::newRow("-4e-13") << -4e-13 << "0.0";
  QTest::newRow("1.5e-12") << 1.5e-12 << "0.000000000002";
  QTest::newRow("1/3") << 1.0 / 3.0 << "0.333333333333";
  QTest::newRow("2/3") << 2.0 / 3.0 << "0.666666666667";
  QTest::newRow("123456.789") << 123456.789 << "123456.789000000004";
  QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf.0";
  QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << "-inf.0";
  QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "nan.0";
  // Values seen in the conformance graphs.
  QTest::newRow("threshold") << 20.0 << "20.0";
  QTest::newRow("fill -0.75") << -0.75 << "-0.75";
  QTest::newRow("3") << 3.0 << "3.0";
  QTest::newRow("-2") << -2.0 << "-2.0";
  // Whole numbers up to 15 digits print without going through the 12-decimal form; 1e15 on.
  QTest::newRow("999999999999999") << 999999999999999.0 << "999999999999999.0";
  QTest::newRow("-123456789012345") << -123456789012345.0 << "-123456789012345.0";
  QTest::newRow("1e15") << 1e15 << "1000000000000000.0";
  QTest::newRow("2^53+2") << 9007199254740994.0 << "9007199254740994.0";
}

void TestMlirAttributes::decimalFloat() {
  QFETCH(double, value);
  QFETCH(QString, text);
  QCOMPARE(q(formatDecimalFloat(value)), text);
}

// A second method: glibc's printf("%.12f"), then rstrip('0') and rstrip('.') as the spec says,
// over whole numbers on both sides of 1e15 and fractions of every size.
void TestMlirAttributes::decimalFloatMatchesPrintf() {
  std::vector<double> values;
  for (double v = 1; v < 1e18; v *= 7)
    for (double w : {v, v + 1, v - 1, v + 0.5, v / 3, v * 1e-9})
      values.insert(values.end(), {w, -w});
  int checked = 0;
  for (double v : values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, "%.12f", v);
    std::string expected = buffer;
    while (!expected.empty() && expected.back() == '0') expected.pop_back();
    while (!expected.empty() && expected.back() == '.') expected.pop_back();
    if (expected.empty() || expected == "-0") expected = "0";
    if (expected.find('.') == std::string::npos) expected += ".0";
    QCOMPARE(q(formatDecimalFloat(v)), q(expected));
    ++checked;
  }
  QVERIFY(checked > 100);
}

void TestMlirAttributes::pythonRepr_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("text");
  // Sec. 5.2 examples.
  QTest::newRow("1.0") << 1.0 << "1.0";
  QTest::newRow("0.0") << 0.0 << "0.0";
  QTest::newRow("-0.0") << -0.0 << "-0.0";
  QTest::newRow("0.1") << 0.1 << "0.1";
  QTest::newRow("2.5") << 2.5 << "2.5";
  QTest::newRow("0.5") << 0.5 << "0.5";
  QTest::newRow("100.0") << 100.0 << "100.0";
  QTest::newRow("0.0001") << 0.0001 << "0.0001";
  QTest::newRow("1e-05") << 1e-05 << "1e-05";
  QTest::newRow("1.5e-05") << 1.5e-05 << "1.5e-05";
  QTest::newRow("1e15") << 1e15 << "1000000000000000.0";
  QTest::newRow("1e16") << 1e16 << "1e+16";
  QTest::newRow("1.5e16") << 1.5e16 << "1.5e+16";
  QTest::newRow("1/3") << 1.0 / 3.0 << "0.3333333333333333";
  QTest::newRow("float32(0.1)") << double(0.1f) << "0.10000000149011612";
  QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "nan";
  QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf";
  QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << "-inf";
  // More CPython repr facts (fixed/exponent boundaries, extremes).
  QTest::newRow("-1.25") << -1.25 << "-1.25";
  QTest::newRow("0.00012345") << 0.00012345 << "0.00012345";
  QTest::newRow("2^53") << 9007199254740992.0 << "9007199254740992.0";
  QTest::newRow("1e22") << 1e22 << "1e+22";
  QTest::newRow("max") << std::numeric_limits<double>::max() << "1.7976931348623157e+308";
  QTest::newRow("denorm_min") << std::numeric_limits<double>::denorm_min() << "5e-324";
  QTest::newRow("123456789.123") << 123456789.123 << "123456789.123";
  QTest::newRow("-2.5e-07") << -2.5e-07 << "-2.5e-07";
}

void TestMlirAttributes::pythonRepr() {
  QFETCH(double, value);
  QFETCH(QString, text);
  QCOMPARE(q(formatPythonFloatRepr(value)), text);
}

void TestMlirAttributes::attrValues_data() {
  QTest::addColumn<int>("kind");
  QTest::addColumn<AttrValue>("value");
  QTest::addColumn<QString>("text");
  auto row = [](const char* name, SchemaAttrKind kind, AttrValue value, const char* text) {
    QTest::newRow(name) << int(kind) << value << QString::fromLatin1(text);
  };
  using K = SchemaAttrKind;
  row("i64 triple from int", K::I64Triple, std::int64_t(2), "array<i64: 2, 2, 2>");
  row("i64 triple", K::I64Triple, I64Array{3, 1, -5}, "array<i64: 3, 1, -5>");
  row("i64 triple truncates floats", K::I64Triple, F64Array{2.9, -1.5, 0.0}, "array<i64: 2, -1, 0>");
  row("f64 triple from float", K::F64Triple, 1.0, "array<f64: 1.0, 1.0, 1.0>");
  row("f64 triple from int", K::F64Triple, std::int64_t(0), "array<f64: 0.0, 0.0, 0.0>");
  row("f64 triple", K::F64Triple, F64Array{0.5, 0.1, 100.0}, "array<f64: 0.5, 0.1, 100.0>");
  row("i64", K::I64, std::int64_t(2), "2");
  row("i64 negative", K::I64, std::int64_t(-1), "-1");
  row("f32 eps", K::F32, 1e-5, "0.00001 : f32");
  row("f32 eps 1e-8", K::F32, 1e-8, "0.00000001 : f32");
  row("f32 alpha", K::F32, 0.01, "0.01 : f32");
  row("f32 beta", K::F32, 1.0, "1.0 : f32");
  row("f32 from int", K::F32, std::int64_t(3), "3.0 : f32");
  row("f32 rhs_fill", K::F32, 1.5, "1.5 : f32");
  row("f32 fill", K::F32, -1.25, "-1.25 : f32");
  row("str", K::Str, std::string("canonical_f32"), "\"canonical_f32\"");
  row("coord", K::Coord, std::string("batch_x_y_z"), "#lattice.coord<batch_x_y_z>");
  row("pool mode", K::PoolMode, std::string("avg"), "#lattice.pool_mode<avg>");
  row("binary op", K::BinaryOp, std::string("add"), "#lattice.binary_op<add>");
  row("join", K::Join, std::string("outer"), "#lattice.join<outer>");
  row("activation", K::Activation, std::string("gelu"), "#lattice.activation<gelu>");
  row("gelu approx", K::GeluApprox, std::string("tanh"), "#lattice.gelu_approx<tanh>");
  row("weight layout", K::WeightLayout, std::string("conv3d_o_xyz_i"),
      "#lattice.weight_layout<conv3d_o_xyz_i>");
  row("packing dense", K::Packing, PackingAttr::dense(), "#lattice.packing<dense>");
  row("packing int4", K::Packing, PackingAttr::affine(4, 32, "f16"),
      "#lattice.packing<int4, group_size = 32, scale_dtype = f16, mode = affine>");
  row("packing int8", K::Packing, PackingAttr::affine(8, 64, "f32"),
      "#lattice.packing<int8, group_size = 64, scale_dtype = f32, mode = affine>");
}

void TestMlirAttributes::attrValues() {
  QFETCH(int, kind);
  QFETCH(AttrValue, value);
  QFETCH(QString, text);
  Expected<std::string> formatted = formatAttrValue(SchemaAttrKind(kind), value);
  QVERIFY2(formatted.ok(), formatted.ok() ? "" : formatted.message().c_str());
  QCOMPARE(q(*formatted), text);
}

void TestMlirAttributes::attrValueErrors_data() {
  QTest::addColumn<int>("kind");
  QTest::addColumn<AttrValue>("value");
  QTest::addColumn<QString>("messagePart");
  auto row = [](const char* name, SchemaAttrKind kind, AttrValue value, const char* part) {
    QTest::newRow(name) << int(kind) << value << QString::fromLatin1(part);
  };
  using K = SchemaAttrKind;
  const double inf = std::numeric_limits<double>::infinity();
  row("triple of 2", K::I64Triple, I64Array{1, 2}, "expected 3 items, got 2");
  row("string for triple", K::I64Triple, std::string("1"), "got a string");
  row("nan f32 (H1)", K::F32, std::numeric_limits<double>::quiet_NaN(), "non-finite float nan");
  row("inf f64 (H1)", K::F64Triple, F64Array{1.0, inf, 1.0}, "non-finite float inf");
  row("repr without dot (H2)", K::F64Triple, 1e-05, "float 1e-05 has no '.'");
  row("quote in str (H3)", K::Str, std::string("a\"b"), "printable ascii");
  row("newline in str (H3)", K::Str, std::string("a\nb"), "string 'a?b'");
  row("unknown enum value", K::PoolMode, std::string("mean"), "unknown pool_mode value 'mean'");
  row("unknown packing", K::Packing, PackingAttr{"int2", 32, "f16", "affine"}, "unknown packing kind 'int2'");
  row("packing group 0", K::Packing, PackingAttr{"int4", 0, "f16", "affine"}, "group_size must be positive");
  row("packing scale dtype", K::Packing, PackingAttr{"int8", 32, "bf16", "affine"},
      "scale_dtype must be 'f16' or 'f32'");
  row("float for string", K::Join, 1.0, "got a float");
}

void TestMlirAttributes::attrValueErrors() {
  QFETCH(int, kind);
  QFETCH(AttrValue, value);
  QFETCH(QString, messagePart);
  Expected<std::string> formatted = formatAttrValue(SchemaAttrKind(kind), value);
  QVERIFY(!formatted.ok());
  QVERIFY2(q(formatted.message()).contains(messagePart), formatted.message().c_str());
  QVERIFY(!q(formatted.message()).contains(QLatin1Char('\n')));
}

void TestMlirAttributes::stringArray() {
  // Sec. 3.1: only '\' and '"' are escaped, '\' first.
  QCOMPARE(q(formatStringArray({})), QStringLiteral("[]"));
  QCOMPARE(q(formatStringArray({"x_coords", "x_features"})),
           QStringLiteral("[\"x_coords\", \"x_features\"]"));
  QCOMPARE(q(formatStringArray({"a\"b", "c\\d", "h\xc3\xa9"})),
           QString::fromUtf8("[\"a\\\"b\", \"c\\\\d\", \"h\xc3\xa9\"]"));
}

void TestMlirAttributes::types() {
  // Sec. 4 and lowering spec sec. 5.9.
  QCOMPARE(q(sparseTensorType("f16")),
           QStringLiteral(
               "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>"));
  QCOMPARE(q(weightType("conv3d", "f32")), QStringLiteral("!lattice.weight<conv3d, f32>"));
  QCOMPARE(q(featureTensorType(4, "f32")), QStringLiteral("tensor<?x4xf32>"));
  QCOMPARE(q(featureTensorType(std::nullopt, "f16")), QStringLiteral("tensor<?x?xf16>"));
  QCOMPARE(q(rankedTensorType({-1, 3}, "f32")), QStringLiteral("tensor<?x3xf32>"));
  QCOMPARE(q(rankedTensorType({}, "f32")), QStringLiteral("tensor<f32>"));
  QCOMPARE(q(rankedTensorType({-1}, "i32")), QStringLiteral("tensor<?xi32>"));
  QCOMPARE(valueTypeOf(kCoordsTensorType), std::optional<SchemaValueType>(SchemaValueType::Tensor));
  QCOMPARE(valueTypeOf(sparseTensorType("f32")),
           std::optional<SchemaValueType>(SchemaValueType::SparseTensor));
  QCOMPARE(valueTypeOf("!lattice.weight<bias, f32>"),
           std::optional<SchemaValueType>(SchemaValueType::Weight));
  QVERIFY(!valueTypeOf("f32"));
}

QTEST_APPLESS_MAIN(TestMlirAttributes)
#include "tst_mlir_attributes.moc"
