// The per-op rules of the verifier (validation spec sec. 4 ODS, sec. 5 custom verifiers, sec. 7
// R12/R13), one row per rule with the spec's exact message, plus valid uses of the ops no
// conformance fixture covers. Each row is a body inside a function whose arguments provide
// values of every type the rows need (sparse tensors with odd conventions, weights of every
// family, dense tensors of various shapes), so a row isolates exactly one op.

#include "mlir/MlirParser.h"
#include "verify/ArtifactVerifier.h"

#include <QtTest/QtTest>

#include <map>

using namespace lattice;

namespace {

const std::map<std::string, std::string>& placeholders() {
  static const std::map<std::string, std::string> m = {
      {"$S", "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>"},
      {"$H", "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>"},
      {"$X", "!lattice.sparse_tensor<rank = 3, coord = xyz_batch, feature = row_channel, dtype = f32>"},
      {"$C", "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = col, dtype = f32>"},
      {"$R", "!lattice.sparse_tensor<rank = 2, coord = batch_x_y_z, feature = row_channel, dtype = f32>"},
      {"$WC", "!lattice.weight<conv3d, f32>"},
      {"$WB", "!lattice.weight<bias, f32>"},
      {"$WL", "!lattice.weight<linear, f32>"},
      {"$WH", "!lattice.weight<channel, f32>"},
      {"$WE", "!lattice.weight<embedding, f32>"},
      {"$CONV",
       "{kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, "
       "dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"}"},
      {"$POOL",
       "{mode = #lattice.pool_mode<avg>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, "
       "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>}"},
      {"$MAKE", "{stride = array<i64: 1, 1, 1>, coord_order = #lattice.coord<batch_x_y_z>}"},
      {"$ACT",
       "{kind = #lattice.activation<relu>, approximate = #lattice.gelu_approx<none>, alpha = 0.01 : f32, "
       "beta = 1.0 : f32, threshold = 20.0 : f32}"},
      {"$VOX", "{voxel_size = array<f64: 0.1, 0.1, 0.1>, origin = array<f64: 0.0, 0.0, 0.0>, "
               "reduction = #lattice.voxel_reduction<sum>, stride = array<i64: 1, 1, 1>}"},
      {"$DEVOX", "{voxel_size = array<f64: 0.1, 0.1, 0.1>, origin = array<f64: 0.0, 0.0, 0.0>, "
                 "interpolation = #lattice.point_interpolation<nearest>}"},
      {"$T8", "tensor<?x8xf32>"},
  };
  return m;
}

std::string expand(std::string text) {
  // Longest placeholders first ($WC before $W..., $CONV before $C).
  std::vector<std::pair<std::string, std::string>> keys(placeholders().begin(), placeholders().end());
  std::sort(keys.begin(), keys.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [key, value] : keys) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

// Function arguments available to every row.
const std::vector<std::pair<std::string, std::string>> kArgs = {
    {"s", "$S"},
    {"s16", "$H"},
    {"sx", "$X"},
    {"sc", "$C"},
    {"sr", "$R"},
    {"c", "tensor<?x4xi32>"},
    {"c3", "tensor<?x3xi32>"},
    {"c5", "tensor<5x4xi32>"},
    {"f", "tensor<?x8xf32>"},
    {"f5", "tensor<5x8xf32>"},
    {"f6", "tensor<6x8xf32>"},
    {"h", "tensor<?x8xf16>"},
    {"f3", "tensor<?x8x2xf32>"},
    {"v", "tensor<?xf32>"},
    {"a", "tensor<1xi32>"},
    {"a2", "tensor<2xi32>"},
    {"p", "tensor<?x3xf32>"},
    {"p4", "tensor<?x4xf32>"},
    {"p6", "tensor<6x3xf32>"},
    {"ph", "tensor<?x3xf16>"},
    {"b", "tensor<?xi32>"},
    {"b2", "tensor<?x1xi32>"},
    {"wc", "$WC"},
    {"wb", "$WB"},
    {"wl", "$WL"},
    {"wh", "$WH"},
    {"we", "$WE"},
};

std::string moduleText(const std::string& body) {
  std::string names, roles, args;
  for (std::size_t i = 0; i < kArgs.size(); ++i) {
    names += (i ? ", " : "") + std::string("\"input") + std::to_string(i) + "\"";
    roles += (i ? ", " : "") + std::string("\"tensor\"");
    args += (i ? ", " : "") + std::string("%") + kArgs[i].first + ": " + kArgs[i].second;
  }
  return expand(
      "module attributes {\n"
      "  lattice.ir_version = 2,\n"
      "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",\n"
      "  lattice.input_names = [" +
      names +
      "],\n"
      "  lattice.input_roles = [" +
      roles +
      "],\n"
      "  lattice.output_names = [\"output0\"],\n"
      "  lattice.output_roles = [\"tensor\"],\n"
      "  lattice.weight_file = \"weights.safetensors\"\n"
      "} {\n"
      "  func.func @forward(" +
      args + ") -> $S {\n" + body + "\n    return %s : $S\n  }\n}\n");
}

std::string weightOp(const std::string& family, const std::string& layout,
                     const std::string& packing = "#lattice.packing<dense>", const std::string& key = "k") {
  return "%w = lattice.weight @w {storage_key = \"" + key + "\", layout = #lattice.weight_layout<" + layout +
         ">, packing = " + packing + "} : !lattice.weight<" + family + ", f32>";
}

} // namespace

class TestVerifierOps : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void baselineIsValid() {
    ArtifactParseResult r = parseArtifactGraph(moduleText(""), "ops.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    QCOMPARE(renderDiagnostics(verifyArtifactGraph(*r.graph)), std::string());
  }

