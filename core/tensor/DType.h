#pragma once
/// \file Tensor element types with their safetensors spellings.

#include <cstddef>
#include <optional>
#include <string_view>

namespace lattice {

/// Element types, declared in the safetensors `Dtype` enum order (lattice-artifact-format.md
/// §13.1); the reference writer sorts tensors by this rank, descending.
enum class DType : unsigned char { Bool, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

/// "F32", "I64", ... as written in safetensors headers and tensor records.
std::string_view dtypeName(DType dtype);
/// Parses a safetensors dtype name; nullopt for unknown names.
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element.
std::size_t dtypeSize(DType dtype);
/// Position in the safetensors Dtype enum (BOOL lowest). Only the order is meaningful: the
/// values leave gaps for the safetensors types this enum does not represent (F4, F6_*, F8_*).
int dtypeRank(DType dtype);
/// MLIR element type spelling: "f32", "f16", "bf16", "i32", "i64", "ui32", "i1" (BOOL), ...
std::string_view dtypeMlirName(DType dtype);

} // namespace lattice
