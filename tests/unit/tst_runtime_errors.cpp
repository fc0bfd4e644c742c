// The execution-time rules X1-X20 of lattice-artifact-validation.md sec. 8, one row per rule
// that an artifact can trigger. A rule the runtime checks while running gives
// `graph.mlir:L:C: error: 'lattice.X' op %name: <spec message>` at the op's line and column and
// leaves the runtime on that op. Where the verifier (run by Runtime::fromGraph) already refuses
// the artifact statically (VerifyWeights, VerifyStrides, the op verifiers), the row asserts that
// refusal instead: the spec's message at the op's location. X19 (input binding) is not an op: its
// rows check the message only.

#include "RuntimeTestSupport.h"

#include "lowering/WeightPacking.h"

#include <QtTest/QtTest>

#include <functional>

using namespace lattice;
using namespace lattice::rt;

namespace {

enum class Stage {
  Run,      ///< the op fails while running: names the op, its SSA name and its location
  Verifier, ///< Runtime::fromGraph refuses the artifact: the message at the op's location
  Binding,  ///< Runtime::start refuses the inputs
};

struct ErrorCase {
  const char* name;
  std::function<void(Graph&, Inputs&)> make;
  std::vector<std::string> message; ///< parts of the spec's message, in any order
  Stage stage;
  std::string op;  ///< the failing op without `lattice.` ("" when the diagnostic names none)
  std::string ssa; ///< its first result (its location is checked)
};

std::string tri(int a, int b, int c) {
  return "array<i64: " + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ">";
}
const std::string kAcc = "accumulation = \"canonical_f32\"";
std::string submAttrs(int kx, const std::string& extra = "") {
  return "{kernel_size = " + tri(kx, 1, 1) + ", dilation = " + tri(1, 1, 1) + extra + ", " + kAcc + "}";
}
std::string fullAttrs(int kx, int sx, const std::string& extra = "") {
  return "{kernel_size = " + tri(kx, 1, 1) + ", stride = " + tri(sx, 1, 1) + ", padding = " + tri(0, 0, 0) +
         ", dilation = " + tri(1, 1, 1) + ", " + kAcc + extra + "}";
}
std::string packing(int bits, int group, const char* scale = "f16") {
  return "#lattice.packing<int" + std::to_string(bits) + ", group_size = " + std::to_string(group) +
         ", scale_dtype = " + scale + ", mode = affine>";
}

/// The packed tensors of a logical weight under `w.k`.
void packed(Graph& g, std::vector<std::int64_t> shape, const std::vector<float>& values, int bits, int group,
            DType scale = DType::F16) {
  Expected<QuantizedWeight> q = quantizeAffine(f32Tensor(std::move(shape), values), bits, group, scale);
  if (!q) qFatal("quantizeAffine: %s", q.message().c_str());
  for (NamedTensor& t : quantizedWeightTensors("w.k", *q)) g.tensor(t.key, t.tensor);
}

/// x (1 channel, stride 1, two rows) → %y = lattice.<op> with a 1×1×1 conv weight.
void subm1(Graph& g, Inputs& in) {
  g.sparseInput("x", 1);
  g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {2});
  g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(1) + " : ($S, $WC) -> $S");
  g.output("y", "$S");
  in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2}, 1);
}

/// A linear layer over a dense (?, 3) input, weight %w added by `weight`.
void linear3(Graph& g, Inputs& in, const std::function<void(Graph&)>& weight) {
  g.denseInput("x", "tensor<?x3xf32>");
  weight(g);
  g.op("%y = lattice.linear %x, %w : (tensor<?x3xf32>, $WL) -> tensor<?x2xf32>");
  g.output("y", "tensor<?x2xf32>");
  in.dense("x", f32Tensor({1, 3}, {1, 2, 3}));
}

const std::vector<float> kLinearW{1, 0, -1, 2, 1, 0.5f};