  void opRules_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QStringList>("expected");
    const auto row = [](const char* name, const std::string& body, QStringList expected) {
      QTest::newRow(name) << QString::fromStdString(body) << expected;
    };
    // Valid uses (no conformance fixture covers these ops).
    row("normalized_conv_transpose3d valid",
        "%o = lattice.normalized_conv_transpose3d %s, %wc, %wb {kernel_size = array<i64: 2, 2, 2>, stride = "
        "array<i64: 2, 2, 2>, "
        "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\", "
        "eps = 0.00001 : f32} "
        ": ($S, $WC, $WB) -> $S",
        {});
    row("normalized_generative valid",
        "%o = lattice.normalized_generative_conv_transpose3d %s, %wc {kernel_size = array<i64: 2, 2, 2>, "
        "stride = array<i64: 2, 2, 2>, eps = 0.00001 : f32, accumulation = \"canonical_f32\"} : ($S, $WC) -> "
        "$S",
        {});
    row("target_conv_transpose3d valid",
        "%o = lattice.target_conv_transpose3d %s, %s, %wc $CONV : ($S, $S, $WC) -> $S", {});
    row("embedding_lookup valid", "%o = lattice.embedding_lookup %b, %we : (tensor<?xi32>, $WE) -> $T8", {});
    row("elementwise valid", "%o = lattice.elementwise %f {kind = \"round\"} : ($T8) -> $T8", {});
    row("softmax valid", "%o = lattice.softmax %f {axis = -1} : ($T8) -> $T8", {});
    row("binary operand dtypes may differ",
        "%o = lattice.sparse.binary %s, %s16 {op = #lattice.binary_op<maximum>, join = #lattice.join<left>, "
        "lhs_fill = 0.0 : f32, rhs_fill = -1.5 : f32} : ($S, $H) -> $S",
        {});
    row("reindex target dtype may differ",
        "%o = lattice.sparse.reindex %s, %s16 {fill = 0.0 : f32} : ($S, $H) -> $S", {});
    row("with_features dtype may change",
        "%o = lattice.sparse.with_features %s, %h : ($S, tensor<?x8xf16>) -> $H", {});
    row("attribute order is free",
        "%o = lattice.conv3d %s, %wc {accumulation = \"canonical_f32\", dilation = array<i64: 1, 1, 1>, "
        "padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>, kernel_size = array<i64: 1, 1, 1>} : "
        "($S, $WC) -> $S",
        {});
    row("threshold is unchecked",
        "%o = lattice.activation %f {kind = #lattice.activation<softplus>, approximate = "
        "#lattice.gelu_approx<none>, "
        "alpha = 0.0 : f32, beta = 2.0 : f32, threshold = -5.0 : f32} : ($T8) -> $T8",
        {});
    row("static equal capacities",
        "%m = lattice.sparse.make %c5, %f5, %a $MAKE : (tensor<5x4xi32>, tensor<5x8xf32>, tensor<1xi32>) -> "
        "$S",
        {});
    row("global_pool batch_size -1",
        "%o = lattice.global_pool %s {mode = #lattice.pool_mode<max>, batch_size = -1} : ($S) -> $T8", {});
    row("dense packing ignores the rest",
        weightOp("linear", "linear_o_i",
                 "#lattice.packing<dense, group_size = 0, scale_dtype = bf16, mode = x>"),
        {});

