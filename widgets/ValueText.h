#pragma once
/// \file ValueText: an interpreter value as text, one way everywhere: the value table's columns
/// (kind, channels, dtype, SSA name, MLIR type), and from the same summary the tooltip of a value
/// cell, the inspector's Value row and a graph node's box once it ran.

#include <QString>

namespace lattice::fx {
class Value;
}

namespace lattice::studio {

/// The columns of one interpreter value, as text.
struct ValueSummary {
  QString kind;          ///< "sparse_tensor", "dense_tensor", or the Python type name ("tuple", "NoneType")
  QString channels;      ///< "16", "?" when unknown, "" when not an artifact value
  QString dtype;         ///< "f32"
  QString ssa;           ///< "%stem" (several values joined by ", ")
  QString type;          ///< the MLIR type text (several joined by ", "); a plain value's Python repr
  QString repr;          ///< the Python repr (`ArtifactValue(...)` for symbolic values)
  bool symbolic = false; ///< holds artifact values (else a plain Python value)
};
/// Summarizes an interpreter value: a single ArtifactValue fills every column; a container of
/// them joins their SSA names and types; anything else shows its type name and repr.
ValueSummary summarizeValue(const fx::Value& value);

/// The value table's column titles, which the tooltip uses as labels.
enum class ValueField { Kind, Channels, DType, Ssa, Type };
QString valueFieldTitle(ValueField field);

/// The tooltip of a value: one "Title: text" line per non-empty column, under the table's
/// column titles ("Kind: sparse_tensor", "Channels: 16", "DType: f32", "SSA: %stem",
/// "MLIR type: !lattice..."); a plain value is "Kind: int" and "Value: 3".
QString valueToolTip(const ValueSummary& summary);
/// The same on one line: "%stem · sparse_tensor · 16 channels · f32"; a plain value "3 (int)".
QString valueLine(const ValueSummary& summary);

} // namespace lattice::studio
