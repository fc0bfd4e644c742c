// TorchLatticeArtifactBuilder function lowerings (lowering.md §4) keyed by canonical function name:
// every row of the §4 table (cat, the five binary families with their callables and default
// joins, voxelize, devoxelize, reindex_sparse) checked against op lines written out by hand and
// against the conformance point_voxel and sparse_reindex graphs, every §4 error message, and the
// §2.3/§2.4 value gathering and output flattening that ArtifactValue provides.

#include "BuilderTestSupport.h"

#include <QtTest/QtTest>

using namespace lattice;
using namespace lattice::buildertest;
using lattice::testmodels::readText;

namespace {

fx::Value val(const ArtifactValuePtr& v) {
  return toFxValue(v);
}
fx::Value f(double d) {
  return fx::Value::floating(d);
}
fx::Value s(const char* text) {
  return fx::Value::string(text);
}

std::string binaryLine(const std::string& res, const std::string& lhs, const std::string& rhs,
                       const std::string& op, const std::string& join, const std::string& lhsFill = "0.0",
                       const std::string& rhsFill = "0.0") {
  return "%" + res + " = lattice.sparse.binary %" + lhs + ", %" + rhs + " {op = #lattice.binary_op<" + op +
         ">, join = #lattice.join<" + join + ">, lhs_fill = " + lhsFill + " : f32, rhs_fill = " + rhsFill +
         " : f32} : (" + SP + ", " + SP + ") -> " + SP;
}

/// A minimal fx::Object that is not an ArtifactValue.
class Opaque final : public fx::Object {
public:
  std::string typeName() const override { return "Tensor"; }
};

} // namespace

class TestBuilderFunctions : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void registryNames();
  void binary_data();
  void binary();
  void binaryOptionsAndErrors();
  void cat();
  void catErrors();
  void pointVoxelConformance();
  void voxelizeOperandsAndErrors();
  void reindexConformance();
  void reindexErrors();
  void unsupportedFunction();
  void gatherArtifactValues_();
  void flattenArtifactOutputs_();
  void elementTypeOf_();
};

void TestBuilderFunctions::registryNames() {
  // §1.2(a), canonical spellings (fx-archive.md: `_operator` written `operator`), in table order.
  const std::vector<std::string> expected = {"torch_lattice.operators.cat",
                                             "operator.add",
                                             "torch.add",
                                             "torch_lattice.operators.generative_add",
                                             "torch_lattice.operators.sparse_add",
                                             "operator.sub",
                                             "torch.sub",
                                             "torch_lattice.operators.sparse_sub",
                                             "operator.mul",
                                             "torch.mul",
                                             "torch_lattice.operators.sparse_mul",
                                             "torch.maximum",
                                             "torch_lattice.operators.sparse_maximum",
                                             "torch.minimum",
                                             "torch_lattice.operators.sparse_minimum",
                                             "torch_lattice.nn.functional.voxelize.voxelize",
                                             "torch_lattice.nn.functional.devoxelize.devoxelize",
                                             "torch_lattice.operators.reindex_sparse"};
  QCOMPARE(TorchLatticeArtifactBuilder::functionLoweringNames(), expected);
  // Aliases are the same callables.
  for (const char* alias : {"_operator.add", "torch_lattice.cat", "torch_lattice.voxelize",
                            "torch_lattice.nn.functional.voxelize", "torch_lattice.reindex_sparse"})
    QVERIFY2(TorchLatticeArtifactBuilder::hasFunctionLowering(alias), alias);
  // Structural or unsupported: not lowered here.
  for (const char* name : {"operator.getitem", "torch_lattice.operators.sparse_cat", "torch.relu",
                           "builtins.getattr", "torch_lattice.operators.sparse_binary", "torch.cat"})
    QVERIFY2(!TorchLatticeArtifactBuilder::hasFunctionLowering(name), name);
}

