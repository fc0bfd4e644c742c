// RuntimeValue helpers and the OpContext accessors shared by the op implementations.

#include "runtime/RuntimeValue.h"

#include "runtime/CoordSet.h"
#include "runtime/OpContext.h"
#include "tensor/TensorConvert.h"

namespace lattice::runtime {

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::int64_t Tensor::rowSize() const {
  std::int64_t n = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}

std::int64_t Sparse::rows() const { return coords ? coords->rows() : 0; }

int WeightRef::bits() const {
  if (packing.kind == "int4") return 4;
  if (packing.kind == "int8") return 8;
  return 0;
}

std::string tripleText(const Triple& t) {
  return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ")";
}

Triple forwardStride(const Triple& input, const Triple& stride) {
  Triple out;
  for (int a = 0; a < 3; ++a)
    if (__builtin_mul_overflow(input[a], stride[a], &out[a]))
      throw Exception{std::string("the output tensor stride on axis ") + "xyz"[a] + " (input stride " +
                      std::to_string(input[a]) + " × stride " + std::to_string(stride[a]) +
                      ") overflows the runtime's coordinate arithmetic"};
  return out;
}

Triple divideStride(const Triple& in, const Triple& s) {
  Triple out;
  for (int a = 0; a < 3; ++a) {
    if (in[a] % s[a] != 0) fail("transpose stride must divide the input tensor stride."); // X10
    out[a] = in[a] / s[a];
  }
  return out;
}

std::string describeValue(const RuntimeValue& value) {
  if (const auto* t = std::get_if<Tensor>(&value)) {
    std::string shape;
    for (std::size_t i = 0; i < t->shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t->shape[i]);
    return "dense tensor " + std::string(dtypeName(t->dtype)) + " [" + shape + "]";
  }
  if (const auto* s = std::get_if<Sparse>(&value))
    return "sparse tensor " + std::string(dtypeMlirName(s->dtype)) + " x " + std::to_string(s->channels) +
           " channels, " + std::to_string(s->rows()) + " rows, stride " + tripleText(s->stride);
  if (const auto* w = std::get_if<WeightRef>(&value)) return "weight '" + w->key + "'";
  return "no value";
}

std::uint64_t valueBytes(const RuntimeValue& value) {
  if (const auto* t = std::get_if<Tensor>(&value))
    return (t->floats ? t->floats->size() * sizeof(float) : 0) + (t->ints ? t->ints->size() * sizeof(std::int64_t) : 0);
  if (const auto* s = std::get_if<Sparse>(&value))
    return (s->features ? s->features->size() * sizeof(float) : 0) + static_cast<std::uint64_t>(s->rows()) * 32;
  return 0;
}

std::shared_ptr<std::vector<float>> makeFloats(std::size_t n, float fill) {
  return std::make_shared<std::vector<float>>(n, fill);
}

DType floatDType(const std::string& name) {
  if (name == "f32") return DType::F32;
  if (name == "f16") return DType::F16;
  fail("unsupported feature dtype " + name + " (the runtime computes f32 and f16)");
}

void roundInPlace(std::vector<float>& values, DType dtype) {
  if (dtype != DType::F16) return;
  for (float& v : values) v = roundToHalf(v);
}

float roundTo(double value, DType dtype) {
  const float f = static_cast<float>(value);
  return dtype == DType::F16 ? roundToHalf(f) : f;
}

const Sparse& OpContext::sparse(std::size_t i) const {
  const auto* v = std::get_if<Sparse>(operands.at(i));
  if (!v) fail("operand " + std::to_string(i) + " must be a sparse tensor, got " + describeValue(*operands.at(i)));
  return *v;
}

const Tensor& OpContext::tensor(std::size_t i) const {
  const auto* v = std::get_if<Tensor>(operands.at(i));
  if (!v) fail("operand " + std::to_string(i) + " must be a dense tensor, got " + describeValue(*operands.at(i)));
  return *v;
}

const WeightRef& OpContext::weight(std::size_t i) const {
  const auto* v = std::get_if<WeightRef>(operands.at(i));
  if (!v) fail("operand " + std::to_string(i) + " must be a weight, got " + describeValue(*operands.at(i)));
  return *v;
}

const ArtifactType& OpContext::resultType(std::size_t i) const { return op.op->results.at(i).type; }

DType OpContext::resultDType(std::size_t i) const {
  const ArtifactType& t = resultType(i);
  if (t.isSparse()) return floatDType(t.dtype);
  if (t.elementType == "i32") return DType::I32;
  if (t.elementType == "i64") return DType::I64;
  return floatDType(t.elementType);
}

void OpContext::checkCancelled() const {
  if (cancelled.load(std::memory_order_relaxed)) throw Exception{"cancelled", ErrorCode::Cancelled};
}

void OpContext::setSparseResult(std::shared_ptr<const CoordSet> coords, const Triple& stride, DType dtype,
                                std::int64_t rows, std::int64_t channels,
                                std::shared_ptr<const std::vector<float>> features) {
  Sparse s;
  s.coords = std::move(coords);
  s.stride = stride;
  s.capacity = rows;
  s.dtype = dtype;
  s.channels = channels;
  s.features = std::move(features);
  stats.rows = rows;
  results[0] = std::move(s);
}

} // namespace lattice::runtime
