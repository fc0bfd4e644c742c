#pragma once
/// \file Type texts of the writer form (format spec sec. 4, lowering spec sec. 5.9) and the
/// operand class of a type text. Types are interned TypeTexts everywhere in the writer.

#include "dialect/DialectSchema.h"
#include "dialect/TypeText.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// Sparse coordinates argument / decompose result: `tensor<?x4xi32>`.
inline constexpr std::string_view kCoordsTensorType = "tensor<?x4xi32>";
/// Active-row count argument / decompose result: `tensor<1xi32>`.
inline constexpr std::string_view kActiveTensorType = "tensor<1xi32>";
/// kCoordsTensorType and kActiveTensorType interned once.
TypeText coordsTensorType();
TypeText activeTensorType();

/// `!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = {dtype}>`
/// (the builder defaults for rank, coord and feature).
TypeText sparseTensorType(std::string_view dtype);

/// `!lattice.weight<{family}, {dtype}>`, e.g. `!lattice.weight<conv3d, f32>`.
TypeText weightType(std::string_view family, std::string_view dtype);

/// Feature rows: `tensor<?x{channels}x{dtype}>`, or `tensor<?x?x{dtype}>` when channels is unknown.
TypeText featureTensorType(std::optional<std::int64_t> channels, std::string_view dtype);

/// A ranked tensor: `tensor<{d0}x...x{dtype}>`, a negative extent printed `?`; `tensor<{dtype}>`
/// for rank 0. E.g. `rankedTensorType({-1, 3}, "f32")` is `tensor<?x3xf32>`.
TypeText rankedTensorType(const std::vector<std::int64_t>& shape, std::string_view dtype);

} // namespace lattice