    // ODS (sec. 4).
    row("operand class weight", "%o = lattice.conv3d %s, %f $CONV : ($S, $T8) -> $S",
        {"'lattice.conv3d' op operand #1 must be lattice weight, but got 'tensor<?x8xf32>'"});
    row("operand class sparse", "%o = lattice.pool3d %f $POOL : ($T8) -> $S",
        {"'lattice.pool3d' op operand #0 must be lattice sparse tensor, but got 'tensor<?x8xf32>'"});
    row("operand i32",
        "%m = lattice.sparse.make %p4, %f, %a $MAKE : (tensor<?x4xf32>, $T8, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op operand #0 must be ranked tensor of 32-bit signless integer values, but "
         "got 'tensor<?x4xf32>'"});
    row("operand i32 devoxelize",
        "%o = lattice.devoxelize %p, %s, %v, %a $DEVOX : (tensor<?x3xf32>, $S, tensor<?xf32>, tensor<1xi32>) "
        "-> $T8",
        {"'lattice.devoxelize' op operand #2 must be ranked tensor of 32-bit signless integer values, but "
         "got 'tensor<?xf32>'"});
    row("result i32",
        "%q, %r, %t = lattice.sparse.decompose %s : $S -> (tensor<?x4xf32>, $T8, tensor<1xi32>)",
        {"'lattice.sparse.decompose' op result #0 must be ranked tensor of 32-bit signless integer values, "
         "but got 'tensor<?x4xf32>'"});
    row("result ranked",
        "%q, %r, %t = lattice.sparse.decompose %s : $S -> (tensor<?x4xi32>, tensor<*xf32>, tensor<1xi32>)",
        {"'lattice.sparse.decompose' op result #1 must be ranked tensor of any type values, but got "
         "'tensor<*xf32>'"});
    row("result class", "%o = lattice.pool3d %s $POOL : ($S) -> $T8",
        {"'lattice.pool3d' op result #0 must be lattice sparse tensor, but got 'tensor<?x8xf32>'"});
    row("optional operand count", "%o = lattice.conv3d %s $CONV : ($S) -> $S",
        {"'lattice.conv3d' op requires 2 to 3 operands, but found 1"});
    row("operand count",
        "%o = lattice.sparse.cat %s, %s, %s {join = #lattice.join<inner>} : ($S, $S, $S) -> $S",
        {"'lattice.sparse.cat' op requires 2 operands, but found 3"});
    row("missing attribute",
        "%o = lattice.pool3d %s {mode = #lattice.pool_mode<avg>, kernel_size = array<i64: 2, 2, 2>, stride = "
        "array<i64: 2, 2, 2>, "
        "padding = array<i64: 0, 0, 0>} : ($S) -> $S",
        {"'lattice.pool3d' op requires attribute 'dilation'"});
    row("f64 eps", "%o = lattice.rms_norm %f, %wh {eps = 0.00001} : ($T8, $WH) -> $T8",
        {"'lattice.rms_norm' op attribute 'eps' failed to satisfy constraint: 32-bit float attribute"});
    row("list kernel", "%o = lattice.trilinear_upsample3d %s {stride = [2, 2, 2]} : ($S) -> $S",
        {"'lattice.trilinear_upsample3d' op attribute 'stride' failed to satisfy constraint: i64 dense array "
         "attribute"});
    row("i32 array", "%o = lattice.trilinear_upsample3d %s {stride = array<i32: 2, 2, 2>} : ($S) -> $S",
        {"'lattice.trilinear_upsample3d' op attribute 'stride' failed to satisfy constraint: i64 dense array "
         "attribute"});
    row("f32 array",
        "%o = lattice.devoxelize %p, %s, %b, %a {voxel_size = array<f32: 0.1, 0.1, 0.1>, origin = array<f64: "
        "0.0, 0.0, 0.0>, "
        "interpolation = #lattice.point_interpolation<nearest>} : (tensor<?x3xf32>, $S, tensor<?xi32>, "
        "tensor<1xi32>) -> $T8",
        {"'lattice.devoxelize' op attribute 'voxel_size' failed to satisfy constraint: f64 dense array "
         "attribute"});
    row("enum of another kind",
        "%o = lattice.global_pool %s {mode = #lattice.join<inner>, batch_size = 2} : ($S) -> $T8",
        {"'lattice.global_pool' op attribute 'mode' failed to satisfy constraint: #lattice.pool_mode "
         "attribute"});
    row("i32 batch size",
        "%o = lattice.global_pool %s {mode = #lattice.pool_mode<avg>, batch_size = 2 : i32} : ($S) -> $T8",
        {"'lattice.global_pool' op attribute 'batch_size' failed to satisfy constraint: 64-bit signless "
         "integer attribute"});
    row("accumulation not a string",
        "%o = lattice.subm_conv3d %s, %wc {kernel_size = array<i64: 3, 3, 3>, dilation = array<i64: 1, 1, "
        "1>, accumulation = 1} "
        ": ($S, $WC) -> $S",
        {"'lattice.subm_conv3d' op attribute 'accumulation' failed to satisfy constraint: string attribute"});
    row("packing not a packing", weightOp("linear", "linear_o_i", "\"dense\""),
        {"'lattice.weight' op attribute 'packing' failed to satisfy constraint: #lattice.packing attribute"});