void TestBuilderFunctions::binary_data() {
  QTest::addColumn<QString>("target");
  QTest::addColumn<QString>("op");
  QTest::addColumn<QString>("join");
  const char* rows[][3] = {{"operator.add", "add", "outer"},
                           {"torch.add", "add", "outer"},
                           {"torch_lattice.operators.generative_add", "add", "outer"},
                           {"torch_lattice.operators.sparse_add", "add", "outer"},
                           {"operator.sub", "sub", "outer"},
                           {"torch.sub", "sub", "outer"},
                           {"torch_lattice.operators.sparse_sub", "sub", "outer"},
                           {"operator.mul", "mul", "inner"},
                           {"torch.mul", "mul", "inner"},
                           {"torch_lattice.operators.sparse_mul", "mul", "inner"},
                           {"torch.maximum", "maximum", "inner"},
                           {"torch_lattice.operators.sparse_maximum", "maximum", "inner"},
                           {"torch.minimum", "minimum", "inner"},
                           {"torch_lattice.operators.sparse_minimum", "minimum", "inner"}};
  for (const auto& r : rows)
    QTest::newRow(r[0]) << QString::fromLatin1(r[0]) << QString::fromLatin1(r[1])
                        << QString::fromLatin1(r[2]);
}

void TestBuilderFunctions::binary() {
  QFETCH(QString, target);
  QFETCH(QString, op);
  QFETCH(QString, join);
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr a = sparseArg(b, "a", 3), c = sparseArg(b, "b", 3);
  Expected<ArtifactValuePtr> v = b.lowerFunction(target.toStdString(), {val(a), val(c)}, {});
  QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(3));
  // The result stem is the op name, whatever the callable (§2.5).
  QCOMPARE(lineWith(textWith(b, *v), " = lattice.sparse.binary"),
           binaryLine(op.toStdString(), "a", "b", op.toStdString(), join.toStdString()));
}

void TestBuilderFunctions::binaryOptionsAndErrors() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr a = sparseArg(b, "a", 2), c = sparseArg(b, "b", 2),
                   unknown = sparseArg(b, "u", std::nullopt);
  ArtifactValuePtr three = sparseArg(b, "t", 3), dense = denseArg(b, "d", "tensor<?x2xf32>", 2);
  // Test 9: sparse_sub(a, b, join="left", rhs_fill=1.5).
  Expected<ArtifactValuePtr> sub = b.lowerFunction("torch_lattice.operators.sparse_sub", {val(a), val(c)},
                                                   {{"join", s("left")}, {"rhs_fill", f(1.5)}});
  QVERIFY(sub.ok());
  // Other kwargs (torch.add(..., alpha=2)) are ignored; repeated results are uniqued by the counter.
  Expected<ArtifactValuePtr> add1 =
      b.lowerFunction("torch.add", {val(a), val(c)}, {{"alpha", fx::Value::integer(2)}});
  Expected<ArtifactValuePtr> add2 =
      b.lowerFunction("operator.add", {val(*add1), val(c)}, {{"lhs_fill", f(-1.25)}});
  QVERIFY(add1.ok() && add2.ok());
  QCOMPARE((*add2)->name(), std::string("add1"));
  // Channels: lhs's, or rhs's when lhs's are unknown.
  Expected<ArtifactValuePtr> mixed = b.lowerFunction("operator.mul", {val(unknown), val(three)}, {});
  QVERIFY(mixed.ok());
  QCOMPARE((*mixed)->channels(), std::optional<int64_t>(3));
  const std::string text = textWith(b, *add2);
  QCOMPARE(lineWith(text, "%sub = "), binaryLine("sub", "a", "b", "sub", "left", "0.0", "1.5"));
  QCOMPARE(lineWith(text, "%add = "), binaryLine("add", "a", "b", "add", "outer"));
  QCOMPARE(lineWith(text, "%add1 = "), binaryLine("add1", "add", "b", "add", "outer", "-1.25"));

  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(e, "x", 2), y = sparseArg(e, "y", 3),
                   d = denseArg(e, "d", "tensor<?x2xf32>", 2);
  QCOMPARE(e.lowerFunction("operator.add", {val(x), f(1.0)}, {}).message(),
           std::string("lattice add artifact requires exactly two sparse values."));
  QCOMPARE(e.lowerFunction("torch.maximum", {val(x), val(x), val(x)}, {}).message(),
           std::string("lattice maximum artifact requires exactly two sparse values."));
  QCOMPARE(e.lowerFunction("operator.add", {val(d), val(x)}, {}).message(),
           std::string("sparse add lhs expects sparse_tensor, got dense_tensor."));
  QCOMPARE(e.lowerFunction("operator.sub", {val(x), val(d)}, {}).message(),
           std::string("sparse sub rhs expects sparse_tensor, got dense_tensor."));
  QCOMPARE(e.lowerFunction("torch.minimum", {val(x), val(y)}, {}).message(),
           std::string("sparse minimum requires matching channel counts."));
  (void)dense;
}

