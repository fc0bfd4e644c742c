#pragma once
// Small tensors and status texts shared by the safetensors reader and writer tests.

#include "support/Expected.h"
#include "tensor/TensorData.h"

#include <QString>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace lattice::test {

inline TensorData f32(std::vector<int64_t> shape, std::initializer_list<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return TensorData::owning(DType::F32, std::move(shape), std::move(bytes));
}

inline TensorData filled(DType dtype, std::vector<int64_t> shape, uint8_t byte) {
  TensorData t = TensorData::zeros(dtype, std::move(shape));
  std::memset(t.mutableData(), byte, t.byteSize());
  return t;
}

inline QString message(const Status& status) {
  return QString::fromStdString(status.message());
}

} // namespace lattice::test