    // R12, R13 (sec. 7).
    row("unknown attributes",
        "%o = lattice.sparse.cat %s, %s {zeta = 1, join = #lattice.join<inner>, alpha2 = \"x\"} : ($S, $S) "
        "-> $S",
        {"'lattice.sparse.cat' op has unknown attrs: alpha2, zeta"});
    row("coord_order value",
        "%m = lattice.sparse.make %c, %f, %a {stride = array<i64: 1, 1, 1>, coord_order = "
        "#lattice.coord<xyz_batch>} "
        ": (tensor<?x4xi32>, $T8, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op coord_order must match sparse result type",
         "'lattice.sparse.make' op coord_order must be one of: batch_x_y_z"});

    // weight (sec. 5).
    row("empty storage key", weightOp("linear", "linear_o_i", "#lattice.packing<dense>", ""),
        {"'lattice.weight' op requires a non-empty storage_key"});
    row("conv3d layout", weightOp("conv3d", "linear_o_i"),
        {"'lattice.weight' op conv3d weight must use conv3d_o_xyz_i layout"});
    row("historical layout", weightOp("conv3d", "conv3d_o_zyx_i"),
        {"'lattice.weight' op conv3d weight must use conv3d_o_xyz_i layout"});
    row("linear layout", weightOp("linear", "conv3d_o_xyz_i"),
        {"'lattice.weight' op linear weight must use linear_o_i layout"});
    row("embedding layout", weightOp("embedding", "channel_c"),
        {"'lattice.weight' op embedding weight must use embedding_n_c layout"});
    row("channel layout", weightOp("channel", "bias_c"),
        {"'lattice.weight' op channel weight must use channel_c layout"});
    row("bias layout", weightOp("bias", "channel_c"),
        {"'lattice.weight' op bias weight must use bias_c layout"});
    row("family", weightOp("matrix", "linear_o_i"),
        {"'lattice.weight' op weight family must be conv3d, linear, embedding, channel, or bias"});
    row("quantized bias",
        weightOp("bias", "bias_c",
                 "#lattice.packing<int8, group_size = 32, scale_dtype = f16, mode = affine>"),
        {"'lattice.weight' op embedding, channel, and bias weights must use dense packing"});
    row("packing kind",
        weightOp("linear", "linear_o_i",
                 "#lattice.packing<int2, group_size = 32, scale_dtype = f16, mode = affine>"),
        {"'lattice.weight' op packing kind must be dense, int4, or int8"});
    row("group size",
        weightOp("linear", "linear_o_i",
                 "#lattice.packing<int4, group_size = 0, scale_dtype = f16, mode = affine>"),
        {"'lattice.weight' op quantized packing requires positive group_size"});
    row("scale dtype",
        weightOp("linear", "linear_o_i",
                 "#lattice.packing<int4, group_size = 32, scale_dtype = bf16, mode = affine>"),
        {"'lattice.weight' op quantized packing scale_dtype must be f16 or f32"});
    row("mode",
        weightOp("conv3d", "conv3d_o_xyz_i",
                 "#lattice.packing<int8, group_size = 64, scale_dtype = f32, mode = symmetric>"),
        {"'lattice.weight' op only affine quantized packing is supported in v0"});

    // sparse.make, decompose, with_features, reindex, binary, cat.
    row("coords shape",
        "%m = lattice.sparse.make %c3, %f, %a $MAKE : (tensor<?x3xi32>, $T8, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op coords must have shape (?, 4)"});
    row("features rank",
        "%m = lattice.sparse.make %c, %f3, %a $MAKE : (tensor<?x4xi32>, tensor<?x8x2xf32>, tensor<1xi32>) -> "
        "$S",
        {"'lattice.sparse.make' op features must have rank 2"});
    row("capacities",
        "%m = lattice.sparse.make %c5, %f6, %a $MAKE : (tensor<5x4xi32>, tensor<6x8xf32>, tensor<1xi32>) -> "
        "$S",
        {"'lattice.sparse.make' op coords/features capacities must match"});
    row("active shape",
        "%m = lattice.sparse.make %c, %f, %a2 $MAKE : (tensor<?x4xi32>, $T8, tensor<2xi32>) -> $S",
        {"'lattice.sparse.make' op active must have shape (1)"});
    row("make stride",
        "%m = lattice.sparse.make %c, %f, %a {stride = array<i64: 1, 0, 1>, coord_order = "
        "#lattice.coord<batch_x_y_z>} "
        ": (tensor<?x4xi32>, $T8, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op stride values must be strictly positive"});
    row("make stride size",
        "%m = lattice.sparse.make %c, %f, %a {stride = array<i64: 1, 1>, coord_order = "
        "#lattice.coord<batch_x_y_z>} "
        ": (tensor<?x4xi32>, $T8, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op stride must contain exactly 3 integers"});
    row("make dtype",
        "%m = lattice.sparse.make %c, %h, %a $MAKE : (tensor<?x4xi32>, tensor<?x8xf16>, tensor<1xi32>) -> $S",
        {"'lattice.sparse.make' op feature dtype must match sparse result dtype"});
    row("make rank",
        "%m = lattice.sparse.make %c, %f, %a $MAKE : (tensor<?x4xi32>, $T8, tensor<1xi32>) -> $R",
        {"'lattice.sparse.make' op only rank=3 sparse tensors are supported in v0"});
    row("decompose coord",
        "%q, %r, %t = lattice.sparse.decompose %sx : $X -> (tensor<?x4xi32>, $T8, tensor<1xi32>)",
        {"'lattice.sparse.decompose' op only batch_x_y_z coordinate convention is supported in v0"});
    row("with_features rank", "%o = lattice.sparse.with_features %s, %f3 : ($S, tensor<?x8x2xf32>) -> $S",
        {"'lattice.sparse.with_features' op replacement features must have rank 2"});
    row("with_features dtype", "%o = lattice.sparse.with_features %s, %h : ($S, tensor<?x8xf16>) -> $S",
        {"'lattice.sparse.with_features' op replacement feature dtype must match result dtype"});
    row("with_features support", "%o = lattice.sparse.with_features %s, %f : ($S, $T8) -> $R",
        {"'lattice.sparse.with_features' op result sparse support must match input support"});
    row("with_features input", "%o = lattice.sparse.with_features %sc, %f : ($C, $T8) -> $S",
        {"'lattice.sparse.with_features' op only row_channel feature layout is supported in v0",
         "'lattice.sparse.with_features' op result sparse support must match input support"});
    row("reindex conventions", "%o = lattice.sparse.reindex %s, %sc {fill = 0.0 : f32} : ($S, $C) -> $S",
        {"'lattice.sparse.reindex' op only row_channel feature layout is supported in v0",
         "'lattice.sparse.reindex' op input and target must share sparse conventions"});
    row("binary conventions",
        "%o = lattice.sparse.binary %s, %sx {op = #lattice.binary_op<add>, join = #lattice.join<outer>, "
        "lhs_fill = 0.0 : f32, "
        "rhs_fill = 0.0 : f32} : ($S, $X) -> $S",
        {"'lattice.sparse.binary' op only batch_x_y_z coordinate convention is supported in v0",
         "'lattice.sparse.binary' op sparse binary operands must share sparse conventions"});
    row("binary join",
        "%o = lattice.sparse.binary %s, %s {op = #lattice.binary_op<add>, join = #lattice.join<cross>, "
        "lhs_fill = 0.0 : f32, "
        "rhs_fill = 0.0 : f32} : ($S, $S) -> $S",
        {"'lattice.sparse.binary' op join must be inner, left, right, or outer"});
    row("cat operands", "%o = lattice.sparse.cat %s, %s16 {join = #lattice.join<inner>} : ($S, $H) -> $S",
        {"'lattice.sparse.cat' op sparse cat operands must share sparse conventions and dtype"});
    row("cat result", "%o = lattice.sparse.cat %s, %s {join = #lattice.join<inner>} : ($S, $S) -> $H",
        {"'lattice.sparse.cat' op sparse cat result must preserve sparse conventions and dtype"});
    row("cat join", "%o = lattice.sparse.cat %s, %s {join = #lattice.join<zip>} : ($S, $S) -> $S",
        {"'lattice.sparse.cat' op join must be inner, left, right, or outer"});

    // Convolutions.
    row("accumulation",
        "%o = lattice.conv3d %s, %wc {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, "
        "padding = array<i64: 1, 1, 1>, "
        "dilation = array<i64: 1, 1, 1>, accumulation = \"fp16\"} : ($S, $WC) -> $S",
        {"'lattice.conv3d' op requires accumulation = \"canonical_f32\""});
    row("padding",
        "%o = lattice.conv3d %s, %wc {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 1, 1>, "
        "padding = array<i64: -1, 1, 1>, "
        "dilation = array<i64: 1, 0, 1>, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.conv3d' op padding values must be non-negative",
         "'lattice.conv3d' op dilation values must be strictly positive"});
    row("kernel size",
        "%o = lattice.conv_transpose3d %s, %wc {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1, "
        "1>, "
        "padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : "
        "($S, $WC) -> $S",
        {"'lattice.conv_transpose3d' op kernel_size must contain exactly 3 integers"});
    row("bias family", "%o = lattice.conv3d %s, %wc, %wc $CONV : ($S, $WC, $WC) -> $S",
        {"'lattice.conv3d' op expected bias weight, got conv3d"});
    row("weight family", "%o = lattice.conv3d %s, %wl $CONV : ($S, $WL) -> $S",
        {"'lattice.conv3d' op expected conv3d weight, got linear"});
    row("conv result", "%o = lattice.conv_transpose3d %sc, %wc $CONV : ($C, $WC) -> $S",
        {"'lattice.conv_transpose3d' op only row_channel feature layout is supported in v0"});
    row("subm even kernel",
        "%o = lattice.subm_conv3d %s, %wc {kernel_size = array<i64: 3, 2, 3>, dilation = array<i64: 1, 1, "
        "1>, "
        "accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.subm_conv3d' op submanifold kernel_size values must be odd"});
    row("subm zero kernel",
        "%o = lattice.subm_conv3d %s, %wc {kernel_size = array<i64: 3, 0, 3>, dilation = array<i64: 1, 1, "
        "1>, "
        "accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.subm_conv3d' op kernel_size values must be strictly positive"});
    row("normalized subm eps",
        "%o = lattice.normalized_subm_conv3d %s, %wc {kernel_size = array<i64: 1, 3, 5>, dilation = "
        "array<i64: 1, 1, 1>, "
        "eps = -0.5 : f32, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.normalized_subm_conv3d' op eps must be positive"});
    row("target coords", "%o = lattice.target_conv3d %s, %sx, %wc $CONV : ($S, $X, $WC) -> $S",
        {"'lattice.target_conv3d' op only batch_x_y_z coordinate convention is supported in v0",
         "'lattice.target_conv3d' op input, target, and result coord conventions must match"});
    row("target normalized eps",
        "%o = lattice.target_normalized_conv_transpose3d %s, %s, %wc {kernel_size = array<i64: 3, 1, 1>, "
        "stride = array<i64: 2, 1, 1>, "
        "padding = array<i64: 1, 0, 0>, dilation = array<i64: 1, 1, 1>, eps = 0.0 : f32, accumulation = "
        "\"canonical_f32\"} "
        ": ($S, $S, $WC) -> $S",
        {"'lattice.target_normalized_conv_transpose3d' op eps must be positive"});
    row("normalized transpose accumulation",
        "%o = lattice.normalized_conv_transpose3d %s, %wc {kernel_size = array<i64: 2, 2, 2>, stride = "
        "array<i64: 2, 2, 2>, "
        "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, accumulation = \"x\", eps = 0.1 : "
        "f32} : ($S, $WC) -> $S",
        {"'lattice.normalized_conv_transpose3d' op requires accumulation = \"canonical_f32\""});
    row("generative dilation",
        "%o = lattice.generative_conv_transpose3d %s, %wc {kernel_size = array<i64: 2, 2, 2>, stride = "
        "array<i64: 0, 2, 2>, "
        "dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.generative_conv_transpose3d' op must not carry padding or dilation",
         "'lattice.generative_conv_transpose3d' op stride values must be strictly positive"});
    row("normalized generative",
        "%o = lattice.normalized_generative_conv_transpose3d %s, %wc {kernel_size = array<i64: 2, 2, 2>, "
        "stride = array<i64: 2, 2, 2>, "
        "padding = array<i64: 0, 0, 0>, eps = 0.0 : f32, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S",
        {"'lattice.normalized_generative_conv_transpose3d' op must not carry padding or dilation",
         "'lattice.normalized_generative_conv_transpose3d' op eps must be positive"});

    // Pooling and resampling.
    row("pool stride",
        "%o = lattice.pool3d %s {mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 2, 2>, stride = "
        "array<i64: 2, -2, 2>, "
        "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S) -> $S",
        {"'lattice.pool3d' op stride values must be strictly positive"});
    row("pool_transpose target",
        "%o = lattice.pool_transpose3d %s, %sr {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, "
        "2>, "
        "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S, $R) -> $S",
        {"'lattice.pool_transpose3d' op only rank=3 sparse tensors are supported in v0"});
    row("trilinear target",
        "%o = lattice.trilinear_upsample3d %s, %sc {stride = array<i64: 2, 2, 2>} : ($S, $C) -> $S",
        {"'lattice.trilinear_upsample3d' op only row_channel feature layout is supported in v0"});
    row("global_pool rank",
        "%o = lattice.global_pool %s {mode = #lattice.pool_mode<sum>, batch_size = 2} : ($S) -> "
        "tensor<?x8x2xf32>",
        {"'lattice.global_pool' op result must have rank 2"});
    row("global_pool dtype",
        "%o = lattice.global_pool %s {mode = #lattice.pool_mode<sum>, batch_size = 2} : ($S) -> "
        "tensor<?x8xf16>",
        {"'lattice.global_pool' op result dtype must match sparse feature dtype"});
    row("global_pool mode",
        "%o = lattice.global_pool %s {mode = #lattice.pool_mode<mean>, batch_size = 2} : ($S) -> $T8",
        {"'lattice.global_pool' op pool mode must be sum, max, or avg"});

    // voxelize, devoxelize.
    row("voxelize valid",
        "%o = lattice.voxelize %p, %f, %b, %a $VOX : (tensor<?x3xf32>, $T8, tensor<?xi32>, tensor<1xi32>) -> "
        "$S",
        {});
    row("voxelize rows",
        "%o = lattice.voxelize %p6, %f5, %b, %a $VOX : (tensor<6x3xf32>, tensor<5x8xf32>, tensor<?xi32>, "
        "tensor<1xi32>) -> $S",
        {"'lattice.voxelize' op points/features row counts must match"});
    row("voxelize features dtype",
        "%o = lattice.voxelize %p, %h, %b, %a $VOX : (tensor<?x3xf32>, tensor<?x8xf16>, tensor<?xi32>, "
        "tensor<1xi32>) -> $S",
        {"'lattice.voxelize' op features must use f32 elements",
         "'lattice.voxelize' op result dtype must match feature dtype"});
    row("voxelize points rank",
        "%o = lattice.voxelize %v, %f, %b, %a $VOX : (tensor<?xf32>, $T8, tensor<?xi32>, tensor<1xi32>) -> "
        "$S",
        {"'lattice.voxelize' op points must have rank 2"});
    row("voxelize batch indices",
        "%o = lattice.voxelize %p, %f, %b2, %a $VOX : (tensor<?x3xf32>, $T8, tensor<?x1xi32>, tensor<1xi32>) "
        "-> $S",
        {"'lattice.voxelize' op batch_indices must have rank 1"});
    row("voxelize active rows",
        "%o = lattice.voxelize %p, %f, %b, %a2 $VOX : (tensor<?x3xf32>, $T8, tensor<?xi32>, tensor<2xi32>) "
        "-> $S",
        {"'lattice.voxelize' op active_rows must have shape (1)"});
    row("voxelize sizes",
        "%o = lattice.voxelize %p, %f, %b, %a {voxel_size = array<f64: 0.1, 0.0, 0.1>, origin = array<f64: "
        "0.0, 0.0>, "
        "reduction = #lattice.voxel_reduction<max>, stride = array<i64: 1, 1, 1>} "
        ": (tensor<?x3xf32>, $T8, tensor<?xi32>, tensor<1xi32>) -> $S",
        {"'lattice.voxelize' op voxel_size values must be strictly positive",
         "'lattice.voxelize' op origin must contain exactly 3 values",
         "'lattice.voxelize' op voxel reduction must be sum or mean"});
    row("devoxelize valid",
        "%o = lattice.devoxelize %p, %s, %b, %a $DEVOX : (tensor<?x3xf32>, $S, tensor<?xi32>, tensor<1xi32>) "
        "-> $T8",
        {});
    row("devoxelize points",
        "%o = lattice.devoxelize %ph, %s, %b, %a $DEVOX : (tensor<?x3xf16>, $S, tensor<?xi32>, "
        "tensor<1xi32>) -> $T8",
        {"'lattice.devoxelize' op points must use f32 elements"});
    row("devoxelize result",
        "%o = lattice.devoxelize %p, %s, %b, %a2 $DEVOX : (tensor<?x3xf32>, $S, tensor<?xi32>, "
        "tensor<2xi32>) -> tensor<?xf16>",
        {"'lattice.devoxelize' op point_active_rows must have shape (1)",
         "'lattice.devoxelize' op result must have rank 2",
         "'lattice.devoxelize' op result dtype must match voxel feature dtype"});

    // Dense feature ops.
    row("linear families", "%o = lattice.linear %f, %wh, %wl : ($T8, $WH, $WL) -> $T8",
        {"'lattice.linear' op expected linear weight, got channel",
         "'lattice.linear' op expected bias weight, got linear"});
    row("linear ranks", "%o = lattice.linear %v, %wl : (tensor<?xf32>, $WL) -> tensor<?x8xf16>",
        {"'lattice.linear' op input must have rank 2",
         "'lattice.linear' op result dtype must match input dtype"});
    row("embedding input", "%o = lattice.embedding_lookup %v, %we : (tensor<?xf32>, $WE) -> $T8",
        {"'lattice.embedding_lookup' op input must use i32 elements"});
    row("embedding input rank", "%o = lattice.embedding_lookup %b2, %we : (tensor<?x1xi32>, $WE) -> $T8",
        {"'lattice.embedding_lookup' op input must have rank 1"});
    row("embedding result", "%o = lattice.embedding_lookup %b, %wl : (tensor<?xi32>, $WL) -> tensor<?xf16>",
        {"'lattice.embedding_lookup' op result must have rank 2",
         "'lattice.embedding_lookup' op result must use f32 elements",
         "'lattice.embedding_lookup' op expected embedding weight, got linear"});
    row("elementwise kind", "%o = lattice.elementwise %f {kind = \"log\"} : ($T8) -> $T8",
        {"'lattice.elementwise' op kind must be exp or round"});
    row("elementwise dtype",
        "%o = lattice.elementwise %h {kind = \"exp\"} : (tensor<?x8xf16>) -> tensor<?x8xf16>",
        {"'lattice.elementwise' op input and result must use f32 elements"});
    row("softmax axis", "%o = lattice.softmax %f {axis = 0} : ($T8) -> $T8",
        {"'lattice.softmax' op axis must select the final feature dimension"});
    row("softmax dtype", "%o = lattice.softmax %h {axis = 1} : (tensor<?x8xf16>) -> tensor<?x8xf16>",
        {"'lattice.softmax' op input and result must use f32 elements"});
    row("activation values",
        "%o = lattice.activation %f {kind = #lattice.activation<gelu>, approximate = "
        "#lattice.gelu_approx<erf>, alpha = -1.0 : f32, "
        "beta = 0.0 : f32, threshold = 20.0 : f32} : ($T8) -> $T8",
        {"'lattice.activation' op GELU approximation must be none, precise, tanh, or fast",
         "'lattice.activation' op alpha must be non-negative",
         "'lattice.activation' op beta must be positive"});
    row("batch_norm families",
        "%o = lattice.batch_norm %f, %wh, %wb, %wb, %wh {eps = 0.0 : f32} : ($T8, $WH, $WB, $WB, $WH) -> $T8",
        {"'lattice.batch_norm' op expected channel weight, got bias",
         "'lattice.batch_norm' op eps must be positive"});
    row("layer_norm families",
        "%o = lattice.layer_norm %f, %wh, %wh {eps = 0.1 : f32} : ($T8, $WH, $WH) -> $T8",
        {"'lattice.layer_norm' op expected bias weight, got channel"});
    row("rms_norm family", "%o = lattice.rms_norm %f, %wb {eps = 0.1 : f32} : ($T8, $WB) -> $T8",
        {"'lattice.rms_norm' op expected channel weight, got bias"});
  }
  void opRules() {
    QFETCH(QString, body);
    QFETCH(QStringList, expected);
    const std::string text = moduleText("    " + body.toStdString());
    ArtifactParseResult r = parseArtifactGraph(text, "ops.mlir");
    QVERIFY2(r.ok(), r.error.str().c_str());
    // The op's name, where MLIR locates an op (the body is indented by four spaces).
    const SourceLoc opName{11, std::uint32_t(4 + body.indexOf(QStringLiteral("lattice.")) + 1)};
    QStringList got;
    for (const Diagnostic& d : verifyArtifactGraph(*r.graph)) {
      QCOMPARE(d.loc, opName);
      got << QString::fromStdString(d.message);
    }
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
  }
};

QTEST_APPLESS_MAIN(TestVerifierOps)
#include "tst_verifier_ops.moc"