void TestBuilderFunctions::cat() {
  // Test 8: cat([left (3 ch), right (4 ch)]) with the default join inner; a left fold named cat_i.
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr l = sparseArg(b, "left", 3), r = sparseArg(b, "right", 4), t = sparseArg(b, "third", 5);
  Expected<ArtifactValuePtr> two =
      b.lowerFunction("torch_lattice.operators.cat", {fx::Value::list({val(l), val(r)})}, {});
  QVERIFY(two.ok());
  QCOMPARE((*two)->channels(), std::optional<int64_t>(7));
  Expected<ArtifactValuePtr> three = b.lowerFunction(
      "torch_lattice.cat", {fx::Value::list({val(l), val(r), val(t)})}, {{"join", s("outer")}});
  QVERIFY(three.ok());
  QCOMPARE((*three)->channels(), std::optional<int64_t>(12));
  QCOMPARE((*three)->name(), std::string("cat_2"));
  const std::string text = textWith(b, *three);
  const std::string types = " : (" + SP + ", " + SP + ") -> " + SP;
  QCOMPARE(lineWith(text, "%cat_1 = "),
           "%cat_1 = lattice.sparse.cat %left, %right {join = #lattice.join<inner>}" + types);
  QCOMPARE(lineWith(text, "%cat_11 = "),
           "%cat_11 = lattice.sparse.cat %left, %right {join = #lattice.join<outer>}" + types);
  QCOMPARE(lineWith(text, "%cat_2 = "),
           "%cat_2 = lattice.sparse.cat %cat_11, %third {join = #lattice.join<outer>}" + types);

  // Unknown channels on either side give unknown channels.
  TorchLatticeArtifactBuilder u = makeBuilder(noDefaultInput());
  ArtifactValuePtr a = sparseArg(u, "a", std::nullopt), c = sparseArg(u, "c", 2);
  Expected<ArtifactValuePtr> v = u.lowerFunction("torch_lattice.operators.cat", {val(a), val(c)}, {});
  QVERIFY(v.ok());
  QCOMPARE((*v)->channels(), std::optional<int64_t>());
}

void TestBuilderFunctions::catErrors() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2), d = denseArg(b, "d", "tensor<?x2xf32>", 2);
  QCOMPARE(b.lowerFunction("torch_lattice.operators.cat", {fx::Value::list({val(x)})}, {}).message(),
           std::string("lattice cat artifact requires at least two sparse values."));
  QCOMPARE(b.lowerFunction("torch_lattice.operators.cat", {fx::Value::list({val(x), val(d)})}, {}).message(),
           std::string("sparse cat rhs expects sparse_tensor, got dense_tensor."));
  QCOMPARE(b.lowerFunction("torch_lattice.operators.cat", {fx::Value::list({val(d), val(x)})}, {}).message(),
           std::string("sparse cat lhs expects sparse_tensor, got dense_tensor."));
}

