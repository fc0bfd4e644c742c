#pragma once
// Test-only helpers shared by the runtime tests (tst_runtime*.cpp): small artifacts written as
// MLIR text with the writer's exact IR-v2 header, weights held in memory, inputs made from plain
// vectors, and the outputs read back as plain vectors. Header-only so each tst_*.cpp stays one
// translation unit.
//
//   rt::Graph g;
//   g.sparseInput("x", 1);                                    // x_coords/x_features/x_active + %x
//   g.weight("w", "conv3d", "conv3d_o_xyz_i", {1, 3, 1, 1, 1}, {1, 2, 3});
//   g.op("%y = lattice.subm_conv3d %x, %w {...} : ($S, $WC) -> $S");
//   g.output("y", "$S");
//   rt::Inputs in; in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}}, {1, 2}, 1);
//   rt::Run r = rt::run(g, in);                               // r.error, r.sparse(0), r.dense(0)
//
// Placeholders in op text: $S / $H (sparse f32 / f16), $WC $WB $WL $WH $WE (weights of each
// family, f32), $HWC $HWB (f16 conv and bias weights).

#include "mlir/MlirParser.h"
#include "runtime/Runtime.h"
#include "tensor/Safetensors.h"
#include "tensor/TensorConvert.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace lattice::rt {

using runtime::Numerics;
using runtime::Runtime;

inline const std::string kDigest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad";
inline const std::string kSparseF32 =
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>";
inline const std::string kSparseF16 =
    "!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>";

/// Expands the type placeholders of the header comment.
inline std::string expand(std::string text) {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"$HWC", "!lattice.weight<conv3d, f16>"}, {"$HWB", "!lattice.weight<bias, f16>"},
      {"$WC", "!lattice.weight<conv3d, f32>"},  {"$WB", "!lattice.weight<bias, f32>"},
      {"$WL", "!lattice.weight<linear, f32>"},  {"$WH", "!lattice.weight<channel, f32>"},
      {"$WE", "!lattice.weight<embedding, f32>"}, {"$S", kSparseF32},
      {"$H", kSparseF16}};
  for (const auto& [key, value] : keys)
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

// ---- tensors ----

inline TensorData f32Tensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  std::vector<std::uint8_t> bytes(values.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(DType::F32, std::move(shape), std::move(bytes));
}

inline TensorData f16Tensor(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  std::vector<std::uint8_t> bytes(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t h = floatToHalf(values[i]);
    std::memcpy(bytes.data() + 2 * i, &h, 2);
  }
  return TensorData::owning(DType::F16, std::move(shape), std::move(bytes));
}

