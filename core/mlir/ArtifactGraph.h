#pragma once
/// \file ArtifactGraph: a parsed `graph.mlir` (lattice-artifact-format.md sec. 3-10) as plain
/// data: module attributes, functions with arguments, ops (operands, results, typed attribute
/// values, types) and the return, every piece with its line:column. The reader (MlirParser.h)
/// builds it, the verifier (ArtifactVerifier.h) checks it, printArtifactGraph (ArtifactPrinter.h)
/// prints it back in the writer form. Nothing here validates against the dialect rules.

#include "dialect/DialectSchema.h"
#include "dialect/MlirAttributes.h"
#include "mlir/Diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// Extent of a dynamic (`?`) tensor dimension in ArtifactType::shape.
inline constexpr std::int64_t kDynamicExtent = -1;

/// A type as written. Nested types (element types, `dtype` parameters) are kept as their
/// canonical text; two types are equal when their canonical texts are.
struct ArtifactType {
  enum class Kind {
    Tensor,       ///< `tensor<?x4xi32>`, `tensor<f32>`, `tensor<*xf32>`
    SparseTensor, ///< `!lattice.sparse_tensor<rank = R, coord = C, feature = F, dtype = T>`
    Weight,       ///< `!lattice.weight<family, T>`
    Scalar,       ///< a builtin element type on its own: `f32`, `i4`, `index`
  };
  Kind kind = Kind::Scalar;
  SourceLoc loc;

  /// Tensor: false for `tensor<*x...>`.
  bool ranked = true;
  /// Tensor: extents, kDynamicExtent for `?`. Empty for rank 0 (and for unranked).
  std::vector<std::int64_t> shape;
  /// Tensor: element type (`i32`); Scalar: the type itself (`f32`).
  std::string elementType;
  /// SparseTensor: the `rank` parameter.
  std::uint64_t rank = 0;
  /// SparseTensor: `coord` and `feature` keywords (unquoted).
  std::string coord;
  std::string feature;
  /// SparseTensor and Weight: the `dtype` parameter's canonical text (`f16`, `i4`).
  std::string dtype;
  /// Weight: the family keyword (`conv3d`, `linear`, ...).
  std::string family;

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isRankedTensor() const { return kind == Kind::Tensor && ranked; }
  bool isSparse() const { return kind == Kind::SparseTensor; }
  bool isWeight() const { return kind == Kind::Weight; }
  /// Tensor rank (number of extents); 0 for unranked or non-tensors.
  std::size_t tensorRank() const { return shape.size(); }

  /// Canonical (writer form) text, e.g. `tensor<?x4xi32>`.
  std::string str() const;
  bool operator==(const ArtifactType& other) const { return str() == other.str(); }
  bool operator!=(const ArtifactType& other) const { return !(*this == other); }
};

/// A typed attribute value as written.
struct ArtifactAttrValue {
  enum class Kind {
    Unit,     ///< a dictionary entry without `= value`
    Bool,     ///< `true` / `false`
    Integer,  ///< `2`, `-1`, `7 : i32`
    Float,    ///< `0.01 : f32`, `1.0e-05 : f32`, `0.5` (f64)
    String,   ///< `"canonical_f32"` (unescaped in `text`)
    Symbol,   ///< `@name`
    Array,    ///< `["a", "b"]`, `[1, 2]`: elements in `elements`
    I64Array, ///< `array<i64: 1, 2, 3>` (any integer element type, in `type`)
    F64Array, ///< `array<f64: 0.1, 0.1, 0.1>` (any float element type, in `type`)
    Enum,     ///< `#lattice.pool_mode<avg>`: `mnemonic` and `text`
    Packing,  ///< `#lattice.packing<...>`: `packing`
  };
  Kind kind = Kind::Unit;
  SourceLoc loc;

  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0.0;
  /// Integer/Float: the explicit `: type` suffix, "" when absent (MLIR's default is i64 for
  /// integers and f64 for floats). I64Array/F64Array: the element type (`i64`, `f64`).
  std::string type;
  /// String: the unescaped value; Symbol: the name without `@`; Enum: the value keyword.
  std::string text;
  /// Enum: the attribute mnemonic (`pool_mode`, `coord`, ...).
  std::string mnemonic;
  /// Array elements.
  std::vector<ArtifactAttrValue> elements;
  I64Array i64s;
  F64Array f64s;
  /// Packing: kind, and for the long form group_size, scale_dtype, mode.
  PackingAttr packing;
  /// Packing: true when written in the long form (with group_size, scale_dtype and mode).
  bool packingLongForm = false;

