// Runtime values as stored tensors: dense tensors in their dtype, sparse values as the three
// tensors `expected.safetensors` uses (physical coordinates of the active rows).

#include "runtime/CoordSet.h"
#include "runtime/Runtime.h"
#include "tensor/TensorConvert.h"

#include <cstring>

namespace lattice::runtime {

namespace {

template <typename T> TensorData packed(DType dtype, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return TensorData::owning(dtype, std::move(shape), std::move(bytes));
}

TensorData floats(DType dtype, std::vector<std::int64_t> shape, const std::vector<float>& values, std::size_t count) {
  if (dtype == DType::F16) {
    std::vector<std::uint16_t> half(count);
    for (std::size_t i = 0; i < count; ++i) half[i] = floatToHalf(values[i]);
    return packed(DType::F16, std::move(shape), half);
  }
  return packed(DType::F32, std::move(shape), std::vector<float>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count)));
}

} // namespace

TensorData toTensorData(const Tensor& t) {
  const std::size_t n = static_cast<std::size_t>(t.numel());
  if (t.isFloat()) return floats(t.dtype, t.shape, *t.floats, n);
  if (t.dtype == DType::I32) {
    std::vector<std::int32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>((*t.ints)[i]);
    return packed(DType::I32, t.shape, v);
  }
  return packed(DType::I64, t.shape, std::vector<std::int64_t>(t.ints->begin(), t.ints->begin() + static_cast<std::ptrdiff_t>(n)));
}

std::vector<NamedTensor> sparseTensors(const std::string& name, const Sparse& s) {
  const std::int64_t n = s.rows();
  std::vector<std::int32_t> coords(static_cast<std::size_t>(n * 4));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int32_t* c = s.coords->row(r);
    coords[static_cast<std::size_t>(r * 4)] = c[0];
    for (int a = 0; a < 3; ++a)
      coords[static_cast<std::size_t>(r * 4 + a + 1)] = static_cast<std::int32_t>(c[a + 1] * s.stride[a]);
  }
  std::vector<NamedTensor> out;
  out.push_back({name + ".coords", packed(DType::I32, {n, 4}, coords)});
  out.push_back({name + ".features", floats(s.dtype, {n, s.channels}, *s.features, static_cast<std::size_t>(n * s.channels))});
  out.push_back({name + ".active", packed(DType::I32, {1}, std::vector<std::int32_t>{static_cast<std::int32_t>(n)})});
  return out;
}

} // namespace lattice::runtime
