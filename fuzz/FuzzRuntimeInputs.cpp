// Fuzz target: the CPU runtime's input side (core/runtime) on arbitrary bytes read as an
// inputs.safetensors: SafetensorsFile::parse, RuntimeInputs::fromFile, Runtime::start (the input
// binding, X19, dtypes and shapes against the ABI) and Runtime::run of a fixed small artifact,
// so that coordinates, active counts, features and points from the file reach sparse.make, the
// kernel maps, convolution, pooling, upsampling, alignment, global pooling and the voxel ops.
// Two artifacts, picked by the file's tensor names: a sparse one (x_coords / x_features /
// x_active with 2 channels, the ABI of most conformance inputs) and a point one (points /
// features / batch_indices / active_rows, the point_voxel ABI). Whatever the bytes, every step
// either succeeds or fails with a message (an op's failure names its graph.mlir location), and a
// finished run hands out outputs whose sizes match their shapes; never a crash or a hang.

#include "FuzzRunChecks.h"

#include "mlir/MlirParser.h"
#include "runtime/Runtime.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace lattice;

const char* const kSparse = "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";

std::string header(const std::string& inputs, const std::string& roles, const std::string& outputs,
                   const std::string& outputRoles) {
  return "module attributes {\n  lattice.ir_version = 2,\n"
         "  lattice.schema_digest = \"1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad\",\n"
         "  lattice.input_names = [" + inputs + "],\n  lattice.input_roles = [" + roles + "],\n"
         "  lattice.output_names = [" + outputs + "],\n  lattice.output_roles = [" + outputRoles + "],\n"
         "  lattice.weight_file = \"weights.safetensors\"\n} {\n";
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string weightOp(const std::string& name, const std::string& family, const std::string& layout) {
  return "    %" + name + " = lattice.weight @" + name + " {storage_key = \"" + name +
         "\", layout = #lattice.weight_layout<" + layout + ">, packing = #lattice.packing<dense>} : !lattice.weight<" +
         family + ", f32>\n";
}

// The sparse artifact: subm (3, 1, 3) → conv3d s2 → pool3d max s2 and conv_transpose3d s2 →
// binary add outer → cat inner → global_pool avg (batch −1) → linear; trilinear_upsample3d of the
// pool onto the conv3d's support.
const std::string& sparseGraph() {
  static const std::string text = replaceAll(
      header("\"x_coords\", \"x_features\", \"x_active\"", "\"sparse_coords\", \"sparse_features\", \"sparse_active\"",
             "\"logits\", \"upsampled\"", "\"tensor\", \"sparse_tensor\"") +
          "  func.func @forward(\n    %x_coords: tensor<?x4xi32>,\n    %x_features: tensor<?x2xf32>,\n"
          "    %x_active: tensor<1xi32>\n  ) -> (tensor<?x3xf32>, $S) {\n"
          "    %x = lattice.sparse.make %x_coords, %x_features, %x_active {stride = array<i64: 1, 1, 1>, coord_order = "
          "#lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>) -> $S\n" +
          weightOp("w1", "conv3d", "conv3d_o_xyz_i") +
          "    %a = lattice.subm_conv3d %x, %w1 {kernel_size = array<i64: 3, 1, 3>, dilation = array<i64: 1, 1, 1>, "
          "accumulation = \"canonical_f32\"} : ($S, !lattice.weight<conv3d, f32>) -> $S\n" +
          weightOp("w2", "conv3d", "conv3d_o_xyz_i") +
          "    %b = lattice.conv3d %a, %w2 {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = "
          "array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : ($S, "
          "!lattice.weight<conv3d, f32>) -> $S\n"
          "    %p = lattice.pool3d %b {mode = #lattice.pool_mode<max>, kernel_size = array<i64: 2, 2, 2>, stride = "
          "array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : ($S) -> $S\n" +
          weightOp("w3", "conv3d", "conv3d_o_xyz_i") +
          "    %u = lattice.conv_transpose3d %b, %w3 {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, "
          "padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : ($S, "
          "!lattice.weight<conv3d, f32>) -> $S\n"
          "    %s = lattice.sparse.binary %a, %u {op = #lattice.binary_op<add>, join = #lattice.join<outer>, lhs_fill = "
          "0.0 : f32, rhs_fill = 0.0 : f32} : ($S, $S) -> $S\n"
          "    %c = lattice.sparse.cat %s, %a {join = #lattice.join<inner>} : ($S, $S) -> $S\n"
          "    %t = lattice.trilinear_upsample3d %p, %b {stride = array<i64: 2, 2, 2>} : ($S, $S) -> $S\n"
          "    %g = lattice.global_pool %c {mode = #lattice.pool_mode<avg>, batch_size = -1} : ($S) -> "
          "tensor<?x8xf32>\n" +
          weightOp("wl", "linear", "linear_o_i") + weightOp("bl", "bias", "bias_c") +
          "    %l = lattice.linear %g, %wl, %bl : (tensor<?x8xf32>, !lattice.weight<linear, f32>, "
          "!lattice.weight<bias, f32>) -> tensor<?x3xf32>\n"
          "    return %l, %t : tensor<?x3xf32>, $S\n  }\n}\n",
      "$S", kSparse);
  return text;
}

// The point artifact: voxelize mean → subm 3³ → devoxelize linear.
const std::string& pointGraph() {
  static const std::string text = replaceAll(
      header("\"points\", \"features\", \"batch_indices\", \"active_rows\"",
             "\"tensor\", \"tensor\", \"tensor\", \"tensor\"", "\"output\"", "\"tensor\"") +
          "  func.func @forward(\n    %points: tensor<?x3xf32>,\n    %features: tensor<?x2xf32>,\n"
          "    %batch_indices: tensor<?xi32>,\n    %active_rows: tensor<1xi32>\n  ) -> tensor<?x2xf32> {\n"
          "    %v = lattice.voxelize %points, %features, %batch_indices, %active_rows {voxel_size = array<f64: 0.5, "
          "0.5, 0.5>, origin = array<f64: 0.0, 0.0, 0.0>, reduction = #lattice.voxel_reduction<mean>, stride = "
          "array<i64: 1, 1, 1>} : (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?xi32>, tensor<1xi32>) -> $S\n" +
          weightOp("w", "conv3d", "conv3d_o_xyz_i") +
          "    %c = lattice.subm_conv3d %v, %w {kernel_size = array<i64: 3, 3, 3>, dilation = array<i64: 1, 1, 1>, "
          "accumulation = \"canonical_f32\"} : ($S, !lattice.weight<conv3d, f32>) -> $S\n"
          "    %d = lattice.devoxelize %points, %c, %batch_indices, %active_rows {voxel_size = array<f64: 0.5, 0.5, "
          "0.5>, origin = array<f64: 0.0, 0.0, 0.0>, interpolation = #lattice.point_interpolation<linear>} : "
          "(tensor<?x3xf32>, $S, tensor<?xi32>, tensor<1xi32>) -> tensor<?x2xf32>\n"
          "    return %d : tensor<?x2xf32>\n  }\n}\n",
      "$S", kSparse);
  return text;
}

// Deterministic weights: small values that vary by position.
NamedTensor weight(const std::string& key, std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n) * 4);
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = 0.25f * std::sin(0.7f * static_cast<float>(i) + 0.3f);
    std::memcpy(bytes.data() + 4 * i, &v, 4);
  }
  return {key, TensorData::owning(DType::F32, std::move(shape), std::move(bytes))};
}