inline TensorData i32Tensor(std::vector<std::int64_t> shape, const std::vector<std::int32_t>& values) {
  std::vector<std::uint8_t> bytes(values.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(DType::I32, std::move(shape), std::move(bytes));
}

inline TensorData i64Tensor(std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  std::vector<std::uint8_t> bytes(values.size() * 8);
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(DType::I64, std::move(shape), std::move(bytes));
}

inline std::vector<float> floatsOf(const TensorData& t) {
  Expected<std::vector<float>> v = toFloatVector(t);
  return v ? *v : std::vector<float>{};
}

inline std::vector<std::int64_t> intsOf(const TensorData& t) {
  Expected<std::vector<std::int64_t>> v = toIntVector(t);
  return v ? *v : std::vector<std::int64_t>{};
}

inline float f16(float v) { return roundToHalf(v); }

// ---- graphs ----

/// An artifact under construction: arguments, body lines, outputs and in-memory weights.
class Graph {
public:
  struct Arg {
    std::string name, type, role;
  };
  struct Out {
    std::string value, type, name, role;
  };

  /// Three arguments `<name>_coords`, `<name>_features`, `<name>_active` and `%<name> =
  /// lattice.sparse.make` with `stride` (dtype "f32" or "f16").
  /// `channels` < 0: the features' width is left open (`tensor<?x?xf32>`).
  Graph& sparseInput(const std::string& name, std::int64_t channels, std::array<std::int64_t, 3> stride = {1, 1, 1},
                     const std::string& dtype = "f32") {
    const std::string ft =
        "tensor<?x" + (channels < 0 ? std::string("?") : std::to_string(channels)) + "x" + dtype + ">";
    m_args.push_back({name + "_coords", "tensor<?x4xi32>", "sparse_coords"});
    m_args.push_back({name + "_features", ft, "sparse_features"});
    m_args.push_back({name + "_active", "tensor<1xi32>", "sparse_active"});
    op("%" + name + " = lattice.sparse.make %" + name + "_coords, %" + name + "_features, %" + name +
       "_active {stride = array<i64: " + std::to_string(stride[0]) + ", " + std::to_string(stride[1]) + ", " +
       std::to_string(stride[2]) + ">, coord_order = #lattice.coord<batch_x_y_z>} : (tensor<?x4xi32>, " + ft +
       ", tensor<1xi32>) -> " + (dtype == "f16" ? "$H" : "$S"));
    return *this;
  }
  /// One dense argument (role `tensor`).
  Graph& denseInput(const std::string& name, const std::string& type) {
    m_args.push_back({name, type, "tensor"});
    return *this;
  }
  /// A body line (placeholders expanded).
  Graph& op(const std::string& line) {
    m_body.push_back(expand(line));
    return *this;
  }
  /// `%<name> = lattice.weight @<name>` with storage key `<name>.k`, dense packing, and its tensor
  /// (F32, or F16 when `dtype` is "f16").
  Graph& weight(const std::string& name, const std::string& family, const std::string& layout,
                std::vector<std::int64_t> shape, const std::vector<float>& values, const std::string& dtype = "f32") {
    m_weights.push_back({name + ".k", dtype == "f16" ? f16Tensor(shape, values) : f32Tensor(shape, values)});
    return weightOp(name, family, layout, "#lattice.packing<dense>", dtype);
  }
  /// The weight op only (its tensors are added with tensor()).
  Graph& weightOp(const std::string& name, const std::string& family, const std::string& layout,
                  const std::string& packing, const std::string& dtype = "f32") {
    return op("%" + name + " = lattice.weight @" + name + " {storage_key = \"" + name +
              ".k\", layout = #lattice.weight_layout<" + layout + ">, packing = " + packing + "} : !lattice.weight<" +
              family + ", " + dtype + ">");
  }
  Graph& tensor(const std::string& key, TensorData t) {
    m_weights.push_back({key, std::move(t)});
    return *this;
  }
  Graph& output(const std::string& value, const std::string& type, std::string name = {}, std::string role = {}) {
    const std::string t = expand(type);
    if (name.empty()) name = m_outs.empty() ? "output" : "output_" + std::to_string(m_outs.size());
    if (role.empty()) role = t.rfind("!lattice.sparse_tensor", 0) == 0 ? "sparse_tensor" : "tensor";
    m_outs.push_back({value, t, name, role});
    return *this;
  }

  std::string text() const {
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
      return s;
    };
    std::vector<std::string> in, inRoles, out, outRoles;
    for (const Arg& a : m_args) in.push_back(a.name), inRoles.push_back(a.role);
    for (const Out& o : m_outs) out.push_back(o.name), outRoles.push_back(o.role);
    std::string t = "module attributes {\n  lattice.ir_version = 2,\n  lattice.schema_digest = \"" + kDigest +
                    "\",\n  lattice.input_names = [" + list(in) + "],\n  lattice.input_roles = [" + list(inRoles) +
                    "],\n  lattice.output_names = [" + list(out) + "],\n  lattice.output_roles = [" +
                    list(outRoles) + "],\n  lattice.weight_file = \"weights.safetensors\"\n} {\n  func.func @forward(\n";
    for (std::size_t i = 0; i < m_args.size(); ++i)
      t += "    %" + m_args[i].name + ": " + m_args[i].type + (i + 1 < m_args.size() ? ",\n" : "\n");
    std::string results, values, types;
    for (std::size_t i = 0; i < m_outs.size(); ++i) {
      values += (i ? ", %" : "%") + m_outs[i].value;
      types += (i ? ", " : "") + m_outs[i].type;
    }
    results = m_outs.size() == 1 ? types : "(" + types + ")";
    t += "  ) -> " + results + " {\n";
    for (const std::string& line : m_body) t += "    " + line + "\n";
    t += "    return " + values + " : " + types + "\n  }\n}\n";
    return t;
  }

  const std::vector<NamedTensor>& weights() const { return m_weights; }

  /// `graph.mlir:LINE:COL` of the op defining `%ssa` (its name, where MLIR locates an op), as
  /// diagnostics print it.
  std::string loc(const std::string& ssa) const {
    const std::string text = this->text();
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      const std::size_t at = line.find("%" + ssa + " =");
      const std::size_t at2 = line.find("%" + ssa + ", ");
      const std::size_t col = at != std::string::npos ? at : at2;
      if (col == std::string::npos || line.find_first_not_of(' ') != col) continue;
      // MLIR locates an op at its name: the first word after `= `.
      const std::size_t eq = line.find("= ", col);
      const std::size_t name = eq == std::string::npos ? std::string::npos : line.find_first_not_of(' ', eq + 1);
      if (name != std::string::npos) return "graph.mlir:" + std::to_string(n) + ":" + std::to_string(name + 1);
    }
    return "graph.mlir:?:?";
  }

  ArtifactParseResult parse() const { return parseArtifactGraph(text(), "graph.mlir"); }

  /// Parse + verify + plan, with the weights in memory (or with no weight file at all after
  /// withoutWeightFile(): the verifier then cannot check weights, and every lookup misses).
  Expected<Runtime> runtime() const {
    ArtifactParseResult p = parse();
    if (!p.ok()) return makeError(p.error.str());
    return Runtime::fromGraph(std::move(*p.graph), m_noWeightFile ? runtime::WeightSource{}
                                                                  : runtime::WeightSource::fromTensors(m_weights));
  }
  Graph& withoutWeightFile() {
    m_noWeightFile = true;
    return *this;
  }