void TestBuilderFunctions::pointVoxelConformance() {
  // Conformance point_voxel: four dense arguments, voxelize (mean, voxel 1, origin 0), then
  // nearest devoxelize, called as the recorded graph calls them (two positional operands, the
  // rest by keyword).
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr points = denseArg(b, "points", "tensor<?x3xf32>", std::nullopt);
  ArtifactValuePtr features = denseArg(b, "features", "tensor<?x2xf32>", 2);
  ArtifactValuePtr batch = denseArg(b, "batch_indices", "tensor<?xi32>", std::nullopt);
  ArtifactValuePtr active = denseArg(b, "active_rows", "tensor<1xi32>", std::nullopt);
  const fx::Value ones = fx::Value::tuple({f(1.0), f(1.0), f(1.0)}),
                  zeros = fx::Value::tuple({f(0.0), f(0.0), f(0.0)});
  Expected<ArtifactValuePtr> vox =
      b.lowerFunction("torch_lattice.nn.functional.voxelize.voxelize", {val(points), val(features)},
                      {{"batch_indices", val(batch)},
                       {"active_rows", val(active)},
                       {"voxel_size", ones},
                       {"origin", zeros},
                       {"reduction", s("mean")}});
  QVERIFY2(vox.ok(), vox.ok() ? "" : vox.message().c_str());
  QVERIFY((*vox)->isSparse());
  QCOMPARE((*vox)->channels(), std::optional<int64_t>(2));
  Expected<ArtifactValuePtr> dev =
      b.lowerFunction("torch_lattice.nn.functional.devoxelize.devoxelize", {val(points), val(*vox)},
                      {{"batch_indices", val(batch)},
                       {"point_active_rows", val(active)},
                       {"voxel_size", ones},
                       {"origin", zeros},
                       {"interpolation", s("nearest")}});
  QVERIFY2(dev.ok(), dev.ok() ? "" : dev.message().c_str());
  QVERIFY((*dev)->isDense());
  QCOMPARE(textWith(b, *dev), readText(kModels + "point_voxel/expected.lattice/graph.mlir"));
}

