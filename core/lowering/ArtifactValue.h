#pragma once
/// \file ArtifactValue: the symbolic value a lattice lowering produces and consumes (lowering.md
/// §5.1 "ArtifactValue"). It is an fx::Object, so it travels through the FX interpreter inside
/// fx::Value::object(...); gatherArtifactValues implements §2.3 (which interpreter values are
/// symbolic operands) and flattenArtifactOutputs §2.4.

#include "dialect/MlirWriter.h"
#include "dialect/TypeText.h"
#include "fx/Value.h"
#include "support/Expected.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// One SSA value of the function being built: a sparse tensor (`!lattice.sparse_tensor<...>`) or
/// a dense tensor (`tensor<...>`). Immutable; shared through ArtifactValuePtr.
class ArtifactValue final : public fx::Object {
public:
  enum class Kind : unsigned char { Sparse, Dense };

  /// `id` is the value in the writer of the builder that made it; `name` its SSA name after
  /// uniquing, without `%` ("stem", "add1"); `type` the exact MLIR type text; `channels` the
  /// feature count when known; `dtype` the element type ("f32", "f16", "i32", ...).
  ArtifactValue(Kind kind, ValueId id, std::string name, TypeText type, std::optional<int64_t> channels,
                std::string dtype);

  Kind kind() const { return m_kind; }
  /// The operand handle for the builder that made the value (meaningless to any other).
  ValueId id() const { return m_id; }
  bool isSparse() const { return m_kind == Kind::Sparse; }
  bool isDense() const { return m_kind == Kind::Dense; }
  const std::string& name() const { return m_name; }
  /// `%name`, as the value is spelled in an operand list.
  std::string ssa() const { return "%" + m_name; }
  const TypeText& type() const { return m_type; }
  std::optional<int64_t> channels() const { return m_channels; }
  const std::string& dtype() const { return m_dtype; }

  /// "ArtifactValue" (the Python class name, used by §2.4's "unsupported: <names>").
  std::string typeName() const override;
  /// "ArtifactValue(%stem: sparse_tensor, channels=4, dtype=f32)".
  std::string repr() const override;

private:
  Kind m_kind;
  ValueId m_id;
  std::string m_name;
  TypeText m_type;
  std::optional<int64_t> m_channels;
  std::string m_dtype;
};

using ArtifactValuePtr = std::shared_ptr<const ArtifactValue>;

/// "sparse_tensor" / "dense_tensor", as in the kind-check messages.
std::string_view artifactKindName(ArtifactValue::Kind kind);

/// The element type of a tensor type string: `tensor<?x3xf32>` → `f32`, `tensor<i64>` → `i64`,
/// `!lattice.sparse_tensor<..., dtype = f16>` → `f16`; "" when it cannot be found.
std::string elementTypeOf(std::string_view type);

/// Wraps a value for the interpreter (fx::Value::object).
fx::Value toFxValue(ArtifactValuePtr value);
/// The ArtifactValue held by `v`, or nullptr when `v` is anything else.
ArtifactValuePtr artifactValueOf(const fx::Value& v);

/// §2.3 `_artifact_values(args, kwargs)`: args then kwargs values are flattened depth first, left
/// to right (lists, tuples and dict values in insertion order are containers; None is a leaf),
/// and only the ArtifactValue leaves are kept. Keyword names are ignored.
std::vector<ArtifactValuePtr> gatherArtifactValues(const fx::ValueList& args, const fx::Kwargs& kwargs);

/// §2.4 `_output_values(result)`: the leaves of the interpreter result (same flattening, None is a
/// leaf). Errors: "lattice artifact model produced no tensor outputs" when there is no leaf;
/// "lattice artifact outputs must all be tensors; unsupported: <names>" with the sorted, distinct
/// Python type names of the other leaves joined by ", " (e.g. "NoneType" or "int, str").
Expected<std::vector<ArtifactValuePtr>> flattenArtifactOutputs(const fx::Value& result);

} // namespace lattice