runtime::Runtime makeRuntime(const std::string& text, const std::vector<NamedTensor>& weights) {
  ArtifactParseResult parsed = parseArtifactGraph(text, "graph.mlir");
  if (!parsed.ok()) {
    std::fprintf(stderr, "fuzz artifact does not parse: %s\n", parsed.error.str().c_str());
    std::abort();
  }
  Expected<runtime::Runtime> rt =
      runtime::Runtime::fromGraph(std::move(*parsed.graph), runtime::WeightSource::fromTensors(weights));
  if (!rt) {
    std::fprintf(stderr, "fuzz artifact is invalid: %s\n", rt.message().c_str());
    std::abort();
  }
  return std::move(*rt);
}

runtime::Runtime& sparseRuntime() {
  static runtime::Runtime rt = makeRuntime(
      sparseGraph(), {weight("w1", {4, 3, 1, 3, 2}), weight("w2", {4, 2, 2, 2, 4}), weight("w3", {4, 2, 2, 2, 4}),
                      weight("wl", {3, 8}), weight("bl", {3})});
  return rt;
}

runtime::Runtime& pointRuntime() {
  static runtime::Runtime rt = makeRuntime(pointGraph(), {weight("w", {2, 3, 3, 3, 2})});
  return rt;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lattice;
  // A private copy sized exactly, so reads past the end are caught by ASan.
  auto* copy = new std::uint8_t[size ? size : 1];
  for (std::size_t i = 0; i < size; ++i)
    copy[i] = data[i];
  std::shared_ptr<const void> keepAlive(copy, [](const void* p) { delete[] static_cast<const std::uint8_t*>(p); });
  Expected<SafetensorsFile> file = SafetensorsFile::parse(copy, size, "inputs.safetensors", keepAlive);
  if (!file) {
    if (file.message().empty()) std::abort();
    return 0;
  }
  Expected<runtime::RuntimeInputs> inputs = runtime::RuntimeInputs::fromFile(*file);
  if (!inputs) {
    if (inputs.message().empty()) std::abort();
    return 0;
  }
  runtime::Runtime& rt = file->find("points") ? pointRuntime() : sparseRuntime();
  fuzz::runAndCheck(rt, *inputs);
  return 0;
}