void TestBuilderFunctions::voxelizeOperandsAndErrors() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr p = denseArg(b, "p", "tensor<?x3xf32>", std::nullopt),
                   feats = denseArg(b, "f", "tensor<?x4xf32>", 4);
  ArtifactValuePtr bi = denseArg(b, "bi", "tensor<?xi32>", std::nullopt),
                   ar = denseArg(b, "ar", "tensor<1xi32>", std::nullopt);
  ArtifactValuePtr sp = sparseArg(b, "s", 4);
  const std::string voxelize = "torch_lattice.nn.functional.voxelize.voxelize";
  const std::string devoxelize = "torch_lattice.nn.functional.devoxelize.devoxelize";
  // All four by position; non-symbolic options come from kwargs only (voxel_size scalar broadcast,
  // stride int triple); a kwarg operand takes precedence over the positional one.
  Expected<ArtifactValuePtr> v = b.lowerFunction(voxelize, {val(p), val(sp), val(bi), val(ar)},
                                                 {{"features", val(feats)},
                                                  {"voxel_size", f(0.5)},
                                                  {"stride", fx::Value::integer(2)},
                                                  {"reduction", s("sum")}});
  QVERIFY2(v.ok(), v.ok() ? "" : v.message().c_str());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(4));
  QCOMPARE(lineWith(textWith(b, *v), "%voxelize = "),
           "%voxelize = lattice.voxelize %p, %f, %bi, %ar {voxel_size = array<f64: 0.5, 0.5, 0.5>, origin = "
           "array<f64: 0.0, "
           "0.0, 0.0>, reduction = #lattice.voxel_reduction<sum>, stride = array<i64: 2, 2, 2>} : "
           "(tensor<?x3xf32>, "
           "tensor<?x4xf32>, tensor<?xi32>, tensor<1xi32>) -> " +
               SP);

  TorchLatticeArtifactBuilder e = makeBuilder(noDefaultInput());
  ArtifactValuePtr ep = denseArg(e, "p", "tensor<?x3xf32>", std::nullopt),
                   ef = denseArg(e, "f", "tensor<?x4xf32>", 4);
  ArtifactValuePtr eb = denseArg(e, "bi", "tensor<?xi32>", std::nullopt),
                   ea = denseArg(e, "ar", "tensor<1xi32>", std::nullopt);
  ArtifactValuePtr es = sparseArg(e, "s", 4);
  QCOMPARE(e.lowerFunction(voxelize, {val(ep), val(ef)}, {{"active_rows", val(ea)}}).message(),
           std::string("voxelize artifact requires symbolic argument 'batch_indices'."));
  QCOMPARE(e.lowerFunction(voxelize, {val(ep), f(1.0), val(eb), val(ea)}, {}).message(),
           std::string("voxelize artifact requires symbolic argument 'features'."));
  QCOMPARE(e.lowerFunction(voxelize, {val(ep), val(es), val(eb), val(ea)}, {}).message(),
           std::string("features expects dense_tensor, got sparse_tensor."));
  QCOMPARE(e.lowerFunction(voxelize, {val(ep), val(ef), val(eb), val(ea)},
                           {{"voxel_size", fx::Value::tuple({f(1.0), f(2.0)})}})
               .message(),
           std::string("expected a scalar or length-3 tuple, got (1.0, 2.0)."));
  QCOMPARE(e.lowerFunction(devoxelize, {val(ep), val(ef), val(eb), val(ea)}, {}).message(),
           std::string("voxels expects sparse_tensor, got dense_tensor."));
  QCOMPARE(e.lowerFunction(devoxelize, {val(es), val(es), val(eb), val(ea)}, {}).message(),
           std::string("points expects dense_tensor, got sparse_tensor."));
  QCOMPARE(e.lowerFunction(devoxelize, {val(ep), val(es), val(eb)}, {}).message(),
           std::string("devoxelize artifact requires symbolic argument 'point_active_rows'."));
  QCOMPARE(e.writer().opCount(), std::size_t(1)); // only the sparse argument's make
}

void TestBuilderFunctions::reindexConformance() {
  // Conformance sparse_reindex: reindex_sparse(source, target, fill=-0.75).
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr source = sparseArg(b, "source", 2), target = sparseArg(b, "target", 1);
  Expected<ArtifactValuePtr> v = b.lowerFunction("torch_lattice.operators.reindex_sparse",
                                                 {val(source), val(target)}, {{"fill", f(-0.75)}});
  QVERIFY(v.ok());
  QCOMPARE((*v)->channels(), std::optional<int64_t>(2));
  QCOMPARE(textWith(b, *v), readText(kModels + "sparse_reindex/expected.lattice/graph.mlir"));
}

void TestBuilderFunctions::reindexErrors() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2), d = denseArg(b, "d", "tensor<?x2xf32>", 2);
  const std::string reindex = "torch_lattice.operators.reindex_sparse";
  QCOMPARE(b.lowerFunction(reindex, {val(x)}, {}).message(),
           std::string("reindex_sparse artifact requires symbolic argument 'target'."));
  QCOMPARE(b.lowerFunction(reindex, {}, {{"target", val(x)}}).message(),
           std::string("reindex_sparse artifact requires symbolic argument 'input'."));
  QCOMPARE(b.lowerFunction(reindex, {val(d), val(x)}, {}).message(),
           std::string("sparse reindex input expects sparse_tensor, got dense_tensor."));
  QCOMPARE(b.lowerFunction(reindex, {val(x), val(d)}, {}).message(),
           std::string("sparse reindex target expects sparse_tensor, got dense_tensor."));
  // Test 13: the fill kwarg by name, with input/target as keywords.
  Expected<ArtifactValuePtr> v =
      b.lowerFunction(reindex, {}, {{"input", val(x)}, {"target", val(x)}, {"fill", f(-1.25)}});
  QVERIFY(v.ok());
  QVERIFY(lineWith(textWith(b, *v), "%reindex = lattice.sparse.reindex %x, %x {fill = -1.25 : f32}").size());
}

