// Tests for OpKind (dialect/OpKind.h): every op of the schema table goes name → kind → name, the
// kinds are the table's positions, unknown names have no kind, and each family predicate holds
// exactly for the ops the schema's own data (operands, attributes, assembly) put in that family.
// The weight families agree with the schema's weight layouts.

#include "dialect/DialectSchema.h"
#include "dialect/OpKind.h"

#include <QtTest/QtTest>

#include <iterator>
#include <string>

using namespace lattice;

namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

bool hasAttribute(const SchemaOp& op, const char* name) {
  return op.findAttribute(name) != nullptr;
}

bool hasWeightOperand(const SchemaOp& op) {
  for (const SchemaOperand& o : op.operands)
    if (o.type == SchemaValueType::Weight) return true;
  return false;
}

SchemaValueType firstOperandType(const SchemaOp& op) {
  return op.operands.front().type;
}

// The family an op belongs to, read from the schema's data alone (not from OpKind).
OpFamily familyFromSchema(const SchemaOp& op) {
  if (op.assembly == SchemaAssembly::Weight) return OpFamily::Weight;
  if (op.name.rfind("sparse.", 0) == 0) return OpFamily::Sparse;
  if (hasAttribute(op, "voxel_size")) return OpFamily::Point;
  if (firstOperandType(op) == SchemaValueType::SparseTensor)
    return hasWeightOperand(op) ? OpFamily::Conv : OpFamily::Pool;
  return hasAttribute(op, "eps") ? OpFamily::Norm : OpFamily::Dense;
}

} // namespace

class TestOpKind : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void everySchemaOpRoundTrips();
  void unknownNamesHaveNoKind_data();
  void unknownNamesHaveNoKind();
  void familiesAgreeWithSchema();
  void familyPredicates_data();
  void familyPredicates();
  void weightFamiliesAgreeWithSchema();
};

void TestOpKind::everySchemaOpRoundTrips() {
  const DialectSchema& schema = dialectSchema();
  QCOMPARE(schema.ops.size(), kOpKindCount);
  for (std::size_t i = 0; i < schema.ops.size(); ++i) {
    const SchemaOp& op = schema.ops[i];
    const OpKind kind = opKindFromName(op.name);
    QVERIFY2(kind == op.kind, qPrintable(qs(op.name)));
    QVERIFY2(static_cast<std::size_t>(kind) == i, qPrintable(qs(op.name)));
    QCOMPARE(qs(opName(kind)), qs(op.name));
    QVERIFY(&schema.op(kind) == &op);
  }
}

void TestOpKind::unknownNamesHaveNoKind_data() {
  QTest::addColumn<QString>("name");
  QTest::newRow("empty") << QString();
  QTest::newRow("with the dialect prefix") << QStringLiteral("lattice.conv3d");
  QTest::newRow("foreign op") << QStringLiteral("func.call");
  QTest::newRow("a family, not an op") << QStringLiteral("conv");
  QTest::newRow("python name") << QStringLiteral("sparse_make");
  QTest::newRow("case differs") << QStringLiteral("Conv3d");
}

void TestOpKind::unknownNamesHaveNoKind() {
  QFETCH(QString, name);
  const std::string text = name.toStdString();
  QVERIFY(opKindFromName(text) == OpKind::None);
  QVERIFY(opName(OpKind::None).empty());
  QVERIFY(!isLatticeOp(OpKind::None));
  QVERIFY(!isConv(OpKind::None) && !isPool(OpKind::None) && !isNorm(OpKind::None) &&
          !isSparseStructureOp(OpKind::None) && !isPointOp(OpKind::None) && !isDenseOp(OpKind::None) &&
          !isWeightOp(OpKind::None));
}

void TestOpKind::familiesAgreeWithSchema() {
  for (const SchemaOp& op : dialectSchema().ops) {
    const OpFamily family = familyFromSchema(op);
    const char* name = op.name.c_str();
    QVERIFY2(opFamily(op.kind) == family, name);
    QVERIFY2(isWeightOp(op.kind) == (family == OpFamily::Weight), name);
    QVERIFY2(isSparseStructureOp(op.kind) == (family == OpFamily::Sparse), name);
    QVERIFY2(isConv(op.kind) == (family == OpFamily::Conv), name);
    QVERIFY2(isPool(op.kind) == (family == OpFamily::Pool), name);
    QVERIFY2(isPointOp(op.kind) == (family == OpFamily::Point), name);
    QVERIFY2(isDenseOp(op.kind) == (family == OpFamily::Dense), name);
    QVERIFY2(isNorm(op.kind) == (family == OpFamily::Norm), name);
  }
}

// A few ops with the family a reader of the format spec expects.
void TestOpKind::familyPredicates_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<int>("family");
  QTest::newRow("weight") << QStringLiteral("weight") << int(OpFamily::Weight);
  QTest::newRow("sparse.cat") << QStringLiteral("sparse.cat") << int(OpFamily::Sparse);
  QTest::newRow("subm_conv3d") << QStringLiteral("subm_conv3d") << int(OpFamily::Conv);
  QTest::newRow("target_normalized_conv_transpose3d")
      << QStringLiteral("target_normalized_conv_transpose3d") << int(OpFamily::Conv);
  QTest::newRow("pool3d") << QStringLiteral("pool3d") << int(OpFamily::Pool);
  QTest::newRow("global_pool") << QStringLiteral("global_pool") << int(OpFamily::Pool);
  QTest::newRow("devoxelize") << QStringLiteral("devoxelize") << int(OpFamily::Point);
  QTest::newRow("linear") << QStringLiteral("linear") << int(OpFamily::Dense);
  QTest::newRow("activation") << QStringLiteral("activation") << int(OpFamily::Dense);
  QTest::newRow("rms_norm") << QStringLiteral("rms_norm") << int(OpFamily::Norm);
}

void TestOpKind::familyPredicates() {
  QFETCH(QString, name);
  QFETCH(int, family);
  const OpKind kind = opKindFromName(name.toStdString());
  QVERIFY(isLatticeOp(kind));
  QCOMPARE(int(opFamily(kind)), family);
}

void TestOpKind::weightFamiliesAgreeWithSchema() {
  const SchemaAttrDef* layouts = dialectSchema().findAttr("weight_layout");
  QVERIFY(layouts);
  QCOMPARE(layouts->values.size(), std::size(kWeightFamilies));
  for (std::size_t i = 0; i < layouts->values.size(); ++i) {
    QCOMPARE(qs(kWeightFamilies[i].layout), QString::fromStdString(layouts->values[i]));
    // Each layout is named after its family.
    QVERIFY(kWeightFamilies[i].layout.substr(0, kWeightFamilies[i].name.size() + 1) ==
            std::string(kWeightFamilies[i].name) + "_");
  }
}

QTEST_APPLESS_MAIN(TestOpKind)
#include "tst_op_kind.moc"