  /// Integer or Float with the given type: the default type counts ("" == i64 / f64).
  bool isI64() const { return kind == Kind::Integer && (type.empty() || type == "i64"); }
  bool isF32() const { return kind == Kind::Float && type == "f32"; }
  bool isString() const { return kind == Kind::String; }

  /// Canonical (writer form) text, e.g. `array<i64: 1, 1, 1>`, `0.00001 : f32`.
  std::string str() const;
  /// Semantic equality: equal canonical texts.
  bool operator==(const ArtifactAttrValue& other) const { return str() == other.str(); }
  bool operator!=(const ArtifactAttrValue& other) const { return !(*this == other); }
};

/// One `name = value` entry of a dictionary (module attributes, op attributes).
struct ArtifactAttribute {
  std::string name;
  SourceLoc loc; ///< of the name
  ArtifactAttrValue value;
};

/// The entry called `name` in `attributes`, or nullptr.
const ArtifactAttribute* findAttribute(const std::vector<ArtifactAttribute>& attributes,
                                       std::string_view name);

/// A use of an SSA value: `%name` (stored without `%`).
struct ArtifactValueUse {
  std::string name;
  SourceLoc loc;
};

/// A definition of an SSA value (function argument or op result) with its type.
struct ArtifactValueDef {
  std::string name; ///< without `%`
  SourceLoc loc;    ///< of `%name`
  ArtifactType type;
};

/// One operation of a function body.
struct ArtifactOp {
  /// Full op name as written: `lattice.conv3d`, `func.call`.
  std::string name;
  /// The op's location: its name, where MLIR locates a custom-format op and reports its
  /// errors (`%out = lattice.conv3d ...` is at `lattice.conv3d`).
  SourceLoc loc;
  SourceLoc nameLoc;
  /// The schema op for `lattice.*` ops (never null for them: unknown ones do not parse);
  /// nullptr for ops of other dialects.
  const SchemaOp* schema = nullptr;
  /// The op's kind (`schema->kind`); None for ops of other dialects.
  OpKind kind = OpKind::None;

  std::vector<ArtifactValueDef> results;
  std::vector<ArtifactValueUse> operands;
  /// The operand types as written in the op's trailing type (same count as `operands`).
  std::vector<ArtifactType> operandTypes;
  /// `@sym` of `lattice.weight` (and of foreign ops such as `func.call @f(...)`).
  bool hasSymbol = false;
  std::string symbol;
  SourceLoc symbolLoc;
  /// Attributes in source order (order is not significant).
  std::vector<ArtifactAttribute> attributes;
  /// Foreign ops only: operands were written in parentheses (`func.call @f(%x)`).
  bool parenthesizedOperands = false;

  bool isLattice() const { return schema != nullptr; }
  /// The name without `lattice.` (`conv3d`), or the full name for foreign ops.
  std::string_view shortName() const;
  /// The attribute called `name`, or nullptr.
  const ArtifactAttribute* attribute(std::string_view attrName) const {
    return findAttribute(attributes, attrName);
  }
};

/// The function terminator `return %a, %b : T_a, T_b`.
struct ArtifactReturn {
  SourceLoc loc;
  std::vector<ArtifactValueUse> operands;
  std::vector<ArtifactType> types;
};

/// A `func.func`.
struct ArtifactFunction {
  std::string name; ///< without `@`
  SourceLoc loc;    ///< of `func.func`
  SourceLoc nameLoc;
  std::vector<ArtifactValueDef> arguments;
  std::vector<ArtifactType> resultTypes;
  /// False for a declaration without `{ ... }`.
  bool hasBody = false;
  /// Number of blocks of the body (block labels `^bb1:` start new ones).
  std::size_t blockCount = 0;
  /// Ops of the body, in order (all blocks).
  std::vector<ArtifactOp> ops;
  /// The terminator of the first block (meaningful when hasBody).
  ArtifactReturn ret;
};

/// A parsed `graph.mlir`.
struct ArtifactGraph {
  /// The name diagnostics use for this file (a path or `graph.mlir`).
  std::string fileName;
  /// Location of `module` (or of the first top-level op when the module is implicit).
  SourceLoc moduleLoc;
  /// `module attributes {...}` entries in source order.
  std::vector<ArtifactAttribute> moduleAttributes;
  /// Top-level functions in order.
  std::vector<ArtifactFunction> functions;

  /// The module attribute called `name`, or nullptr.
  const ArtifactAttribute* moduleAttribute(std::string_view name) const {
    return findAttribute(moduleAttributes, name);
  }
  /// The first function (the entry when the module is valid), or nullptr.
  const ArtifactFunction* entry() const { return functions.empty() ? nullptr : &functions.front(); }
};

} // namespace lattice