void TestBuilderFunctions::unsupportedFunction() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr x = sparseArg(b, "x", 2);
  QCOMPARE(b.lowerFunction("torch_lattice.operators.sparse_cat", {val(x), val(x)}, {}).message(),
           std::string("unsupported FX function for lattice artifact: torch_lattice.operators.sparse_cat"));
}

void TestBuilderFunctions::gatherArtifactValues_() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr a = sparseArg(b, "a", 1), c = sparseArg(b, "c", 1), d = sparseArg(b, "d", 1),
                   e = sparseArg(b, "e", 1);
  // Depth first, left to right; dict values in insertion order; kwargs after args; the rest dropped.
  const fx::ValueList args = {fx::Value::integer(3),
                              fx::Value::tuple({val(a), fx::Value::none(), fx::Value::list({val(c)})}),
                              fx::Value::dict({{"z", val(d)}, {"a", s("text")}})};
  const fx::Kwargs kwargs = {
      {"coordinates", val(e)}, {"join", s("outer")}, {"t", fx::Value::object(std::make_shared<Opaque>())}};
  const std::vector<ArtifactValuePtr> got = gatherArtifactValues(args, kwargs);
  QCOMPARE(got, (std::vector<ArtifactValuePtr>{a, c, d, e}));
  QCOMPARE(artifactValueOf(val(a)), a);
  QVERIFY(!artifactValueOf(fx::Value::integer(1)));
  QCOMPARE(val(a).typeName(), std::string("ArtifactValue"));
}

void TestBuilderFunctions::flattenArtifactOutputs_() {
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  ArtifactValuePtr a = sparseArg(b, "a", 1), c = sparseArg(b, "c", 1);
  Expected<std::vector<ArtifactValuePtr>> ok =
      flattenArtifactOutputs(fx::Value::list({val(a), fx::Value::dict({{"k", fx::Value::tuple({val(c)})}})}));
  QVERIFY(ok.ok());
  QCOMPARE(*ok, (std::vector<ArtifactValuePtr>{a, c}));
  QCOMPARE(flattenArtifactOutputs(fx::Value::tuple({})).message(),
           std::string("lattice artifact model produced no tensor outputs"));
  QCOMPARE(flattenArtifactOutputs(fx::Value::dict({})).message(),
           std::string("lattice artifact model produced no tensor outputs"));
  QCOMPARE(flattenArtifactOutputs(fx::Value::none()).message(),
           std::string("lattice artifact outputs must all be tensors; unsupported: NoneType"));
  QCOMPARE(
      flattenArtifactOutputs(fx::Value::tuple({s("x"), val(a), fx::Value::integer(1), fx::Value::integer(2)}))
          .message(),
      std::string("lattice artifact outputs must all be tensors; unsupported: int, str"));
}

void TestBuilderFunctions::elementTypeOf_() {
  QCOMPARE(elementTypeOf("tensor<?x3xf32>"), std::string("f32"));
  QCOMPARE(elementTypeOf("tensor<?xi32>"), std::string("i32"));
  QCOMPARE(elementTypeOf("tensor<i64>"), std::string("i64"));
  QCOMPARE(elementTypeOf(SP), std::string("f32"));
  TorchLatticeArtifactBuilder b = makeBuilder(noDefaultInput());
  QCOMPARE(denseArg(b, "n", "tensor<?x2x5xf16>", std::nullopt)->dtype(), std::string("f16"));
}

QTEST_APPLESS_MAIN(TestBuilderFunctions)
#include "tst_builder_functions.moc"
