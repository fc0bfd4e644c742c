// DType tables: safetensors names, element sizes, the safetensors enum rank and MLIR spellings.
// The safetensors dtypes this project never produces (F8_*, F4, F6_*) are deliberately not
// represented; parseDType reports them as unknown.

#include "tensor/DType.h"

#include <array>

namespace lattice {

namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  // Index in the safetensors `Dtype` enum (lattice-artifact-format.md §13.1): BOOL, F4, F6_E2M3,
  // F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, ... The unrepresented F4/F6/F8 variants leave
  // gaps, so ranks are not contiguous; only their order matters.
  int rank;
  std::string_view mlir;
};

// Indexed by the DType enumerator value.
constexpr std::array<DTypeInfo, 13> kInfo = {{
    {DType::Bool, "BOOL", 1, 0, "i1"},
    {DType::U8, "U8", 1, 4, "ui8"},
    {DType::I8, "I8", 1, 5, "i8"},
    {DType::I16, "I16", 2, 9, "i16"},
    {DType::U16, "U16", 2, 10, "ui16"},
    {DType::F16, "F16", 2, 11, "f16"},
    {DType::BF16, "BF16", 2, 12, "bf16"},
    {DType::I32, "I32", 4, 13, "i32"},
    {DType::U32, "U32", 4, 14, "ui32"},
    {DType::F32, "F32", 4, 15, "f32"},
    {DType::F64, "F64", 8, 16, "f64"},
    {DType::I64, "I64", 8, 17, "i64"},
    {DType::U64, "U64", 8, 18, "ui64"},
}};

constexpr bool tableMatchesEnum() {
  for (std::size_t i = 0; i < kInfo.size(); ++i) {
    if (static_cast<std::size_t>(kInfo[i].dtype) != i) return false;
  }
  return true;
}
static_assert(tableMatchesEnum(), "kInfo must be indexed by the DType enumerator value");

const DTypeInfo& info(DType dtype) {
  const auto index = static_cast<std::size_t>(dtype);
  return index < kInfo.size() ? kInfo[index] : kInfo[static_cast<std::size_t>(DType::F32)];
}

} // namespace

std::string_view dtypeName(DType dtype) {
  return info(dtype).name;
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo& entry : kInfo) {
    if (entry.name == name) return entry.dtype;
  }
  return std::nullopt;
}

std::size_t dtypeSize(DType dtype) {
  return info(dtype).size;
}

int dtypeRank(DType dtype) {
  return info(dtype).rank;
}

std::string_view dtypeMlirName(DType dtype) {
  return info(dtype).mlir;
}

} // namespace lattice
