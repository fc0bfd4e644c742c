#pragma once
/// \file The lattice dialect schema (IR v2) as C++ data: types, attributes with their enum value
/// sets, and the 31 ops with operands, results, attributes and assembly style, in registration
/// order. The canonical JSON and the schema digest (format spec sec. 12) are computed from this
/// table; `lattice-dialect-schema.json` is only used by tests to cross-check it. The ops' names
/// and order come from OpKind.h: `ops[i]` is the op of `OpKind(i)`.

#include "dialect/OpKind.h"

#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// `lattice.ir_version` written into every artifact (format spec sec. 1).
inline constexpr int kDialectIrVersion = 2;

/// The published digest of the IR v2 schema (format spec sec. 1). schemaDigest() must equal it.
inline constexpr std::string_view kDialectSchemaDigest =
    "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad";

/// Kind of a type or attribute parameter (schema `parameters[].kind`).
enum class SchemaParameterKind { Unsigned, String, Type };

/// Class of an operand or result (schema `operands[].type`, `results[].type`).
enum class SchemaValueType { Tensor, SparseTensor, Weight, Symbol };

/// How an operand is spelled: an SSA value `%x` or a symbol `@x` (schema `operands[].kind`).
enum class SchemaOperandKind { Ssa, Symbol };

/// Kind of an op attribute (schema `attributes[].kind`). The enum-like kinds and `Packing` are
/// printed `#lattice.<mnemonic><...>`, with the mnemonic equal to the kind's name.
enum class SchemaAttrKind {
  I64Triple,
  F64Triple,
  I64,
  F32,
  Str,
  Coord,
  FeatureLayout,
  WeightLayout,
  Activation,
  GeluApprox,
  Join,
  BinaryOp,
  PoolMode,
  VoxelReduction,
  PointInterpolation,
  Packing,
};

/// Op text form (format spec sec. 6).
enum class SchemaAssembly { Functional, Weight, Decompose };

/// One parameter of a dialect type or attribute.
struct SchemaParameter {
  std::string name;
  SchemaParameterKind kind;
};

/// A dialect type (`!lattice.<mnemonic><...>`).
struct SchemaTypeDef {
  std::string name;     ///< C++ class name in the reference, e.g. `SparseTensor`
  std::string mnemonic; ///< e.g. `sparse_tensor`
  std::vector<SchemaParameter> parameters;
};

/// A dialect attribute (`#lattice.<mnemonic><...>`) and its allowed values.
struct SchemaAttrDef {
  std::string name;     ///< e.g. `PoolMode`
  std::string mnemonic; ///< e.g. `pool_mode`
  std::vector<SchemaParameter> parameters;
  std::vector<std::string> values; ///< allowed values (for `packing`: the allowed kinds)
};

/// One operand of an op, in schema order.
struct SchemaOperand {
  std::string name;
  SchemaValueType type;
  SchemaOperandKind kind;
  bool optional;
};

/// One result of an op, in schema order.
struct SchemaResult {
  std::string name;
  SchemaValueType type;
};

/// One attribute of an op, in schema (= print) order.
struct SchemaOpAttribute {
  std::string name;
  SchemaAttrKind kind;
  bool required;
};

/// One op of the dialect.
struct SchemaOp {
  OpKind kind = OpKind::None;
  std::string name;       ///< without the `lattice.` prefix, e.g. `sparse.make`; opName(kind)
  std::string pythonName; ///< `name` with `.` replaced by `_`; the default SSA stem
  std::vector<SchemaOperand> operands;
  std::vector<SchemaResult> results;
  std::vector<SchemaOpAttribute> attributes;
  SchemaAssembly assembly;

  /// The attribute called `name`, or nullptr.
  const SchemaOpAttribute* findAttribute(std::string_view name) const;
};

/// A weight family (`!lattice.weight<family, T>`) and the layout its tensors are stored in
/// (`#lattice.weight_layout<...>`, format spec sec. 8.3).
struct WeightFamily {
  std::string_view name;
  std::string_view layout;
};
inline constexpr WeightFamily kConvWeight{"conv3d", "conv3d_o_xyz_i"};
inline constexpr WeightFamily kLinearWeight{"linear", "linear_o_i"};
inline constexpr WeightFamily kEmbeddingWeight{"embedding", "embedding_n_c"};
inline constexpr WeightFamily kChannelWeight{"channel", "channel_c"};
inline constexpr WeightFamily kBiasWeight{"bias", "bias_c"};
/// Every weight family, in the order of the schema's weight_layout values.
inline constexpr WeightFamily kWeightFamilies[] = {kConvWeight, kLinearWeight, kEmbeddingWeight,
                                                   kChannelWeight, kBiasWeight};

/// The whole dialect, in declaration order.
struct DialectSchema {
  std::string nameSpace; ///< `lattice`
  std::vector<SchemaTypeDef> types;
  std::vector<SchemaAttrDef> attrs;
  std::vector<SchemaOp> ops;

  /// The op called `name` (without `lattice.`), or nullptr.
  const SchemaOp* findOp(std::string_view name) const;
  /// The op of `kind` (not None).
  const SchemaOp& op(OpKind kind) const { return ops[static_cast<std::size_t>(kind)]; }
  /// The attribute definition with `mnemonic`, or nullptr.
  const SchemaAttrDef* findAttr(std::string_view mnemonic) const;
};

/// The IR v2 dialect schema (built once, immutable).
const DialectSchema& dialectSchema();

/// Schema spellings: `unsigned`/`string`/`type`, `tensor`/`sparse_tensor`/`weight`/`symbol`,
/// `ssa`/`symbol`, `i64_triple`/.../`packing`, `functional`/`weight`/`decompose`.
std::string_view schemaName(SchemaParameterKind kind);
std::string_view schemaName(SchemaValueType type);
std::string_view schemaName(SchemaOperandKind kind);
std::string_view schemaName(SchemaAttrKind kind);
std::string_view schemaName(SchemaAssembly assembly);

/// True for the kinds printed `#lattice.<kind><value>` with a single value (coord ... point_interpolation).
bool isEnumAttrKind(SchemaAttrKind kind);

/// `json.dumps(schema, sort_keys=True, separators=(',', ':'))` of the table (format spec sec. 12):
/// keys sorted at every level, arrays in declaration order, no whitespace, ASCII only.
std::string canonicalSchemaJson();

/// Lowercase hex SHA-256 of canonicalSchemaJson(); equals kDialectSchemaDigest.
const std::string& schemaDigest();

} // namespace lattice