const std::vector<ErrorCase>& cases() {
  static const std::vector<ErrorCase> c = {
      {"X1 dense weight not found",
       [](Graph& g, Inputs& in) {
         subm1(g, in);
         g.withoutWeightFile();
       },
       {"artifact weight not found: w.k"}, Stage::Run, "weight", "w"},
      {"X2 quantized weight tensors missing",
       [](Graph& g, Inputs& in) {
         linear3(g, in, [](Graph& w) { w.weightOp("w", "linear", "linear_o_i", packing(4, 32)); });
         g.withoutWeightFile();
       },
       {"quantized artifact weight requires w.k.weight, w.k.scales, and w.k.biases tensors."}, Stage::Run, "weight",
       "w"},
      {"X3 scales dtype differs from the packing",
       [](Graph& g, Inputs& in) {
         linear3(g, in, [](Graph& w) {
           w.weightOp("w", "linear", "linear_o_i", packing(4, 32, "f16"));
           packed(w, {2, 3}, kLinearW, 4, 32, DType::F32);
         });
       },
       {"quantized artifact scales dtype mismatch: expected F16, found F32"}, Stage::Verifier, "", "w"},
      {"X4 packed kernel rows differ from the consumer's kernel",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weightOp("w", "conv3d", "conv3d_o_xyz_i", packing(8, 32));
         packed(g, {1, 1, 1, 1, 1}, {0.5f}, 8, 32); // K = 1
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(3) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"packed artifact weight kernel rows do not match consumer kernel_size"}, Stage::Verifier, "subm_conv3d", "y"},
      {"X5 group_size outside 32, 64, 128",
       [](Graph& g, Inputs& in) {
         linear3(g, in, [](Graph& w) {
           w.weightOp("w", "linear", "linear_o_i", packing(4, 16));
           packed(w, {2, 3}, kLinearW, 4, 16);
         });
       },
       {"group_size must be 32, 64, or 128"}, Stage::Run, "linear", "y"},
      {"X6 packed weight in a normalized conv",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weightOp("w", "conv3d", "conv3d_o_xyz_i", packing(8, 32));
         packed(g, {1, 3, 1, 1, 1}, {1, 2, 3}, 8, 32);
         g.op("%y = lattice.normalized_subm_conv3d %x, %w " + submAttrs(3, ", eps = 0.5 : f32") + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"does not support packed weights."}, Stage::Run, "normalized_subm_conv3d", "y"},
      {"X6 packed weight in a target transposed conv",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {2, 1, 1});
         g.sparseInput("t", 1);
         g.weightOp("w", "conv3d", "conv3d_o_xyz_i", packing(8, 32));
         packed(g, {1, 2, 1, 1, 1}, {1, 2}, 8, 32);
         g.op("%y = lattice.target_conv_transpose3d %x, %t, %w " + fullAttrs(2, 2) + " : ($S, $S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("t", {{0, 1, 0, 0}}, {1}, 1);
       },
       {"target transpose convolution does not support packed weights."}, Stage::Run, "target_conv_transpose3d", "y"},
      {"X7 coordinates not divisible by the stride",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {2, 1, 1});
         g.output("x", "$S");
         in.sparse("x", {{0, 2, 0, 0}, {0, 3, 0, 0}}, {1, 2}, 1);
       },
       {"IR v2 sparse coordinates must be exactly divisible by the declared tensor stride (2, 1, 1)."}, Stage::Run,
       "sparse.make", "x"},
      {"X7 an inactive padding row not divisible",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {1, 1, 3});
         g.output("x", "$S");
         in.sparse("x", {{0, 0, 0, 3}, {0, 0, 0, 4}}, {1, 2}, 1, /*active=*/1);
       },
       {"IR v2 sparse coordinates must be exactly divisible by the declared tensor stride (1, 1, 3)."}, Stage::Run,
       "sparse.make", "x"},
      {"X8 weight dtype differs from the features",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {1, 1, 1}, "f16");
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {2});
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(1) + " : ($H, $WC) -> $H");
         g.output("y", "$H");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1, Inputs::kAllRows, true);
       },
       {"convolution weights must match feature dtype."}, Stage::Run, "subm_conv3d", "y"},
      // A channel rule with the width open in the types: the runtime refuses it while running;
      // with the width declared, the verifier refuses the artifact in the runtime's words.
      {"X8 weight input channels differ from the features",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", -1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 3}, {1, 2, 3});
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(1) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"weight input channels must match x.channels."}, Stage::Run, "subm_conv3d", "y"},
      {"X8 weight input channels differ from the declared features",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 2);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 3}, {1, 2, 3});
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(1) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"weight input channels must match x.channels", "'w.k'"}, Stage::Verifier, "subm_conv3d", "y"},
      {"norm scale channels differ from the features",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", -1);
         g.op("%c, %f, %n = lattice.sparse.decompose %x : $S -> (tensor<?x4xi32>, tensor<?x?xf32>, tensor<1xi32>)");
         g.weight("s", "channel", "channel_c", {3}, {1, 1, 1});
         g.op("%y = lattice.rms_norm %f, %s {eps = 1.0 : f32} : (tensor<?x?xf32>, $WH) -> tensor<?x?xf32>");
         g.output("y", "tensor<?x?xf32>");
         in.sparse("x", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"scale channels must match output channels."}, Stage::Run, "rms_norm", "y"},
      {"norm scale channels differ from the declared features",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 2);
         g.op("%c, %f, %n = lattice.sparse.decompose %x : $S -> (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>)");
         g.weight("s", "channel", "channel_c", {3}, {1, 1, 1});
         g.op("%y = lattice.rms_norm %f, %s {eps = 1.0 : f32} : (tensor<?x2xf32>, $WH) -> tensor<?x2xf32>");
         g.output("y", "tensor<?x2xf32>");
         in.sparse("x", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"scale channels must match output channels", "'s.k'"}, Stage::Verifier, "rms_norm", "y"},
      {"X8 weight kernel rows differ from kernel_size",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 2});
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(3) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"does not match kernel_size"}, Stage::Verifier, "subm_conv3d", "y"},
      {"X8 bias channels differ from the output channels",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {2});
         g.weight("b", "bias", "bias_c", {2}, {1, 2});
         g.op("%y = lattice.subm_conv3d %x, %w, %b " + submAttrs(1) + " : ($S, $WC, $WB) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"bias channels must match output channels", "bias 'b.k' has 2 channels, the output has 1"}, Stage::Verifier,
       "subm_conv3d", "y"},
      {"X9 even submanifold kernel",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 2});
         g.op("%y = lattice.subm_conv3d %x, %w " + submAttrs(2) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"submanifold kernel_size values must be odd"}, Stage::Verifier, "subm_conv3d", "y"},
      {"X9 eps not positive",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 1, 1, 1, 1}, {2});
         g.op("%y = lattice.normalized_subm_conv3d %x, %w " + submAttrs(1, ", eps = 0.0 : f32") + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"eps must be positive"}, Stage::Verifier, "normalized_subm_conv3d", "y"},
      {"X10 transpose stride does not divide the input stride",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 2});
         g.op("%y = lattice.conv_transpose3d %x, %w " + fullAttrs(2, 2) + " : ($S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"transpose stride must divide the input tensor stride"}, Stage::Verifier, "conv_transpose3d", "y"},
      {"X11 target of target_conv3d at the wrong stride",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.sparseInput("t", 1);
         g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 2, 1, 1, 1}, {1, 2});
         g.op("%y = lattice.target_conv3d %x, %t, %w " + fullAttrs(2, 2) + " : ($S, $S, $WC) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("t", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"target coordinates must use the convolution output stride"}, Stage::Verifier, "target_conv3d", "y"},
      {"X11 target of pool_transpose3d at the wrong stride",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {4, 1, 1});
         g.sparseInput("t", 1);
         g.op("%y = lattice.pool_transpose3d %x, %t {kernel_size = " + tri(2, 1, 1) + ", stride = " + tri(2, 1, 1) +
              ", padding = " + tri(0, 0, 0) + ", dilation = " + tri(1, 1, 1) + "} : ($S, $S) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("t", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"target stride (1, 1, 1) does not match transposed output stride (2, 1, 1)"}, Stage::Verifier,
       "pool_transpose3d", "y"},
      {"X12 f16 local pooling",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1, {1, 1, 1}, "f16");
         g.op("%y = lattice.pool3d %x {mode = #lattice.pool_mode<max>, kernel_size = " + tri(2, 2, 2) +
              ", stride = " + tri(2, 2, 2) + ", padding = " + tri(0, 0, 0) + ", dilation = " + tri(1, 1, 1) +
              "} : ($H) -> $H");
         g.output("y", "$H");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1, Inputs::kAllRows, true);
       },
       {"float16 local sparse pooling requires Metal."}, Stage::Run, "pool3d", "y"},
      {"X13 global max pool over an empty batch",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.op("%y = lattice.global_pool %x {mode = #lattice.pool_mode<max>, batch_size = 2} : ($S) -> tensor<?x1xf32>");
         g.output("y", "tensor<?x1xf32>");
         in.sparse("x", {{0, 0, 0, 0}}, {1}, 1); // batch 1 is empty
       },
       {"global_max_pool does not support empty batches."}, Stage::Run, "global_pool", "y"},
      {"X14 binary operands at different strides",
       [](Graph& g, Inputs& in) {
         g.sparseInput("l", 1).sparseInput("r", 1, {2, 2, 2});
         g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<add>, join = #lattice.join<outer>, lhs_fill = "
              "0.0 : f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S");
         g.output("y", "$S");
         in.sparse("l", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("r", {{0, 0, 0, 0}}, {1}, 1);
       },
       {"sparse tensor strides must match"}, Stage::Verifier, "sparse.binary", "y"},
      {"X14 binary operands with different declared channels",
       [](Graph& g, Inputs& in) {
         g.sparseInput("l", 1).sparseInput("r", 2);
         g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<add>, join = #lattice.join<outer>, lhs_fill = "
              "0.0 : f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S");
         g.output("y", "$S");
         in.sparse("l", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("r", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"sparse binary operands must have matching channels"}, Stage::Verifier, "sparse.binary", "y"},
      {"X14 binary operands with different channels",
       [](Graph& g, Inputs& in) {
         g.sparseInput("l", -1).sparseInput("r", 2);
         g.op("%y = lattice.sparse.binary %l, %r {op = #lattice.binary_op<add>, join = #lattice.join<outer>, lhs_fill = "
              "0.0 : f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S");
         g.output("y", "$S");
         in.sparse("l", {{0, 0, 0, 0}}, {1}, 1);
         in.sparse("r", {{0, 0, 0, 0}}, {1, 2}, 2);
       },
       {"sparse binary operands must have matching channels."}, Stage::Run, "sparse.binary", "y"},
      {"X15 voxelize points and features with different rows",
       [](Graph& g, Inputs& in) {
         g.denseInput("p", "tensor<?x3xf32>").denseInput("f", "tensor<?x1xf32>");
         g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
         g.op("%y = lattice.voxelize %p, %f, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: 0.0, "
              "0.0, 0.0>, reduction = #lattice.voxel_reduction<sum>, stride = " +
              tri(1, 1, 1) + "} : (tensor<?x3xf32>, tensor<?x1xf32>, tensor<?xi32>, tensor<1xi32>) -> $S");
         g.output("y", "$S");
         in.dense("p", f32Tensor({2, 3}, {0, 0, 0, 1, 1, 1}));
         in.dense("f", f32Tensor({1, 1}, {1}));
         in.dense("b", i32Tensor({2}, {0, 0}));
         in.dense("n", i32Tensor({1}, {2}));
       },
       {"points and feats must have matching rows."}, Stage::Run, "voxelize", "y"},
      {"X16 devoxelize of f16 voxels",
       [](Graph& g, Inputs& in) {
         g.denseInput("p", "tensor<?x3xf32>");
         g.sparseInput("v", 1, {1, 1, 1}, "f16");
         g.denseInput("b", "tensor<?xi32>").denseInput("n", "tensor<1xi32>");
         g.op("%y = lattice.devoxelize %p, %v, %b, %n {voxel_size = array<f64: 1.0, 1.0, 1.0>, origin = array<f64: "
              "0.0, 0.0, 0.0>, interpolation = #lattice.point_interpolation<nearest>} : (tensor<?x3xf32>, $H, "
              "tensor<?xi32>, tensor<1xi32>) -> tensor<?x1xf16>");
         g.output("y", "tensor<?x1xf16>");
         in.dense("p", f32Tensor({1, 3}, {0, 0, 0}));
         in.sparse("v", {{0, 0, 0, 0}}, {1}, 1, Inputs::kAllRows, true);
         in.dense("b", i32Tensor({1}, {0}));
         in.dense("n", i32Tensor({1}, {1}));
       },
       {"point interpolation currently supports float32."}, Stage::Run, "devoxelize", "y"},
      {"X17 embedding weight not of rank 2",
       [](Graph& g, Inputs& in) {
         g.denseInput("i", "tensor<?xi32>");
         g.weight("w", "embedding", "embedding_n_c", {3}, {1, 2, 3});
         g.op("%y = lattice.embedding_lookup %i, %w : (tensor<?xi32>, $WE) -> tensor<?x1xf32>");
         g.output("y", "tensor<?x1xf32>");
         in.dense("i", i32Tensor({1}, {0}));
       },
       {"needs rank 2"}, Stage::Verifier, "", "w"},
      {"X18 softmax over another axis",
       [](Graph& g, Inputs& in) {
         g.denseInput("x", "tensor<?x2xf32>");
         g.op("%y = lattice.softmax %x {axis = 0} : (tensor<?x2xf32>) -> tensor<?x2xf32>");
         g.output("y", "tensor<?x2xf32>");
         in.dense("x", f32Tensor({1, 2}, {1, 2}));
       },
       {"axis must select the final feature dimension"}, Stage::Verifier, "softmax", "y"},
      {"X18 elementwise kind other than exp or round",
       [](Graph& g, Inputs& in) {
         g.denseInput("x", "tensor<?x2xf32>");
         g.op("%y = lattice.elementwise %x {kind = \"log\"} : (tensor<?x2xf32>) -> tensor<?x2xf32>");
         g.output("y", "tensor<?x2xf32>");
         in.dense("x", f32Tensor({1, 2}, {1, 2}));
       },
       {"kind must be exp or round"}, Stage::Verifier, "elementwise", "y"},
      {"X19 missing input",
       [](Graph& g, Inputs& in) {
         Inputs all;
         subm1(g, all);
         in.dense("x_coords", i32Tensor({1, 4}, {0, 0, 0, 0})).dense("x_features", f32Tensor({1, 1}, {1}));
       },
       {"missing artifact input: x_active"}, Stage::Binding, "", ""},
      {"X19 unexpected inputs",
       [](Graph& g, Inputs& in) {
         subm1(g, in);
         in.dense("zeta", f32Tensor({1}, {1})).dense("alpha", f32Tensor({1}, {1}));
       },
       {"unexpected artifact inputs: alpha, zeta"}, Stage::Binding, "", ""},
      {"X20 with_features rows differ from the capacity",
       [](Graph& g, Inputs& in) {
         g.sparseInput("x", 1);
         g.denseInput("f", "tensor<?x1xf32>");
         g.op("%y = lattice.sparse.with_features %x, %f : ($S, tensor<?x1xf32>) -> $S");
         g.output("y", "$S");
         in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}}, {1, 2, 3}, 1, /*active=*/2);
         in.dense("f", f32Tensor({2, 1}, {5, 6})); // the active rows, not the capacity (3)
       },
       {"coords and feats must have the same row count."}, Stage::Run, "sparse.with_features", "y"},
  };
  return c;
}

} // namespace