private:
  std::vector<Arg> m_args;
  std::vector<std::string> m_body;
  std::vector<Out> m_outs;
  std::vector<NamedTensor> m_weights;
  bool m_noWeightFile = false;
};

// ---- inputs ----

using Coord = std::array<std::int32_t, 4>;

/// Inputs named by ABI name.
class Inputs {
public:
  /// `<name>_coords` (physical, one Coord per row), `<name>_features` (rows × C, F32 or F16),
  /// `<name>_active` (= rows unless given).
  static constexpr std::int64_t kAllRows = std::numeric_limits<std::int64_t>::min();
  Inputs& sparse(const std::string& name, const std::vector<Coord>& coords, const std::vector<float>& features,
                 std::int64_t channels, std::int64_t active = kAllRows, bool half = false) {
    std::vector<std::int32_t> flat;
    for (const Coord& c : coords) flat.insert(flat.end(), c.begin(), c.end());
    const std::int64_t rows = static_cast<std::int64_t>(coords.size());
    dense(name + "_coords", i32Tensor({rows, 4}, flat));
    dense(name + "_features", half ? f16Tensor({rows, channels}, features) : f32Tensor({rows, channels}, features));
    dense(name + "_active", i32Tensor({1}, {static_cast<std::int32_t>(active == kAllRows ? rows : active)}));
    return *this;
  }
  Inputs& dense(const std::string& name, TensorData t) {
    m_inputs.named.push_back({name, std::move(t)});
    return *this;
  }
  const runtime::RuntimeInputs& get() const { return m_inputs; }

private:
  runtime::RuntimeInputs m_inputs;
};

// ---- running ----

/// A sparse output as the runtime writes it: physical coordinates and features of the active rows.
struct SparseOut {
  std::vector<Coord> coords;
  std::vector<float> features;
  std::int64_t channels = 0;
  std::array<std::int64_t, 3> stride{1, 1, 1};
};

/// The outcome of one run.
struct Run {
  std::optional<Runtime> runtime;
  std::string error; ///< empty on success
  Error failure;     ///< the first failure as the runtime gave it (its line, its input)

