#pragma once
/// \file Attribute values and their writer text forms (format spec sec. 5): the `%.12f`-trim rule
/// for f32 scalars, Python `repr` for f64 triple elements, STRARRAY for the module string arrays,
/// and one printer per schema attribute kind.

#include "dialect/DialectSchema.h"
#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lattice {

/// An integer list attribute value (e.g. a kernel size triple).
using I64Array = std::vector<std::int64_t>;
/// A float list attribute value (e.g. a voxel size triple).
using F64Array = std::vector<double>;

/// `#lattice.packing<...>`. Dense is kind `dense` with group size 0 and empty scale dtype and mode,
/// and prints only the kind; quantized prints all four parameters.
struct PackingAttr {
  std::string kind = "dense"; ///< `dense`, `int4` or `int8`
  std::int64_t groupSize = 0; ///< > 0 when quantized
  std::string scaleDtype;     ///< `f16` or `f32` when quantized
  std::string mode;           ///< `affine` when quantized

  /// `#lattice.packing<dense>`.
  static PackingAttr dense() { return {}; }
  /// `#lattice.packing<int{bits}, group_size = G, scale_dtype = T, mode = affine>`.
  static PackingAttr affine(int bits, std::int64_t groupSize, std::string scaleDtype) {
    return {"int" + std::to_string(bits), groupSize, std::move(scaleDtype), "affine"};
  }

  friend bool operator==(const PackingAttr& a, const PackingAttr& b) {
    return a.kind == b.kind && a.groupSize == b.groupSize && a.scaleDtype == b.scaleDtype && a.mode == b.mode;
  }
  friend bool operator!=(const PackingAttr& a, const PackingAttr& b) { return !(a == b); }
};

/// An attribute value as a lowering supplies it. How it prints is decided by the schema kind of
/// the attribute it is given for, with the reference's coercions (sec. 5):
///   i64_triple: int64 (→ v,v,v) or 3 ints, or 3 doubles truncated toward zero;
///   f64_triple: int64 or double (→ v,v,v), or 3 ints or 3 doubles;
///   i64: int64 (or a double, truncated toward zero);  f32: double (or int64);
///   str and the enum kinds: std::string;  packing: PackingAttr.
/// Hold f32 values as the producer's binary64 literal (1e-5, not a widened 1e-5f: sec. 5.1).
using AttrValue = std::variant<std::int64_t, double, I64Array, F64Array, std::string, PackingAttr>;

/// One `name = value` entry supplied for an op.
struct NamedAttr {
  std::string name;
  AttrValue value;
};

/// Sec. 5.1 `_decimal_float`: `%.12f`, strip trailing zeros then the dot, `0.0` for ""/"-0", and
/// `.0` appended when no dot is left. Returns the text without the ` : f32` suffix. Non-finite
/// values give `inf.0`/`nan.0` (invalid MLIR; the attribute printer rejects them).
std::string formatDecimalFloat(double value);

/// Sec. 5.2 Python `repr(float)`: shortest round-trip digits, fixed notation for -4 < decpt <= 16,
/// exponent notation (`1e-05`, `1.5e+16`) otherwise.
std::string formatPythonFloatRepr(double value);

/// Sec. 3.1: `["a", "b"]` with `\` and `"` escaped; `[]` when empty.
std::string formatStringArray(const std::vector<std::string>& items);

/// `text` with every byte outside printable ASCII replaced by `?`, for one-line error messages.
std::string printableForMessage(std::string_view text);

/// The writer text of `value` as an attribute of schema kind `kind` (e.g. `array<i64: 1, 1, 1>`,
/// `0.00001 : f32`, `#lattice.pool_mode<avg>`). Errors (one line, without the attribute's
/// context, which the caller adds): a value of the wrong alternative, a triple without 3
/// items, non-finite floats (H1), f64 reprs without a `.` (H2), unsafe strings (H3), enum values
/// outside the schema's value set, malformed packing.
Expected<std::string> formatAttrValue(SchemaAttrKind kind, const AttrValue& value);
/// formatAttrValue appending to `out` (nothing is appended on error).
Status appendAttrValue(std::string& out, SchemaAttrKind kind, const AttrValue& value);

} // namespace lattice