class TestRuntimeErrors : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void executionRulesGiveTheirMessage_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void executionRulesGiveTheirMessage() {
    QFETCH(int, index);
    const ErrorCase& c = cases()[static_cast<std::size_t>(index)];
    Graph g;
    Inputs in;
    c.make(g, in);
    Run r = run(g, in);
    QVERIFY2(!r.ok(), "the run succeeded");
    RT_CHECK(containsAll(r.error, c.message));
    switch (c.stage) {
    case Stage::Run: {
      QVERIFY2(r.runtime && r.runtime->started(), r.error.c_str());
      // `graph.mlir:L:C: error: 'lattice.X' op %name: message`, L:C of the op's name.
      RT_CHECK(containsAll(r.error, {g.loc(c.ssa) + ": error: 'lattice." + c.op + "' op %" + c.ssa + ": "}));
      // The runtime stays on the failing op and gives the same error again.
      QCOMPARE(r.runtime->currentOp(), r.runtime->plan().opIndexOf(c.ssa));
      QVERIFY(!r.runtime->finished());
      const Status again = r.runtime->step();
      QVERIFY(!again);
      QCOMPARE(again.message(), r.error);
      break;
    }
    case Stage::Verifier: {
      QVERIFY(!r.runtime);
      RT_CHECK(containsAll(r.error, {g.loc(c.ssa) + ": error: "}));
      if (!c.op.empty()) RT_CHECK(containsAll(r.error, {"'lattice." + c.op + "' op "}));
      // The error carries the op's line as data: `graph.mlir:LINE:COL`.
      const std::string where = g.loc(c.ssa);
      const std::size_t colon = where.find(':');
      QCOMPARE(r.failure.line, static_cast<std::uint32_t>(std::stoul(where.substr(colon + 1))));
      QVERIFY(r.failure.input.empty());
      break;
    }
    case Stage::Binding:
      QVERIFY(r.runtime && !r.runtime->started());
      QCOMPARE(r.failure.line, 0u);
      // An error about one input names it as data too; a list of unknown names is about none.
      if (r.error.rfind("unexpected artifact inputs", 0) == 0)
        QVERIFY(r.failure.input.empty());
      else {
        const std::string& input = r.failure.input;
        const bool quoted = r.error.find("'" + input + "'") != std::string::npos;
        const bool last = r.error.size() > input.size() &&
                          r.error.compare(r.error.size() - input.size(), input.size(), input) == 0;
        QVERIFY2(!input.empty() && (quoted || last), (r.error + " / input '" + input + "'").c_str());
      }
      break;
    }
  }

  // X19: more positional inputs than arguments.
  void tooManyPositionalInputs() {
    Graph g;
    Inputs unused;
    subm1(g, unused);
    Expected<Runtime> rt = g.runtime();
    QVERIFY2(rt, rt ? "" : rt.message().c_str());
    runtime::RuntimeInputs in;
    for (int i = 0; i < 4; ++i) in.positional.push_back(i32Tensor({1}, {1}));
    const Status s = rt->start(in);
    QVERIFY(!s);
    QCOMPARE(s.message(), std::string("too many positional artifact inputs."));
  }

  // X19: the SparseTensor shorthand binds <p>_coords/_features/_active by the logical name <p>,
  // or coords/features/active by `input`; any other logical name is refused.
  void sparseShorthand() {
    Graph g;
    Inputs unused;
    subm1(g, unused);
    Expected<Runtime> rt = g.runtime();
    QVERIFY2(rt, rt ? "" : rt.message().c_str());
    runtime::SparseInput x{i32Tensor({2, 4}, {0, 0, 0, 0, 0, 1, 0, 0}), f32Tensor({2, 1}, {1, 2}), i32Tensor({1}, {2})};
    runtime::RuntimeInputs good;
    good.sparse.emplace_back("x", x);
    QVERIFY(rt->start(good));
    QVERIFY(rt->run());
    runtime::RuntimeInputs bad;
    bad.sparse.emplace_back("points", x);
    const Status s = rt->start(bad);
    QVERIFY(!s);
    RT_CHECK(containsAll(s.message(), {"SparseTensor shorthand requires", "'points'"}));

    Graph plain; // arguments named exactly coords / features / active: logical name `input`
    plain.denseInput("coords", "tensor<?x4xi32>").denseInput("features", "tensor<?x1xf32>");
    plain.denseInput("active", "tensor<1xi32>");
    plain.op("%x = lattice.sparse.make %coords, %features, %active {stride = array<i64: 1, 1, 1>, coord_order = "
             "#lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x1xf32>, tensor<1xi32>) -> $S");
    plain.output("x", "$S");
    Expected<Runtime> rt2 = plain.runtime();
    QVERIFY2(rt2, rt2 ? "" : rt2.message().c_str());
    runtime::RuntimeInputs input;
    input.sparse.emplace_back("input", x);
    const Status ok = rt2->start(input);
    QVERIFY2(ok, ok ? "" : ok.message().c_str());
    QVERIFY(rt2->run());
  }

  // X19: positional inputs bind in argument order; positional and named inputs for the same
  // argument are refused.
  void positionalInputs() {
    Graph g;
    Inputs unused;
    subm1(g, unused);
    Expected<Runtime> rt = g.runtime();
    QVERIFY(rt);
    runtime::RuntimeInputs in;
    in.positional = {i32Tensor({1, 4}, {0, 3, 0, 0}), f32Tensor({1, 1}, {4}), i32Tensor({1}, {1})};
    QVERIFY(rt->start(in));
    QVERIFY(rt->run());
    const auto& y = std::get<runtime::Sparse>(rt->value(rt->plan().outputs[0].slot));
    QCOMPARE((*y.features)[0], 8.0f); // 4 · W (2)
    in.named.push_back({"x_active", i32Tensor({1}, {1})});
    const Status twice = rt->start(in);
    QVERIFY(!twice);
    RT_CHECK(containsAll(twice.message(), {"x_active"}));
  }

  // An inputs file names a sparse input as NAME.coords / NAME.features / NAME.active; one part
  // missing is an error naming the three.
  void inputsFileShorthandNeedsAllThreeParts() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("inputs.safetensors").toStdString();
    QVERIFY(writeSafetensors(path, {{"x.coords", i32Tensor({1, 4}, {0, 0, 0, 0})}, {"x.features", f32Tensor({1, 1}, {1})}},
                             std::nullopt));
    Expected<SafetensorsFile> file = SafetensorsFile::open(path);
    QVERIFY(file);
    Expected<runtime::RuntimeInputs> in = runtime::RuntimeInputs::fromFile(*file);
    QVERIFY(!in);
    RT_CHECK(containsAll(in.message(), {"sparse input 'x' needs x.coords, x.features and x.active"}));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeErrors)
#include "tst_runtime_errors.moc"