  bool ok() const { return error.empty(); }
  /// Output `i` as a sparse value (empty when it is not one).
  SparseOut sparse(std::size_t i = 0) const {
    SparseOut out;
    if (!runtime || !runtime->finished()) return out;
    const auto* s = std::get_if<runtime::Sparse>(&runtime->value(runtime->plan().outputs.at(i).slot));
    if (!s) return out;
    out.channels = s->channels;
    out.stride = s->stride;
    for (const NamedTensor& t : runtime::sparseTensors("o", *s)) {
      if (t.key == "o.coords") {
        const std::vector<std::int64_t> c = intsOf(t.tensor);
        for (std::size_t r = 0; r + 3 < c.size(); r += 4)
          out.coords.push_back({static_cast<std::int32_t>(c[r]), static_cast<std::int32_t>(c[r + 1]),
                                static_cast<std::int32_t>(c[r + 2]), static_cast<std::int32_t>(c[r + 3])});
      } else if (t.key == "o.features") {
        out.features = floatsOf(t.tensor);
      }
    }
    return out;
  }
  /// Output `i` as a dense integer tensor's values (empty when it is not one).
  std::vector<std::int64_t> ints(std::size_t i = 0, std::vector<std::int64_t>* shape = nullptr) const {
    if (!runtime || !runtime->finished()) return {};
    const auto* t = std::get_if<runtime::Tensor>(&runtime->value(runtime->plan().outputs.at(i).slot));
    if (!t || !t->ints) return {};
    if (shape) *shape = t->shape;
    return std::vector<std::int64_t>(t->ints->begin(), t->ints->begin() + t->numel());
  }
  /// Output `i` as a dense tensor's values (empty when it is not one).
  std::vector<float> dense(std::size_t i = 0, std::vector<std::int64_t>* shape = nullptr) const {
    if (!runtime || !runtime->finished()) return {};
    const auto* t = std::get_if<runtime::Tensor>(&runtime->value(runtime->plan().outputs.at(i).slot));
    if (!t || !t->floats) return {};
    if (shape) *shape = t->shape;
    return std::vector<float>(t->floats->begin(), t->floats->begin() + t->numel());
  }
};

/// Builds the runtime of `g` and runs it on `in`; `error` holds the first failure (build,
/// start or run).
inline Run run(const Graph& g, const Inputs& in, Numerics numerics = Numerics::Default, bool keepValues = false) {
  Run r;
  Expected<Runtime> rt = g.runtime();
  if (!rt) {
    r.failure = rt.error();
    r.error = rt.message();
    return r;
  }
  r.runtime.emplace(std::move(*rt));
  runtime::RuntimeOptions options;
  options.numerics = numerics;
  options.keepValues = keepValues;
  if (Status s = r.runtime->start(in.get(), options); !s) {
    r.failure = s.error();
    r.error = s.message();
    return r;
  }
  if (Status s = r.runtime->run(); !s) {
    r.failure = s.error();
    r.error = s.message();
  }
  return r;
}

// ---- comparisons (each returns "" when equal, else what differs) ----

inline std::string coordText(const Coord& c) {
  return "(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + ", " +
         std::to_string(c[3]) + ")";
}

/// |a − e| ≤ atol + rtol·|e| element by element (NaN never matches; equal infinities do).
inline std::string closeValues(const std::vector<float>& actual, const std::vector<double>& expected,
                               double rtol = 1e-6, double atol = 1e-6) {
  if (actual.size() != expected.size())
    return std::to_string(actual.size()) + " values, expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const bool same = (std::isinf(e) && a == e) || std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (!same) {
      std::ostringstream s;
      s.precision(9);
      s << "value " << i << " is " << a << ", expected " << e;
      return s.str();
    }
  }
  return "";
}

/// Coordinates in order, then features.
inline std::string sameSparse(const SparseOut& actual, const std::vector<Coord>& coords,
                              const std::vector<double>& features, double rtol = 1e-6, double atol = 1e-6) {
  if (actual.coords.size() != coords.size())
    return std::to_string(actual.coords.size()) + " rows, expected " + std::to_string(coords.size());
  for (std::size_t r = 0; r < coords.size(); ++r)
    if (actual.coords[r] != coords[r])
      return "row " + std::to_string(r) + " is " + coordText(actual.coords[r]) + ", expected " + coordText(coords[r]);
  return closeValues(actual.features, features, rtol, atol);
}

/// Error text checks: contains every part.
inline std::string containsAll(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& p : parts)
    if (text.find(p) == std::string::npos) return "'" + p + "' not in: " + text;
  return "";
}

} // namespace lattice::rt

#define RT_CHECK(expr)                                                                                               \
  do {                                                                                                               \
    const std::string rt_problem_ = (expr);                                                                          \
    QVERIFY2(rt_problem_.empty(), rt_problem_.c_str());                                                              \
  } while (false)
